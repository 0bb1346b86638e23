"""Rules of Dots and Boxes on a board of ``rows x cols`` boxes (``(rows+1) x (cols+1)`` dots).

Players take turns drawing one edge between two neighbouring dots. Drawing the fourth edge of a box
scores that box (an edge can complete two at once) and gives the same player another move. The game
ends when every edge is drawn; the player with more boxes wins. Equal boxes are a draw, unless
``tie_break="second"``: then the player who did not start (player 1) wins ties. Player 0 starts.

Edge numbering (OpenSpiel's order)
----------------------------------
Horizontal edges first, row by row of dots, left to right: there are ``H = (rows + 1) * cols`` of them
and the horizontal edge ``(r, c)`` (from dot ``(r, c)`` to dot ``(r, c + 1)``) is ``r * cols + c``.
Then the vertical edges, row by row of boxes: the vertical edge ``(r, c)`` (from dot ``(r, c)`` to dot
``(r + 1, c)``) is ``H + r * (cols + 1) + c``. For 2x2 boxes (H = 6, 12 edges)::

      *--0--*--1--*
      |     |     |
      6  b0 7  b1 8
      |     |     |
      *--2--*--3--*
      |     |     |
      9  b2 10 b3 11
      |     |     |
      *--4--*--5--*

Box ``(r, c)`` is ``b = r * cols + c``; its edges are top ``r*cols + c``, bottom ``(r+1)*cols + c``,
left ``H + r*(cols+1) + c`` and right ``H + r*(cols+1) + c + 1``. The default 3x3 boxes (4x4 dots) has
24 edges.

States
------
A :class:`DotsState` is an immutable, hashable value: ``edges`` (``bytes``, 1 where drawn), ``owners``
(``bytes`` per box: 0 free, 1 player 0, 2 player 1) and ``player`` (to move; stored because a completed
box means another move). :meth:`DotsAndBoxes.edge_key` is the drawn-edge bitmask (bit ``e`` = edge
``e``), the key of the study's value function; :meth:`DotsAndBoxes.key` identifies the whole state.

The box rule
------------
A box is complete when its four edges are drawn. :meth:`DotsAndBoxes.apply` reads the four edges of the
boxes beside the new edge from the state's bytes (``box_edge_getters``: building the board's bitmask would
cost more than the move). Everything else uses drawn-edge bitmasks: box ``b`` is complete in ``key`` when
``key & box_masks[b] == box_masks[b]``, in the bitmask helpers that value tables over bitmasks need
(:meth:`DotsAndBoxes.edge_key_successors`, :meth:`DotsAndBoxes.completed_boxes`,
:meth:`DotsAndBoxes.box_sides`): a bitmask holds the drawn edges only, and who owns a box does not
matter to the number of boxes still to take, so one table over bitmasks serves both players. The batched
rules (:mod:`gym_boardgames.rules.batch`) keep the same rule with a batch axis, as side counters per box.
The tie rule is :meth:`DotsAndBoxes.winner_of_margin` (and :attr:`DotsAndBoxes.tie_winner` for the
batched rules).
"""

from __future__ import annotations

import functools
import operator
from collections.abc import Callable
from typing import NamedTuple

import numpy as np

from gym_boardgames.checks import check_action, check_choice, check_int, check_legal
from gym_boardgames.rules.common import MAX_DOTS_SIDE, RulesByConfig, check_board_side
from gym_boardgames.rules.connect import PERSPECTIVE_TABLES

TIE_BREAKS = ("draw", "second")
#: :meth:`DotsAndBoxes.winner_of_margin` of a drawn game: the contract's ``DRAW`` (an int, as in ``info["winner"]``).
DRAW = -1
_UNDRAWN_TO_ONE = bytes.maketrans(b"\x00\x01", b"\x01\x00")
_TO_ASCII_BITS = bytes.maketrans(b"\x00\x01", b"01")
_OWNER_BYTES = (b"\x01", b"\x02")


class DotsState(NamedTuple):
    """An immutable Dots and Boxes position.

    Attributes:
        edges: one byte per edge, 1 if drawn.
        owners: one byte per box, 0 free, 1 player 0's, 2 player 1's.
        player: the player to move (0 or 1).
    """

    edges: bytes
    owners: bytes
    player: int


