"""Batched rules: ``N`` games of one configuration in numpy arrays, all advanced by one call.

These are the rules of :mod:`gym_boardgames.rules.connect` and :mod:`gym_boardgames.rules.dots` with a
batch axis, for :mod:`gym_boardgames.vector`. They read the same geometry the scalar rules read
(:func:`~gym_boardgames.rules.connect.board_geometry` win lines, :func:`~gym_boardgames.rules.dots.dots_geometry`
edge/box maps) and use the same action numbering; ``tests/rules/test_batch.py`` replays random games
through both and compares every position.

Unlike the scalar rules' immutable states, a batch is mutated in place: a new set of arrays per move
would cost more than the move. :meth:`ConnectNBatch.state` and :meth:`DotsAndBoxesBatch.state` give the
immutable scalar state of one game, so search agents and value tables see the usual values.

Conventions shared by both classes:

* ``indices`` arguments select games: an integer index array, or ``None`` for all of them.
* ``play(actions, moving)`` takes one action per game (in range, and legal in the games that move) and a
  boolean ``moving`` mask of the games that move. Games outside ``moving`` are left exactly as they were,
  whatever their action. ``moving=None`` moves every game, which is cheaper: a finished game given an
  illegal action that way is garbage until :meth:`reset`, and no other game is touched (the vector envs
  use this for the games they restart anyway).
* Every array returned is new, never a view of the batch's state.
"""

from __future__ import annotations

import functools
from typing import NamedTuple

import numpy as np

from gym_boardgames.checks import check_int
from gym_boardgames.rules.connect import EMPTY, PIECE, BoardState, ConnectN, board_geometry
from gym_boardgames.rules.dots import DotsAndBoxes, DotsState, dots_geometry

_ONE = np.uint64(1)


#: Largest memory, in bytes, that one batch's state arrays may take (``num_envs`` times the bytes of one
#: game's arrays): 512 MiB. Tic-tac-toe fits millions of games, a 64x64 board with n=5 about 35,000.
MAX_BATCH_BYTES = 512 * 2**20


