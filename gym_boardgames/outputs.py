"""The one way a file is written: a temporary file, then published without clobbering; and the run lock.

* :func:`write_bytes_atomic` (and :func:`write_text_atomic`) writes every file the package and the scripts save:
  a temporary file in the same folder, then a publish. Readers see the old file or the new one, never half
  of one. The publish replaces a file only where that is allowed (:func:`replace_policy`): in a script
  without ``--overwrite``, a name that another program took meanwhile is kept, and the output goes to the next
  free name (``out_2.npz``), said in one line. A file this process published, or holds the lock of, is its
  own to replace.
* :func:`check_output_path` refuses, before any work, a path the write would fail on: a folder, a missing or
  unwritable folder, a link that leads nowhere, a name or path too long (the temporary name is short, so it
  never fails where the final name passes).
* :func:`next_free_path` names the first free ``stem_N.ext``.
* :func:`lock_run` holds, for the rest of the process, the lock of a file a run extends or resumes.

Standard library only. :mod:`gym_boardgames.cli` applies all of this to every script's flags.
"""

from __future__ import annotations

import contextlib
import glob
import os
import stat
import sys
import tempfile
from pathlib import PurePath
from typing import Literal

__all__ = [
    "SaveError",
    "check_output_path",
    "lock_run",
    "next_free_path",
    "own_output",
    "replace_policy",
    "saved_path",
    "write_bytes_atomic",
    "write_text_atomic",
]

#: The temporary files' prefix: ``.gbg.PID.XXXXXXXX.tmp``, 22 characters whatever the output's name.
_TEMP_PREFIX = ".gbg."
#: Whether a publish may replace a file it did not write (a script's ``--overwrite``; the library's default).
_REPLACE = [True]
#: Files this process may replace whatever the policy: those it published or holds the lock of.
_OWN: set[str] = set()
#: The run locks this process holds: the locked file's absolute path -> the open descriptor, kept until it exits.
_LOCKS: dict[str, int] = {}
#: Each path a write was asked for (absolute) -> the path it was published under, when that differs.
_SAVED_AS: dict[str, str] = {}


class SaveError(OSError):
    """A file could not be written (a full disk, a quota, a folder gone): ``could not save PATH: CAUSE``.

    An ``OSError`` (``errno``, ``strerror`` and ``filename`` are the cause's), so every ``except OSError``
    still catches it; :func:`gym_boardgames.cli.run` ends a script on one with that one line and status 1.
    The earlier file at the path, if any, is whole, and no temporary file is left.
    """

    def __str__(self) -> str:
        return f"could not save {self.filename}: {self.strerror}"


def replace_policy(replace: bool) -> None:
    """Set whether a publish may replace a file this process did not write (a script's ``--overwrite``)."""
    _REPLACE[0] = replace


def write_text_atomic(path: str | os.PathLike[str], text: str) -> str:
    """Write ``text`` (UTF-8) to ``path`` as :func:`write_bytes_atomic`; return the path written."""
    return write_bytes_atomic(path, text.encode("utf-8"))


def write_bytes_atomic(path: str | os.PathLike[str], data: bytes) -> str:
    """Write ``data`` to ``path`` via a temporary file in the same folder, then publish it; return the path written.

    On any error the temporary file is removed and ``path`` is untouched. The temporary name carries the
    writer's process id, so a later write removes those of a writer that was killed (``kill -9`` skips every
    cleanup). Where replacing is not allowed (:func:`replace_policy`) and ``path`` exists, the file is
    published under :func:`next_free_path`'s name instead, and one line on stderr says so; :func:`saved_path`
    then gives that name to a caller that saved through a library function returning nothing.

    Raises:
        SaveError: the file could not be written (``could not save PATH: No space left on device``).
    """
    target = os.path.abspath(os.fspath(path))
    directory = os.path.dirname(target)
    _remove_dead_writers_temps(directory)
    tmp = None
    try:
        fd, tmp = tempfile.mkstemp(dir=directory, prefix=f"{_TEMP_PREFIX}{os.getpid()}.", suffix=".tmp")
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        # mkstemp creates the file private (0600); give it the mode a plain open() would have.
        os.chmod(tmp, _default_file_mode() if not os.path.exists(target) else os.stat(target).st_mode & 0o777)
        written = _publish(tmp, target)
    except OSError as error:
        raise SaveError(error.errno, error.strerror or str(error), os.fspath(path)) from error
    finally:
        if tmp is not None:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(tmp)
    if written != target:
        print(f"{os.fspath(path)} was created by another program meanwhile: saved to {written}", file=sys.stderr)
        _SAVED_AS[target] = written
    else:
        _SAVED_AS.pop(target, None)
    _OWN.add(written)
    return written if os.path.isabs(os.fspath(path)) else os.path.relpath(written)


