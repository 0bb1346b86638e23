"""Checks on what comes in from a caller or a file, shared by the env layer, the agents and the scripts.

Two kinds, each written once so that every message has the same shape:

* :func:`check_int` and :func:`check_number` refuse a setting that is not a number in its range, naming
  the setting, the range and the value (``episodes must be an integer >= 1, got 0``). A ``bool`` is never
  taken for a number, and NaN is never in a range.
* :func:`check_choice` and :func:`check_seat` refuse a value that is not one of its choices, naming them.
* :func:`read_regular_file` reads a whole file of bounded size, refusing a directory, a FIFO (opening one
  blocks until a writer comes) and a device such as ``/dev/zero`` (which never ends) before reading.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Sequence
from typing import Any

import numpy as np

from gym_boardgames.errors import BadFileError

__all__ = ["check_choice", "check_int", "check_number", "check_seat", "read_regular_file"]


def check_choice(name: str, value: Any, choices: Sequence[str], optional: bool = False) -> Any:
    """Return ``value`` if it is one of the strings ``choices`` (or None, if ``optional``), else raise ``ValueError``.

    The message names ``name``, the choices and the value: ``render_mode must be None or one of [...], got 'x'``.
    """
    if optional and value is None:
        return None
    if not isinstance(value, str) or value not in choices:
        raise ValueError(f"{name} must be {'None or ' if optional else ''}one of {choices}, got {value!r}")
    return value


def check_seat(value: Any, where: str) -> int | str:
    """Return an ``agent_player`` value as 0, 1 or ``"random"``, or raise ``ValueError`` naming ``where``."""
    if value == "random" and isinstance(value, str):
        return value
    if not isinstance(value, (bool, np.bool_)) and isinstance(value, (int, np.integer)) and value in (0, 1):
        return int(value)
    raise ValueError(f"{where} must be 0, 1 or 'random', got {value!r}")


def check_int(name: str, value: Any, low: int, high: int | None = None) -> int:
    """Return ``value`` as an ``int`` if it is an integer (not a bool) in ``[low, high]``.

    Args:
        name: the setting's name, for the message.
        value: the value given.
        low: the smallest accepted value.
        high: the largest accepted value, or ``None`` for no upper bound.

    Raises:
        ValueError: naming ``name``, the accepted range and ``value``.
    """
    if not isinstance(value, (bool, np.bool_)) and isinstance(value, (int, np.integer)):
        if value >= low and (high is None or value <= high):
            return int(value)
    bounds = f">= {low}" if high is None else f"in [{low}, {high}]"
    raise ValueError(f"{name} must be an integer {bounds}, got {value!r}")


def check_number(
    name: str, value: Any, low: float, high: float, *, low_open: bool = False, high_open: bool = False
) -> float:
    """Return ``value`` as a ``float`` if it is a real number (not a bool) in the interval from ``low`` to ``high``.

    Args:
        name: the setting's name, for the message.
        value: the value given.
        low: the lower end of the interval (``-math.inf`` for none).
        high: the upper end of the interval (``math.inf`` for none).
        low_open: exclude ``low`` itself (e.g. a step size in ``(0, 1]``).
        high_open: exclude ``high`` itself (e.g. a discount in ``[0, 1)``).

    Raises:
        ValueError: naming ``name``, the interval and ``value``; NaN is in no interval.
    """
    if not isinstance(value, (bool, np.bool_)) and isinstance(value, (int, float, np.integer, np.floating)):
        above = value > low if low_open else value >= low
        below = value < high if high_open else value <= high
        if above and below:  # both False for NaN
            return float(value)
    interval = f"{'(' if low_open else '['}{low}, {high}{')' if high_open else ']'}"
    raise ValueError(f"{name} must be a number in {interval}, got {value!r}")


def read_regular_file(
    path: str | os.PathLike[str], max_bytes: int, what: str = "a saved file", limit_name: str | None = None
) -> bytes:
    """Read the whole regular file ``path`` if it holds at most ``max_bytes`` bytes.

    The file is opened without blocking and checked through the open descriptor, so a FIFO cannot hang
    the read and the file checked is the file read; the read stops after ``max_bytes + 1`` bytes even if
    the file grows meanwhile.

    Args:
        path: the file.
        max_bytes: the largest accepted size, in bytes.
        what: what the file should be, for the messages (``"is a directory, not a saved file"``).
        limit_name: the caller's name for ``max_bytes``, added to the too-large message so that it says which
            setting reads a larger file (``"... more than the limit of 100 (max_file_bytes)"``).

    Returns:
        The file's bytes.

    Raises:
        FileNotFoundError: naming the file, if there is none.
        BadFileError: (a ``ValueError``) naming the file and the problem: a directory, a special file, more
            than ``max_bytes`` bytes, or unreadable.
    """
    where = os.fspath(path)
    check_int(limit_name or "max_bytes", max_bytes, 1)
    setting = f" ({limit_name})" if limit_name else ""
    try:
        fd = os.open(where, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except FileNotFoundError:
        raise FileNotFoundError(f"{where}: no such file") from None
    except IsADirectoryError:
        raise BadFileError(where, f"is a directory, not {what}") from None
    except (OSError, ValueError) as error:  # ValueError: a NUL byte in the path
        raise BadFileError(where, f"cannot be read ({getattr(error, 'strerror', None) or error})") from None
    try:
        mode, size = (info := os.fstat(fd)).st_mode, info.st_size
        if stat.S_ISDIR(mode):
            raise BadFileError(where, f"is a directory, not {what}")
        if not stat.S_ISREG(mode):
            raise BadFileError(where, f"is not a regular file (a {_file_kind(mode)}), not {what}")
        if size > max_bytes:
            raise BadFileError(where, f"is {size} bytes, more than the limit of {max_bytes}{setting}")
        chunks: list[bytes] = []
        remaining = max_bytes + 1
        while remaining > 0 and (chunk := os.read(fd, remaining)):
            chunks.append(chunk)
            remaining -= len(chunk)
    except OSError as error:
        raise BadFileError(where, f"cannot be read ({error.strerror or error})") from None
    finally:
        os.close(fd)
    data = b"".join(chunks)
    if len(data) > max_bytes:
        raise BadFileError(where, f"is more than the limit of {max_bytes} bytes{setting}")
    return data


def _file_kind(mode: int) -> str:
    kinds = ((stat.S_ISFIFO, "FIFO"), (stat.S_ISCHR, "character device"), (stat.S_ISBLK, "block device"))
    return next((name for test, name in kinds if test(mode)), "socket" if stat.S_ISSOCK(mode) else "special file")


def check_action(action: Any, num_actions: int, meaning: str = "", agent: str | None = None) -> int:
    """TEMPORARY (lead's stand-in until the checks branch lands): the env's check, naming ``agent``."""
    from gym_boardgames.envs.base import check_action as env_check

    try:
        return env_check(action, num_actions, meaning)
    except ValueError as error:
        if agent is None:
            raise
        raise type(error)(f"agent {agent} played {action!r}: {error}") from None
