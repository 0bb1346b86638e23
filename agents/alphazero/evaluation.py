"""Measuring a network against the truth: the share of positions where its move keeps the game value.

For boards the layered solver can solve (tic-tac-toe, small Connect Four boards), every position's exact
value is known (:class:`agents.matches.grading.ExactValues`), so a move is *optimal* when the position it leads to
is worth as much to the mover as the position itself. This is how the AlphaZero issue's targets are checked:
"the raw network's greedy move is optimal in at least 99% of the 4,520 non-terminal positions"
(:func:`agents.matches.grading.optimal_move_rate` of :func:`greedy_moves`). This module adds the network's side:
its greedy moves in batches, a perfect opponent, and a recorder of the positions an agent met.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from agents.matches.grading import ExactValues
from gym_boardgames.opponents import reset_hook


def greedy_moves(evaluator: Any, game: Any, batch: int = 1024) -> Callable[[Sequence[Any]], list[int]]:
    """Return a ``choose`` function playing the evaluator's most probable move, evaluated in batches."""

    def choose(states: Sequence[Any]) -> list[int]:
        moves: list[int] = []
        for start in range(0, len(states), batch):
            priors, _ = evaluator.evaluate(game, states[start : start + batch])
            moves.extend(np.argmax(priors, axis=1).tolist())
        return moves

    return choose


class ExactPlayer:
    """A perfect player for a solved game: a uniformly random move among those that keep the game value.

    Args:
        exact: the solved game.
        seed: an int, a Generator or None.
    """

    def __init__(self, exact: ExactValues, seed: Any = None) -> None:
        from agents._rng import make_rng

        self.exact = exact
        self.rng = make_rng(seed)

    def __repr__(self) -> str:
        return f"ExactPlayer({self.exact.game!r})"

    def act(self, game: Any, state: Any) -> int:
        """Return a value-keeping move of ``state``."""
        best = [a for a in game.legal_actions(state) if self.exact.is_optimal(state, a)]
        return int(best[int(self.rng.integers(len(best)))])


class RecordingAgent:
    """Wraps an agent and keeps every state it was asked to move in (to score those positions later)."""

    def __init__(self, agent: Any) -> None:
        self.agent = agent
        self.states: list[Any] = []

    def __repr__(self) -> str:
        return repr(self.agent)

    def reset(self) -> None:
        """Reset the wrapped agent (the arena calls this before each game)."""
        reset = reset_hook(self.agent)
        if reset is not None:
            reset()

    def act(self, game: Any, state: Any) -> int:
        """Record ``state`` and return the wrapped agent's move."""
        self.states.append(state)
        return self.agent.act(game, state)
