"""Measuring a network against the truth: the share of positions where its move keeps the game value.

For boards the layered solver can solve (tic-tac-toe, small Connect Four boards), every position's exact
value is known, so a move is *optimal* when the position it leads to is worth as much to the mover as the
position itself. This is how the AlphaZero issue's targets are checked: "the raw network's greedy move is
optimal in at least 99% of the 4,520 non-terminal positions".
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from gym_boardgames.opponents import reset_hook


class ExactValues:
    """Every reachable position's game value of a solvable two-player game, for the player to move.

    Args:
        game: a rules object with ``key`` whose positions the solver can enumerate
            (:func:`agents.minimax.position_values`).
    """

    def __init__(self, game: Any) -> None:
        from agents.minimax import position_values

        self.game = game
        self.values = position_values(game)
        self._non_terminal: list[Any] | None = None

    def value(self, state: Any) -> int:
        """Return the value of ``state`` for the player to move (+1, 0, -1); terminal ones from ``returns``."""
        game = self.game
        if game.is_terminal(state):
            return int(game.returns(state)[game.current_player(state)])
        return self.values[game.key(state)]

    def move_value(self, state: Any, action: int) -> int:
        """Return what ``action`` is worth to the player to move at ``state`` under perfect play after it."""
        game = self.game
        mover = game.current_player(state)
        child = game.apply(state, action)
        if game.is_terminal(child):
            return int(game.returns(child)[mover])
        value = self.values[game.key(child)]
        return value if game.current_player(child) == mover else -value

    def is_optimal(self, state: Any, action: int) -> bool:
        """Return whether ``action`` keeps the game value of ``state``."""
        return self.move_value(state, action) == self.value(state)

    def non_terminal_states(self) -> list[Any]:
        """Return every reachable non-terminal position (built once, then the same list)."""
        if self._non_terminal is None:
            game = self.game
            states = (game.from_key(key) for key in self.values)
            self._non_terminal = [s for s in states if not game.is_terminal(s)]
        return self._non_terminal


def optimal_move_rate(
    exact: ExactValues,
    choose: Callable[[Sequence[Any]], Sequence[int]],
    states: Sequence[Any] | None = None,
) -> float:
    """Return the share of ``states`` (default: every non-terminal position) where ``choose`` plays optimally.

    Args:
        exact: the solved game.
        choose: maps a batch of states to one move each (e.g. the raw network's argmax).
        states: the positions to test.
    """
    states = exact.non_terminal_states() if states is None else list(states)
    chosen = choose(states)
    good = sum(exact.is_optimal(s, int(a)) for s, a in zip(states, chosen, strict=True))
    return good / len(states)


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
