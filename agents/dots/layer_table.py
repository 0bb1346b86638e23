"""The exact layered solver: :func:`solve_layers` and the :class:`LayerTable` it fills, with its file format.

:func:`solve_layers` computes ``V`` (see :mod:`agents.dots.value`) exactly by backward induction over layers
(retrograde analysis): layer ``m`` is every drawn-edge bitmask with ``m`` edges left, and it needs only
layer ``m - 1``. It keeps bytes per bitmask (the table's one, two more while it solves), so it takes
boards of at most :data:`MAX_SOLVE_EDGES` edges (3x3 boxes has 24). The table is saved as an ``.npz`` of
format ``gym_boardgames.dots.layer_table``.
"""

from __future__ import annotations

import functools
import os
from pathlib import Path
from typing import Any

import numpy as np

from agents.dots.value import check_dots, move_value
from agents.persistence import ArraySpec, SavedFileError, load_npz, save_npz
from gym_boardgames.cancel import check_cancelled
from gym_boardgames.checks import check_int
from gym_boardgames.rules.dots import DotsAndBoxes, DotsState
from gym_boardgames.utils import progress_bar

#: The largest board :func:`solve_layers` takes: it keeps bytes per bitmask (2**26 bitmasks = 64 MB each).
MAX_SOLVE_EDGES = 26

PathLike = str | os.PathLike[str]

#: Solved tables shipped with the package, by board: ``python scripts/train_dots_boxes_q.py --experiments solve
#: --save-dir agents/data`` remakes them. Reading the 3x3 one takes about 0.06 s, solving it 2.3 s on a quiet
#: 2-core machine: it is what lets ``exact`` answer its first move at once.
SHIPPED_TABLES = {(3, 3): Path(__file__).resolve().parents[1] / "data" / "dots_3x3_table.npz"}