def saved_path(path: str | os.PathLike[str]) -> str:
    """Return the name the last write asked for ``path`` was published under (``path`` itself, as given, if that).

    A name another program took meanwhile sends the file to the next free name (:func:`write_bytes_atomic`);
    a script that saved through a function returning nothing (an agent's ``save``) names the real file with this.
    """
    written = _SAVED_AS.get(os.path.abspath(os.fspath(path)))
    if written is None:
        return os.fspath(path)
    return written if os.path.isabs(os.fspath(path)) else os.path.relpath(written)


def _publish(tmp: str, target: str) -> str:
    """Give ``tmp``'s file the name ``target`` (replacing only where allowed) and return the name it got."""
    if _REPLACE[0] or target in _OWN:
        os.replace(tmp, target)
        return target
    candidate = target
    while True:
        try:
            os.link(tmp, candidate)  # fails if the name exists: never replaces another program's file
            return candidate
        except FileExistsError:
            candidate = next_free_path(target)
        except OSError:  # a file system without hard links: take the name exclusively, then rename over it
            try:
                os.close(os.open(candidate, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666))
            except FileExistsError:
                candidate = next_free_path(target)
                continue
            os.replace(tmp, candidate)
            return candidate


def next_free_path(path: str) -> str:
    """Return ``path`` if nothing is there, else the first free of ``stem_2.ext``, ``stem_3.ext``, ...

    The number goes before the extension, so the file keeps the type its name says.
    """
    stem, extension = os.path.splitext(path)
    candidate, number = path, 1
    while os.path.lexists(candidate):
        number += 1
        candidate = f"{stem}_{number}{extension}"
    return candidate


def _remove_dead_writers_temps(directory: str) -> None:
    """Delete this package's temporary files in ``directory`` whose writer process no longer exists."""
    # An unreadable folder globs to nothing: the write itself will report the folder's problem.
    for path in glob.glob(os.path.join(glob.escape(directory), f"{_TEMP_PREFIX}*.tmp")):
        pid_text = os.path.basename(path)[len(_TEMP_PREFIX) :].split(".", 1)[0]
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


def own_output(path: str | os.PathLike[str]) -> None:
    """Let this process replace ``path`` whatever the policy: a file of the run it resumes."""
    _OWN.add(os.path.abspath(path))


