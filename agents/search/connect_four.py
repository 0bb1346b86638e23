"""An exact Connect Four solver: negamax with alpha-beta on bitboards, after Pascal Pons' published method.

The position is two integers, as in Pons' write-up: ``mine`` (the stones of the player to move) and ``mask``
(every stone), each column taking ``rows + 1`` bits from the bottom, the spare top bit keeping columns apart
so that one shift moves every stone one cell in a direction. On top of plain alpha-beta the search has:

* **no losing moves**: a move under an opponent's threat, or a move that leaves one of two forced blocks
  unplayed, is never tried, and a position with no other move is scored as lost at once;
* **move ordering by threats**: the children are tried by how many winning cells the move creates for the
  mover (centre columns first among equals);
* **a transposition table** of lower and upper bounds, keyed by ``mine + mask`` (unique per position), one
  int64 word an entry; each child's entry is prefetched from memory while the moves are ordered, since a probe
  of the 67 MB table is most often a cache miss;
* **MTD(f)**: :func:`score_board` and :func:`solve_board` find a score by null-window searches ``[beta - 1,
  beta]`` from a guess, each result the next guess, until the bounds meet; each column starts from the score
  of the column before, which is often the same or near;
* **enhanced transposition cutoffs** below 30 stones: the children's entries, read before any child is
  searched, may already prove a cutoff;
* **an opening book** on the standard 6x7 board (:mod:`agents.search.opening_book`): a position with 12 stones is
  read, not searched, so early positions cost a search of at most 12 plies.

Scores follow Pons (and the label files of :mod:`agents.matches.perfect_play`), for the player to move with ``ply``
stones on a board of ``cells``: a win with the player's next stone scores ``(cells + 1 - ply) // 2``, one
less for each further stone of theirs it needs; a draw scores 0; a loss is the negative of the opponent's
win score. So the largest score is the fastest win, and among losses the least negative is the slowest.

The kernels are plain Python on integers and numpy arrays. With numba installed (the ``solver`` extra) they are
compiled once and cached on disk; without it, or with ``NUMBA_DISABLE_JIT=1``, the same functions run as
Python, correct and about a hundred times slower (``scripts/bench.py`` measures both).
"""

from __future__ import annotations

import os
import threading
from typing import Any

import numpy as np

from agents._rng import Seeded
from agents.search.opening_book import default_book
from gym_boardgames.cancel import check_cancelled, current_signal, on_cancel
from gym_boardgames.checks import check_int
from gym_boardgames.rules.registry import family_of

try:  # the `solver` extra: compile the kernels, cache them beside this module (or in NUMBA_CACHE_DIR)
    from numba import njit

    _jit: Any = njit(cache=True, nogil=True)
    COMPILED = os.environ.get("NUMBA_DISABLE_JIT", "0") in ("", "0")
except ImportError:  # pragma: no cover - exercised in a venv without numba

    def _jit(function: Any) -> Any:
        return function

    COMPILED = False

if COMPILED:
    from llvmlite import ir
    from numba import types
    from numba.core import cgutils
    from numba.extending import intrinsic

    @intrinsic
    def _prefetch(typing_context: Any, array: Any, index: Any) -> Any:
        """Start loading ``array[index]`` into the caches (LLVM's prefetch); the search goes on meanwhile."""

        def codegen(context: Any, builder: Any, signature: Any, arguments: Any) -> Any:
            data = context.make_array(signature.args[0])(context, builder, arguments[0]).data
            address = builder.bitcast(builder.gep(data, [arguments[1]]), ir.IntType(8).as_pointer())
            # For a write, kept in every cache level, data (not instructions).
            flags = [ir.Constant(ir.IntType(32), value) for value in (1, 3, 1)]
            prefetch_type = ir.FunctionType(ir.VoidType(), [address.type] + [ir.IntType(32)] * 3)
            prefetch = cgutils.get_or_insert_function(builder.module, prefetch_type, "llvm.prefetch.p0i8")
            builder.call(prefetch, [address, *flags])
            return context.get_dummy_value()

        return types.void(array, index), codegen

else:

    def _prefetch(array: np.ndarray, index: int) -> None:
        """Nothing in pure Python, where a cache miss is lost among the interpreter's costs."""


