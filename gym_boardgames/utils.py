"""Small shared helpers: atomic file writes, progress bars, and the check that an optional extra is installed.

The library's long jobs show progress through :func:`progress_bar` and save through
:func:`write_bytes_atomic`; :func:`require_extra` reports a missing optional dependency in one line before
any work. The scripts' own parsers and up-front checks are in :mod:`gym_boardgames.cli`.
"""

from __future__ import annotations

import glob
import importlib
import os
import sys
import tempfile
from typing import Any


def write_bytes_atomic(path: str | os.PathLike[str], data: bytes) -> None:
    """Write ``data`` to ``path`` via a temporary file in the same folder and a rename.

    Readers see the old file or the new one, never half of one; on any error the temporary file is
    removed and ``path`` is untouched. The temporary file's name carries the writer's process id
    (``.NAME.PID.XXXX.tmp``), so a later write removes the ones left by a writer that was killed (``kill -9``
    skips every cleanup) while it leaves those of writers still running alone.
    """
    target = os.fspath(path)
    directory = os.path.dirname(os.path.abspath(target))
    base = os.path.basename(target)
    _remove_dead_writers_temps(directory, base)
    fd, tmp = tempfile.mkstemp(dir=directory, prefix=f".{base}.{os.getpid()}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        # mkstemp creates the file private (0600); give it the mode a plain open() would have.
        os.chmod(tmp, _default_file_mode() if not os.path.exists(target) else os.stat(target).st_mode & 0o777)
        os.replace(tmp, target)
    except BaseException:
        os.unlink(tmp)
        raise


def _remove_dead_writers_temps(directory: str, base: str) -> None:
    """Delete ``.BASE.PID.*.tmp`` files in ``directory`` whose writer process no longer exists."""
    start = f".{base}."
    # An unreadable folder globs to nothing: the write itself will report the folder's problem.
    for path in glob.glob(os.path.join(glob.escape(directory), glob.escape(start) + "*.tmp")):
        pid_text = os.path.basename(path)[len(start) :].split(".", 1)[0]
        if not pid_text.isdigit() or _process_exists(int(pid_text)):
            continue  # a name without a pid is not ours to judge; a live writer is still writing
        try:
            os.unlink(path)
        except OSError:
            pass  # another writer removed it first, or it is not ours to remove


def _process_exists(pid: int) -> bool:
    """Return whether a process with this id exists on this machine (signal 0 checks without sending)."""
    if pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OverflowError):
        return True  # another user's process (or an id too large to ask about): leave its file alone
    return True


def _default_file_mode() -> int:
    """0o666 less the process umask (the umask can only be read by setting it, so set it back at once)."""
    umask = os.umask(0o022)
    os.umask(umask)
    return 0o666 & ~umask


def write_text_atomic(path: str | os.PathLike[str], text: str) -> None:
    """Write ``text`` (UTF-8) to ``path`` atomically, as :func:`write_bytes_atomic`."""
    write_bytes_atomic(path, text.encode("utf-8"))


def peak_rss_mb() -> float | None:
    """Return this process's peak resident memory in MB, or None where no way to read it exists (Windows).

    Linux's ``VmHWM`` is the peak of this process image; elsewhere ``ru_maxrss`` is read (on Linux it would
    also count what the parent used before ``exec``). This module imports only the standard library, so a
    process that measures the memory of its own imports may load this file by its path alone.
    """
    try:
        with open("/proc/self/status") as status:
            return next(int(line.split()[1]) for line in status if line.startswith("VmHWM")) / 1024
    except (OSError, StopIteration):
        pass
    try:
        import resource
    except ImportError:  # Windows
        return None
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / (1024 * 1024 if sys.platform == "darwin" else 1024)


class MissingExtraError(ImportError):
    """An optional dependency (a package extra) is not installed; the message says how to install it."""


def require_extra(extra: str, *modules: str, needed_for: str = "this") -> None:
    """Import ``modules`` now, so a missing extra is reported before any long work.

    Args:
        extra: the extra's name in pyproject.toml, e.g. ``"plot"``.
        modules: the top-level modules it provides, e.g. ``"matplotlib"``.
        needed_for: what needs it, e.g. ``"--out"``, for the message.

    Raises:
        MissingExtraError: (an ``ImportError``) in one line: ``--out needs matplotlib, the 'plot' extra:
            pip install -e ".[plot]"``.
    """
    for module in modules:
        try:
            importlib.import_module(module)
        except ImportError:
            raise MissingExtraError(
                f"{needed_for} needs {module}, the '{extra}' extra: pip install -e \".[{extra}]\""
            ) from None


class _NoProgress:
    """The silent progress bar of ``progress_bar(..., enabled=False)``: no output, and no import of tqdm."""

    def update(self, n: int = 1) -> None:
        """Ignore progress."""

    def close(self) -> None:
        """Nothing to close."""

    def __enter__(self) -> _NoProgress:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def progress_bar(total: int, desc: str, enabled: bool = True) -> Any:
    """Return a tqdm progress bar on stderr (``update(n)``, ``close()``, context manager).

    tqdm is a dependency of the package, imported here on the first bar shown rather than at the top, so that
    ``import gym_boardgames`` does not pay its import (about 40 ms) and a disabled bar never does. With
    ``enabled`` false the bar is a silent stand-in.
    """
    if not enabled:
        return _NoProgress()
    from tqdm import tqdm

    # On a terminal tqdm redraws its line in place; into a log file or a pipe every redraw is appended, so there
    # it redraws at most every 2 s instead of tqdm's 10 times a second.
    tty = bool(getattr(sys.stderr, "isatty", lambda: False)())
    return tqdm(total=total, desc=desc, leave=False, dynamic_ncols=True, mininterval=0.1 if tty else 2.0)
