"""What a search tree asks about a new leaf: the evaluator protocol, and the evaluators that need no network.

A tree (:class:`agents.search.tree.SearchTree`) never scores a non-terminal leaf itself; it asks an *evaluator*,
once per new leaf, for the leaf's prior over moves (PUCT reads it, UCT does not) and its value for the player
to move there (docs/design.md, section "Search core and evaluators"). The protocol takes many states at a
time, so that one network call can serve many trees (:func:`agents.search.tree.search_batch`):

* :class:`Evaluator`: ``evaluate(game, states) -> (priors (B, num_actions), values (B,))``, with an optional
  single-state shortcut ``evaluate_one``;
* :class:`RolloutEvaluator`: values from random (or policy-driven) playouts to the end, priors uniform;
* :class:`CallbackEvaluator`: a ``prior`` and a ``value`` (or rollouts) from plain functions, their outputs
  checked (:func:`legal_priors`, :func:`check_value`);
* AlphaZero's network is one more (:class:`agents.alphazero.agent.NetworkEvaluator`).

:func:`evaluate_state` and :func:`legal_row` turn a batch answer into what a tree node keeps: the
probabilities of the legal moves, aligned with them.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Protocol, runtime_checkable

import numpy as np

from agents._rng import uniform_stream

#: ``rollout(game, state, rng) -> action``: the move to play in a rollout from a non-terminal state.
RolloutPolicy = Callable[[Any, Any, np.random.Generator], int]
#: ``prior(game, state) -> probabilities``: see :class:`CallbackEvaluator` for the accepted formats.
PriorFn = Callable[[Any, Any], Any]
#: ``value(game, state) -> float`` in ``[-1, 1]``, for the player to move at ``state``.
ValueFn = Callable[[Any, Any], float]


@runtime_checkable
class Evaluator(Protocol):
    """What the tree asks about a new non-terminal leaf: its prior over moves and its value.

    ``evaluate(game, states)`` takes a sequence of B non-terminal states of ``game`` and returns
    ``(priors, values)``: ``priors`` a ``(B, game.num_actions)`` float array, zero on illegal moves and
    summing to 1 per row, and ``values`` a ``(B,)`` float array in ``[-1, 1]``, each from the side of the
    player to move at its state. This is OpenSpiel's ``Evaluator`` with prior and value in one call.

    An evaluator may also define ``evaluate_one(game, state) -> (priors, value)``, the same question for a
    single state without building arrays: ``priors`` a list aligned with ``game.legal_actions(state)``
    (ascending) or None for uniform, ``value`` a float. The tree uses it when it searches alone (batch size
    1), where two small numpy arrays per leaf would cost as much as the rest of a simulation.
    """

    def evaluate(self, game: Any, states: Sequence[Any]) -> tuple[np.ndarray, np.ndarray]:
        """Return ``(priors (B, num_actions), values (B,))`` for the non-terminal ``states``."""
        ...


def uniform_priors(game: Any, states: Sequence[Any]) -> np.ndarray:
    """Return ``(B, num_actions)`` priors uniform over each state's legal moves (zero elsewhere)."""
    priors = np.zeros((len(states), game.num_actions))
    for row, state in zip(priors, states, strict=True):
        legal = list(game.legal_actions(state))
        row[legal] = 1.0 / len(legal)
    return priors


class RolloutEvaluator:
    """Values from playouts to the end of the game; priors uniform (UCT does not read them).

    Args:
        rng: the generator moves are drawn from; also passed to ``policy``.
        policy: None for uniformly random moves, or ``policy(game, state, rng) -> action``.
        uniform: a shared :func:`uniform_stream` of ``rng`` (so a tree and its rollouts read one stream and a
            seed reproduces the whole search); made from ``rng`` if None.
    """

    def __init__(
        self,
        rng: np.random.Generator,
        policy: RolloutPolicy | None = None,
        uniform: Callable[[], float] | None = None,
    ) -> None:
        self.rng = rng
        self.policy = policy
        self._uniform = uniform if uniform is not None else uniform_stream(rng)

    def evaluate(self, game: Any, states: Sequence[Any]) -> tuple[np.ndarray, np.ndarray]:
        """Return uniform priors and one rollout's result per state, for the player to move there."""
        values = np.array([self.evaluate_one(game, state)[1] for state in states], dtype=float)
        return uniform_priors(game, states), values

    def evaluate_one(self, game: Any, state: Any) -> tuple[None, float]:
        """Play one rollout from the non-terminal ``state``; return ``(None, result for its mover)``."""
        mover = game.current_player(state)
        is_terminal, apply = game.is_terminal, game.apply
        if self.policy is not None:
            policy, rng = self.policy, self.rng
            while not is_terminal(state):
                state = apply(state, policy(game, state, rng))
            return None, game.returns(state)[mover]
        legal_actions, uniform = game.legal_actions, self._uniform
        while True:  # the leaf is not terminal, so the first test can wait until after a move
            legal = legal_actions(state)
            state = apply(state, legal[int(uniform() * len(legal))])
            if is_terminal(state):
                return None, game.returns(state)[mover]


