"""Small shared helpers: atomic file writes and optional progress bars."""

from __future__ import annotations

import os
import sys
import tempfile
from typing import Any


def write_bytes_atomic(path: str | os.PathLike[str], data: bytes) -> None:
    """Write ``data`` to ``path`` via a temporary file in the same folder and a rename.

    Readers see the old file or the new one, never half of one; on any error the temporary file is
    removed and ``path`` is untouched.
    """
    target = os.fspath(path)
    directory = os.path.dirname(os.path.abspath(target))
    fd, tmp = tempfile.mkstemp(dir=directory, prefix=f".{os.path.basename(target)}.", suffix=".tmp")
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


def _default_file_mode() -> int:
    """0o666 less the process umask (the umask can only be read by setting it, so set it back at once)."""
    umask = os.umask(0o022)
    os.umask(umask)
    return 0o666 & ~umask


def write_text_atomic(path: str | os.PathLike[str], text: str) -> None:
    """Write ``text`` (UTF-8) to ``path`` atomically, as :func:`write_bytes_atomic`."""
    write_bytes_atomic(path, text.encode("utf-8"))


class _NoProgress:
    """Stands in for a tqdm bar when tqdm is not installed."""

    def update(self, n: int = 1) -> None:
        """Ignore progress."""

    def close(self) -> None:
        """Nothing to close."""

    def __enter__(self) -> _NoProgress:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


_warned_no_tqdm = False


def progress_bar(total: int, desc: str, enabled: bool = True) -> Any:
    """Return a tqdm progress bar (``update(n)``, ``close()``, context manager), or a silent stand-in.

    tqdm is an optional extra (``pip install -e '.[progress]'``); without it the first call prints one
    line to stderr saying how to get bars, and the work runs as usual.
    """
    global _warned_no_tqdm
    if not enabled:
        return _NoProgress()
    try:
        from tqdm import tqdm
    except ImportError:
        if not _warned_no_tqdm:
            print("(no progress bars: tqdm is not installed; pip install -e '.[progress]')", file=sys.stderr)
            _warned_no_tqdm = True
        return _NoProgress()
    return tqdm(total=total, desc=desc, leave=False, dynamic_ncols=True)
