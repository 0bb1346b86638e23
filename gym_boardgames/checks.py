"""Checks on what comes in from a caller or a file, shared by the env layer, the agents and the scripts.

Each kind is written once, so that every door refuses a value with the same one-line message:

* :func:`check_action` refuses a move that is not an integer in the action space, and :func:`check_legal` one
  that the position does not allow; the envs, the vector envs, the PettingZoo envs, the rules, the arena and the
  play session all call them, and with ``agent=`` the message names the agent that played it; :func:`check_move`
  is the two in a row, for an agent's move.
  :data:`PLAIN_INTEGER_TYPES` are the types a batch of moves may hold on the vector envs' fast path.
* :func:`check_int`, :func:`check_number` and :func:`check_bool` refuse a setting that is not a number in its
  range (or not a bool), naming the setting, the range and the value (``episodes must be an integer >= 1, got
  0``). A ``bool`` is never taken for a number, and NaN is never in a range.
* :func:`check_choice` and :func:`check_seat` refuse a value that is not one of its choices, naming them.
* Every value is written into a message by :func:`~gym_boardgames.errors.shown`, cut to a bounded length.
* :func:`read_regular_file` reads a whole file of bounded size, refusing a directory, a FIFO (opening one
  blocks until a writer comes) and a device such as ``/dev/zero`` (which never ends) before reading.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Sequence
from typing import Any, NoReturn

import numpy as np

from gym_boardgames.errors import ActionTypeError, BadFileError, shown

__all__ = [
    "PLAIN_INTEGER_TYPES",
    "as_integer",
    "check_action",
    "check_bool",
    "check_choice",
    "check_int",
    "check_legal",
    "check_move",
    "check_number",
    "check_seat",
    "read_regular_file",
]

#: The integer types taken as actions without further checks (bool is left out on purpose).
PLAIN_INTEGER_TYPES = frozenset({int, np.int64, np.int32, np.int16, np.int8, np.uint8, np.uint16, np.uint32, np.uint64})


def _refuse(name: str, wanted: str, value: Any) -> NoReturn:
    """Raise the one message of a bad setting: ``{name} must be {wanted}, got {value!r}``, the value cut (shown)."""
    raise ValueError(f"{name} must be {wanted}, got {shown(value)}")


def _played(agent: str | None, value: Any) -> str:
    """The start of a move's refusal: ``action 9 is`` or, naming who played it, ``agent mcts:10 played 9, which is``.

    The value is :func:`~gym_boardgames.errors.shown`: a 5 MB string played as a move is cut, an integer of
    5,000 digits is named by its size.
    """
    return f"action {shown(value)} is" if agent is None else f"agent {agent} played {shown(value)}, which is"


def check_action(action: Any, num_actions: int, meaning: str = "", agent: str | None = None) -> int:
    """Return ``action`` as an int in ``0 .. num_actions - 1``: the one check of a move, wherever it enters.

    Python and numpy integers and 0-d integer arrays are actions; booleans are not (``True`` as a move is
    almost always a bug, not cell 1), nor are floats, strings, ``None`` or arrays of one value or more. The
    envs, the vector envs, the PettingZoo envs, the rules, the arena and the play session call this, so a bad
    move reads the same everywhere: ``action True is not an integer in 0..8``.

    Args:
        action: the move to check.
        num_actions: ``n`` of the ``Discrete(n)`` action space.
        meaning: what the actions mean, added to the message in brackets (``"0 stick, 1 hit"``).
        agent: the name of the agent that played the move (``"mcts:10"``, ``"random"``), or None for the
            caller's own move; the message then starts ``agent mcts:10 played True, which is ...``.

    Returns:
        the action as a Python int.

    Raises:
        ActionTypeError: (a ``TypeError`` and a ``ValueError``) if ``action`` is not an integer.
        ValueError: if it is an integer outside ``0 .. num_actions - 1``.
    """
    if type(action) in PLAIN_INTEGER_TYPES and 0 <= action < num_actions:  # the common case, checked cheaply
        return int(action)
    value = as_integer(action)
    if value is not None and 0 <= value < num_actions:
        return value
    names = f" ({meaning})" if meaning else ""
    error = ValueError if value is not None else ActionTypeError
    shown_as = action if value is None else value
    raise error(f"{_played(agent, shown_as)} not an integer in 0..{num_actions - 1}{names}")


def as_integer(value: Any) -> int | None:
    """Return the Python int that ``value`` is as a move, or None if it is no integer (:func:`check_action`'s rule).

    Python and numpy integers and 0-d integer arrays are integers; booleans are not. The number itself is
    taken: an ``int`` subclass's own ``__int__``, ``__index__`` or comparisons are never called, and a numpy
    integer whose ``int()`` raises is no integer.
    """
    if isinstance(value, np.ndarray) and value.shape == ():
        value = value[()]
    if not isinstance(value, (int, np.integer)) or isinstance(value, (bool, np.bool_)):
        return None
    try:
        return int.__int__(value if isinstance(value, int) else int(value))
    except Exception:  # noqa: BLE001  (a user's subclass: no move)
        return None


def check_legal(game: Any, state: Any, action: int, agent: str | None = None) -> int:
    """Return ``action`` (an int of the action space) if it is legal in ``state``, else raise ``ValueError``.

    The message lists the legal actions, or says that the game is over: ``action 4 is an illegal move here:
    legal actions are [0, 1, 2]``; with ``agent`` it starts ``agent mcts:10 played 4, which is ...``. A game
    without the envs' ``is_legal`` is asked for its ``legal_actions``.
    """
    if game.is_legal(state, action) if hasattr(game, "is_legal") else action in game.legal_actions(state):
        return action
    legal = list(game.legal_actions(state))
    why = f"legal actions are {legal}" if legal else "the game is over"
    raise ValueError(f"{_played(agent, action)} an illegal move here: {why}")


def check_move(game: Any, state: Any, move: Any, agent: str | None = None) -> int:
    """Return ``move`` as an int if it is an action of ``game`` and legal in ``state``: an agent's move, checked.

    :func:`check_action` then :func:`check_legal`, with ``agent`` (the name of who played it) in both messages:
    the arena, the play session, the vector env's opponent and the graders take a move so.
    """
    return check_legal(game, state, check_action(move, game.num_actions, agent=agent), agent)


def check_choice(name: str, value: Any, choices: Sequence[str], optional: bool = False) -> Any:
    """Return ``value`` if it is one of the strings ``choices`` (or None, if ``optional``), else raise ``ValueError``.

    The message names ``name``, the choices and the value: ``render_mode must be None or one of [...], got 'x'``.
    """
    if (optional and value is None) or (isinstance(value, str) and value in choices):
        return value
    _refuse(name, f"{'None or ' if optional else ''}one of {choices}", value)


def check_bool(name: str, value: Any) -> bool:
    """Return ``value`` as a ``bool`` if it is one (Python or numpy), else raise ``ValueError`` (``1`` is no bool)."""
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    _refuse(name, "True or False", value)


def check_seat(value: Any, where: str) -> int | str:
    """Return an ``agent_player`` value as 0, 1 or ``"random"``, or raise ``ValueError`` naming ``where``."""
    if value == "random" and isinstance(value, str):
        return value
    if not isinstance(value, (bool, np.bool_)) and isinstance(value, (int, np.integer)) and value in (0, 1):
        return int(value)
    _refuse(where, "0, 1 or 'random'", value)


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
    _refuse(name, f"an integer {f'>= {low}' if high is None else f'in [{low}, {high}]'}", value)


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
    _refuse(name, f"a number in {'(' if low_open else '['}{low}, {high}{')' if high_open else ']'}", value)


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
    data = _read_bounded(where, max_bytes, what, f" ({limit_name})" if limit_name else "")
    if isinstance(data, str):
        raise BadFileError(where, data)
    return data


def _read_bounded(where: str, max_bytes: int, what: str, setting: str) -> bytes | str:
    """:func:`read_regular_file`'s read: the file's bytes, or what is wrong with it (one line)."""
    try:
        fd = os.open(where, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except FileNotFoundError:
        raise FileNotFoundError(f"{where}: no such file") from None
    except IsADirectoryError:
        return f"is a directory, not {what}"
    except (OSError, ValueError) as error:  # ValueError: a NUL byte in the path
        return f"cannot be read ({getattr(error, 'strerror', None) or error})"
    try:
        mode, size = (info := os.fstat(fd)).st_mode, info.st_size
        if stat.S_ISDIR(mode):
            return f"is a directory, not {what}"
        if not stat.S_ISREG(mode):
            return f"is not a regular file (a {_file_kind(mode)}), not {what}"
        if size > max_bytes:
            return f"is {size} bytes, more than the limit of {max_bytes}{setting}"
        chunks: list[bytes] = []
        remaining = max_bytes + 1
        while remaining > 0 and (chunk := os.read(fd, remaining)):
            chunks.append(chunk)
            remaining -= len(chunk)
    except OSError as error:
        return f"cannot be read ({error.strerror or error})"
    finally:
        os.close(fd)
    data = b"".join(chunks)
    return data if len(data) <= max_bytes else f"is more than the limit of {max_bytes} bytes{setting}"


def _file_kind(mode: int) -> str:
    kinds = ((stat.S_ISFIFO, "FIFO"), (stat.S_ISCHR, "character device"), (stat.S_ISBLK, "block device"))
    return next((name for test, name in kinds if test(mode)), "socket" if stat.S_ISSOCK(mode) else "special file")
