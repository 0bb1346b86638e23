"""Dots and Boxes agents: four bots, the exact layered solver and the layered online value learner.

These reproduce a student study of Dots and Boxes on 3x3 boxes (4x4 dots, 24 edges). Edge numbering is
that of :mod:`gym_boardgames.rules.dots`; a position is keyed by its drawn-edge bitmask
(:meth:`DotsAndBoxes.edge_key <gym_boardgames.rules.dots.DotsAndBoxes.edge_key>`, bit ``e`` = edge ``e``).

The value function
------------------
``V(s)`` is the number of boxes the player to move can still take from ``s`` to the end when both sides
play to maximise their own boxes. It depends on the drawn edges only: the score so far and the name of
the player to move do not change the best move, so one table serves both sides. With ``R(a)`` the boxes
edge ``a`` completes (0, 1 or 2), ``s_a`` the position after it and ``pnb(s)`` the boxes not yet taken::

    f(s, a) = V(s_a) + R(a)       if R(a) > 0   (the mover moves again)
    f(s, a) = pnb(s) - V(s_a)     if R(a) = 0   (the opponent takes V(s_a) of what is left)
    V(s)    = max_a f(s, a),      V(full board) = 0

The margin the player to move can force from ``s`` is ``2 V(s) - pnb(s)``; for the empty board it is the
game's value for the first player. Maximising boxes is also safe for winning: a player that maximises
its boxes keeps at least the margin it could force, so it never loses (or draws) a position it could
win (or draw), whatever the tie rule.

Layers
------
Layer ``m`` holds the positions with ``m`` edges left; ``V`` on layer ``m`` needs only layer ``m - 1``.
:func:`solve_layers` computes it exactly by backward induction (retrograde analysis) over every bitmask,
vectorised with numpy; :class:`LayeredValueAgent` learns it online from played games, one dict per layer.

The bots (each ``act(game, state) -> int``, seeded)
---------------------------------------------------
* :class:`RandomBot`: a uniformly random free edge.
* :class:`FirstAvailableBot`: the first free edge in the order of :func:`first_available_order`: by the
  distance of the edge's midpoint from dot ``(0, 0)`` (the top-left dot), ties by edge number.
* :class:`Always4Never3Bot`: completes a box whenever it can; otherwise avoids drawing the third edge of
  any box (which would offer it to the opponent); otherwise plays at random. Random among equals.
* :class:`EndgameBot`: ``EndgameBot(k)`` (the study's bot2(k)) plays optimally, from the exact ``V``, once
  ``k`` or fewer edges are left, and like :class:`Always4Never3Bot` before. ``EndgameBot(24)`` on 3x3
  boxes is the exact agent.
"""

from __future__ import annotations

import functools
import math
import os
from collections.abc import Callable
from typing import Any

import numpy as np

from agents._rng import SeedLike, make_rng
from agents.arena import MatchResult, as_policy, play_game
from agents.persistence import ArraySpec, SavedFileError, load_npz, save_npz, short_repr
from agents.random_agent import RandomAgent
from gym_boardgames.rules.dots import DotsAndBoxes, DotsState, EdgeKeyRules, edge_key_rules
from gym_boardgames.utils import progress_bar

__all__ = [
    "BOT_NAMES",
    "MAX_SOLVE_EDGES",
    "Always4Never3Bot",
    "EndgameBot",
    "FirstAvailableBot",
    "LayerTable",
    "LayeredValueAgent",
    "RandomBot",
    "first_available_order",
    "solve_layers",
]

#: The largest board :func:`solve_layers` takes: it keeps one byte per bitmask (2**26 bytes = 64 MB).
MAX_SOLVE_EDGES = 26

#: Bot names (also accepted by :func:`agents.factory.make_agent`).
BOT_NAMES = ("random", "first_available", "always4never3", "endgame:K")

PathLike = str | os.PathLike[str]


# ---- the board as bitmasks: the rules' EdgeKeyRules -----------------------------------------------


def _board(game: Any) -> EdgeKeyRules:
    """The bitmask rules of a :class:`DotsAndBoxes` rules object.

    Raises:
        ValueError: if ``game`` is not a Dots and Boxes game.
    """
    if not isinstance(game, DotsAndBoxes):
        raise ValueError(f"these agents play Dots and Boxes (gym_boardgames.rules.DotsAndBoxes), got {game!r}")
    return edge_key_rules(game.rows, game.cols)


