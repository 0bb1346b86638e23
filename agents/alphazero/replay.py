"""The replay window: the most recent self-play samples a training run learns from, in ring buffers.

Its memory is float32 planes, policies and values for every kept position, so it grows with the board.
:func:`replay_bytes` gives the most it takes at once from the settings and the game's encoding, and a run (or a
resumed training state) asking for more than :data:`MAX_REPLAY_BYTES` is refused before anything is allocated
(:func:`check_replay_window`, the one check).
"""

from __future__ import annotations

import math

import numpy as np

from agents.alphazero.encoding import BoardEncoder
from agents.alphazero.selfplay import Samples

#: Most memory the replay window may take at its peak, which is when a training state is resumed (see
#: :func:`replay_bytes`): checked from the settings before allocating, so neither a flag nor a small file of
#: compressible zeros can ask for more.
MAX_REPLAY_BYTES = 4 << 30


def replay_bytes(window: int, encoder: BoardEncoder) -> int:
    """Return the most bytes a replay window of ``window`` positions of ``encoder``'s game takes at once.

    That is on resume: the window's own float32 planes, policies and values, the same arrays as read from the
    training state (its float32 copy, made before the window takes it), and the file's planes as uint8
    quarters.
    """
    planes, rest = math.prod(encoder.shape), encoder.num_actions + 1
    return window * (2 * 4 * (planes + rest) + planes)


def check_replay_window(window: int, encoder: BoardEncoder) -> None:
    """Refuse a replay window of ``window`` positions whose :func:`replay_bytes` exceed :data:`MAX_REPLAY_BYTES`.

    Raises:
        ValueError: naming the window, what it would take, the limit and the largest window within it.
    """
    needed = replay_bytes(window, encoder)
    if needed > MAX_REPLAY_BYTES:
        raise ValueError(
            f"a replay window of {window:,} positions takes {needed / 2**30:.1f} GiB, more than the "
            f"{MAX_REPLAY_BYTES / 2**30:.0f} GiB limit: use at most {MAX_REPLAY_BYTES // replay_bytes(1, encoder):,} "
            "positions"
        )


class ReplayWindow:
    """The most recent ``capacity`` training samples, in ring buffers."""

    def __init__(self, capacity: int, encoder: BoardEncoder) -> None:
        self.capacity = capacity
        self.planes = np.zeros((capacity, *encoder.shape), dtype=np.float32)
        self.policies = np.zeros((capacity, encoder.num_actions), dtype=np.float32)
        self.values = np.zeros(capacity, dtype=np.float32)
        self.size = 0
        self.next = 0

    def add(self, samples: Samples) -> None:
        """Append samples, overwriting the oldest once full."""
        n = len(samples.values)
        if n >= self.capacity:
            samples = Samples(*(a[-self.capacity :] for a in samples))
            n = self.capacity
        index = (self.next + np.arange(n)) % self.capacity
        self.planes[index], self.policies[index], self.values[index] = samples
        self.next = int((self.next + n) % self.capacity)
        self.size = min(self.capacity, self.size + n)

    def ordered(self) -> Samples:
        """Return the kept samples, oldest first: views of the buffers when they do not wrap, else one copy."""
        buffers = (self.planes, self.policies, self.values)
        if self.size < self.capacity or self.next == 0:
            return Samples(*(buffer[: self.size] for buffer in buffers))
        return Samples(*(np.concatenate((buffer[self.next :], buffer[: self.next])) for buffer in buffers))
