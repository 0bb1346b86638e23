"""Random-number plumbing shared by the agents: every agent takes ``seed=`` (an int, a Generator or None)."""

from __future__ import annotations

import itertools
from collections.abc import Callable

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


def reseed_rng(rng: np.random.Generator, seed: SeedLike) -> None:
    """Put ``rng`` in place in the state ``make_rng(seed)`` starts in: an agent's ``reseed(seed)``.

    In place, because an agent's parts share its generator (MCTS's tree and rollouts, AlphaZero's search),
    so every one of them draws the new stream without being built again.
    """
    rng.bit_generator.state = make_rng(seed).bit_generator.state


class Seeded:
    """An agent whose one generator ``rng`` is built from ``seed=`` (:func:`make_rng`) and can be reseeded.

    Its repr is its class name and ``()``; an agent with settings of its own shows them in a repr of its own.

    Args:
        seed: an int, a ``numpy.random.Generator`` or None.
    """

    def __init__(self, seed: SeedLike = None) -> None:
        self.rng = make_rng(seed)

    def reseed(self, seed: SeedLike) -> None:
        """Draw from now on as a new agent built with ``seed`` would (an env's seeded reset calls this)."""
        reseed_rng(self.rng, seed)

    def __repr__(self) -> str:
        return f"{type(self).__name__}()"


def uniform_stream(rng: np.random.Generator, block: int = 2048) -> Callable[[], float]:
    """Return a function giving the next uniform float in [0, 1) from ``rng``, drawn ``block`` at a time.

    One numpy call per float would cost more than the step it decides, so floats are drawn in blocks and
    handed out as Python floats. A block is drawn on the first call, not before. The floats are those of
    ``rng.random`` in order, but when other draws share ``rng`` the block size decides how they interleave,
    so a caller keeps its block size to keep its results for a seed.

    Args:
        rng: the generator to draw from.
        block: floats drawn per numpy call. The default suits a search: large enough that refills are
            rare, small enough that a short search does not draw much it never uses.
    """
    return itertools.chain.from_iterable(rng.random(block).tolist() for _ in itertools.count()).__next__
