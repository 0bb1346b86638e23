"""Dots and Boxes batched: drawn sides counted per box through :func:`dots_geometry`'s edge-to-box maps.

See :mod:`gym_boardgames.rules.batch` for the conventions every batch follows.
"""

from __future__ import annotations

import functools
from typing import NamedTuple

import numpy as np

from gym_boardgames.rules.batch.base import _Batch
from gym_boardgames.rules.dots import DotsAndBoxes, DotsState, dots_geometry


class DotsTables(NamedTuple):
    """Edge-to-box tables of a board, derived once from :func:`dots_geometry`.

    Attributes:
        first_box: ``(E,)`` intp: a box the edge borders.
        second_box: ``(E,)`` intp: the other box it borders, or ``B`` (a spare column) for a border edge.
    """

    first_box: np.ndarray
    second_box: np.ndarray


@functools.lru_cache(maxsize=32)
def dots_tables(rows: int, cols: int) -> DotsTables:
    """Return the edge-to-box tables of ``rows x cols`` boxes (cached per configuration)."""
    geometry = dots_geometry(rows, cols)
    spare = rows * cols
    first = np.array([boxes[0] for boxes in geometry.edge_boxes], dtype=np.intp)
    second = np.array([boxes[1] if len(boxes) > 1 else spare for boxes in geometry.edge_boxes], dtype=np.intp)
    for array in (first, second):
        array.flags.writeable = False
    return DotsTables(first, second)