# ---- the bots ----------------------------------------------------------------------------------


class RandomBot(RandomAgent):
    """The study's ``random_move``: a uniformly random free edge.

    Args:
        seed: an int, a ``numpy.random.Generator`` or None.
    """

    def __repr__(self) -> str:
        return "RandomBot()"


def first_available_order(game: DotsAndBoxes) -> list[int]:
    """Return every edge in :class:`FirstAvailableBot`'s fixed order.

    Edges are sorted by the distance of their midpoint from dot ``(0, 0)`` (the top-left dot), ties by
    edge number. On 3x3 boxes the order starts 0 (top edge of box 0), 12 (its left edge), 3, 13, 1, 16.

    Raises:
        ValueError: if ``game`` is not a Dots and Boxes game.
    """
    _board(game)

    def squared_distance_times_4(edge: int) -> int:
        (r0, c0), (r1, c1) = game.edge_endpoints(edge)
        return (r0 + r1) ** 2 + (c0 + c1) ** 2  # (2 * midpoint)^2, kept in integers

    return sorted(range(game.num_edges), key=lambda e: (squared_distance_times_4(e), e))


class FirstAvailableBot:
    """The study's ``first_available_move``: the first free edge of :func:`first_available_order`.

    It is deterministic; ``seed`` is accepted so that every bot is built the same way.

    Args:
        seed: ignored (an int, a ``numpy.random.Generator`` or None).
    """

    def __init__(self, seed: SeedLike = None) -> None:
        self.rng = make_rng(seed)
        self._orders: dict[tuple[int, int], list[int]] = {}

    def act(self, game: DotsAndBoxes, state: DotsState) -> int:
        """Return the first free edge in the fixed order.

        Raises:
            ValueError: at the end of the game, or if ``game`` is not Dots and Boxes.
        """
        size = (game.rows, game.cols) if isinstance(game, DotsAndBoxes) else None
        order = self._orders.get(size) if size else None
        if order is None:
            order = self._orders[size] = first_available_order(game)
        key = game.edge_key(state)
        for edge in order:
            if not key >> edge & 1:
                return edge
        raise ValueError("no legal action: the game is over")

    def __repr__(self) -> str:
        return "FirstAvailableBot()"


def _always4never3_moves(board: EdgeKeyRules, key: int) -> list[int]:
    """The moves Always4Never3 chooses among: box-completing edges, else safe edges, else all free edges."""
    moves = board.successors(key)
    if not moves:
        raise ValueError("no legal action: the game is over")
    completing = [e for e, _, reward in moves if reward]
    if completing:
        return completing
    # An edge is unsafe when a box it borders already has two edges: drawing it makes a three-sided box.
    free = [e for e, _, _ in moves]
    safe = [e for e in free if all((key & mask).bit_count() != 2 for mask in board.edge_box_masks[e])]
    return safe or free


class Always4Never3Bot:
    """The study's ``always4never3``: always takes a box, never draws a box's third edge if it can help it.

    Completes a box whenever it can; otherwise draws an edge that leaves no box with three edges
    (which the opponent could take); otherwise a random edge. Each choice is uniform among its
    candidates.

    Args:
        seed: an int, a ``numpy.random.Generator`` or None.
    """

    def __init__(self, seed: SeedLike = None) -> None:
        self.rng = make_rng(seed)

    def act(self, game: DotsAndBoxes, state: DotsState) -> int:
        """Return a box-completing edge, else a safe edge, else any free edge (random among them).

        Raises:
            ValueError: at the end of the game, or if ``game`` is not Dots and Boxes.
        """
        board = _board(game)
        moves = _always4never3_moves(board, board.key(state))
        return moves[self.rng.integers(len(moves))] if len(moves) > 1 else moves[0]

    def __repr__(self) -> str:
        return "Always4Never3Bot()"


@functools.lru_cache(maxsize=4)
def _shared_table(rows: int, cols: int, last_k: int) -> LayerTable:
    """One solved table per board and depth, shared by every EndgameBot that did not get one."""
    return solve_layers(DotsAndBoxes(rows, cols), last_k=last_k)