class DotsGeometry(NamedTuple):
    """Edge and box maps of a board, computed once per ``(rows, cols)`` and shared by all users.

    Attributes:
        num_horizontal: horizontal edges, ``(rows + 1) * cols``; the vertical ones follow.
        num_edges: every edge of the board, horizontal and vertical.
        box_edges: ``(B, 4)`` int array: top, bottom, left, right edge of each box.
        edge_boxes: per edge, the boxes it borders (one or two).
        box_masks: per box, the bitmask of its four edges (bit ``e`` = edge ``e``).
        edge_masks: per edge ``e``, ``(1 << e, mask of one box, mask of the other)``. A border edge has one
            box; its second mask is a bit beyond the board, which no bitmask of drawn edges has.
        box_edge_getters: per box, an ``operator.itemgetter`` of its four edges' bytes in a state's ``edges``.
    """

    num_horizontal: int
    num_edges: int
    box_edges: np.ndarray
    edge_boxes: tuple[tuple[int, ...], ...]
    box_masks: tuple[int, ...]
    edge_masks: tuple[tuple[int, int, int], ...]
    box_edge_getters: tuple[Callable[[bytes], tuple[int, ...]], ...]


@functools.lru_cache(maxsize=32)
def dots_geometry(rows: int, cols: int) -> DotsGeometry:
    """Return the edge/box maps of a ``rows x cols`` box board (cached per configuration)."""
    horizontal = (rows + 1) * cols
    n_edges = horizontal + rows * (cols + 1)
    box_edges = []
    for r in range(rows):
        for c in range(cols):
            left = horizontal + r * (cols + 1) + c
            box_edges.append((r * cols + c, (r + 1) * cols + c, left, left + 1))
    edge_boxes: list[list[int]] = [[] for _ in range(n_edges)]
    for box, edges in enumerate(box_edges):
        for edge in edges:
            edge_boxes[edge].append(box)
    array = np.array(box_edges, dtype=np.int32).reshape(len(box_edges), 4)
    array.flags.writeable = False
    box_masks = tuple(sum(1 << e for e in edges) for edges in box_edges)
    return DotsGeometry(
        num_horizontal=horizontal,
        num_edges=n_edges,
        box_edges=array,
        edge_boxes=tuple(tuple(boxes) for boxes in edge_boxes),
        box_masks=box_masks,
        edge_masks=tuple(
            (1 << e, box_masks[boxes[0]], box_masks[boxes[1]] if len(boxes) > 1 else 1 << n_edges)
            for e, boxes in enumerate(edge_boxes)
        ),
        box_edge_getters=tuple(operator.itemgetter(*edges) for edges in box_edges),
    )


