"""Random-number plumbing shared by the agents: every agent takes ``seed=`` (an int, a Generator or None)."""

from __future__ import annotations

import numpy as np

SeedLike = int | np.random.Generator | None


def make_rng(seed: SeedLike) -> np.random.Generator:
    """Return ``seed`` itself if it is a Generator, else a new Generator seeded with it.

    Raises:
        ValueError: if ``seed`` is neither None, an int nor a ``numpy.random.Generator``.
    """
    if isinstance(seed, np.random.Generator):
        return seed
    if seed is None or (isinstance(seed, (int, np.integer)) and not isinstance(seed, bool)):
        return np.random.default_rng(seed)
    raise ValueError(f"seed must be None, an int or a numpy.random.Generator, got {seed!r}")
