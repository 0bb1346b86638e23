"""Rules of the m,n,k game and its gravity variant (Connect Four), with tic-tac-toe as m=n=k=3.

Two players alternately put a piece on a ``rows x cols`` board; the first to get ``n`` of their own
pieces in a row (horizontally, vertically or diagonally) wins, and a full board without such a line
is a draw. Player 0 moves first.

Action numbering
----------------
* Without gravity the action is the cell, row-major with row 0 at the top::

      a = row * cols + col          (3x3:  0 | 1 | 2
                                            3 | 4 | 5
                                            6 | 7 | 8)

* With gravity the action is the column index ``0 .. cols-1``; the piece falls to the lowest empty
  row of that column (the highest row index).

States
------
A :class:`BoardState` is an immutable, hashable value: ``board`` is a ``bytes`` object of
``rows * cols`` cells (0 empty, 1 a piece of player 0, 2 a piece of player 1), ``player`` is the
player to move (at the end: the player who would have moved next), and ``winner`` caches who owns a
line of ``n`` (0, 1 or None). ``winner`` is a function of the board (play stops at the first line), so
equal positions always have equal states and states never carry history.

The compact key of a state is the base-3 number ``sum(board[i] * 3**i)``; the player to move is
implied by the piece count, so the key identifies the position. :attr:`ConnectN.num_keys` is ``3**cells``.

Sizes
-----
``rows`` and ``cols`` are at most :data:`~gym_boardgames.rules.common.MAX_BOARD_SIDE` (64): every board up
to 64x64 builds in well under a second (the geometry is linear in the number of lines), and a larger one
raises ``ValueError`` before anything is allocated.
"""

from __future__ import annotations

import functools
import operator
from collections.abc import Callable, Sequence
from typing import NamedTuple

import numpy as np

from gym_boardgames.checks import check_action, check_bool, check_int, check_legal
from gym_boardgames.rules.common import MAX_BOARD_SIDE, RulesByConfig, check_board_side

EMPTY = 0
#: The cell value of a piece of player ``p`` is ``p + 1``.
PIECE = (1, 2)
_PIECE_BYTES = (b"\x01", b"\x02")
# bytes.translate tables: C-speed conversions of a whole board to a legality mask and to int8 views.
_EMPTY_TO_ONE = bytes.maketrans(bytes([0, 1, 2]), bytes([1, 0, 0]))
#: Per player p, cell value -> int8 byte: +1 for p's pieces, -1 (0xFF) for the other player's, 0 empty.
PERSPECTIVE_TABLES = (
    bytes.maketrans(bytes([0, 1, 2]), bytes([0, 1, 255])),
    bytes.maketrans(bytes([0, 1, 2]), bytes([0, 255, 1])),
)


class BoardState(NamedTuple):
    """An immutable m,n,k / gravity board position.

    Attributes:
        board: ``rows * cols`` bytes, row-major; 0 empty, 1 player 0's piece, 2 player 1's piece.
        player: the player to move (0 or 1); at the end, the player who would have moved next.
        winner: 0 or 1 when that player has ``n`` in a row, else None (derived from ``board``).
    """

    board: bytes
    player: int
    winner: int | None = None


class Geometry(NamedTuple):
    """Board geometry computed once per ``(rows, cols, n)`` and shared by every user of the board.

    Attributes:
        win_lines: ``(L, n)`` int array, every line of ``n`` cells, for batched checks.
        lines: the same lines as tuples of cells.
        line_getters: per line, an ``operator.itemgetter`` reading its cells from a board at C speed.
        lines_through: per cell, the getters of the lines through it; a win check after a move reads
            only those.
    """

    win_lines: np.ndarray
    lines: tuple[tuple[int, ...], ...]
    line_getters: tuple[Callable[[bytes], object], ...]
    lines_through: tuple[tuple[Callable[[bytes], object], ...], ...]