def _check_num_envs(num_envs: object, bytes_per_game: int) -> int:
    """Return ``num_envs`` as an int, or raise ``ValueError`` if it is not a positive integer or too many.

    The memory check runs before any array is allocated, so a huge ``num_envs`` fails at once with the
    largest count that fits :data:`MAX_BATCH_BYTES`, instead of taking gigabytes first.
    """
    num_envs = check_int("num_envs", num_envs, 1)
    most = max(1, MAX_BATCH_BYTES // bytes_per_game)
    if num_envs > most:
        raise ValueError(
            f"num_envs={num_envs} games of this board need about {num_envs * bytes_per_game / 2**30:.1f} GiB; "
            f"at most {most} fit the documented limit of {MAX_BATCH_BYTES // 2**20} MiB (MAX_BATCH_BYTES)"
        )
    return int(num_envs)


class _Batch:
    """What both batches share: the size check, the flat buffers with a spare slot, and the payoffs."""

    winner: np.ndarray

    def __init__(self, game: ConnectN | DotsAndBoxes, num_envs: int, bytes_per_game: int) -> None:
        self.game = game
        self.num_envs = _check_num_envs(num_envs, bytes_per_game)
        self.num_actions = game.num_actions
        self.player = np.zeros(self.num_envs, dtype=np.int8)
        self.over = np.zeros(self.num_envs, dtype=bool)

    def _rows(self, width: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Return a zero int8 buffer of ``N`` rows of ``width`` plus a spare slot, its ``(N, width)`` view, row starts.

        Games that do not move write to the spare slot at the end (:meth:`_masked`): a masked move is one
        unconditional scatter instead of a gather, a select and a scatter.
        """
        buffer = np.zeros(self.num_envs * width + 1, dtype=np.int8)
        return buffer, buffer[:-1].reshape(self.num_envs, width), np.arange(self.num_envs, dtype=np.intp) * width

    @staticmethod
    def _masked(slots: np.ndarray, moving: np.ndarray | None, buffer: np.ndarray) -> np.ndarray:
        """``slots`` of a :meth:`_rows` buffer, the spare slot for the games outside ``moving`` (None: all move)."""
        return slots if moving is None else np.where(moving, slots, len(buffer) - 1)

    def returns(self) -> np.ndarray:
        """Return a new ``(N, 2)`` float64 array: per game, each player's payoff (0 while not over)."""
        winner = self.winner
        payoff = np.zeros((self.num_envs, 2))
        won = np.flatnonzero(winner >= 0)
        payoff[won, winner[won]] = 1.0
        payoff[won, 1 - winner[won]] = -1.0
        return payoff


#: Actions per chunk of the random-move tables: a chunk's legal set is one of 2**12 codes.
_CHUNK = 12
#: At most this many actions are packed into codes (two chunks); float32 holds integers below 2**24 exactly.
_BLOCK = 2 * _CHUNK


class _PickTables(NamedTuple):
    counts: np.ndarray  # (2**_CHUNK,) float64: how many actions a code holds
    kth: np.ndarray  # (2**_CHUNK * _CHUNK,) intp: [code * _CHUNK + k] is the k-th action of a code
    weights: np.ndarray  # (_BLOCK,) float32: 2**j, to pack a block of 0/1 entries into one integer


@functools.lru_cache(maxsize=1)
def _pick_tables() -> _PickTables:
    codes = np.arange(2**_CHUNK)
    members = (codes[:, None] >> np.arange(_CHUNK)) & 1
    kth = np.zeros((2**_CHUNK, _CHUNK), dtype=np.intp)
    for code in codes:
        actions = np.flatnonzero(members[code])
        kth[code, : len(actions)] = actions
    return _PickTables(members.sum(axis=1).astype(np.float64), kth.ravel(), 2.0 ** np.arange(_BLOCK, dtype=np.float32))


def random_legal_actions(mask: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Return one uniformly random legal action per row of ``mask`` (action 0 where none is legal).

    Each row draws one uniform number ``u`` and takes its ``floor(u * count)``-th legal action. To find
    it without a per-row loop, a mask of up to 24 actions is read as 12-bit codes, one per chunk of 12
    actions (a matrix-vector product packs the 0/1 entries); tables indexed by code give a chunk's count
    of legal actions and its k-th one. Tic-tac-toe and Connect Four are one chunk. Wider masks use a
    running count along each row instead.

    Args:
        mask: ``(N, num_actions)`` array of 0/1 (int8, bool or any number type), 1 where legal.
        rng: the generator to draw from (one float per row).

    Returns:
        ``(N,)`` integer array of actions.
    """
    num_actions = mask.shape[1]
    u = rng.random(len(mask))
    if num_actions > _BLOCK:
        # Wide boards (Gomoku): a few passes over the mask beat a few operations per chunk.
        ranks = np.cumsum(mask, axis=1, dtype=np.int16 if num_actions < 2**15 else np.int64)
        k = (u * ranks[:, -1]).astype(ranks.dtype)
        return (ranks > k[:, None]).argmax(axis=1)
    tables = _pick_tables()
    packed = (mask @ tables.weights[:num_actions]).astype(np.int64)  # exact: below 2**24
    if num_actions <= _CHUNK:
        k = (u * tables.counts.take(packed)).astype(np.int64)
        packed *= _CHUNK
        packed += k
        return tables.kth.take(packed)
    low, high = packed & (2**_CHUNK - 1), packed >> _CHUNK
    low_count = tables.counts.take(low)
    total = low_count + tables.counts.take(high)
    k = np.floor(u * total).astype(np.int64)
    in_low = (k < low_count) | (total == 0)
    # The k-th legal action is in the low chunk, or the (k - low_count)-th of the high one.
    k = np.where(in_low, k, k - low_count.astype(np.int64))
    code = np.where(in_low, low, high)
    return tables.kth.take(code * _CHUNK + k) + np.where(in_low, 0, _CHUNK)


# ---- ConnectN (tic-tac-toe, the m,n,k game, Connect Four) ----------------------------------------


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
            ValueError: if the board has the wrong number of cells.
        """
        game = self.game
        cells = np.frombuffer(state.board, dtype=np.uint8)
        if len(cells) != game.num_cells:
            raise ValueError(f"a board of this game has {game.num_cells} cells, got {len(cells)}")
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


# ---- Dots and Boxes -------------------------------------------------------------------------------


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