def legal_priors(raw: Any, actions: Sequence[int], num_actions: int | None) -> list[float]:
    """Return the probabilities of ``actions`` from a prior's output, renormalised to sum to 1.

    Args:
        raw: a mapping ``{action: p}`` (missing legal actions get 0), or a 1-D sequence of length
            ``num_actions`` indexed by action, or one of length ``len(actions)`` aligned with ``actions``.
        actions: the legal actions, ascending.
        num_actions: the size of the game's action space.

    Raises:
        ValueError: on another shape or length, or entries that are negative or not finite. A prior that
            sums to 0 over the legal moves becomes uniform.
    """
    # A mapping or an array becomes a list first: the checks run in plain Python, since a prior is asked once per
    # new leaf and numpy's per-call overhead would cost more than the arithmetic on a short list.
    if isinstance(raw, Mapping):
        raw = [raw.get(a, 0.0) for a in actions]
    elif not isinstance(raw, (list, tuple)):
        raw = np.asarray(raw, dtype=float).tolist()  # a 0-d array becomes a float, a 2-d one lists of lists
    if not isinstance(raw, (list, tuple)) or len(raw) not in (num_actions, len(actions)):
        got = f"{len(raw)} entries" if isinstance(raw, (list, tuple)) else repr(raw)
        raise ValueError(
            f"prior must return a mapping or a 1-D sequence: expected game.num_actions={num_actions} probabilities "
            f"(indexed by action) or {len(actions)} (one per legal action, ascending), got {got}"
        )
    try:
        picked = [float(raw[a]) for a in actions] if len(raw) == num_actions else [float(x) for x in raw]
        # The minimum first: fsum refuses inf + -inf, and NaN or inf anywhere makes the sum non-finite.
        usable = min(picked) >= 0 and math.isfinite(total := math.fsum(picked))
    except (TypeError, ValueError):
        usable = False
    if not usable:
        raise ValueError(f"prior probabilities must be numbers, finite and >= 0, got {raw!r} for {list(actions)}")
    return [p / total for p in picked] if total > 0 else [1.0 / len(actions)] * len(actions)


def check_value(v: Any, source: str = "value") -> float:
    """Return ``v`` as a float if it is a number in ``[-1, 1]``, else raise ``ValueError`` naming ``source``."""
    try:
        number = float(v)
    except (TypeError, ValueError):
        number = math.nan
    if not -1.0 <= number <= 1.0:  # also rejects NaN
        raise ValueError(f"{source} must return a float in [-1, 1], got {v!r}")
    return number


class CallbackEvaluator:
    """An evaluator from plain functions: a ``prior`` for PUCT and a ``value`` (or rollouts) for the leaves.

    Args:
        prior: None (uniform) or ``prior(game, state)`` returning a mapping ``{action: p}``, a 1-D sequence
            indexed by action (length ``game.num_actions``) or one aligned with the ascending legal moves.
            Entries must be finite and >= 0; they are renormalised over the legal moves.
        value: ``value(game, state) -> float`` in ``[-1, 1]`` for the player to move, or None to use
            ``rollouts`` instead.
        rollouts: the :class:`RolloutEvaluator` that values leaves when ``value`` is None.

    Raises:
        ValueError: if both ``value`` and ``rollouts`` are None.
    """

    def __init__(
        self,
        prior: PriorFn | None = None,
        value: ValueFn | None = None,
        rollouts: RolloutEvaluator | None = None,
    ) -> None:
        if value is None and rollouts is None:
            raise ValueError("give a value function or a rollout evaluator to value the leaves")
        self.prior = prior
        self.value = value
        self.rollouts = rollouts

    def evaluate(self, game: Any, states: Sequence[Any]) -> tuple[np.ndarray, np.ndarray]:
        """Return the priors (zero on illegal moves) and values of ``states``, one callback call each."""
        priors = np.zeros((len(states), game.num_actions))
        values = np.empty(len(states))
        for i, state in enumerate(states):
            probs, values[i] = self.evaluate_one(game, state)
            legal = list(game.legal_actions(state))
            priors[i, legal] = probs if probs is not None else 1.0 / len(legal)
        return priors, values

    def evaluate_one(self, game: Any, state: Any) -> tuple[list[float] | None, float]:
        """Return ``(priors aligned with the legal moves or None, value for the mover)`` of ``state``."""
        probs = None
        if self.prior is not None:
            probs = legal_priors(self.prior(game, state), list(game.legal_actions(state)), game.num_actions)
        if self.value is not None:
            return probs, check_value(self.value(game, state))
        return probs, self.rollouts.evaluate_one(game, state)[1]  # type: ignore[union-attr]


def evaluate_state(evaluator: Any, game: Any, state: Any) -> tuple[list[float], float, list[int]]:
    """Ask a batch evaluator about one state; return the priors on its legal moves, its value, and the moves."""
    priors, values = evaluator.evaluate(game, [state])
    probs, legal = legal_row(game, state, priors[0])
    return probs, check_value(values[0], "evaluate"), legal


def legal_row(game: Any, state: Any, row: Any) -> tuple[list[float], list[int]]:
    """Return a dense ``(num_actions,)`` prior row's entries on the legal moves of ``state``, and those moves."""
    legal = list(game.legal_actions(state))
    return np.asarray(row, dtype=float)[legal].tolist(), legal