@functools.lru_cache(maxsize=64)
def board_geometry(rows: int, cols: int, n: int) -> Geometry:
    """Return the win lines of a ``rows x cols`` board for ``n`` in a row (cached per configuration).

    The work is linear in the number of lines times ``n`` (a 64x64 board with n=5 takes milliseconds).
    The caller validates the sizes (:class:`ConnectN` does).
    """
    lines: list[tuple[int, ...]] = []
    # Right, down, down-right and down-left: every line is found once, from its first cell. With n == 1
    # all four directions give the same one-cell line, so one direction is enough (no dedupe search).
    directions = ((0, 1),) if n == 1 else ((0, 1), (1, 0), (1, 1), (1, -1))
    for dr, dc in directions:
        # The first cells whose line of n stays on the board: a rectangle, so no per-cell bounds test.
        r_range = range(rows - dr * (n - 1))
        c_range = range(max(0, -dc * (n - 1)), cols - max(0, dc * (n - 1)))
        step = dr * cols + dc
        for r in r_range:
            for c in c_range:
                start = r * cols + c
                lines.append(tuple(range(start, start + step * n, step)))
    getters = tuple(operator.itemgetter(*line) for line in lines)
    through: list[list[Callable[[bytes], object]]] = [[] for _ in range(rows * cols)]
    for line, getter in zip(lines, getters, strict=True):
        for cell in line:
            through[cell].append(getter)
    win_lines = np.array(lines, dtype=np.int32).reshape(len(lines), n)
    win_lines.flags.writeable = False
    return Geometry(
        win_lines=win_lines,
        lines=tuple(lines),
        line_getters=getters,
        lines_through=tuple(tuple(cell) for cell in through),
    )