class EndgameBot:
    """The study's bot2(k): optimal for the last ``k`` moves, Always4Never3 before.

    Once ``k`` or fewer edges are left it plays a move that maximises ``f(s, a)`` under the exact ``V``
    (uniformly among the best); with more edges left it plays as :class:`Always4Never3Bot`. With ``k``
    at least the number of edges it is the exact agent.

    Args:
        k: how many of the last moves are played exactly (>= 0).
        table: a :class:`LayerTable` of the same board with ``last_k >= min(k, edges)``; when None the
            table is solved on the first move (and shared between bots of the same board and ``k``).
        seed: an int, a ``numpy.random.Generator`` or None.

    Raises:
        ValueError: on a negative or non-integer ``k``.
    """

    def __init__(self, k: int = 10, table: LayerTable | None = None, seed: SeedLike = None) -> None:
        if isinstance(k, bool) or not isinstance(k, (int, np.integer)) or k < 0:
            raise ValueError(f"k must be an integer >= 0 (the number of last moves played exactly), got {k!r}")
        self.k = int(k)
        self.table = table
        self.rng = make_rng(seed)

    def _table_for(self, board: EdgeKeyRules) -> LayerTable:
        depth = min(self.k, board.num_edges)
        table = self.table
        if table is None:
            table = self.table = _shared_table(board.rows, board.cols, depth)
        if (table.rows, table.cols) != (board.rows, board.cols):
            raise ValueError(f"{self!r} has a table for {table.rows}x{table.cols} boxes, not {board.rows}x{board.cols}")
        if table.last_k < depth:
            raise ValueError(f"{self!r} needs a table solved for the last {depth} moves, got last_k={table.last_k}")
        return table

    def act(self, game: DotsAndBoxes, state: DotsState) -> int:
        """Return an optimal move when at most ``k`` edges are left, else an Always4Never3 move.

        Raises:
            ValueError: at the end of the game, or if ``game`` is not Dots and Boxes.
        """
        board = _board(game)
        key = board.key(state)
        left = board.num_edges - key.bit_count()
        if 0 < left <= self.k:
            moves = self._table_for(board).best_moves(key)
        else:
            moves = _always4never3_moves(board, key)
        return moves[self.rng.integers(len(moves))] if len(moves) > 1 else moves[0]

    def __repr__(self) -> str:
        return f"EndgameBot({self.k})"


def _make_bot(spec: str, seed: SeedLike = None, table: LayerTable | None = None) -> Any:
    """Return the bot named ``spec``: ``random``, ``first_available``, ``always4never3`` or ``endgame:K``.

    :func:`agents.factory.make_agent` is the public way to build an agent by name; it calls this for
    the bots.

    Args:
        spec: the bot's name; ``endgame:10`` is the study's bot2(10).
        seed: seeds the bot.
        table: for ``endgame:K``, a solved :class:`LayerTable` to share.

    Raises:
        ValueError: on an unknown name or a bad ``K``.
    """
    kind, _, arg = spec.partition(":")
    if kind == "random" and not arg:
        return RandomBot(seed)
    if kind == "first_available" and not arg:
        return FirstAvailableBot(seed)
    if kind == "always4never3" and not arg:
        return Always4Never3Bot(seed)
    if kind == "endgame" and arg.isdigit():
        return EndgameBot(int(arg), table=table, seed=seed)
    raise ValueError(f"unknown bot {spec!r}: use one of {', '.join(BOT_NAMES)}")