class DotsAndBoxesBatch(_Batch):
    """``num_envs`` positions of one :class:`~gym_boardgames.rules.dots.DotsAndBoxes` game, advanced in place.

    State arrays (read them, do not write them):

    * ``edges``: ``(N, E)`` int8, 1 where drawn.
    * ``owners``: ``(N, B)`` int8 from player 0's side: +1 player 0's box, -1 player 1's, 0 free.
    * ``sides``: ``(N, B + 1)`` int8, drawn edges around each box; the last column counts nothing useful
      (border edges add to it so that every edge touches two columns).
    * ``player``: ``(N,)`` int8, the player to move (completing a box keeps the turn).
    * ``scores``: ``(N, 2)`` int16, boxes of player 0 and of player 1.
    * ``drawn``: ``(N,)`` int16, edges drawn; ``over``: ``(N,)`` bool, every edge drawn.

    Args:
        game: the scalar rules; its geometry and tie rule are shared.
        num_envs: ``N``, the number of games (>= 1).

    Raises:
        ValueError: if ``num_envs`` is not a positive integer, or its arrays would pass :data:`MAX_BATCH_BYTES`.
    """

    def __init__(self, game: DotsAndBoxes, num_envs: int) -> None:
        # Per game: edges and owners (int8), sides (int16), scores, player, drawn, over and index bases.
        super().__init__(game, num_envs, game.num_edges + game.num_boxes + 2 * (game.num_boxes + 1) + 8 + 5 + 4 * 8)
        n, boxes = self.num_envs, game.num_boxes
        self.tables = dots_tables(game.rows, game.cols)
        self._edges_buffer, self.edges, self._edges_base = self._rows(game.num_edges)
        self._owners_buffer, self.owners, self._owners_base = self._rows(boxes)
        self.sides = np.zeros((n, boxes + 1), dtype=np.int16)
        self.scores = np.zeros((n, 2), dtype=np.int16)
        self.drawn = np.zeros(n, dtype=np.int16)
        games = np.arange(n, dtype=np.intp)
        self._sides_base, self._score_base = games * (boxes + 1), games * 2

    def reset(self, indices: np.ndarray | None = None) -> None:
        """Put the empty board, player 0 to move, in the games ``indices`` (an index array; None: all)."""
        index = slice(None) if indices is None else indices
        for array in (self.edges, self.owners, self.sides, self.scores, self.player, self.drawn, self.over):
            array[index] = 0  # False

    def is_legal(self, actions: np.ndarray) -> np.ndarray:
        """Return a new ``(N,)`` bool array: whether each game's edge (in range) is still free."""
        return self._edges_buffer.take(self._edges_base + actions) == 0

    def play(self, actions: np.ndarray, moving: np.ndarray | None = None) -> np.ndarray:
        """Let the player to move in each game of ``moving`` draw its edge; completing a box keeps the turn.

        As every ``play`` (see the module's conventions), games outside ``moving`` are left as they were.

        Args:
            actions: ``(N,)`` integer array in ``0 .. num_actions - 1``, free edges in every moving game.
            moving: ``(N,)`` bool mask of the games that move, or None for all of them.

        Returns:
            a new ``(N,)`` int8 array: boxes completed by each game's move (0, 1 or 2).
        """
        tables = self.tables
        actions = actions.astype(np.intp, copy=False)
        step = np.int16(1) if moving is None else moving.astype(np.int16)
        self._edges_buffer.put(self._masked(self._edges_base + actions, moving, self._edges_buffer), 1)
        sides = self.sides.ravel()
        completed = np.zeros(self.num_envs, dtype=np.int8)
        for box_of_edge in (tables.first_box, tables.second_box):
            boxes = box_of_edge.take(actions)
            slots = self._sides_base + boxes
            count = sides.take(slots) + step
            sides.put(slots, count)
            # A box is completed when its fourth side is drawn; the spare column never counts.
            done = (count == 4) & (boxes < self.game.num_boxes)
            if moving is not None:
                done &= moving
            if done.any():
                where = np.flatnonzero(done)
                self._owners_buffer.put(self._owners_base[where] + boxes[where], 1 - 2 * self.player[where])
            completed += done
        self.scores.ravel()[self._score_base + self.player] += completed
        # The turn passes unless the move completed a box.
        passes = completed == 0
        if moving is not None:
            passes &= moving
        self.player ^= passes.view(np.int8)
        self.drawn += step
        self.over = self.drawn == self.game.num_edges
        return completed

    def legal_mask(self) -> np.ndarray:
        """Return a new ``(N, E)`` int8 array, 1 where the edge is free (all zeros at the end, as drawn)."""
        return self.edges ^ 1

    @property
    def winner(self) -> np.ndarray:
        """A new ``(N,)`` int8 array: the winner of each finished game, -1 for a draw or a game not over."""
        # DotsAndBoxes.winner_of_margin with a batch axis: the tie rule is the game's tie_winner.
        margin = self.scores[:, 0] - self.scores[:, 1]
        winner = np.where(margin > 0, 0, np.where(margin < 0, 1, self.game.tie_winner)).astype(np.int8)
        winner[~self.over] = -1
        return winner

    def observation(self, perspective: np.ndarray | None = None) -> np.ndarray:
        """Return a new ``(N, E + B)`` int8 array: edges (0/1), then box owners from one player's side.

        Args:
            perspective: ``(N,)`` array of the player (0 or 1) whose side each row takes; None takes the
                side of the player to move.
        """
        if perspective is None:
            perspective = self.player
        edges = self.game.num_edges
        out = np.empty((self.num_envs, edges + self.game.num_boxes), dtype=np.int8)
        out[:, :edges] = self.edges
        np.multiply(self.owners, (1 - 2 * perspective.astype(np.int8))[:, None], out=out[:, edges:])
        return out

    # ---- conversion to and from the scalar rules -------------------------------------------------

    def state(self, i: int) -> DotsState:
        """Return game ``i`` as an immutable scalar :class:`~gym_boardgames.rules.dots.DotsState`."""
        owners = np.array([2, 0, 1], dtype=np.uint8)[self.owners[i].astype(np.intp) + 1]
        return DotsState(self.edges[i].astype(np.uint8).tobytes(), owners.tobytes(), int(self.player[i]))

    def set_state(self, i: int, state: DotsState) -> None:
        """Put the scalar ``state`` into game ``i``.

        Raises:
            ValueError: if the edge or box count does not match this game.
        """
        game = self.game
        edges = np.frombuffer(state.edges, dtype=np.uint8)
        owners = np.frombuffer(state.owners, dtype=np.uint8)
        if len(edges) != game.num_edges or len(owners) != game.num_boxes:
            raise ValueError(f"this game has {game.num_edges} edges and {game.num_boxes} boxes")
        self.edges[i] = edges
        self.owners[i] = np.array([0, 1, -1], dtype=np.int8)[owners]
        self.sides[i, :-1] = edges[game.geometry.box_edges].sum(axis=1)
        self.sides[i, -1] = 0
        self.player[i] = state.player
        self.scores[i] = (np.count_nonzero(owners == 1), np.count_nonzero(owners == 2))
        self.drawn[i] = np.count_nonzero(edges)
        self.over[i] = self.drawn[i] == game.num_edges
