"""Small shared helpers: progress bars, process pools, and the check that an optional extra is installed.

The library's long jobs show progress through :func:`progress_bar` and run workers in :func:`process_pool`
(files are written by :mod:`gym_boardgames.outputs`); :func:`require_extra` reports a missing optional
dependency in one line before any work. The scripts' own parsers and up-front checks are in :mod:`gym_boardgames.cli`.
"""

from __future__ import annotations

import importlib
import signal
import sys
from collections.abc import Callable
from typing import Any


def process_pool(workers: int, initializer: Callable[..., Any] | None = None, initargs: tuple[Any, ...] = ()) -> Any:
    """Return a ``multiprocessing`` pool of ``workers`` spawned processes that ignore Ctrl-C.

    Every pool of the package and the scripts is made here. Spawn, not fork: a worker starts clean, as on
    macOS and Windows, whatever threads this process runs. Ctrl-C reaches every process of the terminal's
    group; the workers ignore it from their first instruction (they are started while this process ignores
    it, and a new Python keeps an inherited "ignore"), so only the main process reports it (one line,
    :func:`gym_boardgames.cli.run`) and its pool stops them, where each worker used to print a traceback, even
    one still starting up. ``initializer(*initargs)`` runs in each worker.
    """
    import multiprocessing
    import threading

    main = threading.current_thread() is threading.main_thread()  # only the main thread may set a handler
    blocking = main and hasattr(signal, "pthread_sigmask")
    # Blocked too while ignored: a Ctrl-C in this window waits, and reaches this process once it is unblocked.
    mask = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT}) if blocking else None
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN) if main else None
    try:
        return multiprocessing.get_context("spawn").Pool(workers, initializer, initargs)
    finally:
        if main:
            signal.signal(signal.SIGINT, previous)
        if blocking:
            signal.pthread_sigmask(signal.SIG_SETMASK, mask)


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