class DotsAndBoxes(RulesByConfig):
    """Dots and Boxes with ``rows x cols`` boxes.

    Args:
        rows: boxes per column, ``1 <= rows <= MAX_DOTS_SIDE`` (32).
        cols: boxes per row, ``1 <= cols <= MAX_DOTS_SIDE`` (32).
        tie_break: ``"draw"`` (equal boxes is a draw) or ``"second"`` (player 1, who did not start,
            wins ties, as in the Dots and Boxes study this project reproduces).

    Raises:
        ValueError: on a size that is not an integer in ``1 .. MAX_DOTS_SIDE``, or an unknown tie_break,
            before anything is allocated.
    """

    num_players = 2
    config_names = ("rows", "cols", "tie_break")

    def __init__(self, rows: int = 3, cols: int = 3, tie_break: str = "draw") -> None:
        rows = check_board_side("rows", rows, MAX_DOTS_SIDE, " (a number of boxes)")
        cols = check_board_side("cols", cols, MAX_DOTS_SIDE, " (a number of boxes)")
        self.rows, self.cols, self.tie_break = rows, cols, check_choice("tie_break", tie_break, TIE_BREAKS)
        #: The winner of equal boxes: :data:`DRAW`, or player 1 with ``tie_break="second"``.
        self.tie_winner = 1 if tie_break == "second" else DRAW
        self.geometry = dots_geometry(self.rows, self.cols)
        self.num_boxes = self.rows * self.cols
        #: Horizontal edges (numbered first), ``(rows + 1) * cols``.
        self.num_horizontal = self.geometry.num_horizontal
        #: Every edge of the board: the one edge count, also the size of the action space.
        self.num_edges = self.geometry.num_edges
        self.num_actions = self.num_edges
        #: The drawn-edge bitmask with every edge drawn (the end of the game).
        self.full_key = (1 << self.num_edges) - 1
        self._all_edges = b"\x01" * self.num_edges
        self._initial = DotsState(bytes(self.num_edges), bytes(self.num_boxes), 0)

    # ---- the rules surface -------------------------------------------------------------------

    def initial_state(self) -> DotsState:
        """Return the empty board with player 0 to move."""
        return self._initial

    def current_player(self, state: DotsState) -> int:
        """Return the player to move (at the end: whoever completed the last box, or the next player)."""
        return state.player

    def legal_actions(self, state: DotsState) -> list[int]:
        """Return the undrawn edges in ascending order."""
        return [e for e, drawn in enumerate(state.edges) if not drawn]

    def legal_mask(self, state: DotsState) -> np.ndarray:
        """Return a new int8 array over edges: 1 where the edge is still free."""
        return np.ndarray(self.num_edges, np.int8, bytearray(state.edges.translate(_UNDRAWN_TO_ONE)))

    def is_legal(self, state: DotsState, action: int) -> bool:
        """Return whether ``action`` is a free edge (False for out-of-range actions)."""
        return isinstance(action, (int, np.integer)) and 0 <= action < self.num_edges and not state.edges[action]

    def apply(self, state: DotsState, action: int) -> DotsState:
        """Return the state after the player to move draws edge ``action``; ``state`` is not changed.

        Completing one or two boxes gives them to the mover, who moves again.

        Raises:
            ValueError: if the action is not an integer of the action space (``ActionTypeError`` for a
                non-integer), or the edge is drawn.
        """
        # The common case checked inline (apply is the searches' innermost call); anything else, shared checks.
        if type(action) is not int or not 0 <= action < self.num_edges or state.edges[action]:
            action = check_legal(self, state, check_action(action, self.num_edges))
        edges = state.edges[:action] + b"\x01" + state.edges[action + 1 :]
        owners = state.owners
        getters = self.geometry.box_edge_getters
        # The box rule on the state's own bytes: converting the whole board to a bitmask would cost more
        # than the move (apply is the searches' innermost call).
        completed = [box for box in self.geometry.edge_boxes[action] if 0 not in getters[box](edges)]
        for box in completed:
            owners = owners[:box] + _OWNER_BYTES[state.player] + owners[box + 1 :]
        return DotsState(edges, owners, state.player if completed else 1 - state.player)

    def is_terminal(self, state: DotsState) -> bool:
        """Return whether every edge is drawn."""
        return state.edges == self._all_edges

    def returns(self, state: DotsState) -> tuple[float, float]:
        """Return +1/-1 for more/fewer boxes; a tie is 0/0, or a win for player 1 with ``tie_break="second"``.

        Raises:
            ValueError: if the game is not over.
        """
        if not self.is_terminal(state):
            raise ValueError("returns() is only defined at the end of the game")
        boxes0, boxes1 = self.scores(state)
        return self.payoff_of_margin(boxes0 - boxes1, 0), self.payoff_of_margin(boxes1 - boxes0, 1)

    # ---- helpers beyond the rules surface ----------------------------------------------------

    def winner_of_margin(self, margin: int) -> int:
        """Return the winner of a game that ends with player 0 ``margin`` boxes ahead: the tie rule, once.

        Args:
            margin: player 0's boxes minus player 1's at the end.

        Returns:
            0 or 1, or :data:`DRAW` (-1) for equal boxes under ``tie_break="draw"``.
        """
        return 0 if margin > 0 else 1 if margin < 0 else self.tie_winner

    def payoff_of_margin(self, margin: int, player: int) -> float:
        """Return ``player``'s payoff (+1, -1 or 0) for a game it ends ``margin`` boxes ahead of the other."""
        winner = self.winner_of_margin(margin if player == 0 else -margin)
        return 0.0 if winner == DRAW else (1.0 if winner == player else -1.0)

    def scores(self, state: DotsState) -> tuple[int, int]:
        """Return ``(boxes of player 0, boxes of player 1)``."""
        return state.owners.count(1), state.owners.count(2)

    def boxes_left(self, state: DotsState) -> int:
        """Return how many boxes nobody has completed yet."""
        return state.owners.count(0)

    def boxes_completed_by(self, state: DotsState, action: int) -> int:
        """Return how many boxes drawing the free edge ``action`` would complete (0, 1 or 2)."""
        child, masks = self.edge_key(state) | 1 << action, self.geometry.box_masks
        return sum(child & masks[box] == masks[box] for box in self.geometry.edge_boxes[action])

    def observation(self, state: DotsState, player: int) -> np.ndarray:
        """Return a new int8 vector: the edges (0/1), then box owners from ``player``'s side (+1/-1/0)."""
        return np.ndarray(
            self.num_edges + self.num_boxes,
            np.int8,
            bytearray(state.edges + state.owners.translate(PERSPECTIVE_TABLES[player])),
        )

    def edge_key(self, state: DotsState) -> int:
        """Return the drawn-edge bitmask: bit ``e`` is set when edge ``e`` is drawn.

        Raises:
            ValueError: if the state is of a board with another number of edges.
        """
        if len(state.edges) != self.num_edges:
            raise ValueError(
                f"the state has {len(state.edges)} edges but this board ({self.rows}x{self.cols} boxes) has "
                f"{self.num_edges}"
            )
        return int(state.edges.translate(_TO_ASCII_BITS)[::-1], 2)

    # ---- the bitmask form, for value tables over drawn-edge bitmasks ----------------------------

    def edge_key_successors(self, key: int) -> list[tuple[int, int, int]]:
        """Return ``(edge, child bitmask, boxes the edge completes)`` for every free edge of ``key``, ascending.

        One call per position, not per edge: value learners run this in their innermost loop.
        """
        return [
            (edge, child, (child & first == first) + (child & second == second))
            for edge, (bit, first, second) in enumerate(self.geometry.edge_masks)
            if not key & bit
            for child in (key | bit,)
        ]

    def completed_boxes(self, keys: int | np.ndarray) -> int | np.ndarray:
        """Return the boxes complete in the bitmask ``keys``: an int, or an int8 array for an int array."""
        if isinstance(keys, np.ndarray):
            count = np.zeros(keys.shape, dtype=np.int8)
            for mask in self.geometry.box_masks:
                count += (keys & mask) == mask
            return count
        return sum(keys & mask == mask for mask in self.geometry.box_masks)

    def box_sides(self, key: int, edge: int) -> tuple[int, ...]:
        """Return how many sides of each box beside ``edge`` (one or two boxes) are drawn in ``key``."""
        return tuple((key & self.geometry.box_masks[box]).bit_count() for box in self.geometry.edge_boxes[edge])

    def free_edges(self, key: int) -> list[int]:
        """Return the undrawn edges of the bitmask ``key``, ascending."""
        return [e for e, (bit, _, _) in enumerate(self.geometry.edge_masks) if not key & bit]

    def key(self, state: DotsState) -> int:
        """Return an integer identifying the whole state: edge bitmask, player to move, box owners."""
        owners = sum(v * 3**i for i, v in enumerate(state.owners))
        return self.edge_key(state) + ((state.player + 2 * owners) << self.num_edges)

    def edge_endpoints(self, edge: int) -> tuple[tuple[int, int], tuple[int, int]]:
        """Return the two dots ``((row, col), (row, col))`` that edge ``edge`` joins."""
        edge = check_int("edge", edge, 0, self.num_edges - 1)
        if edge < self.num_horizontal:
            r, c = divmod(edge, self.cols)
            return (r, c), (r, c + 1)
        r, c = divmod(edge - self.num_horizontal, self.cols + 1)
        return (r, c), (r + 1, c)
