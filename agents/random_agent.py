"""The uniformly random player: the baseline every other agent is measured against."""

from __future__ import annotations

from typing import Any

from agents._rng import Seeded


class RandomAgent(Seeded):
    """Plays a uniformly random legal move.

    Args:
        seed: an int, a ``numpy.random.Generator`` or None.
    """

    def act(self, game: Any, state: Any) -> int:
        """Return a uniformly random legal action of ``state``."""
        legal = game.legal_actions(state)
        if not legal:
            raise ValueError("no legal action: the game is over")
        return int(legal[self.rng.integers(len(legal))])