#: Entries of the transposition table: a prime, so that ``key % size`` spreads the keys (Pons uses 2**23 + 9).
TABLE_SIZE = 8_388_617
# A table entry is one int64, so that a probe reads one cache line: from bit 16 a tag, the key's low 40 bits
# plus one (0 is an empty slot); bits 8-15 the lower bound and bits 0-7 the upper bound, each plus 64 (scores
# lie in -32..32 on the boards that fit). The slot and the tag give the key back (the Chinese remainder
# theorem: TABLE_SIZE * 2**40 > 2**63 exceeds every key), so a match is the same position and the search stays
# exact.
_TAG_SHIFT, _TAG_MASK, _BOUND_OFFSET = 16, (1 << 40) - 1, 64
#: The bounds of an entry that knows nothing: a lower bound of -64 and an upper bound of 63.
_EMPTY_BOUNDS = (0 << 8) | 127
# Slots of the scratch array: the call's nodes, the node limit (0: none), set to 1 when the limit stopped the call,
# the nodes of all calls; from _ORDER, each ply's move order.
_NODES, _LIMIT, _STOPPED, _TOTAL, _ORDER = 0, 1, 2, 3, 4
# Enhanced transposition cutoffs (the children's table entries read before any child is searched) below this
# many stones: on the five slowest Pons positions it cut 20% of the nodes and 9% of the time; at every ply the
# extra reads cost more than they save (measured at 20, 26, 30, 34 and 43).
_ETC_BELOW = 30
#: The score :func:`score_board` writes for a full column, and what both entry points return when the node
#: limit stopped them.
NO_SCORE = -128


@_jit
def _popcount(bits: int) -> int:
    count = 0
    while bits:
        bits &= bits - 1
        count += 1
    return count


@_jit
def _winning_cells(stones: int, mask: int, rows: int, board_mask: int) -> int:
    """Return the empty cells where ``stones`` would make four in a row (playable now or not)."""
    # Vertical: three stones straight below.
    found = (stones << 1) & (stones << 2) & (stones << 3)
    # Horizontal and both diagonals: a shift of rows + 1, rows or rows + 2 bits is one step along the line. From
    # 15 rows the board has at most 3 columns ((rows + 1) * cols <= 63), so no such line fits, and they are
    # skipped: from 20 rows, three steps reach 64 bits, a shift int64 does not define (x86 takes it mod 64, and
    # the compiled search found wins that were not there). Below 15 rows every shift is at most 48 bits.
    if rows >= 15:
        return found & (board_mask ^ mask)
    for step in (rows + 1, rows, rows + 2):
        pair = (stones << step) & (stones << 2 * step)
        found |= pair & (stones << 3 * step)  # three to one side
        found |= pair & (stones >> step)  # two on one side, one on the other
        pair = (stones >> step) & (stones >> 2 * step)
        found |= pair & (stones << step)
        found |= pair & (stones >> 3 * step)
    return found & (board_mask ^ mask)


@_jit
def _board_masks(rows: int, cols: int) -> tuple[int, int]:
    """Return ``(bottom, board)``: the bottom cell of every column, and every cell of the board."""
    bottom = 0
    for column in range(cols):
        bottom |= 1 << (column * (rows + 1))
    return bottom, bottom * ((1 << rows) - 1)


@_jit
def _book_score(mine: int, mask: int, rows: int, cols: int, book_keys: np.ndarray, book_scores: np.ndarray) -> int:
    """Return the book's score of a 12-stone 6x7 position for the player to move, or -100 if it has none.

    The book (:mod:`agents.search.opening_book`) keys a position by a code read column by column, bottom to top:
    ``10`` for a first-player stone, ``11`` for a second-player stone, ``0`` closing each column, and one
    trailing ``0``; 12 stones make exactly 32 bits. The position or its mirror image may be stored.
    """
    for mirrored in range(2):
        code = 0
        for index in range(cols):
            column = cols - 1 - index if mirrored else index
            for row in range(rows):
                cell = 1 << (column * (rows + 1) + row)
                if not mask & cell:
                    break
                code = (code << 2) | (2 if mine & cell else 3)  # with 12 stones the mover moved first
            code <<= 1
        code <<= 1
        if code >= 1 << 31:
            code -= 1 << 32  # the keys are stored as signed 32-bit integers
        # As an int32 scalar: given a Python int, numpy would convert the whole 4-million-key array first.
        at = np.searchsorted(book_keys, np.int32(code))
        if at < len(book_keys) and book_keys[at] == code:
            stored = int(book_scores[at])
            if stored == 0:
                return 0
            # Stored: 100 - d for a win of the mover in d plies (the winning stone included), -(100 - d) for a
            # loss; the winning stone is then stone number 12 + d of the game.
            plies = 100 - abs(stored)
            score = (rows * cols + 1 - (12 + plies - 1)) // 2
            return score if stored > 0 else -score
    return -100


