"""The replay window: the most recent self-play samples a training run learns from, in ring buffers.

Its memory is float32 planes, policies and values for every kept position, so it grows with the board:
:func:`replay_bytes` gives it from the settings and the game's encoding, and a run (or a resumed training
state) asking for more than :data:`MAX_REPLAY_BYTES` is refused before anything is allocated.
"""

from __future__ import annotations

import math

import numpy as np

from agents.alphazero.encoding import BoardEncoder
from agents.alphazero.selfplay import Samples

#: Most memory the replay window may take (float32 planes, policies and values of every kept position):
#: checked from the settings before allocating, so neither a flag nor a small file can ask for terabytes.
MAX_REPLAY_BYTES = 4 << 30


def replay_bytes(window: int, encoder: BoardEncoder) -> int:
    """Return the bytes a replay window of ``window`` positions of ``encoder``'s game takes (float32)."""
    return window * 4 * (math.prod(encoder.shape) + encoder.num_actions + 1)


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
        """Return the kept samples, oldest first."""
        if self.size < self.capacity:
            index = np.arange(self.size)
        else:
            index = (self.next + np.arange(self.capacity)) % self.capacity
        return Samples(self.planes[index], self.policies[index], self.values[index])