# ---- the exact solver --------------------------------------------------------------------------


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

    Raises:
        ValueError: if ``values`` does not fit the board.
    """

    FORMAT = "gym_boardgames.dots.layer_table"
    VERSION = 1

    def __init__(self, rows: int, cols: int, values: np.ndarray, last_k: int) -> None:
        self._board = edge_key_rules(int(rows), int(cols))
        size = 1 << self._board.num_edges
        if values.dtype != np.int8 or values.shape != (size,):
            raise ValueError(f"values must be an int8 array of shape ({size},), got {values.dtype} {values.shape}")
        if not 0 <= last_k <= self._board.num_edges:
            raise ValueError(f"last_k must be in 0..{self._board.num_edges}, got {last_k}")
        self.rows, self.cols, self.last_k = int(rows), int(cols), int(last_k)
        self.values = values
        self.values.flags.writeable = False

    @property
    def num_edges(self) -> int:
        """Edges of the board."""
        return self._board.num_edges

    @property
    def num_boxes(self) -> int:
        """Boxes of the board."""
        return self._board.num_boxes

    def __repr__(self) -> str:
        return f"LayerTable(rows={self.rows}, cols={self.cols}, last_k={self.last_k})"

    def _key(self, state: DotsState | int) -> int:
        if isinstance(state, (int, np.integer)) and not isinstance(state, bool):
            key = int(state)
            if not 0 <= key <= self._board.full:
                raise ValueError(f"edge bitmask {key} is out of range for {self.num_edges} edges")
            return key
        return self._board.key(state)

    def edges_left(self, state: DotsState | int) -> int:
        """Return how many edges are still free."""
        return self.num_edges - self._key(state).bit_count()

    def is_solved(self, state: DotsState | int) -> bool:
        """Return whether ``V`` of this position is in the table (at most ``last_k`` edges left)."""
        return self.edges_left(state) <= self.last_k

    def _value(self, key: int) -> int:
        value = int(self.values[key])
        if value < 0:
            left = self.num_edges - key.bit_count()
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
        return 2 * self._value(key) - self._board.boxes_left(key)

    def move_values(self, state: DotsState | int) -> dict[int, int]:
        """Return ``f(s, a)`` for every free edge ``a``: the boxes the mover gets from here by playing ``a``.

        Raises:
            ValueError: if the children of the position are not solved (more than ``last_k + 1`` edges
                left), or it is of another board.
        """
        key = self._key(state)
        board = self._board
        boxes_left = board.boxes_left(key)
        values = {}
        for edge, child, reward in board.successors(key):
            v_child = self._value(child)
            values[edge] = v_child + reward if reward else boxes_left - v_child
        return values

    def best_moves(self, state: DotsState | int) -> list[int]:
        """Return every free edge that maximises ``f(s, a)``, ascending (empty at the end of the game).

        Raises:
            ValueError: as :meth:`move_values`.
        """
        values = self.move_values(state)
        if not values:
            return []
        best = max(values.values())
        return [edge for edge, value in values.items() if value == best]

    def save(self, path: PathLike) -> None:
        """Write the table to an ``.npz`` file, atomically, with a format header.

        Raises:
            OSError: if the file cannot be written.
        """
        meta = {"rows": self.rows, "cols": self.cols, "last_k": self.last_k}
        # The array keeps its name "q" in the file (format version 1).
        save_npz(path, {"q": self.values}, format=self.FORMAT, version=self.VERSION, meta=meta)

    @classmethod
    def load(cls, path: PathLike) -> LayerTable:
        """Read a table written by :meth:`save`, checking its header, shape and values.

        Raises:
            FileNotFoundError: if there is no such file.
            ValueError: (a :class:`~agents.persistence.SavedFileError`) naming the file and the problem
                if it is corrupt, foreign, of another format or version, or its content is inconsistent.
        """
        sizes: list[int] = []

        def schema(version: int, meta: dict[str, Any]) -> dict[str, ArraySpec]:
            # The board size comes from the file: check it before building the board or reading 'q'.
            rows, cols, last_k = (_meta_int(path, meta, name) for name in ("rows", "cols", "last_k"))
            if rows < 1 or cols < 1 or (rows + 1) * cols + rows * (cols + 1) > MAX_SOLVE_EDGES:
                raise SavedFileError(path, f"the board {rows}x{cols} is not one solve_layers makes")
            num_edges = (rows + 1) * cols + rows * (cols + 1)
            if not 0 <= last_k <= num_edges:
                raise SavedFileError(path, f"last_k={last_k} is outside 0..{num_edges}")
            sizes.extend((rows, cols, last_k))
            return {"q": ArraySpec((1 << num_edges,), np.int8)}

        loaded = load_npz(path, format=cls.FORMAT, versions=(cls.VERSION,), schema=schema)
        rows, cols, last_k = sizes
        board = edge_key_rules(rows, cols)
        values = loaded.arrays["q"]
        drawn = _popcounts(board.num_edges)
        solved = drawn >= board.num_edges - last_k
        inside, outside = values[solved], values[~solved]
        if inside.size and (inside.min() < 0 or inside.max() > board.num_boxes):
            raise SavedFileError(path, f"'q' has values outside 0..{board.num_boxes} in the solved layers")
        if outside.size and np.any(outside != -1):
            raise SavedFileError(path, "'q' has values in layers the header says are not solved")
        if values[board.full] != 0:
            raise SavedFileError(path, "'q' of the full board is not 0")
        return cls(rows, cols, values, last_k)


def _meta_int(path: PathLike, meta: dict[str, Any], name: str) -> int:
    value = meta.get(name)
    if isinstance(value, bool) or not isinstance(value, int):
        raise SavedFileError(path, f"the header's meta has no integer {name!r}")
    return value


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
    table with ``key | bit``, and ``f`` is maximised over the ``m`` free edges. The table is one byte per
    bitmask; while solving, the high nibble also holds the boxes completed in that bitmask, so that one
    lookup gives both ``V(child)`` and ``R(a) = completed(child) - completed(key)``.

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
    board = _board(game)
    num_edges, num_boxes = board.num_edges, board.num_boxes
    if num_edges > MAX_SOLVE_EDGES:
        raise ValueError(
            f"solve_layers keeps a byte per position (2**edges); {num_edges} edges is more than the "
            f"{MAX_SOLVE_EDGES} it takes"
        )
    if last_k is None:
        last_k = num_edges
    if isinstance(last_k, bool) or not isinstance(last_k, (int, np.integer)) or last_k < 0:
        raise ValueError(f"last_k must be None or an integer >= 0, got {last_k!r}")
    last_k = min(int(last_k), num_edges)

    drawn = _popcounts(num_edges)
    unsolved = 0xFF
    packed = np.full(1 << num_edges, unsolved, dtype=np.uint8)  # (completed boxes << 4) | V
    packed[board.full] = num_boxes << 4
    everything = board.full
    with progress_bar(last_k, "solving layers", progress) as bar:
        for left in range(1, last_k + 1):
            keys = np.flatnonzero(drawn == num_edges - left).astype(np.int32)
            completed = board.completed_boxes(keys)
            boxes_left = num_boxes - completed
            best = np.full(keys.size, -1, dtype=np.int8)
            free = keys ^ everything
            for _ in range(left):
                low = free & -free  # the lowest free edge not yet tried, as a bit
                free ^= low
                child = packed[keys | low]
                reward = (child >> 4).view(np.int8) - completed
                v_child = (child & 0x0F).view(np.int8)
                np.maximum(best, np.where(reward > 0, v_child + reward, boxes_left - v_child), out=best)
            packed[keys] = (completed.view(np.uint8) << 4) | best.view(np.uint8)
            bar.update(1)
    values = (packed & 0x0F).view(np.int8)
    values[packed == unsolved] = -1
    return LayerTable(board.rows, board.cols, values, last_k)


# ---- the online learner ------------------------------------------------------------------------


class LayeredValueAgent:
    """The study's online learner of ``V``, stored by layer (one dict per number of edges left).

    Playing (:meth:`act`) is greedy: the move maximising ``f(s, a)`` under the current estimates,
    uniformly among ties. A position not seen yet is estimated by the mean of the known positions
    among its siblings (the successors of the same parent) when at least two are known, else as half
    of its remaining boxes; the full board is known to be 0.

    Learning (:meth:`train`): in each training game the agent plays a random move with probability
    ``explore`` and the greedy move otherwise. After the game it walks the played positions from the
    end back to the start, ``V(s) <- V(s) + lr * (max_a f(s, a) - V(s))``, so that what a game teaches
    about its last layers reaches its first ones in the same sweep (the study's upward propagation).
    Positions where the opponent moved are learned from as well: ``V`` belongs to whoever is to move.

    Args:
        lr: the learning rate in [0, 1]; 0 learns nothing (the study's test setting).
        explore: the probability of a random move in training games, in [0, 1] (the study used 2/3).
        seed: an int, a ``numpy.random.Generator`` or None.

    Raises:
        ValueError: if ``lr`` or ``explore`` is outside [0, 1].
    """

    FORMAT = "gym_boardgames.dots.layered_q"
    VERSION = 1
    #: Most learned positions :meth:`load` accepts (about 0.3 GB of Python dicts at this size).
    MAX_LOAD_ENTRIES = 2_000_000

    def __init__(self, lr: float = 0.1, explore: float = 2 / 3, seed: SeedLike = None) -> None:
        self.lr = lr
        self.explore = explore
        self.rng = make_rng(seed)
        self.layers: list[dict[int, float]] = []
        self.games_trained = 0
        self._board_: EdgeKeyRules | None = None

    @property
    def lr(self) -> float:
        """The learning rate in [0, 1]."""
        return self._lr

    @lr.setter
    def lr(self, value: float) -> None:
        self._lr = _unit_interval("lr", value)

    @property
    def explore(self) -> float:
        """The probability of a random move in training games."""
        return self._explore

    @explore.setter
    def explore(self, value: float) -> None:
        self._explore = _unit_interval("explore", value)

    @property
    def num_states(self) -> int:
        """Positions with a learned value."""
        return sum(len(layer) for layer in self.layers)

    def __repr__(self) -> str:
        return f"LayeredValueAgent(lr={self.lr:g}, explore={self.explore:.3g})"

    def _bind(self, game: DotsAndBoxes) -> EdgeKeyRules:
        """Return the board; the first game fixes it, and the layers are made for it."""
        board = _board(game)
        if self._board_ is None:
            self._board_ = board
            self.layers = [{} for _ in range(board.num_edges + 1)]
            self.layers[0][board.full] = 0.0
        elif (self._board_.rows, self._board_.cols) != (board.rows, board.cols):
            raise ValueError(
                f"this agent learned {self._board_.rows}x{self._board_.cols} boxes, not {board.rows}x{board.cols}"
            )
        return board

    def _move_values(self, board: EdgeKeyRules, key: int, boxes_left: int) -> tuple[list[int], list[float]]:
        """Free edges of ``key`` and their estimated ``f(s, a)`` (the hot loop of training: kept flat)."""
        get = self.layers[board.num_edges - key.bit_count() - 1].get
        edges, rewards, children = [], [], []
        total, known = 0.0, 0
        for edge, child, reward in board.successors(key):
            v = get(child)
            if v is not None:
                total += v
                known += 1
            edges.append(edge)
            rewards.append(reward)
            children.append(v)
        if known < len(children):
            # Unseen children: the mean of the known siblings if at least two are known, else half the
            # boxes the child has left.
            mean = total / known if known >= 2 else None
            for i, v in enumerate(children):
                if v is None:
                    children[i] = mean if mean is not None else (boxes_left - rewards[i]) * 0.5
        values = [v + r if r else boxes_left - v for v, r in zip(children, rewards, strict=True)]
        return edges, values

    def move_values(self, game: DotsAndBoxes, state: DotsState) -> dict[int, float]:
        """Return the estimated ``f(s, a)`` of every free edge under the current ``V``.

        Raises:
            ValueError: if ``game`` is not the board this agent learned.
        """
        board = self._bind(game)
        key = board.key(state)
        edges, values = self._move_values(board, key, board.boxes_left(key))
        return dict(zip(edges, values, strict=True))

    def value(self, game: DotsAndBoxes, state: DotsState) -> float | None:
        """Return the learned ``V(s)``, or None for a position never updated.

        Raises:
            ValueError: if ``game`` is not the board this agent learned.
        """
        board = self._bind(game)
        key = board.key(state)
        return self.layers[board.num_edges - key.bit_count()].get(key)

    def _greedy(self, board: EdgeKeyRules, key: int, boxes_left: int) -> int:
        edges, values = self._move_values(board, key, boxes_left)
        if not edges:
            raise ValueError("no legal action: the game is over")
        best = max(values)
        # Estimates are sums of a few floats: treat values within 1e-9 as equal ties.
        ties = [e for e, v in zip(edges, values, strict=True) if v >= best - 1e-9]
        return ties[self.rng.integers(len(ties))] if len(ties) > 1 else ties[0]

    def act(self, game: DotsAndBoxes, state: DotsState) -> int:
        """Return the greedy move under the current estimates (never explores, never learns).

        Raises:
            ValueError: at the end of the game, or if ``game`` is not the board this agent learned.
        """
        board = self._bind(game)
        key = board.key(state)
        return self._greedy(board, key, board.boxes_left(key))

    def _learn(self, board: EdgeKeyRules, path: list[tuple[int, int]]) -> None:
        """Update ``V`` along one game's positions ``(key, boxes left)``, from the end back to the start."""
        lr = self.lr
        if lr == 0:
            return
        num_edges = board.num_edges
        for t in range(len(path) - 1, -1, -1):
            key, boxes_left = path[t]
            left = num_edges - key.bit_count()
            if left == 0:
                continue  # the full board is worth 0 for sure
            _, values = self._move_values(board, key, boxes_left)
            target = max(values)
            layer = self.layers[left]
            old = layer.get(key)
            if old is None:
                old = self._initial_estimate(board, path, t)
            layer[key] = old + lr * (target - old)

    def _initial_estimate(self, board: EdgeKeyRules, path: list[tuple[int, int]], t: int) -> float:
        """The estimate an unseen position ``path[t]`` had as a successor of ``path[t - 1]``."""
        key, boxes_left = path[t]
        if t == 0:
            return boxes_left / 2
        parent = path[t - 1][0]
        get = self.layers[board.num_edges - key.bit_count()].get
        seen = [v for bit in board.bits if not parent & bit and (v := get(parent | bit)) is not None]
        return sum(seen) / len(seen) if len(seen) >= 2 else boxes_left / 2

    def train(
        self,
        game: DotsAndBoxes,
        opponent: Any,
        games: int,
        *,
        progress: Callable[[int], None] | None = None,
    ) -> MatchResult:
        """Play ``games`` training games against ``opponent``, learning after each one.

        The agent moves first in even-numbered games and second in odd ones. Its moves are random with
        probability :attr:`explore`, greedy otherwise; ``V`` is updated after every game with the
        current :attr:`lr`.

        Args:
            game: the Dots and Boxes rules (their tie rule decides the recorded results only).
            opponent: an agent with ``act(game, state)``, a callable ``(game, state) -> int``, or
                ``"random"``.
            games: how many games (>= 0).
            progress: called with 1 after each game (e.g. a tqdm ``update``).

        Returns:
            The agent's results in the training games, by seat.

        Raises:
            ValueError: on a negative ``games``, another board, or an opponent's illegal move.
        """
        if isinstance(games, bool) or not isinstance(games, (int, np.integer)) or games < 0:
            raise ValueError(f"games must be an integer >= 0, got {games!r}")
        board = self._bind(game)
        if isinstance(opponent, str):
            opponent = as_policy(opponent, self.rng)  # "random" draws from this agent's generator
        path: list[tuple[int, int]] = []  # the game's positions as (edge bitmask, boxes left)

        def learner(game: DotsAndBoxes, state: DotsState) -> int:
            key, boxes_left = path[-1]
            if self.explore and self.rng.random() < self.explore:
                free = board.free_edges(key)
                return free[self.rng.integers(len(free))]
            return self._greedy(board, key, boxes_left)

        def record(state: DotsState, action: int, child: DotsState) -> None:
            path.append((path[-1][0] | board.bits[action], game.boxes_left(child)))

        result = MatchResult()
        for i in range(games):
            seat = i % 2
            path[:] = [(0, board.num_boxes)]
            players = (learner, opponent) if seat == 0 else (opponent, learner)
            payoff = play_game(game, *players, on_move=record)
            self._learn(board, path)
            self.games_trained += 1
            (result.first if seat == 0 else result.second).add(payoff[seat])
            if progress is not None:
                progress(1)
        return result

    def save(self, path: PathLike) -> None:
        """Write the learned values to an ``.npz`` file, atomically, with a format header.

        Raises:
            ValueError: if the agent has not learned any board yet.
            OSError: if the file cannot be written.
        """
        board = self._board_
        if board is None:
            raise ValueError("nothing to save: the agent has not been trained or used on a board yet")
        keys = [k for layer in self.layers for k in layer]
        values = [v for layer in self.layers for v in layer.values()]
        meta = {
            "rows": board.rows,
            "cols": board.cols,
            "lr": self.lr,
            "explore": self.explore,
            "games_trained": self.games_trained,
        }
        arrays = {"keys": np.array(keys, dtype=np.uint64), "values": np.array(values, dtype=np.float64)}
        save_npz(path, arrays, format=self.FORMAT, version=self.VERSION, meta=meta)

    @classmethod
    def load(cls, path: PathLike, seed: SeedLike = None) -> LayeredValueAgent:
        """Read an agent written by :meth:`save`, checking the header and every value.

        Args:
            path: the file.
            seed: seeds the loaded agent's tie-breaking and exploration.

        Raises:
            FileNotFoundError: if there is no such file.
            ValueError: (a :class:`~agents.persistence.SavedFileError`) naming the file and the problem
                if it is corrupt, foreign, of another format or version, or holds impossible values.
        """

        def schema(version: int, meta: dict[str, Any]) -> dict[str, ArraySpec]:
            # Check the header before any array is read; the entry count is bounded by the board's
            # positions and by MAX_LOAD_ENTRIES (each entry becomes a Python dict item, about 100 bytes).
            rows, cols, _ = (_meta_int(path, meta, name) for name in ("rows", "cols", "games_trained"))
            if rows < 1 or cols < 1 or (rows + 1) * cols + rows * (cols + 1) > 64:
                raise SavedFileError(path, f"the board {rows}x{cols} is not one this agent plays (at most 64 edges)")
            for name in ("lr", "explore"):
                value = meta.get(name)
                if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 <= value <= 1:
                    shown = short_repr(value)
                    raise SavedFileError(path, f"the header's {name!r} is {shown}, expected a number in [0, 1]")
            most = min(1 << ((rows + 1) * cols + rows * (cols + 1)), cls.MAX_LOAD_ENTRIES)
            return {
                "keys": ArraySpec((None,), np.uint64, max_size=most),
                "values": ArraySpec((None,), np.float64, max_size=most),
            }

        loaded = load_npz(path, format=cls.FORMAT, versions=(cls.VERSION,), schema=schema)
        meta = loaded.meta
        rows, cols, games = meta["rows"], meta["cols"], meta["games_trained"]
        lr, explore = meta["lr"], meta["explore"]
        board = edge_key_rules(rows, cols)
        keys, values = loaded.arrays["keys"], loaded.arrays["values"]
        if keys.shape != values.shape:
            raise SavedFileError(path, f"'keys' has {keys.size} entries but 'values' has {values.size}")
        if keys.size and int(keys.max()) > board.full:
            raise SavedFileError(path, f"'keys' holds bitmasks beyond the {board.num_edges} edges of the board")
        # Learned values are estimates: mixing in the estimates of unseen positions can push them a little
        # outside the true range 0..boxes, but never far; anything beyond this loose bound is garbage.
        bound = 2 * (board.num_boxes + board.num_edges)
        if not np.all(np.isfinite(values)) or (values.size and np.abs(values).max() > bound):
            raise SavedFileError(path, f"'values' must be finite numbers of boxes within -{bound}..{bound}")
        if np.unique(keys).size != keys.size:
            raise SavedFileError(path, "'keys' holds a position twice")
        # Checked before the tables are built, so a bad file is refused without the slow part.
        if not np.any((keys == board.full) & (values == 0.0)):
            raise SavedFileError(path, "the full board's value is not 0")
        agent = cls(lr=float(lr), explore=float(explore), seed=seed)
        agent._bind(DotsAndBoxes(rows, cols))
        agent.games_trained = games
        layers = agent.layers
        for key, value in zip(keys.tolist(), values.tolist(), strict=True):
            layers[board.num_edges - key.bit_count()][key] = value
        return agent


def _unit_interval(name: str, value: float) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float, np.floating)) or not 0 <= value <= 1:
        raise ValueError(f"{name} must be a number in [0, 1], got {value!r}")
    if math.isnan(value):
        raise ValueError(f"{name} must be a number in [0, 1], got nan")
    return float(value)
