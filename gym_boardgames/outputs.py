"""The one way a file is written: a temporary file, then a publish that replaces only when asked; and the run lock.

* :func:`write_bytes_atomic` (and :func:`write_text_atomic`) writes every file the package and the scripts save:
  a temporary file in the same folder, flushed to the disk, then a publish. Readers see the old file or the new
  one, never half of one. ``replace`` is the caller's, passed with each write (nothing else changes what a
  write does): ``True`` (the default) renames over the name; ``False`` publishes with a hard link, which the
  system refuses atomically when the name is taken, so a file that is there, or that another program makes
  while this one works, is never replaced (:class:`SaveError`, ``File exists``). A script without
  ``--overwrite`` writes with ``replace=False``; its up-front check of the same condition only says it sooner.
* :func:`lock_run` holds, for the rest of the process, the lock of a file a run extends or resumes.

Standard library only. The scripts' plumbing (``scripts/plumbing/cli.py``) checks every script's paths before
any work, and each script passes its ``--overwrite`` to its writes as ``replace``.
"""

from __future__ import annotations

import contextlib
import glob
import os
import tempfile

__all__ = ["TEMP_PREFIX", "SaveError", "lock_run", "write_bytes_atomic", "write_text_atomic"]

#: The temporary files' prefix: ``.gbg.PID.XXXXXXXX.tmp``, 22 characters whatever the output's name.
TEMP_PREFIX = ".gbg."
#: The run locks this process holds: the locked file's absolute path -> the open descriptor, kept until it exits.
_LOCKS: dict[str, int] = {}


class SaveError(OSError):
    """A file could not be written (a full disk, a quota, a folder gone, a name taken): ``could not save PATH: CAUSE``.

    An ``OSError`` (``errno``, ``strerror`` and ``filename`` are the cause's: ``errno.EEXIST`` for a name a
    write with ``replace=False`` found taken), so every ``except OSError`` still catches it; the scripts' entry
    ends a script on one with that one line and status 1. The earlier file at the path, if any, is whole, and
    no temporary file is left.
    """

    def __str__(self) -> str:
        return f"could not save {self.filename}: {self.strerror}"


def write_text_atomic(path: str | os.PathLike[str], text: str, *, replace: bool = True) -> str:
    """Write ``text`` (UTF-8) to ``path`` as :func:`write_bytes_atomic`; return the path written."""
    return write_bytes_atomic(path, text.encode("utf-8"), replace=replace)


def write_bytes_atomic(path: str | os.PathLike[str], data: bytes, *, replace: bool = True) -> str:
    """Write ``data`` to ``path`` via a temporary file in the same folder, then publish it; return the path written.

    On any error the temporary file is removed and ``path`` is untouched. The temporary name carries the
    writer's process id, so a later write removes those of a writer that was killed (``kill -9`` skips every
    cleanup).

    Args:
        path: the file to write.
        data: its bytes.
        replace: replace a file at ``path`` (the default); with ``False`` a taken name is refused at the
            publish, atomically, whoever took it and whenever (a hard link, which never replaces).

    Raises:
        SaveError: the file could not be written (``could not save PATH: No space left on device``), or
            ``replace`` is False and ``path`` exists (``could not save PATH: File exists``, ``errno.EEXIST``).
    """
    target = os.path.abspath(os.fspath(path))
    directory = os.path.dirname(target)
    _remove_dead_writers_temps(directory)
    tmp = None
    try:
        fd, tmp = tempfile.mkstemp(dir=directory, prefix=f"{TEMP_PREFIX}{os.getpid()}.", suffix=".tmp")
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        # mkstemp creates the file private (0600); give it the mode a plain open() would have.
        os.chmod(tmp, _default_file_mode() if not os.path.exists(target) else os.stat(target).st_mode & 0o777)
        _publish(tmp, target, replace)
    except OSError as error:
        raise SaveError(error.errno, error.strerror or str(error), os.fspath(path)) from error
    finally:
        if tmp is not None:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(tmp)
    return os.fspath(path)


def _publish(tmp: str, target: str, replace: bool) -> None:
    """Give ``tmp``'s file the name ``target``; without ``replace``, FileExistsError if the name is taken."""
    if replace:
        os.replace(tmp, target)
        return
    try:
        os.link(tmp, target)  # atomic, and fails on a taken name: never replaces a file
    except OSError:  # taken (the exclusive open below refuses it too), or a file system without hard links
        os.close(os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666))
        os.replace(tmp, target)


def _remove_dead_writers_temps(directory: str) -> None:
    """Delete this package's temporary files in ``directory`` whose writer process no longer exists."""
    # An unreadable folder globs to nothing: the write itself will report the folder's problem.
    for path in glob.glob(os.path.join(glob.escape(directory), f"{TEMP_PREFIX}*.tmp")):
        pid_text = os.path.basename(path)[len(TEMP_PREFIX) :].split(".", 1)[0]
        if pid_text.isdigit() and not _process_exists(int(pid_text)):
            with contextlib.suppress(OSError):  # another writer removed it first
                os.unlink(path)


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


def lock_run(path: str | os.PathLike[str], flag: str) -> None:
    """Hold, until this process exits, the lock of ``path`` (a file the run extends or resumes), or refuse.

    Two runs on one file (two ladders extending one results file, two resumes of one training state) would
    each save over the other's work; the second is refused at once. The lock is the system's (``flock`` on
    ``PATH.lock``): a run that dies releases it, so the ``.lock`` file left beside is never stale. Where
    ``fcntl`` does not exist (Windows) nothing is locked.

    Raises:
        ValueError: ``FLAG PATH is in use by another run (it holds PATH.lock): wait for it to end``, or one
            line naming ``PATH.lock`` and why it cannot be opened or locked (a folder of that name, say).
    """
    target = os.path.abspath(path)
    if target in _LOCKS:
        return  # this process holds it already (a script's main() called twice)
    try:
        import fcntl
    except ImportError:
        return
    lock_path = os.fspath(path) + ".lock"
    descriptor = None
    try:
        descriptor = os.open(lock_path, os.O_RDWR | os.O_CREAT, 0o666)
        fcntl.flock(descriptor, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError as error:  # another run holds it (EWOULDBLOCK); a folder of that name; no locks (ENOLCK)
        if descriptor is not None:
            os.close(descriptor)
        if isinstance(error, BlockingIOError):
            why = f" is in use by another run (it holds {lock_path}): wait for it to end"
        else:
            why = f": cannot {'lock' if descriptor is not None else 'open its lock'} {lock_path}: {error.strerror}"
        raise ValueError(f"{flag} {os.fspath(path)}{why}") from None
    _LOCKS[target] = descriptor
