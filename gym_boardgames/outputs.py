"""Output files a script may write without losing anything: checked before any work, reserved, locked.

* :func:`check_output_path` refuses, before any work, a path the final write would fail on: a folder, a
  missing or unwritable folder, a link that leads nowhere, a name or path too long.
* :func:`check_new_output`, :func:`free_path` and :func:`reserve_output` take an output's name when a run starts
  (an empty file created exclusively), so two runs in one folder never write the same file;
  :func:`release_reservations` frees the names a run never wrote.
* :func:`check_not_an_input` refuses an output that is one of the script's inputs.
* :func:`lock_run` holds a file's lock (``flock``) for the rest of the process.

:mod:`gym_boardgames.cli` re-exports all of them for the scripts. Standard library only.
"""

from __future__ import annotations

import argparse
import atexit
import contextlib
import os
import stat
import tempfile
from pathlib import PurePath
from typing import Any, Literal

__all__ = [
    "check_new_output",
    "check_not_an_input",
    "check_output_path",
    "default_output",
    "free_path",
    "lock_run",
    "release_reservations",
    "reserve_output",
]


def check_new_output(path: str | os.PathLike[str], flag: str, overwrite: bool) -> None:
    """Check, before any work, that a script can write ``path`` and will not replace a file by surprise.

    Runs :func:`check_output_path` first (so a folder or an unwritable place is
    reported as such). Then, unless ``overwrite`` is true, it reserves the name (:func:`reserve_output`): a
    path that exists, or that another run has reserved meanwhile, is refused.

    Args:
        path: the output file the user gave.
        flag: the option it came from, e.g. ``"--out"``, for the message.
        overwrite: the script's ``--overwrite`` flag.

    Raises:
        ValueError: one line naming ``flag`` and the path: ``--out x.npz exists: pass --overwrite to replace it``.
    """
    check_output_path(path, flag)
    if overwrite or _is_reserved(path):
        return
    try:
        reserve_output(path)
    except FileExistsError:
        raise ValueError(f"{flag} {os.fspath(path)} exists: pass --overwrite to replace it") from None
    except OSError as error:
        raise ValueError(f"{flag} {os.fspath(path)}: cannot create it ({error.strerror or error})") from None


def check_not_an_input(out: str | os.PathLike[str] | None, inputs: dict[str, Any]) -> None:
    """Refuse an output that is one of the script's own inputs, which writing it would replace.

    Args:
        out: the ``--out`` path, or None.
        inputs: the input flag (or argument name) -> a path or a list of paths (None entries are skipped).
            Paths are compared after resolving links, so ``./x`` and ``x``, or a link to ``x``, are ``x``.

    Raises:
        ValueError: ``--out F is also --labels: writing it would replace the script's own input``.
    """
    if out is None:
        return
    target = os.path.realpath(out)
    for flag, paths in inputs.items():
        for path in paths if isinstance(paths, (list, tuple)) else [paths]:
            if path is not None and os.path.realpath(path) == target:
                raise ValueError(
                    f"--out {os.fspath(out)} is also {flag}: writing it would replace the script's own input"
                )


#: The outputs this process reserved: absolute path -> (device, inode) of the empty file that holds the name.
_RESERVED: dict[str, tuple[int, int]] = {}


def reserve_output(path: str | os.PathLike[str]) -> None:
    """Take the name ``path`` for this run: create it, empty, only if nothing is there (atomically, ``O_EXCL``).

    Two runs started together in one folder then never pick the same output: the second finds the name taken
    and is refused, or takes the next free name (:func:`free_path`). The output is written over the empty
    file at the end, atomically. If the run ends without writing it (an error, a refusal, Ctrl-C), the empty
    file is removed (:func:`release_reservations`, also at exit).

    Raises:
        FileExistsError: if anything is at ``path``.
        OSError: if it cannot be created.
    """
    descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
    try:
        made = os.fstat(descriptor)
    finally:
        os.close(descriptor)
    if not _RESERVED:
        atexit.register(release_reservations)
    _RESERVED[os.path.abspath(path)] = (made.st_dev, made.st_ino)


def _is_reserved(path: str | os.PathLike[str]) -> bool:
    """Whether this process reserved ``path`` and it is still the empty file it made."""
    ident = _RESERVED.get(os.path.abspath(path))
    try:
        found = os.stat(path)
    except OSError:
        return False
    return ident == (found.st_dev, found.st_ino) and found.st_size == 0


def release_reservations() -> None:
    """Remove the empty files of :func:`reserve_output` that no output has replaced; forget them all."""
    for path in list(_RESERVED):
        if _is_reserved(path):
            with contextlib.suppress(OSError):
                os.remove(path)
    _RESERVED.clear()


#: The run locks this process holds (open descriptors), kept until it exits.
_LOCKS: list[int] = []