class ConnectN(RulesByConfig):
    """The m,n,k game on a ``rows x cols`` board, optionally with gravity (Connect Four).

    Args:
        rows: number of rows, ``1 <= rows <= MAX_BOARD_SIDE`` (64).
        cols: number of columns, ``1 <= cols <= MAX_BOARD_SIDE`` (64).
        n: pieces in a row needed to win, ``1 <= n <= max(rows, cols)``.
        gravity: if True the action is a column and pieces fall to its lowest empty row.

    Raises:
        ValueError: on a parameter outside the ranges above (or not an integer), before anything is built.
    """

    num_players = 2
    config_names = ("rows", "cols", "n", "gravity")

    def __init__(self, rows: int = 6, cols: int = 7, n: int = 4, gravity: bool = True) -> None:
        rows = check_board_side("rows", rows, MAX_BOARD_SIDE)
        cols = check_board_side("cols", cols, MAX_BOARD_SIDE)
        n = check_int(f"n (on a {rows}x{cols} board)", n, 1, max(rows, cols))
        self.rows, self.cols, self.n, self.gravity = rows, cols, n, check_bool("gravity", gravity)
        self.num_cells = self.rows * self.cols
        self.num_actions = self.cols if self.gravity else self.num_cells
        self.geometry = board_geometry(self.rows, self.cols, self.n)
        # What a line getter returns when the line is all `mark`: a tuple, or a bare int when n == 1.
        self._full_line = {m: (m,) * self.n if self.n > 1 else m for m in PIECE}
        self._initial = BoardState(bytes(self.num_cells), 0, None)
        self.action_rank = self._rank_actions()
        # int64 holds 3**cells for up to 39 cells; larger boards fall back to Python ints.
        self._key_weights = 3 ** np.arange(self.num_cells, dtype=np.int64) if self.num_cells <= 39 else None

    @functools.cached_property
    def num_keys(self) -> int:
        """``3**cells``: every :meth:`key` is in ``0 .. num_keys - 1`` (computed on first use)."""
        return 3**self.num_cells

    def _rank_actions(self) -> tuple[int, ...]:
        """Rank actions for search move ordering: 0 is tried first.

        A cell on more win lines matters more (the centre of tic-tac-toe, then the corners); with
        gravity a column ranks by the lines through its cells. Ties go to the action nearer the centre.
        """
        through = [len(lines) for lines in self.geometry.lines_through]
        if self.gravity:
            weight = [sum(through[r * self.cols + c] for r in range(self.rows)) for c in range(self.cols)]
            centre = [abs(c - (self.cols - 1) / 2) for c in range(self.cols)]
        else:
            weight = through
            centre = [
                abs(i // self.cols - (self.rows - 1) / 2) + abs(i % self.cols - (self.cols - 1) / 2)
                for i in range(self.num_cells)
            ]
        order = sorted(range(self.num_actions), key=lambda a: (-weight[a], centre[a], a))
        return tuple(np.argsort(order).tolist())  # the inverse permutation: each action's position in order

    # ---- the rules surface -------------------------------------------------------------------

    def initial_state(self) -> BoardState:
        """Return the empty board with player 0 to move."""
        return self._initial

    def current_player(self, state: BoardState) -> int:
        """Return the player to move (0 or 1); at the end, the player who would have moved next."""
        return state.player

    def legal_actions(self, state: BoardState) -> list[int]:
        """Return the legal actions in ascending order (empty at the end)."""
        if state.winner is not None:
            return []
        board = state.board
        if self.gravity:
            return [c for c in range(self.cols) if board[c] == EMPTY]  # row 0 is the top of a column
        return [i for i, v in enumerate(board) if v == EMPTY]

    def legal_mask(self, state: BoardState) -> np.ndarray:
        """Return a new int8 array of length :attr:`num_actions`: 1 where the action is legal."""
        if state.winner is not None:
            return np.zeros(self.num_actions, dtype=np.int8)
        # With gravity a column is open while its top cell (row 0) is empty.
        cells = state.board[: self.cols] if self.gravity else state.board
        return np.ndarray(self.num_actions, np.int8, bytearray(cells.translate(_EMPTY_TO_ONE)))

    def observation(self, state: BoardState, player: int) -> np.ndarray:
        """Return a new ``(rows, cols)`` int8 board from ``player``'s side: +1 own, -1 other, 0 empty."""
        return np.ndarray((self.rows, self.cols), np.int8, bytearray(state.board.translate(PERSPECTIVE_TABLES[player])))

    def is_legal(self, state: BoardState, action: int) -> bool:
        """Return whether ``action`` is legal in ``state`` (False for out-of-range actions)."""
        if state.winner is not None or not isinstance(action, (int, np.integer)) or not 0 <= action < self.num_actions:
            return False
        return state.board[action] == EMPTY  # for gravity, cell `action` is the top of that column

    def apply(self, state: BoardState, action: int) -> BoardState:
        """Return the state after the player to move plays ``action``; ``state`` is not changed.

        Raises:
            ValueError: if the action is not an integer of the action space (``ActionTypeError`` for a
                non-integer), or not legal here: the cell or column is full, or the game is over.
        """
        board = state.board
        # The common case checked inline (with gravity, cell `action` is the top of that column; a full board
        # has no empty cell): apply is the searches' innermost call. Anything else gets the shared checks.
        if type(action) is not int or not 0 <= action < self.num_actions or board[action] or state.winner is not None:
            action = check_legal(self, state, check_action(action, self.num_actions))
        cell = self._drop(board, action) if self.gravity else action
        new_board = board[:cell] + _PIECE_BYTES[state.player] + board[cell + 1 :]
        full = self._full_line[PIECE[state.player]]
        winner = None
        for line in self.geometry.lines_through[cell]:  # a loop, not any(): this is search's hot path
            if line(new_board) == full:
                winner = state.player
                break
        return BoardState(new_board, 1 - state.player, winner)

    def is_terminal(self, state: BoardState) -> bool:
        """Return whether the game is over (a line of ``n`` or a full board)."""
        return state.winner is not None or EMPTY not in state.board

    def returns(self, state: BoardState) -> tuple[float, float]:
        """Return the payoff of each player at the end: +1 win, -1 loss, 0 draw.

        Raises:
            ValueError: if the game is not over.
        """
        if state.winner is None:
            if EMPTY in state.board:
                raise ValueError("returns() is only defined at the end of the game")
            return (0.0, 0.0)
        return (1.0, -1.0) if state.winner == 0 else (-1.0, 1.0)

    # ---- helpers beyond the rules surface ----------------------------------------------------

    def winner(self, state: BoardState) -> int | None:
        """Return 0 or 1 if that player has won, else None (a draw or a game in progress)."""
        return state.winner

    def winning_line(self, state: BoardState) -> tuple[int, ...] | None:
        """Return the cells of a winning line of ``state`` (row-major indices), or None."""
        if state.winner is None:
            return None
        full = self._full_line[PIECE[state.winner]]
        geometry = self.geometry
        return next(
            line for line, get in zip(geometry.lines, geometry.line_getters, strict=True) if get(state.board) == full
        )

    def action_cell(self, state: BoardState, action: int) -> int:
        """Return the cell that ``action`` would fill in ``state`` (the landing cell with gravity).

        Raises:
            ValueError: if the action is not legal in ``state``.
        """
        check_legal(self, state, action)
        return self._drop(state.board, action) if self.gravity else action

    def _drop(self, board: bytes, column: int) -> int:
        """The cell a piece dropped in an open ``column`` lands on: the lowest empty one."""
        cell = column + (self.rows - 1) * self.cols
        while board[cell] != EMPTY:
            cell -= self.cols
        return cell

    def landing_cells(self, heights: np.ndarray, columns: np.ndarray) -> np.ndarray:
        """Return the cells that pieces dropped in ``columns`` land on, given those columns' ``heights``.

        The batched form of :meth:`action_cell` on gravity boards, elementwise over broadcastable
        arrays: a piece dropped in a column holding ``h`` pieces lands in row ``rows - 1 - h``.

        Args:
            heights: pieces already in each column (``0 .. rows``).
            columns: the columns (``0 .. cols - 1``).

        Returns:
            a new intp array of cells. A full column (``h == rows``) gives a cell of the same board that
            means nothing; callers mask full columns out.
        """
        cells = (self.rows - 1 - np.asarray(heights, dtype=np.intp)) * self.cols + columns
        return np.maximum(cells, 0, out=cells)

    def has_line(self, boards: np.ndarray, piece: int) -> np.ndarray:
        """Return whether each board holds a line of ``n`` of ``piece`` (the scalar rules' win, batched).

        Args:
            boards: cell values (0 empty, 1 player 0's piece, 2 player 1's) with the cells on the last
                axis: ``(cells,)`` for one board, ``(N, cells)`` for ``N``.
            piece: the cell value of the player's pieces, ``PIECE[player]``.

        Returns:
            a bool array of the boards' leading shape (a numpy bool for one board).
        """
        return (np.asarray(boards)[..., self.geometry.win_lines] == piece).all(axis=-1).any(axis=-1)

    def key(self, state: BoardState) -> int:
        """Return the compact base-3 key ``sum(board[i] * 3**i)`` of a position (0 .. num_keys - 1)."""
        if self._key_weights is not None:
            return int(np.frombuffer(state.board, dtype=np.uint8).astype(np.int64) @ self._key_weights)
        return sum(v * 3**i for i, v in enumerate(state.board))

    def from_key(self, key: int) -> BoardState:
        """Return the state whose :meth:`key` is ``key``.

        Raises:
            ValueError: if ``key`` is out of range or does not encode a reachable-looking board
                (piece counts must be equal, or player 0 one ahead).
        """
        key = check_int("key", key, 0, self.num_keys - 1)
        return self.state_from_board(bytes(key // 3**i % 3 for i in range(self.num_cells)))

    def state_from_board(self, board: bytes | Sequence[int]) -> BoardState:
        """Build the state of a board given as ``rows * cols`` cell values (0 empty, 1, 2).

        The player to move follows from the piece counts, and the winner from the lines.

        Raises:
            ValueError: on a wrong length, a bad cell value, impossible piece counts, floating pieces on
                a gravity board, or lines of ``n`` for both players.
        """
        board = bytes(board)
        cells = np.frombuffer(board, dtype=np.uint8)
        winners = [p for p in (0, 1) if len(board) == self.num_cells and self.has_line(cells, PIECE[p])]
        problem = self._board_problem(board, winners)
        if problem:
            raise ValueError(f"not a position of {self!r}: {problem}")
        return BoardState(board, int(board.count(2) < board.count(1)), winners[0] if winners else None)

    def _board_problem(self, board: bytes, winners: list[int]) -> str:
        """What makes ``board`` no position of this game, given the players with a line of ``n``; ``""`` if nothing."""
        if len(board) != self.num_cells:
            return f"a board has {self.num_cells} cells, got {len(board)}"
        if any(v > 2 for v in board):
            return "cell values must be 0 (empty), 1 (player 0) or 2 (player 1)"
        count0, count1 = board.count(1), board.count(2)
        if count0 - count1 not in (0, 1):
            return f"impossible piece counts: player 0 has {count0}, player 1 has {count1}"
        cols = self.cols
        floating = [c for c in range(self.num_cells - cols) if board[c] and not board[c + cols]] if self.gravity else []
        if floating:
            return f"cell {floating[0]} floats above an empty cell on a gravity board"
        if len(winners) > 1:
            return "both players have a winning line"
        if winners and count0 - count1 != 1 - winners[0]:
            return f"player {winners[0]} has a line but player {1 - winners[0]} moved after it"
        return ""