def lock_run(path: str | os.PathLike[str], flag: str) -> None:
    """Hold, until this process exits, the lock of ``path`` (a file the run extends or resumes), or refuse.

    Two runs on one file (two ladders extending one results file, two resumes of one training state) would
    each save over the other's work; the second is refused at once. The lock is the system's (``flock`` on
    ``PATH.lock``): a run that dies releases it, so the ``.lock`` file left beside is never stale. Where
    ``fcntl`` does not exist (Windows) nothing is locked. The file is then this run's to replace.

    Raises:
        ValueError: ``FLAG PATH is in use by another run (it holds PATH.lock): wait for it to end``, or one
            line naming ``PATH.lock`` and why it cannot be opened or locked (a folder of that name, say).
    """
    target = os.path.abspath(path)
    _OWN.add(target)
    if target in _LOCKS:
        return  # this process holds it already (a script's main() called twice)
    try:
        import fcntl
    except ImportError:
        return
    lock_path = os.fspath(path) + ".lock"
    try:
        descriptor = os.open(lock_path, os.O_RDWR | os.O_CREAT, 0o666)
    except OSError as error:  # a folder of that name, an unwritable folder, a full disk
        raise ValueError(
            f"{flag} {os.fspath(path)}: cannot open its lock {lock_path}: {error.strerror or error}"
        ) from None
    try:
        fcntl.flock(descriptor, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:  # EWOULDBLOCK: another process holds it
        os.close(descriptor)
        raise ValueError(
            f"{flag} {os.fspath(path)} is in use by another run (it holds {lock_path}): wait for it to end"
        ) from None
    except OSError as error:  # a file system without locks (ENOLCK), say
        os.close(descriptor)
        raise ValueError(f"{flag} {os.fspath(path)}: cannot lock {lock_path}: {error.strerror or error}") from None
    _LOCKS[target] = descriptor


def check_output_path(path: str | os.PathLike[str], flag: str, kind: Literal["file", "dir"] = "file") -> None:
    """Check, before any work, that a script will be able to write ``path`` (a file, or a folder it creates).

    A file's folder must exist and be writable, and the path must not be a folder or a special file. A folder
    may not exist yet, but then its nearest existing ancestor must be a writable folder. Writability is probed
    by creating and removing a temporary file, which is what the real write does (``os.access`` is wrong for
    root and for read-only mounts).

    Raises:
        ValueError: one line naming ``flag``, the path and the problem.
    """
    text = os.fspath(path)
    if not text:
        raise ValueError(f"{flag}: the path is empty")
    if "\0" in text:
        raise ValueError(f"{flag} {text!r}: a path cannot contain a NUL character")
    target = os.path.abspath(text)
    _check_names(target, flag, text)
    if kind == "dir":
        if os.path.exists(target) and not os.path.isdir(target):
            raise ValueError(f"{flag} {text}: exists and is not a folder")
        ancestor = next(str(p) for p in (PurePath(target), *PurePath(target).parents) if os.path.lexists(p))
        if not os.path.isdir(ancestor):
            raise ValueError(f"{flag} {text}: cannot create the folder, {ancestor} is not a folder")
        _probe_writable(ancestor, flag, text)
        return
    if text.endswith(os.sep) or (os.altsep and text.endswith(os.altsep)) or os.path.isdir(target):
        raise ValueError(f"{flag} {text}: is a folder; give a file name")
    if os.path.exists(target) and not stat.S_ISREG(os.stat(target).st_mode):
        raise ValueError(f"{flag} {text}: exists and is not a regular file")
    folder = os.path.dirname(target)
    if not os.path.isdir(folder):
        raise ValueError(f"{flag} {text}: the folder {folder} does not exist")
    _probe_writable(folder, flag, text)


def _check_names(target: str, flag: str, text: str) -> None:
    """Refuse what a write would fail on after the work: a link that leads nowhere, a name or path too long."""
    for path in (target, *map(str, PurePath(target).parents)):
        if os.path.islink(path) and not os.path.exists(path):
            raise ValueError(f"{flag} {text}: {path} is a symbolic link that leads nowhere (dangling, or a loop)")
    folder = os.path.dirname(target)
    while not os.path.isdir(folder):
        folder = os.path.dirname(folder)
    try:
        name_max, path_max = os.pathconf(folder, "PC_NAME_MAX"), os.pathconf(folder, "PC_PATH_MAX")
    except (OSError, ValueError, AttributeError):  # no pathconf (Windows): the usual limits
        name_max, path_max = 255, 4096
    # The temporary file (22 characters) sits beside the output: the longer of the two names must fit.
    longest = max(len(os.fsencode(target)), len(os.fsencode(folder)) + 1 + len(_TEMP_PREFIX) + 17)
    if longest >= path_max:
        raise ValueError(f"{flag} {text[:60]}...: the path is too long ({longest} bytes, fewer than {path_max})")
    for part in os.fsencode(target).split(os.fsencode(os.sep)):
        if len(part) > name_max:
            raise ValueError(f"{flag} {text[:60]}...: a name in it is too long ({len(part)} bytes, at most {name_max})")


def _probe_writable(folder: str, flag: str, text: str) -> None:
    """Create and remove a temporary file in ``folder``, or raise ``ValueError`` saying why not."""
    try:
        fd, tmp = tempfile.mkstemp(dir=folder, prefix=f"{_TEMP_PREFIX}{os.getpid()}.", suffix=".tmp")
    except OSError as error:
        raise ValueError(f"{flag} {text}: cannot write in the folder {folder} ({error.strerror or error})") from None
    os.close(fd)
    os.unlink(tmp)