class LayerTable:
    """The exact ``V`` of a board for every position with at most ``last_k`` edges left.

    ``values[key]`` is ``V`` of the position whose drawn-edge bitmask is ``key`` (an int8 array over all
    ``2**E`` bitmasks), or -1 for positions with more than ``last_k`` edges left. Methods take a
    :class:`~gym_boardgames.rules.dots.DotsState` or its edge bitmask.

    Args:
        rows: box rows of the board.
        cols: box columns of the board.
        values: the int8 array described above.
        last_k: the deepest layer solved (edges left).

    Attributes:
        game: the board's rules (``V`` counts boxes, so the tie rule does not matter to it).

    Raises:
        ValueError: if ``values`` does not fit the board.
    """

    FORMAT = "gym_boardgames.dots.layer_table"
    VERSION = 1

    def __init__(self, rows: int, cols: int, values: np.ndarray, last_k: int) -> None:
        self.game = DotsAndBoxes(int(rows), int(cols))
        size = 1 << self.game.num_edges
        if values.dtype != np.int8 or values.shape != (size,):
            raise ValueError(f"values must be an int8 array of shape ({size},), got {values.dtype} {values.shape}")
        self.rows, self.cols = int(rows), int(cols)
        self.last_k, self.values = check_int("last_k", last_k, 0, self.game.num_edges), values
        self.values.flags.writeable = False

    def __repr__(self) -> str:
        return f"LayerTable(rows={self.rows}, cols={self.cols}, last_k={self.last_k})"

    def _key(self, state: DotsState | int) -> int:
        if isinstance(state, (int, np.integer)) and not isinstance(state, bool):
            key = int(state)
            if not 0 <= key <= self.game.full_key:
                raise ValueError(f"edge bitmask {key} is out of range for {self.game.num_edges} edges")
            return key
        return self.game.edge_key(state)

    def _value(self, key: int) -> int:
        value = int(self.values[key])
        if value < 0:
            left = self.game.num_edges - key.bit_count()
            raise ValueError(f"this table holds positions with at most {self.last_k} edges left, not {left}")
        return value

    def value(self, state: DotsState | int) -> int:
        """Return ``V(s)``: the boxes the player to move can still take with best play on both sides.

        Raises:
            ValueError: if the position has more than ``last_k`` edges left, or is of another board.
        """
        return self._value(self._key(state))

    def margin(self, state: DotsState | int) -> int:
        """Return ``2 V(s) - pnb(s)``: the net boxes the player to move can force from here on.

        Raises:
            ValueError: as :meth:`value`.
        """
        key = self._key(state)
        return 2 * self._value(key) - (self.game.num_boxes - self.game.completed_boxes(key))

    def move_values(self, state: DotsState | int) -> dict[int, int]:
        """Return ``f(s, a)`` for every free edge ``a``: the boxes the mover gets from here by playing ``a``.

        Raises:
            ValueError: if the children of the position are not solved (more than ``last_k + 1`` edges
                left), or it is of another board.
        """
        key = self._key(state)
        boxes_left = self.game.num_boxes - self.game.completed_boxes(key)
        moves = self.game.edge_key_successors(key)
        return {edge: move_value(self._value(child), reward, boxes_left) for edge, child, reward in moves}

    def best_moves(self, state: DotsState | int) -> list[int]:
        """Return every free edge that maximises ``f(s, a)``, ascending (empty at the end of the game).

        Raises:
            ValueError: as :meth:`move_values`.
        """
        values = self.move_values(state)
        best = max(values.values(), default=None)
        return [edge for edge, value in values.items() if value == best]

    def save(self, path: PathLike, *, replace: bool = True) -> str:
        """Write the table to an ``.npz`` file, atomically, with a format header; return the path.

        ``replace`` as :func:`agents.persistence.save_npz`'s.

        Raises:
            OSError: if the file cannot be written.
        """
        meta = {"rows": self.rows, "cols": self.cols, "last_k": self.last_k}
        # The array keeps its name "q" in the file (format version 1). LZMA makes the 3x3 table 0.8 MB where
        # deflate makes 3.8 MB, for a few more seconds of writing; reading takes about 0.06 s either way.
        arrays = {"q": self.values}
        return save_npz(
            path, arrays, format=self.FORMAT, version=self.VERSION, meta=meta, compression="lzma", replace=replace
        )

    @classmethod
    def load(cls, path: PathLike) -> LayerTable:
        """Read a table written by :meth:`save`, checking its header, shape and values.

        Raises:
            FileNotFoundError: if there is no such file.
            ValueError: (a :class:`~agents.persistence.SavedFileError`) naming the file and the problem
                if it is corrupt, foreign, of another format or version, or its content is inconsistent.
        """

        def schema(version: int, meta: dict[str, Any]) -> dict[str, ArraySpec]:
            # The board size comes from the file: check it before reading 'q'.
            rows, cols = (check_int(name, meta.get(name), 0) for name in ("rows", "cols"))
            num_edges = file_board(path, rows, cols, MAX_SOLVE_EDGES, "one solve_layers makes").num_edges
            check_int("last_k", meta.get("last_k"), 0, num_edges)
            return {"q": ArraySpec((1 << num_edges,), np.int8)}

        loaded = load_npz(path, format=cls.FORMAT, versions=(cls.VERSION,), schema=schema)
        rows, cols, last_k = (loaded.meta[name] for name in ("rows", "cols", "last_k"))
        game = DotsAndBoxes(rows, cols)
        values = loaded.arrays["q"]
        drawn = _popcounts(game.num_edges)
        solved = drawn >= game.num_edges - last_k
        in_range = np.where(solved, (values >= 0) & (values <= game.num_boxes), values == -1)
        if not in_range.all() or values[game.full_key] != 0:
            wanted = f"0..{game.num_boxes} in the solved layers (0 for the full board) and -1 in the others"
            raise SavedFileError(path, f"'q' must hold {wanted}")
        return cls(rows, cols, values, last_k)


def file_board(path: PathLike, rows: int, cols: int, max_edges: int, what: str) -> DotsAndBoxes:
    """The board a file's header names, if the rules take it and it has at most ``max_edges`` edges."""
    try:
        game = DotsAndBoxes(rows, cols)
        problem = f"at most {max_edges} edges" if game.num_edges > max_edges else None
    except ValueError as error:
        problem = str(error)
    if problem:
        raise SavedFileError(path, f"the board {rows}x{cols} is not {what} ({problem})")
    return game


