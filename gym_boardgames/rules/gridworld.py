"""GridWorld's maps: the text format, its checks, and the size limit; pure Python, no Gymnasium.

A map is text rows, one character per cell, ``s = row * cols + col`` with row 0 at the top:

====  ===================================================================================
char  cell
====  ===================================================================================
 .    free
 #    wall: never entered; a move into it leaves the agent in place, as the grid's edge does
 T    terminal: entering it ends the episode
 S    free, and a start cell; without any ``S`` every free non-terminal cell is a start cell
====  ===================================================================================

Example: ``gym.make("GridWorld-v0", desc=["T..#", ".#..", "....", "S..T"])``. :func:`parse_map` checks a map
given as rows or text, :func:`load_map` reads a map file, and :func:`map_from_parts` draws the map of a
``shape`` with terminal and wall states. The env (:class:`gym_boardgames.envs.gridworld.GridWorldEnv`)
builds its exact model from the rows and checks that every free cell can reach a terminal.

A grid has at most :data:`MAX_CELLS` cells (rows times columns), so that building the exact model takes well
under a second and tens of megabytes; a bigger ``shape`` or map is refused with a ``ValueError`` before
anything is allocated.
"""

from __future__ import annotations

import errno
import itertools
import os
from collections.abc import Sequence
from typing import Any

import numpy as np

from gym_boardgames.checks import check_int, read_regular_file

__all__ = [
    "EXAMPLE_4_1",
    "FREE",
    "MAP_CHARS",
    "MAX_CELLS",
    "MAX_MAP_FILE_BYTES",
    "START",
    "TERMINAL",
    "WALL",
    "load_map",
    "map_from_parts",
    "parse_map",
]

FREE, WALL, TERMINAL, START = ".", "#", "T", "S"
MAP_CHARS = (FREE, WALL, TERMINAL, START)
#: The map of Sutton & Barto's example 4.1.
EXAMPLE_4_1 = ("T...", "....", "....", "...T")
#: The largest grid, in cells (rows * cols), a 200 x 200 grid. At this size the model builds in 0.4-0.65 s
#: with slip (0.2-0.3 s without) and under 100 MB on a loaded 2-core machine; 250,000 cells took 3-4 s and
#: 700 MB with slip, and the pure-Python dynamic programming of :mod:`agents.tabular.dp` would take minutes on them.
MAX_CELLS = 40_000
#: The largest map file :func:`load_map` reads: a full-size map with generous indentation.
MAX_MAP_FILE_BYTES = 1 << 20


def _check_cell_count(cells: int, grid: str) -> None:
    """Refuse a ``grid`` of more than :data:`MAX_CELLS` cells, before anything of that size is allocated."""
    if cells > MAX_CELLS:
        raise ValueError(
            f"{grid} {cells} cells: GridWorld allows at most {MAX_CELLS} (the documented limit, MAX_CELLS)"
        )


def parse_map(desc: str | Sequence[str]) -> tuple[str, ...]:
    """Check a map and return its rows as a tuple of strings.

    Args:
        desc: the rows, as a sequence of strings or one string with a row per line. Surrounding
            whitespace of each line and blank lines are ignored, so a file or a triple-quoted string works.

    Returns:
        The rows, all the same length, made of the characters ``. # T S``.

    Raises:
        ValueError: an empty map, rows of different lengths, an unknown character, more than
            :data:`MAX_CELLS` cells, bytes that are not UTF-8 text, no terminal cell, no start cell, or a
            free cell from which no terminal can be reached (the last three when the env is built).
    """
    if isinstance(desc, bytes):
        desc = _decode_map(desc)
    lines: Any = [None]  # neither text nor rows: refused below
    if isinstance(desc, str):
        lines = desc.splitlines()
    elif isinstance(desc, (Sequence, np.ndarray)):
        # A sequence longer than any allowed map is refused before its rows are looked at.
        _check_cell_count(len(desc), f"a map of {len(desc)} rows has at least")
        lines = [_decode_map(row) if isinstance(row, bytes) else row for row in desc]
    if not all(isinstance(row, str) for row in lines):
        raise ValueError(f"desc must be a string or a sequence of strings (one per row), got {desc!r:.80}")
    rows = tuple(line.strip() for line in lines if line.strip())
    if not rows:
        raise ValueError("the map is empty: give at least one row of cells")
    width = len(rows[0])
    _check_cell_count(len(rows) * width, f"a {len(rows)} x {width} grid has")
    for r, row in enumerate(rows):
        if len(row) != width:
            raise ValueError(
                f"the map's rows must all have the same length: row 0 has {width} cells, row {r} has {len(row)}"
            )
        for c, char in enumerate(row):
            if char not in MAP_CHARS:
                raise ValueError(
                    f"unknown map character {char!r} at row {r}, column {c}: use '.' free, '#' wall, "
                    "'T' terminal, 'S' start"
                )
    return rows