def lock_run(path: str | os.PathLike[str], what: str = "run") -> None:
    """Hold, until this process exits, the lock of the file ``path`` (``PATH.lock``), or refuse at once.

    A training run holds it on its training state, so that two runs (two ``--resume`` of one state, or a
    resume beside the run still writing it) never train on and save over the same file. The lock is the
    system's (``flock``): a run that dies releases it, and the ``.lock`` file left beside is never stale.
    Where ``fcntl`` does not exist (Windows) nothing is locked.

    Raises:
        ValueError: naming ``path`` if another process holds its lock.
    """
    try:
        import fcntl
    except ImportError:
        return
    lock_path = os.fspath(path) + ".lock"
    descriptor = os.open(lock_path, os.O_RDWR | os.O_CREAT, 0o666)
    try:
        fcntl.flock(descriptor, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        os.close(descriptor)
        raise ValueError(
            f"{os.fspath(path)} is in use by another {what} (it holds {lock_path}): wait for it to end"
        ) from None
    _LOCKS.append(descriptor)


def free_path(path: str) -> str:
    """Reserve and return ``path`` if nothing is there, else the first free of ``stem_2.ext``, ``stem_3.ext``, ...

    ``td_tictactoe.npz`` becomes ``td_tictactoe_2.npz``: the number goes before the extension, so the file
    keeps the type its name says. Each name is taken with :func:`reserve_output`, so two runs started together
    get two names.

    Raises:
        OSError: if a free name cannot be created (an unwritable folder).
    """
    stem, extension = os.path.splitext(path)
    candidate, number = path, 1
    while True:
        try:
            reserve_output(candidate)
            return candidate
        except FileExistsError:
            number += 1
            candidate = f"{stem}_{number}{extension}"


def default_output(args: argparse.Namespace, default: str) -> None:
    """Settle ``args.out`` when ``--out`` was not given, and ``args.out_note``, a line to print if set.

    A second run of a script with a default output file (as README's first command) keeps the first
    run's file and saves to the next free numbered name (:func:`free_path`), unless ``args.overwrite``:
    then ``default`` itself is replaced. ``args.out_note`` is None unless the run saves elsewhere than
    ``default``, when it says where and how to replace ``default`` instead.

    Args:
        args: the parsed command line, with ``out`` (None when not given) and ``overwrite``.
        default: the script's default output file, e.g. ``"td_tictactoe.npz"``.

    Raises:
        ValueError: the file chosen cannot be written (:func:`check_output_path`).
    """
    args.out_note = None
    if args.out is None:
        check_output_path(default, "--out")
        try:
            args.out = default if args.overwrite else free_path(default)
        except OSError as error:
            raise ValueError(f"--out {default}: cannot create it ({error.strerror or error})") from None
        check_output_path(args.out, "--out")
        if args.out != default:
            args.out_note = (
                f"{default} exists, so this run saves to {args.out} (--out {default} --overwrite replaces it)"
            )


def check_output_path(path: str | os.PathLike[str], flag: str, kind: Literal["file", "dir"] = "file") -> None:
    """Check, before any work, that a script will be able to write ``path``.

    A file is written atomically (a temporary file in the same folder, then a rename), so its folder must
    exist and be writable, and the path must not be a folder or a special file. A folder (``kind="dir"``)
    may not exist yet (the script creates it), but then its nearest existing ancestor must be a writable
    folder; if it exists it must be a writable folder. Writability is probed by creating and removing a
    temporary file, which is what the real write will do (``os.access`` is wrong for root and for
    read-only mounts).

    Args:
        path: the path the user gave.
        flag: the option it came from, e.g. ``"--out"``, for the message.
        kind: ``"file"`` or ``"dir"``.

    Raises:
        ValueError: one line naming ``flag``, the path and the problem.
    """
    if kind not in ("file", "dir"):
        raise ValueError(f"kind must be 'file' or 'dir', got {kind!r}")
    text = os.fspath(path)
    if not text:
        raise ValueError(f"{flag}: the path is empty")
    if "\0" in text:
        raise ValueError(f"{flag} {text!r}: a path cannot contain a NUL character")
    target = os.path.abspath(text)
    _check_names(target, flag, text)
    if kind == "dir":
        if os.path.exists(target):
            if not os.path.isdir(target):
                raise ValueError(f"{flag} {text}: exists and is not a folder")
            _probe_writable(target, flag, text)
            return
        ancestor = next(str(path) for path in PurePath(target).parents if os.path.lexists(path))
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
    """Refuse what a write would fail on after the work: a link that leads nowhere, a name or path too long.

    A symbolic link in the path that is dangling, or part of a loop, makes ``exists`` say False, so it would
    pass as "not there yet" and fail at the final write.
    """
    for path in (target, *map(str, PurePath(target).parents)):
        if os.path.islink(path) and not os.path.exists(path):
            raise ValueError(f"{flag} {text}: {path} is a symbolic link that leads nowhere (dangling, or a loop)")
    encoded = os.fsencode(target)
    folder = os.path.dirname(target)
    while not os.path.isdir(folder):
        folder = os.path.dirname(folder)
    try:
        name_max, path_max = os.pathconf(folder, "PC_NAME_MAX"), os.pathconf(folder, "PC_PATH_MAX")
    except (OSError, ValueError, AttributeError):  # no pathconf (Windows): the usual limits
        name_max, path_max = 255, 4096
    if len(encoded) >= path_max:
        raise ValueError(f"{flag} {text[:60]}...: the path is too long ({len(encoded)} bytes, fewer than {path_max})")
    for part in encoded.split(os.fsencode(os.sep)):
        if len(part) > name_max:
            raise ValueError(f"{flag} {text[:60]}...: a name in it is too long ({len(part)} bytes, at most {name_max})")


def _probe_writable(folder: str, flag: str, text: str) -> None:
    """Create and remove a temporary file in ``folder``, or raise ``ValueError`` saying why not."""
    try:
        fd, tmp = tempfile.mkstemp(dir=folder, prefix=".write-check.", suffix=".tmp")
    except OSError as error:
        reason = error.strerror or str(error)
        raise ValueError(f"{flag} {text}: cannot write in the folder {folder} ({reason})") from None
    os.close(fd)
    os.unlink(tmp)