def _popcounts(num_edges: int) -> np.ndarray:
    """Edges drawn in every bitmask of ``num_edges`` bits, as uint8 (built by doubling, no big temporaries)."""
    drawn = np.zeros(1 << num_edges, dtype=np.uint8)
    half = 1
    for _ in range(num_edges):
        # Bitmasks in [half, 2 * half) are those in [0, half) with one more bit set.
        np.add(drawn[:half], 1, out=drawn[half : 2 * half])
        half *= 2
    return drawn


def solve_layers(game: DotsAndBoxes, last_k: int | None = None, *, progress: bool = False) -> LayerTable:
    """Compute the exact ``V`` by backward induction over layers (retrograde analysis).

    Layer ``m`` is every bitmask with ``m`` edges left. Going from the full board (``V = 0``) up to
    ``last_k``, each layer is solved at once with numpy: for the layer's bitmasks, the ``j``-th free
    edge is the lowest set bit of the still-unvisited free edges, the child is found by indexing the
    table with ``key | bit``, and ``f`` is maximised over the ``m`` free edges. ``R(a)`` is
    ``completed(child) - completed(key)``, from a second byte per bitmask that holds the boxes complete in
    it (:meth:`~gym_boardgames.rules.dots.DotsAndBoxes.completed_boxes`, filled layer by layer).

    Args:
        game: the Dots and Boxes rules (its tie rule is irrelevant: ``V`` counts boxes).
        last_k: solve the positions with at most this many edges left; None (all positions) or a value
            at least the number of edges solves the whole game.
        progress: show a progress bar over layers.

    Returns:
        The solved :class:`LayerTable`.

    Raises:
        ValueError: if ``game`` is not Dots and Boxes, has more than :data:`MAX_SOLVE_EDGES` edges, or
            ``last_k`` is negative.
    """
    game = check_dots(game)
    num_edges, num_boxes, full = game.num_edges, game.num_boxes, game.full_key
    if num_edges > MAX_SOLVE_EDGES:
        raise ValueError(
            f"solve_layers keeps bytes per position (2**edges); {num_edges} edges is more than the "
            f"{MAX_SOLVE_EDGES} it takes"
        )
    last_k = num_edges if last_k is None else min(check_int("last_k", last_k, 0), num_edges)

    drawn = _popcounts(num_edges)
    values = np.full(1 << num_edges, -1, dtype=np.int8)  # V, or -1 on layers not solved
    done = np.zeros(1 << num_edges, dtype=np.int8)  # boxes complete in each bitmask, filled layer by layer
    values[full], done[full] = 0, num_boxes
    with progress_bar(last_k, "solving layers", progress) as bar:
        for left in range(1, last_k + 1):
            keys = np.flatnonzero(drawn == num_edges - left).astype(np.int32)
            completed = done[keys] = game.completed_boxes(keys)
            boxes_left = num_boxes - completed
            best = np.full(keys.size, -1, dtype=np.int8)
            free = keys ^ full
            for _ in range(left):
                check_cancelled()  # a big layer takes a while: stop between its edges
                low = free & -free  # the lowest free edge not yet tried, as a bit
                free ^= low
                child = keys | low
                # R(a) = boxes complete after the move minus before it (the child's layer is already filled).
                np.maximum(best, move_value(values[child], done[child] - completed, boxes_left), out=best)
            values[keys] = best
            bar.update(1)
    return LayerTable(game.rows, game.cols, values, last_k)


@functools.lru_cache(maxsize=4)
def solved_table(rows: int, cols: int, last_k: int | None = None) -> LayerTable:
    """Return a table of ``rows`` x ``cols`` boxes solved for at least the last ``last_k`` moves, once per process.

    The shipped table of the board (:data:`SHIPPED_TABLES`, every layer) is read when there is one;
    otherwise :func:`solve_layers` solves the board. Every agent, hint and script that wants a table without
    owning one takes it from here, so a process holds one copy of it.

    Args:
        rows: box rows.
        cols: box columns.
        last_k: the layers needed (default: all of them).

    Raises:
        ValueError: on a board :func:`solve_layers` refuses.
    """
    shipped = SHIPPED_TABLES.get((rows, cols))
    if shipped is not None and shipped.is_file():
        return LayerTable.load(shipped)
    return solve_layers(DotsAndBoxes(rows, cols), last_k=last_k)
