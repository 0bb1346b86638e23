"""ConnectN batched (tic-tac-toe, the m,n,k game, Connect Four): bitboard win checks on :func:`board_geometry`'s lines.

See :mod:`gym_boardgames.rules.batch` for the conventions every batch follows.
"""

from __future__ import annotations

import functools
from typing import NamedTuple

import numpy as np

from gym_boardgames.rules.batch.base import _Batch
from gym_boardgames.rules.connect import EMPTY, PIECE, BoardState, ConnectN, board_geometry

_ONE = np.uint64(1)


class ConnectTables(NamedTuple):
    """Bitboard tables of a board, derived once from :func:`board_geometry`'s win lines.

    A bitboard is ``W = ceil(cells / 64)`` uint64 words; cell ``c`` is bit ``c % 64`` of word ``c // 64``.

    Attributes:
        words: ``W``.
        cell_bits: ``(W, cells)`` uint64: the bitboard of each single cell.
        through: ``(K, W, cells)`` uint64: for each cell, the bitboards of the (at most ``K``) win lines
            a piece played there can complete. Shorter lists repeat one of their lines, which changes no
            answer; a cell with none gets an all-ones bitboard, which no player ever fills.
    """

    words: int
    cell_bits: np.ndarray
    through: np.ndarray


@functools.lru_cache(maxsize=64)
def connect_tables(rows: int, cols: int, n: int, gravity: bool = False) -> ConnectTables:
    """Return the bitboard tables of a ``rows x cols`` board for ``n`` in a row (cached per configuration).

    With gravity the cells below a new piece are full and those above it empty, so of the vertical lines
    through it only the one it tops can be complete: the others are left out of ``through``.
    """
    geometry = board_geometry(rows, cols, n)
    cells = rows * cols
    words = (cells + 63) // 64
    all_cells = np.arange(cells)
    bit = _ONE << (all_cells % 64).astype(np.uint64)
    cell_bits = np.zeros((words, cells), dtype=np.uint64)
    cell_bits[all_cells // 64, all_cells] = bit
    # Whole-array scatter (a numpy call per line took half a second on 64x64 boards): a line's cells are
    # distinct bits, so OR-ing them in one by one builds its bitboard.
    win_lines = geometry.win_lines
    line_bits = np.zeros((len(geometry.lines) + 1, words), dtype=np.uint64)
    line_index = np.repeat(np.arange(len(win_lines)), n)
    np.bitwise_or.at(line_bits, (line_index, win_lines.ravel() // 64), bit[win_lines.ravel()])
    never = len(geometry.lines)
    line_bits[never] = ~np.uint64(0)  # more bits than the board has (or all of them): never complete

    # One pass over the lines' cells (a test of every line against every cell would be quadratic).
    on_cell: list[list[int]] = [[] for _ in range(cells)]
    for i, line in enumerate(geometry.lines):
        vertical = len(line) > 1 and line[1] - line[0] == cols
        for cell in line[:1] if gravity and vertical else line:  # line[0] is the top of a vertical line
            on_cell[cell].append(i)
    on_cell = [lines or [never] for lines in on_cell]
    k = max(len(lines) for lines in on_cell)
    padded = np.array([lines + lines[:1] * (k - len(lines)) for lines in on_cell], dtype=np.intp)
    through = np.ascontiguousarray(line_bits[padded].transpose(1, 2, 0))  # (K, W, cells): batch axis last
    for array in (cell_bits, through):
        array.flags.writeable = False
    return ConnectTables(words, cell_bits, through)


class ConnectNBatch(_Batch):
    """``num_envs`` positions of one :class:`~gym_boardgames.rules.connect.ConnectN` game, advanced in place.

    State arrays (read them, do not write them):

    * ``board``: ``(N, cells)`` int8 from the side of the player to move: +1 that player's pieces, -1
      the other player's, 0 empty; row ``i`` is ``game.observation(state_i, state_i.player)``. Keeping
      the board in the mover's frame makes the self-play observation a plain copy; a move negates it.
    * ``player``: ``(N,)`` int8, the player to move (at the end: the player who would have moved next).
    * ``winner``: a new ``(N,)`` int8 array, the player with ``n`` in a row, or -1 (a property).
    * ``over``: ``(N,)`` bool, the game is over (a line of ``n`` or a full board).
    * ``filled``: ``(N,)`` int16, pieces on the board.
    * ``heights``: ``(N, cols)`` int8 pieces per column (gravity boards; zeros otherwise).
    * ``mine`` / ``theirs``: ``(W, N)`` uint64 bitboards of the player to move and of the other player.

    Args:
        game: the scalar rules; its geometry is shared.
        num_envs: ``N``, the number of games (>= 1).

    Raises:
        ValueError: if ``num_envs`` is not a positive integer, or its arrays would pass :data:`MAX_BATCH_BYTES`.
    """

    def __init__(self, game: ConnectN, num_envs: int) -> None:
        tables = connect_tables(game.rows, game.cols, game.n, game.gravity)
        # Per game: board and heights (int8), player/winner/over/filled, two bitboards, and the win
        # check's (K, W) uint64 lines and bool hits.
        line_words = len(tables.through) * tables.words
        super().__init__(game, num_envs, game.num_cells + game.cols + 5 + 16 * tables.words + 9 * line_words + 16)
        n = self.num_envs
        self.tables = tables
        self._board_buffer, self.board, self._board_base = self._rows(game.num_cells)
        self._heights_buffer, self.heights, self._heights_base = self._rows(game.cols)
        self._winner = np.full(n, -1, dtype=np.int8)
        self.filled = np.zeros(n, dtype=np.int16)
        self.mine = np.zeros((self.tables.words, n), dtype=np.uint64)
        self.theirs = np.zeros((self.tables.words, n), dtype=np.uint64)
        # Scratch for the win check, allocated once: a fresh (K, W, N) temporary per move costs more in
        # page faults than the arithmetic on it.
        self._lines = np.empty((len(self.tables.through), self.tables.words, n), dtype=np.uint64)
        self._hits = np.empty(self._lines.shape, dtype=bool)

    def reset(self, indices: np.ndarray | None = None) -> None:
        """Put the empty board, player 0 to move, in the games ``indices`` (an index array; None: all)."""
        index = slice(None) if indices is None else indices
        for array in (self.board, self.heights, self.player, self.over, self.filled, self.mine.T, self.theirs.T):
            array[index] = 0  # EMPTY, False
        self._winner[index] = -1

    def is_legal(self, actions: np.ndarray) -> np.ndarray:
        """Return a new ``(N,)`` bool array: whether each game's action (in range) is legal there.

        Args:
            actions: ``(N,)`` integer array, each in ``0 .. num_actions - 1``.
        """
        if self.game.gravity:
            # A column is open while it holds fewer than `rows` pieces.
            open_ = self._heights_buffer.take(self._heights_base + actions) < self.game.rows
        else:
            open_ = self._board_buffer.take(self._board_base + actions) == EMPTY
        open_ &= ~self.over
        return open_

    def play(self, actions: np.ndarray, moving: np.ndarray | None = None) -> None:
        """Let the player to move in each game of ``moving`` play its action (see the module's conventions).

        Args:
            actions: ``(N,)`` integer array in ``0 .. num_actions - 1``, legal (:meth:`is_legal`) in every
                moving game.
            moving: ``(N,)`` bool mask of the games that move, or None for all of them.
        """
        game, tables = self.game, self.tables
        actions = actions.astype(np.intp, copy=False)
        if game.gravity:
            slots = self._heights_base + actions
            heights = self._heights_buffer.take(slots)
            # A full column (an illegal move) lands on a cell of its own board, not of the game above.
            cells = game.landing_cells(heights, actions)
            heights += 1
            self._heights_buffer.put(self._masked(slots, moving, self._heights_buffer), heights)
        else:
            cells = actions
        # The mover's piece is +1 in its own frame; then the whole board turns to the next player's.
        self._board_buffer.put(self._masked(self._board_base + cells, moving, self._board_buffer), 1)
        np.negative(self.board, out=self.board)
        mover_bits = tables.cell_bits.take(cells, axis=1)  # (W, N)
        mover_bits |= self.mine
        # A line through the new piece is complete when none of its bits is missing from the mover's.
        lines, hits = self._lines, self._hits
        np.take(tables.through, cells, axis=2, out=lines)  # (K, W, N)
        np.bitwise_and(lines, ~mover_bits, out=lines)
        np.equal(lines, 0, out=hits)
        won = hits.all(axis=1).any(axis=0) if tables.words > 1 else hits[:, 0].any(axis=0)
        if moving is None:
            self.mine, self.theirs = self.theirs, mover_bits
            self.player ^= 1
            self.filled += 1
        else:
            won &= moving
            still = np.flatnonzero(~moving)
            self.board[still] = -self.board[still]  # undo the turn of the board for games that did not move
            self.mine, self.theirs = np.where(moving, self.theirs, self.mine), np.where(moving, mover_bits, self.theirs)
            self.player ^= moving.view(np.int8)
            self.filled += moving
        if won.any():
            self._winner[won] = self.player[won] ^ 1  # the mover: `player` has already passed the turn
        self.over |= won
        self.over |= self.filled == game.num_cells

    def legal_mask(self) -> np.ndarray:
        """Return a new ``(N, num_actions)`` int8 array, 1 where the action is legal (all zeros at the end)."""
        mask = (self.heights < self.game.rows if self.game.gravity else self.board == EMPTY).view(np.int8)
        mask[np.flatnonzero(self.over)] = 0
        return mask

    def observation(self, perspective: np.ndarray | None = None) -> np.ndarray:
        """Return a new ``(N, rows, cols)`` int8 array of the boards from one player's side per game.

        Args:
            perspective: ``(N,)`` array of the player (0 or 1) whose side each board takes; None takes
                the side of the player to move.
        """
        board = self.board.copy()
        if perspective is not None:
            flip = np.flatnonzero(perspective != self.player)
            if len(flip):
                board[flip] = -board[flip]
        return board.reshape(self.num_envs, self.game.rows, self.game.cols)

    @property
    def winner(self) -> np.ndarray:
        """A new ``(N,)`` int8 array: the player with ``n`` in a row in each game, -1 for a draw or a game not over."""
        return self._winner.copy()

    # ---- conversion to and from the scalar rules -------------------------------------------------

    def state(self, i: int) -> BoardState:
        """Return game ``i`` as an immutable scalar :class:`~gym_boardgames.rules.connect.BoardState`."""
        player = int(self.player[i])
        # From the mover's frame (+1 own) to cell values: own -> PIECE[player], other -> PIECE[1 - player].
        values = np.array([PIECE[1 - player], EMPTY, PIECE[player]], dtype=np.uint8)
        board = values[self.board[i].astype(np.intp) + 1].tobytes()
        winner = int(self._winner[i])
        return BoardState(board, player, None if winner < 0 else winner)

    def set_state(self, i: int, state: BoardState) -> None:
        """Put the scalar ``state`` into game ``i`` (for tests, and for starting games from positions).

        Raises:
            ValueError: if the board is not a position of this game (the rules' one check of a board).
        """
        game = self.game
        state = game.state_from_board(state.board)
        cells = np.frombuffer(state.board, dtype=np.uint8)
        frame = np.zeros(3, dtype=np.int8)
        frame[PIECE[state.player]], frame[PIECE[1 - state.player]] = 1, -1
        self.board[i] = frame[cells]
        self.player[i] = state.player
        self._winner[i] = -1 if state.winner is None else state.winner
        self.filled[i] = np.count_nonzero(cells)
        self.over[i] = state.winner is not None or self.filled[i] == game.num_cells
        occupied = (cells != EMPTY).reshape(game.rows, game.cols)
        self.heights[i] = occupied.sum(axis=0) if game.gravity else 0
        for target, player in ((self.mine, state.player), (self.theirs, 1 - state.player)):
            target[:, i] = np.bitwise_or.reduce(self.tables.cell_bits[:, cells == PIECE[player]], axis=1)