def _decode_map(data: bytes) -> str:
    """Decode a map given as bytes, refusing binary data with a clear message."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as error:
        raise ValueError(
            f"the map is not text (invalid UTF-8 at byte {error.start}): a map is rows of '.', '#', 'T' and 'S'"
        ) from None


def load_map(path: str | os.PathLike[str]) -> tuple[str, ...]:
    """Read a map file (rows of ``. # T S``, see :func:`parse_map`) and return its checked rows.

    The file is checked before it is read (:func:`gym_boardgames.checks.read_regular_file`): it must be a
    regular file (not a directory, a FIFO or a device such as ``/dev/zero``) of at most
    :data:`MAX_MAP_FILE_BYTES` bytes, and its content UTF-8 text.

    Args:
        path: the map file.

    Returns:
        The rows, as :func:`parse_map` returns them.

    Raises:
        ValueError: naming the file, for a missing, unreadable, special, oversized, binary or invalid map
            (the last three checked by :func:`parse_map`; reachability is checked when the env is built).
    """
    name = os.fspath(path)
    try:
        return parse_map(read_regular_file(name, MAX_MAP_FILE_BYTES, what="a map file"))
    except (FileNotFoundError, ValueError) as error:
        missing = isinstance(error, FileNotFoundError)
        problem = f"cannot read it ({os.strerror(errno.ENOENT)})" if missing else getattr(error, "problem", error)
        raise ValueError(f"map file {name}: {problem}") from None


def map_from_parts(shape: Any, terminals: Any, walls: Any) -> tuple[str, ...]:
    """Return the map rows of a ``shape`` grid with the given terminal and wall states, checked.

    Args:
        shape: ``(rows, cols)``, two positive ints, at most :data:`MAX_CELLS` cells in all.
        terminals: the terminal states (``s = row * cols + col``), or None for the two corners ``0`` and
            ``rows * cols - 1``, as in example 4.1; at most ``rows * cols`` of them are read.
        walls: the wall states, or None for none.

    Raises:
        ValueError: on a bad shape, too many cells, a state that is not an int in range, no terminal, or a
            state that is both a terminal and a wall.
    """
    if not isinstance(shape, (tuple, list)) or len(shape) != 2:
        raise ValueError(f"shape must be (rows, cols) with two positive ints, got {shape!r}")
    rows, cols = check_int("shape[0] (rows)", shape[0], 1), check_int("shape[1] (cols)", shape[1], 1)
    _check_cell_count(rows * cols, f"a {rows} x {cols} grid has")
    n = rows * cols
    terminal_states = _state_list(terminals, n, "terminal") if terminals is not None else [0, n - 1]
    wall_states = _state_list(walls, n, "wall") if walls is not None else []
    if not terminal_states:
        raise ValueError("there must be at least one terminal state")
    if both := sorted(set(terminal_states) & set(wall_states)):
        raise ValueError(f"states {both} are both terminals and walls")
    cells = [FREE] * n
    for s in wall_states:
        cells[s] = WALL
    for s in terminal_states:
        cells[s] = TERMINAL
    return tuple("".join(cells[r * cols : (r + 1) * cols]) for r in range(rows))


def _state_list(values: Any, n: int, what: str) -> list[int]:
    """Check a list of ``what`` states of an ``n``-cell grid, reading at most ``n`` of them."""
    try:
        # At most n distinct states exist, so a longer (or endless) iterable is refused after n + 1 items.
        items = list(itertools.islice(values, n + 1))
    except TypeError:
        raise ValueError(f"{what}s must be an iterable of state indices, got {values!r:.80}") from None
    if len(items) > n:
        raise ValueError(f"more {what} states than the {n} cells of the grid")
    return [check_int(f"a {what} state", value, 0, n - 1) for value in items]
