"""The up-front checks of a script's paths: what a write would fail on after the work, refused before it starts.

:func:`check_output_path` refuses a path the write would fail on: a folder, a missing or unwritable folder, a
link that leads nowhere, a name or path too long (the temporary name is short, so it never fails where the
final name passes). :func:`exists_message` words the refusal of a taken name, said early by
:func:`plumbing.cli.parse_checked` and, for a name taken during the run, when the write refuses it
(:func:`gym_boardgames.outputs.write_bytes_atomic` with ``replace=False``, the one guard).
"""

from __future__ import annotations

import os
import stat
import tempfile
from pathlib import PurePath
from typing import Literal

from gym_boardgames.outputs import TEMP_PREFIX

__all__ = ["check_output_path", "exists_message"]


def exists_message(path: str | os.PathLike[str], flag: str = "") -> str:
    """The one line of a taken output name: ``FLAG PATH exists: pass --overwrite to replace it``."""
    return f"{flag} {os.fspath(path)} exists: pass --overwrite to replace it".lstrip()


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
    longest = max(len(os.fsencode(target)), len(os.fsencode(folder)) + 1 + len(TEMP_PREFIX) + 17)
    if longest >= path_max:
        raise ValueError(f"{flag} {text[:60]}...: the path is too long ({longest} bytes, fewer than {path_max})")
    for part in os.fsencode(target).split(os.fsencode(os.sep)):
        if len(part) > name_max:
            raise ValueError(f"{flag} {text[:60]}...: a name in it is too long ({len(part)} bytes, at most {name_max})")


def _probe_writable(folder: str, flag: str, text: str) -> None:
    """Create and remove a temporary file in ``folder``, or raise ``ValueError`` saying why not."""
    try:
        fd, tmp = tempfile.mkstemp(dir=folder, prefix=f"{TEMP_PREFIX}{os.getpid()}.", suffix=".tmp")
    except OSError as error:
        raise ValueError(f"{flag} {text}: cannot write in the folder {folder} ({error.strerror or error})") from None
    os.close(fd)
    os.unlink(tmp)
