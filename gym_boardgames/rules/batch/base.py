"""What every batch shares: the memory limit, the state buffers and payoffs, and a random legal move per row.

:class:`_Batch` is the base of :class:`~gym_boardgames.rules.batch.connect.ConnectNBatch` and
:class:`~gym_boardgames.rules.batch.dots.DotsAndBoxesBatch`; :func:`random_legal_actions` draws the vector
envs' random moves (the opponent ``"random"``, and benchmarks) from their action masks.
"""

from __future__ import annotations

import functools
from typing import Any, NamedTuple

import numpy as np

from gym_boardgames.checks import check_int

#: Largest memory, in bytes, that one batch's state arrays may take (``num_envs`` times the bytes of one
#: game's arrays): 512 MiB. Tic-tac-toe fits millions of games, a 64x64 board with n=5 about 35,000.
MAX_BATCH_BYTES = 512 * 2**20


class _Batch:
    """What both batches share: the size check, the flat buffers with a spare slot, and the payoffs."""

    winner: np.ndarray

    def __init__(self, game: Any, num_envs: int, bytes_per_game: int) -> None:
        # The memory check runs before any array is allocated, so a huge num_envs fails at once with the
        # largest count that fits MAX_BATCH_BYTES, instead of taking gigabytes first.
        n = self.num_envs = check_int("num_envs", num_envs, 1)
        most = max(1, MAX_BATCH_BYTES // bytes_per_game)
        if n > most:
            raise ValueError(
                f"num_envs={n} games of this board need about {n * bytes_per_game / 2**30:.1f} GiB; "
                f"at most {most} fit the documented limit of {MAX_BATCH_BYTES // 2**20} MiB (MAX_BATCH_BYTES)"
            )
        self.game = game
        self.num_actions = game.num_actions
        self.player = np.zeros(n, dtype=np.int8)
        self.over = np.zeros(n, dtype=bool)

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
