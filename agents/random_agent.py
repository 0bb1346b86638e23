"""The uniformly random player: the baseline every other agent is measured against."""

from __future__ import annotations

from typing import Any

from agents._rng import SeedLike, make_rng, reseed_rng


class RandomAgent:
    """Plays a uniformly random legal move.

    Args:
        seed: an int, a ``numpy.random.Generator`` or None.
    """

    def __init__(self, seed: SeedLike = None) -> None:
        self.rng = make_rng(seed)

    def act(self, game: Any, state: Any) -> int:
        """Return a uniformly random legal action of ``state``."""
        legal = game.legal_actions(state)
        if not legal:
            raise ValueError("no legal action: the game is over")
        return int(legal[self.rng.integers(len(legal))])

    def reseed(self, seed: SeedLike) -> None:
        """Draw from now on as a new agent built with ``seed`` would (an env's seeded reset calls this)."""
        reseed_rng(self.rng, seed)

    def __repr__(self) -> str:
        return "RandomAgent()"