@_jit
def _negamax(
    mine: int,
    mask: int,
    ply: int,
    alpha: int,
    beta: int,
    rows: int,
    cols: int,
    bottom: int,
    board_mask: int,
    table: np.ndarray,
    scratch: np.ndarray,
    book_keys: np.ndarray,
    book_scores: np.ndarray,
) -> int:
    """Return the score of a position whose mover cannot win at once, exactly when it lies in (alpha, beta).

    Otherwise the result is a bound: ``alpha`` (or less) means the score is at most that, a result at or
    above ``beta`` means at least that.
    """
    scratch[_NODES] += 1
    if scratch[_LIMIT] and scratch[_NODES] > scratch[_LIMIT]:
        scratch[_STOPPED] = 1
        return 0
    cells = rows * cols
    opponent = mine ^ mask
    playable = (mask + bottom) & board_mask
    threats = _winning_cells(opponent, mask, rows, board_mask)
    forced = playable & threats
    if forced:
        if forced & (forced - 1):
            return -((cells - ply) // 2)  # two threats to block: the opponent wins with the next stone
        playable = forced
    safe = playable & ~(threats >> 1)  # never play under an opponent's winning cell
    if safe == 0:
        return -((cells - ply) // 2)
    if ply >= cells - 2:
        return 0  # neither side can win with the last two stones
    lowest = -((cells - 2 - ply) // 2)  # the opponent cannot win with their next stone
    if alpha < lowest:
        alpha = lowest
        if alpha >= beta:
            return alpha
    highest = (cells - 1 - ply) // 2  # the mover cannot win with this stone
    key = mine + mask
    slot = key % TABLE_SIZE
    tag = (key & _TAG_MASK) + 1
    entry = table[slot]
    if entry >> _TAG_SHIFT == tag:
        upper = (entry & 0xFF) - _BOUND_OFFSET
        if upper < highest:
            highest = upper
        lower = ((entry >> 8) & 0xFF) - _BOUND_OFFSET
        if lower > alpha:
            alpha = lower
    else:
        entry = (tag << _TAG_SHIFT) | _EMPTY_BOUNDS
    if beta > highest:
        beta = highest
        if alpha >= beta:
            return beta
    if alpha >= beta:
        return alpha
    if ply == 12 and len(book_keys):
        known = _book_score(mine, mask, rows, cols, book_keys, book_scores)
        if known != -100:
            return known

    # Order the safe moves by the winning cells they create, centre columns first among equals.
    base = _ORDER + ply * cols
    count = 0
    for rank in range(cols):
        column = cols // 2 + (1 - 2 * (rank % 2)) * ((rank + 1) // 2)
        move = safe & (((1 << rows) - 1) << (column * (rows + 1)))
        if move:
            # The child's table entry, fetched from memory while the others are ordered: a probe of the 67 MB
            # table is most often a cache miss, and the prefetch made the search about 30% faster (per node).
            _prefetch(table, (opponent + (mask | move)) % TABLE_SIZE)
            value = _popcount(_winning_cells(mine | move, mask, rows, board_mask))
            at = base + count
            while at > base and (scratch[at - 1] >> 8) < value:
                scratch[at] = scratch[at - 1]
                at -= 1
            scratch[at] = (value << 8) | column
            count += 1

    if ply < _ETC_BELOW:
        # A child's upper bound u (for its mover) makes this position worth at least -u: it raises alpha, and
        # may cut off before any child is searched.
        for index in range(count):
            column = scratch[base + index] & 0xFF
            child = opponent + (mask | (safe & (((1 << rows) - 1) << (column * (rows + 1)))))
            known = table[child % TABLE_SIZE]
            if known >> _TAG_SHIFT == (child & _TAG_MASK) + 1:
                bound = _BOUND_OFFSET - (known & 0xFF)
                if bound > alpha:
                    alpha = bound
                    if alpha >= beta:
                        table[slot] = (entry & ~0xFF00) | ((alpha + _BOUND_OFFSET) << 8)
                        return alpha

    for index in range(count):
        column = scratch[base + index] & 0xFF
        move = safe & (((1 << rows) - 1) << (column * (rows + 1)))
        score = -_negamax(
            opponent, mask | move, ply + 1, -beta, -alpha, rows, cols, bottom, board_mask, table, scratch,
            book_keys, book_scores,
        )  # fmt: skip
        if scratch[_STOPPED]:
            return 0
        if score >= beta:
            # A lower bound: the entry read above (or a fresh one) with its lower byte replaced.
            table[slot] = (entry & ~0xFF00) | ((score + _BOUND_OFFSET) << 8)
            return score
        if score > alpha:
            alpha = score
    table[slot] = (entry & ~0xFF) | (alpha + _BOUND_OFFSET)  # an upper bound
    return alpha


@_jit
def _solve(
    mine: int,
    mask: int,
    ply: int,
    guess: int,
    rows: int,
    cols: int,
    bottom: int,
    board_mask: int,
    table: np.ndarray,
    scratch: np.ndarray,
    book_keys: np.ndarray,
    book_scores: np.ndarray,
) -> int:
    """Return the exact score of a position that is not over (0 with ``scratch[_STOPPED]`` set if it stopped).

    MTD(f): null-window searches ``[beta - 1, beta]`` from ``guess``, each result a new bound and the next
    guess, until the bounds meet. A guess near the score (the score of a sibling move) needs few searches.
    """
    if _winning_cells(mine, mask, rows, board_mask) & (mask + bottom) & board_mask:
        return (rows * cols + 1 - ply) // 2
    low = -((rows * cols - ply) // 2)
    high = (rows * cols + 1 - ply) // 2
    guess = min(max(guess, low), high)
    while low < high:
        beta = max(guess, low + 1)
        guess = _negamax(
            mine, mask, ply, beta - 1, beta, rows, cols, bottom, board_mask, table, scratch, book_keys, book_scores
        )
        if scratch[_STOPPED]:
            return 0
        if guess < beta:
            high = guess
        else:
            low = guess
    return low


@_jit
def _has_four(stones: int, rows: int) -> bool:
    """Whether ``stones`` hold four in a row: two pairs, two steps apart, along a line (Pons' ``alignment``)."""
    for step in (1, rows + 1, rows, rows + 2):
        pair = stones & (stones >> step)
        if pair & (pair >> 2 * step):
            return True
        if rows >= 15:
            return False  # only vertical lines fit from 15 rows, and longer shifts pass 63 bits (_winning_cells)
    return False


@_jit
def _where(rows: int, cols: int) -> str:
    """The start of a refused position's message, built only then: strings cost allocations in compiled code."""
    return "not a position of a " + str(rows) + "x" + str(cols) + " gravity board: "


@_jit
def _board_bits(board: bytes, player: int, rows: int, cols: int) -> tuple[int, int]:
    """Return ``(mine, mask)``: the bitboards of a ConnectN board (row 0 at the top; 1, 2: the players' stones).

    Every search starts here, so a forged position is refused here, once, in compiled code (about 70 ns, 2% of a
    warm End-Easy call).

    Raises:
        ValueError: unless ``player`` is 0 or 1 and ``board`` a position not over with ``player`` to move:
            ``rows * cols`` cells of 0, 1 or 2, no stone above an empty cell, player 0 as many stones as player 1
            (one more with player 1 to move), no four in a row, an empty cell.
    """
    if player != 0 and player != 1:
        raise ValueError(_where(rows, cols) + "the player to move must be 0 or 1, got " + str(player))
    if len(board) != rows * cols:
        raise ValueError(_where(rows, cols) + "a board has " + str(rows * cols) + " cells, got " + str(len(board)))
    mine = mask = firsts = 0
    for column in range(cols):
        gap = False  # an empty cell below; branches per cell, not arithmetic, measured half the time
        for height in range(rows):
            at = (rows - 1 - height) * cols + column
            cell = board[at]
            if cell == 0:
                gap = True
            elif cell < 0 or cell > 2:
                raise ValueError(_where(rows, cols) + "cell " + str(at) + " is " + str(cell) + ", not 0 (empty), 1, 2")
            elif gap:
                raise ValueError(_where(rows, cols) + "cell " + str(at) + " floats above an empty cell")
            else:
                mask |= 1 << (column * (rows + 1) + height)
                firsts += 1 if cell == 1 else 0
                if cell == player + 1:
                    mine |= 1 << (column * (rows + 1) + height)
    seconds = _popcount(mask) - firsts
    if firsts - seconds != player:
        counts = "player 0 has " + str(firsts) + " stones and player 1 has " + str(seconds)
        raise ValueError(_where(rows, cols) + counts + " with player " + str(player) + " to move: player 0 moves "
                         "at equal counts, player 1 one stone behind")  # fmt: skip
    if _has_four(mine, rows) or _has_four(mine ^ mask, rows) or firsts + seconds == rows * cols:
        raise ValueError(_where(rows, cols) + "the game is over (four in a row or a full board)")
    return mine, mask


@_jit
def solve_board(
    board: bytes,
    player: int,
    rows: int,
    cols: int,
    table: np.ndarray,
    scratch: np.ndarray,
    book_keys: np.ndarray,
    book_scores: np.ndarray,
) -> int:
    """Return the exact score of a ConnectN board that is not over, for ``player`` (0 or 1) to move (see the module).

    ``scratch`` holds the counters and then each ply's move order (:func:`scratch_array`). The search stops
    early, returning :data:`NO_SCORE` with ``scratch[_STOPPED]`` set, once its nodes pass a non-zero
    ``scratch[_LIMIT]`` (the caller's to set: a cancel may set it during the search); ``scratch[_TOTAL]`` adds up
    the nodes of every call. A board or player no game reaches raises ``ValueError`` naming the problem.
    """
    scratch[_NODES] = scratch[_STOPPED] = 0
    mine, mask = _board_bits(board, player, rows, cols)
    bottom, board_mask = _board_masks(rows, cols)
    score = _solve(
        mine, mask, _popcount(mask), 0, rows, cols, bottom, board_mask, table, scratch, book_keys, book_scores
    )
    scratch[_TOTAL] += scratch[_NODES]
    return NO_SCORE if scratch[_STOPPED] else score


@_jit
def score_board(
    board: bytes,
    player: int,
    rows: int,
    cols: int,
    table: np.ndarray,
    scratch: np.ndarray,
    book_keys: np.ndarray,
    book_scores: np.ndarray,
    scores: np.ndarray,
) -> int:
    """Write the exact score of every column of a board that is not over into ``scores``, for ``player`` to move.

    A full column gets :data:`NO_SCORE`. Return 0, or :data:`NO_SCORE` if the node limit stopped the search
    (the counters and the limit as in :func:`solve_board`, the limit bounding all the columns together). Each
    column's search starts from the score of the column before (MTD(f)'s guess): neighbours score alike. A board
    or player no game reaches raises ``ValueError`` naming the problem.
    """
    scratch[_NODES] = scratch[_STOPPED] = 0
    mine, mask = _board_bits(board, player, rows, cols)
    ply = _popcount(mask)
    cells = rows * cols
    bottom, board_mask = _board_masks(rows, cols)
    wins = _winning_cells(mine, mask, rows, board_mask)
    guess = 0
    for column in range(cols):
        move = (mask + (1 << (column * (rows + 1)))) & (((1 << rows) - 1) << (column * (rows + 1)))
        if move == 0:
            scores[column] = NO_SCORE
            continue
        if move & wins:
            scores[column] = (cells + 1 - ply) // 2
        elif ply + 1 == cells:
            scores[column] = 0  # the last stone, not a win: a draw
        else:
            scores[column] = -_solve(
                mine ^ mask, mask | move, ply + 1, -guess, rows, cols, bottom, board_mask, table, scratch,
                book_keys, book_scores,
            )  # fmt: skip
            if scratch[_STOPPED]:
                break
        guess = scores[column]
    scratch[_TOTAL] += scratch[_NODES]
    return NO_SCORE if scratch[_STOPPED] else 0


def scratch_array(rows: int, cols: int) -> np.ndarray:
    """Return the ``scratch`` array :func:`solve_board` and :func:`score_board` need on ``rows x cols`` (counters 0)."""
    return np.zeros(_ORDER + (rows * cols + 1) * cols, dtype=np.int64)


class SearchBudgetExceeded(RuntimeError):
    """The search passed its node limit before it had the exact answer."""


def check_solvable(game: Any) -> None:
    """Raise ``ValueError`` unless ``game`` is a gravity board with four in a row that fits the bitboard.

    The bitboard takes ``rows + 1`` bits a column in a signed 64-bit integer, so ``(rows + 1) * cols <= 63``:
    6x7 (Connect Four), 7x7 and 6x8 fit; so does every smaller board.
    """
    if family_of(game) != "connect" or not game.gravity or game.n != 4:
        raise ValueError(
            f"the exact solver plays gravity boards with four in a row (Connect Four and smaller), not {game!r}"
        )
    if (game.rows + 1) * game.cols > 63:
        raise ValueError(
            f"the exact solver needs (rows + 1) * cols <= 63 bits; {game.rows}x{game.cols} needs "
            f"{(game.rows + 1) * game.cols}: use 6x7 (Connect Four), 7x7, 6x8 or a smaller board"
        )


class ConnectFourSolver:
    """Exact scores of positions of one board (see the module); not safe to share between threads.

    Args:
        rows: board height (the game's ``rows``).
        cols: board width.
        book: read the 12-ply opening book on 6x7 when the ``solver`` extra provides it.
    """

    def __init__(self, rows: int = 6, cols: int = 7, book: bool = True) -> None:
        self.rows, self.cols = rows, cols
        self.table = np.full(TABLE_SIZE, 0, dtype=np.int64)  # written now: no page faults during the searches
        self._scratch = scratch_array(rows, cols)
        self._scores = np.zeros(cols, dtype=np.int64)
        self.book = default_book() if book and (rows, cols) == (6, 7) else None
        self._book_codes = self.book.codes if self.book else np.zeros(0, dtype=np.int32)
        self._book_scores = self.book.scores if self.book else np.zeros(0, dtype=np.int8)
        self._checked_game: Any = None  # the last game found to be of this board: most callers pass one game
        # What every kernel call passes after the board, built once: a short search costs about a microsecond.
        self._kernel_arguments = (rows, cols, self.table, self._scratch, self._book_codes, self._book_scores)

    def __repr__(self) -> str:
        book = "12-ply book" if self.book else "no book"
        return f"ConnectFourSolver({self.rows}x{self.cols}, {book}, {'compiled' if COMPILED else 'pure Python'})"

    @property
    def nodes(self) -> int:
        """Positions searched since the solver was made (or :meth:`clear` ed)."""
        return int(self._scratch[_TOTAL])

    def clear(self) -> None:
        """Forget every position the table holds, as a fresh solver would (Pons times each position so)."""
        self.table.fill(0)
        self._scratch[_TOTAL] = 0

    def _check(self, game: Any, state: Any, max_nodes: int | None) -> None:
        """Check the arguments of the public calls once: this solver's board, a game not over, a node limit.

        Raises:
            ValueError: if ``game`` is not the board this solver was built for (a gravity board of ``rows x cols``
                with four in a row), ``state`` has another number of cells, its board is not bytes or its player
                not an int, the game is over, or ``max_nodes`` is not a positive int or None.
        """
        cells = len(getattr(state, "board", ()))
        if game is not self._checked_game or cells != self.rows * self.cols:
            size = (self.rows, self.cols, True, 4, self.rows * self.cols)
            if family_of(game) != "connect" or (game.rows, game.cols, game.gravity, game.n, cells) != size:
                raise ValueError(
                    f"this solver is built for {self.rows}x{self.cols} gravity boards with four in a row "
                    f"({size[-1]} cells), not {game!r} with a board of {cells} cells"
                )
            self._checked_game = game
        if max_nodes is not None:
            check_int("max_nodes (or None for no limit)", max_nodes, 1)
        if type(state.board) is not bytes or type(state.player) is not int:  # else numba compiles for the new types
            kinds = f"{type(state.board).__name__} and {type(state.player).__name__}"
            raise ValueError(f"a state's board must be bytes and its player an int (0 or 1), not {kinds}")
        if game.is_terminal(state):
            raise ValueError("the game is over: there is no move to score")

    def _run(self, kernel: Any, max_nodes: int | None, state: Any, *out: np.ndarray) -> int:
        """Run a compiled search of ``state`` with this solver's table, the node limit and the cancel signal."""
        scratch = self._scratch
        scratch[_LIMIT] = max_nodes or 0
        if current_signal() is None:  # nothing can cancel this thread's search: no hook to register
            result = kernel(state.board, state.player, *self._kernel_arguments, *out)
        else:
            # The compiled search cannot check the cancel signal: cancelling sets its node limit as reached.
            with on_cancel(lambda: scratch.__setitem__(_LIMIT, 1)):
                result = kernel(state.board, state.player, *self._kernel_arguments, *out)
            check_cancelled()
        if result == NO_SCORE:
            raise SearchBudgetExceeded(f"no exact answer within {max_nodes} positions")
        return int(result)

    def score_moves(self, game: Any, state: Any, max_nodes: int | None = None) -> dict[int, int]:
        """Return ``{column: score}`` for every legal column of ``state``, for the player to move.

        ``max_nodes`` bounds the positions searched over all the columns.

        Raises:
            ValueError: if ``game`` or ``state`` is not of the board this solver was built for (naming both),
                ``state`` is no position of it (a player not 0 or 1, cells not 0, 1 or 2, impossible stone counts,
                a floating stone, a line unrecorded), the game is over, or ``max_nodes`` is not a positive int or None.
            SearchBudgetExceeded: if the bound is reached first.
        """
        self._check(game, state, max_nodes)
        scores = self._scores
        self._run(score_board, max_nodes, state, scores)
        values = scores.tolist()
        if NO_SCORE not in values:
            return dict(enumerate(values))
        return {column: score for column, score in enumerate(values) if score != NO_SCORE}

    def solve(self, game: Any, state: Any, max_nodes: int | None = None) -> int:
        """Return the exact score of ``state`` for the player to move (the best of :meth:`score_moves`).

        Raises:
            ValueError: as :meth:`score_moves`.
            SearchBudgetExceeded: if ``max_nodes`` positions were searched first.
        """
        self._check(game, state, max_nodes)
        return self._run(solve_board, max_nodes, state)


_SHARED: dict[tuple[int, int], tuple[ConnectFourSolver, threading.Lock]] = {}
_SHARED_LOCK = threading.Lock()


def shared_solver(game: Any) -> tuple[ConnectFourSolver, threading.Lock]:
    """Return this process's solver of ``game``'s board and the lock to hold while using it.

    One transposition table (67 MB) per board size serves every agent, hint and label of the process,
    and what one search learns speeds up the next.

    Raises:
        ValueError: if ``game`` is not a board the solver plays (:func:`check_solvable`).
    """
    check_solvable(game)
    with _SHARED_LOCK:
        entry = _SHARED.get((game.rows, game.cols))
        if entry is None:
            entry = _SHARED[game.rows, game.cols] = (ConnectFourSolver(game.rows, game.cols), threading.Lock())
    return entry


def score_moves(game: Any, state: Any, max_nodes: int | None = None) -> dict[int, int]:
    """Return ``{column: exact score}`` for the legal moves of ``state`` (see the module for the scores).

    Raises:
        ValueError: if ``game`` is not a board the solver plays, ``state`` is no position of it, or the game is over.
        SearchBudgetExceeded: if ``max_nodes`` positions were searched first.
    """
    solver, lock = shared_solver(game)
    with lock:
        return solver.score_moves(game, state, max_nodes)


class PerfectAgent(Seeded):
    """Perfect play on Connect Four and smaller gravity boards: the move of best exact score.

    The best score is the quickest win, else a draw, else the slowest loss; among equally good moves the
    agent's generator picks, so seeded games vary and repeat.

    Args:
        seed: an int, a ``numpy.random.Generator`` or None.
    """

    def check(self, game: Any) -> None:
        """Raise ``ValueError`` if the solver cannot play ``game`` (see :func:`check_solvable`)."""
        check_solvable(game)

    def act(self, game: Any, state: Any) -> int:
        """Return one of the best-scored columns of ``state``."""
        scores = score_moves(game, state)
        top = max(scores.values())
        best = sorted(column for column, score in scores.items() if score == top)
        return best[int(self.rng.integers(len(best)))]

    def __repr__(self) -> str:
        return "PerfectAgent()"
