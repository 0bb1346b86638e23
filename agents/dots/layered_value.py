"""The study's online learner of ``V``: :class:`LayeredValueAgent`, one dict per layer, and its file format.

``V`` and the move value ``f(s, a)`` are those of :mod:`agents.dots.value`; the learner estimates them from
played games instead of solving every position (:mod:`agents.dots.layer_table` does that). It is saved as
an ``.npz`` of format ``gym_boardgames.dots.layered_q``.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any

import numpy as np

from agents._rng import SeedLike, make_rng
from agents.dots.layer_table import file_board
from agents.dots.value import check_dots, move_value, playable_key
from agents.matches.arena import MatchResult, as_policy, play_game
from agents.persistence import ArraySpec, SavedFileError, load_npz, save_npz
from gym_boardgames.checks import check_int, check_number
from gym_boardgames.rules.dots import DotsAndBoxes, DotsState

PathLike = str | os.PathLike[str]


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
        #: The learning rate and the probability of a random move in training games, each in [0, 1]; they
        #: may change between :meth:`train` calls (the study's schedules), which checks them again.
        self.lr, self.explore = check_number("lr", lr, 0, 1), check_number("explore", explore, 0, 1)
        self.rng = make_rng(seed)
        self.layers: list[dict[int, float]] = []
        self.games_trained = 0
        self._board: DotsAndBoxes | None = None

    @property
    def num_states(self) -> int:
        """Positions with a learned value."""
        return sum(len(layer) for layer in self.layers)

    def __repr__(self) -> str:
        return f"LayeredValueAgent(lr={self.lr:g}, explore={self.explore:.3g})"

    def _bind(self, game: DotsAndBoxes) -> DotsAndBoxes:
        """Return the board; the first game fixes it, and the layers are made for it."""
        board = check_dots(game)
        if self._board is None:
            self._board = board
            self.layers = [{} for _ in range(board.num_edges + 1)]
            self.layers[0][board.full_key] = 0.0
        elif (self._board.rows, self._board.cols) != (board.rows, board.cols):
            raise ValueError(
                f"this agent learned {self._board.rows}x{self._board.cols} boxes, not {board.rows}x{board.cols}"
            )
        return board

    def _move_values(self, board: DotsAndBoxes, key: int, boxes_left: int) -> tuple[list[int], list[float]]:
        """Free edges of ``key`` and their estimated ``f(s, a)`` (training's hot loop)."""
        get = self.layers[board.num_edges - key.bit_count() - 1].get
        moves = board.edge_key_successors(key)
        children = [get(child) for _, child, _ in moves]
        seen = [v for v in children if v is not None]
        if len(seen) < len(children):
            total, known = sum(seen), len(seen)
            children = [
                _unseen_value(total, known, boxes_left - reward) if v is None else v
                for v, (_, _, reward) in zip(children, moves, strict=True)
            ]
        values = [move_value(v, reward, boxes_left) for v, (_, _, reward) in zip(children, moves, strict=True)]
        return [edge for edge, _, _ in moves], values

    def move_values(self, game: DotsAndBoxes, state: DotsState) -> dict[int, float]:
        """Return the estimated ``f(s, a)`` of every free edge under the current ``V``.

        Raises:
            ValueError: if ``game`` is not the board this agent learned.
        """
        board = self._bind(game)
        key = board.edge_key(state)
        edges, values = self._move_values(board, key, board.num_boxes - board.completed_boxes(key))
        return dict(zip(edges, values, strict=True))

    def value(self, game: DotsAndBoxes, state: DotsState) -> float | None:
        """Return the learned ``V(s)``, or None for a position never updated.

        Raises:
            ValueError: if ``game`` is not the board this agent learned.
        """
        board = self._bind(game)
        key = board.edge_key(state)
        return self.layers[board.num_edges - key.bit_count()].get(key)

    def _greedy(self, board: DotsAndBoxes, key: int, boxes_left: int) -> int:
        edges, values = self._move_values(board, key, boxes_left)  # a position with a move left
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
        key = playable_key(board, state)
        return self._greedy(board, key, board.num_boxes - board.completed_boxes(key))

    def _learn(self, board: DotsAndBoxes, path: list[tuple[int, int]]) -> None:
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
            target = max(self._move_values(board, key, boxes_left)[1])
            layer = self.layers[left]
            old = layer[key] if key in layer else self._initial_estimate(board, path, t)
            layer[key] = old + lr * (target - old)

    def _initial_estimate(self, board: DotsAndBoxes, path: list[tuple[int, int]], t: int) -> float:
        """The estimate an unseen position ``path[t]`` had as a successor of ``path[t - 1]`` (:meth:`_move_values`).

        Only the siblings' values are read: the parent's whole move values would cost a second pass.
        """
        key, boxes_left = path[t]
        if t == 0:
            return boxes_left / 2
        parent = path[t - 1][0]
        get = self.layers[board.num_edges - key.bit_count()].get
        bits = [bit for bit, _, _ in board.geometry.edge_masks if not parent & bit]
        seen = [v for bit in bits if (v := get(parent | bit)) is not None]
        return _unseen_value(sum(seen), len(seen), boxes_left)

    def train(
        self, game: DotsAndBoxes, opponent: Any, games: int, *, progress: Callable[[int], None] | None = None
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
            ValueError: on a negative ``games``, an ``lr`` or ``explore`` outside [0, 1], another board, or an
                opponent's illegal move.
        """
        games = check_int("games", games, 0)
        self.lr, self.explore = check_number("lr", self.lr, 0, 1), check_number("explore", self.explore, 0, 1)
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
            path.append((path[-1][0] | 1 << action, game.boxes_left(child)))

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
        board = self._board
        if board is None:
            raise ValueError("nothing to save: the agent has not been trained or used on a board yet")
        keys = [k for layer in self.layers for k in layer]
        values = [v for layer in self.layers for v in layer.values()]
        meta = dict(
            rows=board.rows, cols=board.cols, lr=self.lr, explore=self.explore, games_trained=self.games_trained
        )
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
            rows, cols, _ = (check_int(name, meta.get(name), 0) for name in ("rows", "cols", "games_trained"))
            board = file_board(path, rows, cols, 64, "one this agent plays")
            for name in ("lr", "explore"):
                check_number(name, meta.get(name), 0, 1)
            most = min(1 << board.num_edges, cls.MAX_LOAD_ENTRIES)
            return {
                "keys": ArraySpec((None,), np.uint64, max_size=most),
                "values": ArraySpec((None,), np.float64, max_size=most),
            }

        loaded = load_npz(path, format=cls.FORMAT, versions=(cls.VERSION,), schema=schema)
        meta = loaded.meta
        board = DotsAndBoxes(meta["rows"], meta["cols"])
        keys, values = loaded.arrays["keys"], loaded.arrays["values"]
        distinct = keys.shape == values.shape and np.unique(keys).size == keys.size
        if not distinct or keys.size and int(keys.max()) > board.full_key:
            raise SavedFileError(path, f"'keys' must be distinct bitmasks of {board.num_edges} edges, one per value")
        # Learned values are estimates: mixing in the estimates of unseen positions can push them a little
        # outside the true range 0..boxes, but never far; anything beyond this loose bound is garbage. The full
        # board's 0 is checked before the tables are built, so a bad file is refused without the slow part.
        bound = 2 * (board.num_boxes + board.num_edges)
        if not np.all(np.abs(values) <= bound) or not np.any((keys == board.full_key) & (values == 0.0)):
            raise SavedFileError(path, f"'values' must be boxes within -{bound}..{bound}, 0 for the full board")
        agent = cls(lr=float(meta["lr"]), explore=float(meta["explore"]), seed=seed)
        agent._bind(board)
        agent.games_trained = meta["games_trained"]
        for key, value in zip(keys.tolist(), values.tolist(), strict=True):
            agent.layers[board.num_edges - key.bit_count()][key] = value
        return agent


def _unseen_value(total: float, known: int, boxes_left: int) -> float:
    """The first estimate of a position never updated, with ``boxes_left`` boxes to take.

    The mean of its known siblings (``known`` of them, summing to ``total``) if at least two are known,
    else half its boxes.
    """
    return total / known if known >= 2 else boxes_left * 0.5
