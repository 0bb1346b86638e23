"""Dynamic programming on a known tabular model (Sutton & Barto, chapter 4).

The model is Gymnasium's toy_text ``P``: ``P[s][a]`` is a list of outcomes
``(probability, next_state, reward, terminated)`` for every state ``s`` in ``0..nS-1`` and action ``a``
in ``0..nA-1`` (``P`` may be a dict or a list; an env is accepted too, and its ``P`` attribute, found
on the env or on any of its wrappers, is used). A ``terminated`` outcome ends the episode: it pays its
reward and the value of its next state is not used, so terminal states need no special handling and
their value comes out 0.

Policies are ``(nS, nA)`` float arrays of action probabilities, one row per state. Values are ``(nS,)``
float arrays. The solvers return deterministic (one-hot) policies that pick, in each state, the lowest
numbered action among those within ``1e-9`` (relative) of the best; :func:`greedy_policy` with
``split_ties=True`` spreads the probability over all of them instead, as Figure 4.1 of the book draws it.

What each function returns, and what it counts into the optional ``info`` dict:

=============================  ================  =========================================================
function                       returns           ``info`` keys
=============================  ================  =========================================================
:func:`policy_evaluation`      ``V``             ``sweeps``, ``updates`` (= sweeps * nS), ``delta``
:func:`policy_iteration`       ``(policy, V)``   ``iterations`` (evaluations), ``evaluation_sweeps``
                                                 (a list, one count per evaluation), ``sweeps`` (their
                                                 sum), ``updates``
:func:`value_iteration`        ``(policy, V)``   ``sweeps``, ``updates`` (= sweeps * nS), ``delta``
:func:`async_value_iteration`  ``(policy, V)``   ``rounds``, ``updates`` (state backups), ``delta``
=============================  ================  =========================================================

A sweep is one Bellman backup of every state. Sweeps are in place (Gauss-Seidel), as the book
recommends: a state's backup already sees the new values of the states updated before it in the same
sweep. To do that with whole-array numpy operations, the states are split once per model into groups
with no transitions between members of a group (a greedy colouring of the transition graph; a grid
needs two groups, a checkerboard). Updating one group at a time in a single array operation is then
exactly a sequential in-place sweep in group order. ``in_place=False`` gives the two-array (Jacobi)
sweep instead, where every backup reads the previous sweep's values.

:func:`async_value_iteration` keeps a work queue of states to back up, starting with every state. After
a backup that changes ``V[s]`` by more than ``theta``, the predecessors of ``s`` (the states with an
outcome that continues into ``s``; the reverse mapping is built once) are queued again; the rest of the
state space is left alone. The queue is drained in rounds, each round backing up the queued states of
one group at a time in place, so it stays vectorised; it ends when the queue is empty.

With ``gamma=1`` a value can be unbounded: a policy that never ends an episode from some states while
collecting nonzero reward there. :func:`policy_evaluation` (and so :func:`policy_iteration`) detects
this before sweeping and raises ``ValueError`` naming those states. Every loop also has a cap
(``max_sweeps``, ``max_iterations``, ``max_rounds``) and raises :class:`ConvergenceError` when it is
reached, so nothing can run forever.

The model's checks and flat arrays are :mod:`gym_boardgames.tabular`'s, below the envs and the agents
alike: build the model once with :func:`~gym_boardgames.tabular.build_model` and pass the
:class:`~gym_boardgames.tabular.TabularModel` instead of ``P`` when calling several functions on the same
``P``; every function accepts either. This module holds the algorithms in the chapter's order: policy
evaluation (4.1), policy improvement (4.2: :func:`q_values`, :func:`greedy_policy`), policy iteration
(4.3), value iteration (4.4) and asynchronous value iteration (4.5), then the sweep they share.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any, NamedTuple

import numpy as np

from gym_boardgames.checks import check_int, check_number
from gym_boardgames.tabular import MAX_SHOWN, ModelLike, TabularModel, build_model, check_policy, check_values

__all__ = [
    "ConvergenceError",
    "async_value_iteration",
    "greedy_policy",
    "policy_evaluation",
    "policy_iteration",
    "q_values",
    "uniform_policy",
    "value_iteration",
]

# Two action values closer than this (relative to their size) count as a tie when choosing a greedy
# action, so floating-point noise from stopping at ``theta`` cannot flip a choice back and forth.
TIE_TOLERANCE = 1e-9


class ConvergenceError(RuntimeError):
    """A dynamic-programming loop reached its iteration cap before ``theta`` was met."""


# ---- 4.1 Policy evaluation ---------------------------------------------------------------------------------
def policy_evaluation(
    P: ModelLike,
    policy: np.ndarray,
    gamma: float = 1.0,
    theta: float = 1e-10,
    *,
    V0: np.ndarray | None = None,
    in_place: bool = True,
    max_sweeps: int = 100_000,
    info: dict[str, Any] | None = None,
) -> np.ndarray:
    """Iterative policy evaluation (section 4.1): sweeps of ``V(s) <- sum_a pi(a|s) sum p (r + gamma V(s'))``.

    Sweeps stop after the first one that changes no value by ``theta`` or more.

    Args:
        P: the model (``P``, an env, or a :class:`~gym_boardgames.tabular.TabularModel`).
        policy: ``(nS, nA)`` action probabilities.
        gamma: discount factor in [0, 1].
        theta: stop after the first sweep whose largest change is below this (positive).
        V0: starting values (default zeros); not modified.
        in_place: Gauss-Seidel sweeps (default) or two-array (Jacobi) sweeps.
        max_sweeps: raise :class:`ConvergenceError` after this many sweeps.
        info: if a dict, receives ``sweeps``, ``updates`` (sweeps * nS) and ``delta`` (the last sweep's
            largest change).

    Returns:
        ``V``, a new ``(nS,)`` float array.

    Raises:
        ValueError: on a malformed ``P``, a bad policy (wrong shape, negative entries, rows not summing
            to 1), a bad ``gamma``/``theta``/``V0``/``max_sweeps``, or with ``gamma=1`` a policy under
            which some states' values are unbounded (they never reach the end of an episode and collect
            reward on the way; the message lists them).
        ConvergenceError: if ``max_sweeps`` sweeps do not reach ``theta``.
    """
    model, gamma, theta, max_sweeps, V = _setup(P, gamma, theta, "max_sweeps", max_sweeps, V0)
    policy = check_policy(policy, model.num_states, model.num_actions)
    if gamma == 1.0:
        unbounded = model.unbounded_states(policy)
        if unbounded.size:
            raise ValueError(
                f"with gamma=1 this policy never ends an episode from states {unbounded[:MAX_SHOWN].tolist()}"
                f"{' ...' if unbounded.size > MAX_SHOWN else ''} ({unbounded.size} in all) and collects reward "
                "there, so their values are unbounded: use gamma < 1 or a policy that reaches a terminal state"
            )
    plan = _evaluation_sweeps(model, policy, in_place)
    sweeps, delta = _sweep_until(
        plan, V, gamma, theta, max_sweeps, "policy evaluation", lambda: "; raise max_sweeps or theta, or lower gamma"
    )
    if info is not None:
        info.update(sweeps=sweeps, updates=sweeps * model.num_states, delta=delta)
    return V


def _evaluation_sweeps(model: TabularModel, policy: np.ndarray, in_place: bool) -> list[_Backup]:
    """Per group, the backup ``V(s) <- sum_a pi(a|s) sum p (r + gamma V(s'))``."""
    groups = model.groups if in_place else (np.arange(model.num_states),)
    r_pi = (policy * model.expected_reward).sum(axis=1)
    weight_all = policy[model.state, model.action] * model.continuing
    plan = []
    for states in groups:
        idx, position = model.entries(states)
        keep = weight_all[idx] > 0  # outcomes the policy never reaches cost nothing per sweep
        plan.append(_Backup(states, position[keep], weight_all[idx][keep], model.next_state[idx][keep], r_pi[states]))
    return plan


# ---- 4.2 Policy improvement --------------------------------------------------------------------------------
def uniform_policy(P: ModelLike) -> np.ndarray:
    """Return the equiprobable random policy, a new ``(nS, nA)`` array with every entry ``1 / nA``.

    Args:
        P: the model (``P``, an env, or a :class:`~gym_boardgames.tabular.TabularModel`).

    Raises:
        ValueError: if ``P`` is malformed (see :func:`~gym_boardgames.tabular.build_model`).
    """
    model = build_model(P)
    return np.full((model.num_states, model.num_actions), 1.0 / model.num_actions)


def q_values(P: ModelLike, V: np.ndarray, gamma: float = 1.0) -> np.ndarray:
    """Return the action values ``Q[s, a] = sum p * (r + gamma * V[s'])`` of ``V``, shape ``(nS, nA)``.

    ``V[s']`` is not used for outcomes that end the episode.

    Args:
        P: the model (``P``, an env, or a :class:`~gym_boardgames.tabular.TabularModel`).
        V: ``(nS,)`` state values.
        gamma: discount factor in [0, 1].

    Raises:
        ValueError: on a malformed ``P``, a ``V`` of the wrong shape or a bad ``gamma``.
    """
    model = build_model(P)
    gamma = check_number("gamma", gamma, 0, 1)
    return model.q_values(check_values(V, model.num_states, "V"), gamma)


def greedy_policy(P: ModelLike, V: np.ndarray, gamma: float = 1.0, split_ties: bool = False) -> np.ndarray:
    """Return the policy greedy with respect to ``V``, a new ``(nS, nA)`` array.

    Args:
        P: the model (``P``, an env, or a :class:`~gym_boardgames.tabular.TabularModel`).
        V: ``(nS,)`` state values.
        gamma: discount factor in [0, 1].
        split_ties: if False, probability 1 on the lowest-numbered best action; if True, equal
            probability on every action within the tie tolerance of the best (the arrows of Figure 4.1).

    Raises:
        ValueError: on a malformed ``P``, a ``V`` of the wrong shape or a bad ``gamma``.
    """
    ties = _near_best(q_values(P, V, gamma))
    if not split_ties:
        return _one_hot(np.argmax(ties, axis=1), ties.shape[1])  # the lowest-numbered of the best
    return ties / ties.sum(axis=1, keepdims=True)


def _near_best(q: np.ndarray) -> np.ndarray:
    """The ``(nS, nA)`` float mask of the actions within the tie tolerance of each row's best."""
    best = q.max(axis=1, keepdims=True)
    return (q >= best - TIE_TOLERANCE * np.maximum(1.0, np.abs(best))).astype(np.float64)


def _one_hot(actions: np.ndarray, num_actions: int) -> np.ndarray:
    policy = np.zeros((len(actions), num_actions))
    policy[np.arange(len(actions)), actions] = 1.0
    return policy


# ---- 4.3 Policy iteration ----------------------------------------------------------------------------------
def policy_iteration(
    P: ModelLike,
    gamma: float = 1.0,
    theta: float = 1e-10,
    *,
    policy: np.ndarray | None = None,
    max_iterations: int = 1_000,
    max_sweeps: int = 100_000,
    info: dict[str, Any] | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """Policy iteration (section 4.3): evaluate the policy, make it greedy, repeat until it is stable.

    Each evaluation is :func:`policy_evaluation` (in place, to ``theta``) started from the previous
    policy's values, as the book suggests. An improvement keeps a state's action unless another is
    strictly better (beyond the tie tolerance), which is what makes the loop stop when several actions
    are optimal.

    Args:
        P: the model (``P``, an env, or a :class:`~gym_boardgames.tabular.TabularModel`).
        gamma: discount factor in [0, 1].
        theta: accuracy of each policy evaluation.
        policy: the starting policy (default: the equiprobable random policy). With ``gamma=1`` it must
            end episodes; note that evaluating the random policy is a random walk, which on large
            undiscounted problems takes many sweeps.
        max_iterations: raise :class:`ConvergenceError` after this many evaluations.
        max_sweeps: passed to each :func:`policy_evaluation`.
        info: if a dict, receives ``iterations`` (the number of evaluations, the last one confirming the
            policy is stable), ``evaluation_sweeps`` (sweeps of each evaluation), ``sweeps`` (their sum)
            and ``updates`` (state backups in evaluations).

    Returns:
        ``(policy, V)``: a deterministic optimal policy (one-hot ``(nS, nA)``) and its values ``(nS,)``.

    Raises:
        ValueError: as :func:`policy_evaluation`, and for a bad ``max_iterations``.
        ConvergenceError: if an evaluation or the iteration reaches its cap.
    """
    model, gamma, theta, max_iterations, V = _setup(P, gamma, theta, "max_iterations", max_iterations)
    current = uniform_policy(model) if policy is None else check_policy(policy, model.num_states, model.num_actions)
    sweeps: list[int] = []  # per evaluation
    rows = np.arange(model.num_states)
    for _ in range(max_iterations):
        evaluation: dict[str, Any] = {}
        V = policy_evaluation(model, current, gamma, theta, V0=V, max_sweeps=max_sweeps, info=evaluation)
        sweeps.append(evaluation["sweeps"])
        ties = _near_best(model.q_values(V, gamma))
        # Keep the old action where it is still (within tolerance) best, so equal actions never swap.
        old = np.argmax(current, axis=1)
        keep = (current[rows, old] == 1.0) & (ties[rows, old] > 0)
        chosen = np.where(keep, old, np.argmax(ties, axis=1))
        improved = _one_hot(chosen, model.num_actions)
        if np.array_equal(improved, current):
            if info is not None:
                total = sum(sweeps)
                info.update(
                    iterations=len(sweeps), evaluation_sweeps=sweeps, sweeps=total, updates=total * model.num_states
                )
            return improved, V
        current = improved
    raise ConvergenceError(f"policy iteration did not find a stable policy in max_iterations={max_iterations}")


# ---- 4.4 Value iteration -----------------------------------------------------------------------------------
def value_iteration(
    P: ModelLike,
    gamma: float = 1.0,
    theta: float = 1e-10,
    *,
    V0: np.ndarray | None = None,
    in_place: bool = True,
    max_sweeps: int = 100_000,
    info: dict[str, Any] | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """Value iteration (section 4.4): sweeps of ``V(s) <- max_a sum p (r + gamma V(s'))``.

    Sweeps stop after the first one that changes no value by ``theta`` or more.

    Args:
        P: the model (``P``, an env, or a :class:`~gym_boardgames.tabular.TabularModel`).
        gamma: discount factor in [0, 1].
        theta: stop after the first sweep whose largest change is below this (positive).
        V0: starting values (default zeros); not modified.
        in_place: Gauss-Seidel sweeps (default) or two-array (Jacobi) sweeps.
        max_sweeps: raise :class:`ConvergenceError` after this many sweeps.
        info: if a dict, receives ``sweeps``, ``updates`` (sweeps * nS) and ``delta``.

    Returns:
        ``(policy, V)``: the deterministic policy greedy with respect to the final ``V`` (one-hot
        ``(nS, nA)``) and ``V`` ``(nS,)``.

    Raises:
        ValueError: on a malformed ``P`` or a bad ``gamma``/``theta``/``V0``/``max_sweeps``.
        ConvergenceError: if ``max_sweeps`` sweeps do not reach ``theta`` (with ``gamma=1``, typically
            because some states can never end an episode; the message lists them).
    """
    model, gamma, theta, max_sweeps, V = _setup(P, gamma, theta, "max_sweeps", max_sweeps, V0)
    plan = [_optimal_backup(model, states) for states in (model.groups if in_place else (np.arange(model.num_states),))]
    sweeps, delta = _sweep_until(plan, V, gamma, theta, max_sweeps, "value iteration", lambda: _no_end_message(model))
    if info is not None:
        info.update(sweeps=sweeps, updates=sweeps * model.num_states, delta=delta)
    return greedy_policy(model, V, gamma), V


def _optimal_backup(model: TabularModel, states: np.ndarray) -> _Backup:
    """``V(s) <- max_a sum p (r + gamma V(s'))`` for ``states``."""
    idx, position = model.entries(states)
    nA = model.num_actions
    slot, rewards = position * nA + model.action[idx], model.expected_reward[states].ravel()
    return _Backup(states, slot, model.continuing[idx], model.next_state[idx], rewards, nA)


def _no_end_message(model: TabularModel) -> str:
    """Describe the states that cannot end an episode whatever they do (why gamma=1 may diverge)."""
    stuck = model.trapped_states()
    if stuck.size == 0:
        return ""
    return (
        f"; states {stuck[:MAX_SHOWN].tolist()}{' ...' if stuck.size > MAX_SHOWN else ''} can never end an episode, "
        "so with gamma=1 their values may be unbounded: use gamma < 1"
    )


# ---- 4.5 Asynchronous dynamic programming ------------------------------------------------------------------
def async_value_iteration(
    P: ModelLike,
    gamma: float = 1.0,
    theta: float = 1e-10,
    *,
    V0: np.ndarray | None = None,
    max_rounds: int = 100_000,
    info: dict[str, Any] | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """Asynchronous value iteration (section 4.5) that backs up only states whose successors changed.

    A work queue starts with every state. Backing up ``s`` (``V(s) <- max_a sum p (r + gamma V(s'))``)
    and changing it by more than ``theta`` queues the predecessors of ``s`` (the reverse mapping that
    :func:`~gym_boardgames.tabular.build_model` builds once); a state is never queued twice at once. The
    queue is drained in rounds, group by group in place (see the module docstring); it ends when empty.

    Args:
        P: the model (``P``, an env, or a :class:`~gym_boardgames.tabular.TabularModel`).
        gamma: discount factor in [0, 1].
        theta: a change above this queues the predecessors (positive).
        V0: starting values (default zeros); not modified.
        max_rounds: raise :class:`ConvergenceError` after this many rounds.
        info: if a dict, receives ``rounds``, ``updates`` (the number of state backups, comparable with
            ``sweeps * nS`` of :func:`value_iteration`) and ``delta`` (the last round's largest change).

    Returns:
        ``(policy, V)`` as :func:`value_iteration` returns them.

    Raises:
        ValueError: on a malformed ``P`` or a bad ``gamma``/``theta``/``V0``/``max_rounds``.
        ConvergenceError: if the queue is not empty after ``max_rounds`` rounds.
    """
    model, gamma, theta, max_rounds, V = _setup(P, gamma, theta, "max_rounds", max_rounds, V0)
    queued = np.ones(model.num_states, bool)
    rounds = updates = 0
    delta = math.inf
    while queued.any():
        if rounds == max_rounds:
            raise ConvergenceError(
                f"asynchronous value iteration still had {int(queued.sum())} queued states after "
                f"max_rounds={max_rounds} rounds (largest change in the last round: {delta:.3g})"
                f"{_no_end_message(model)}"
            )
        delta = 0.0
        for group in model.groups:
            states = group[queued[group]]
            if states.size == 0:
                continue
            queued[states] = False
            new = _optimal_backup(model, states).values(V, gamma)
            change = np.abs(new - V[states])
            V[states] = new
            updates += states.size
            delta = max(delta, float(change.max()))
            changed = states[change > theta]
            if changed.size:
                queued[model.predecessors(changed)] = True
        rounds += 1
    if info is not None:
        info.update(rounds=rounds, updates=updates, delta=delta)
    return greedy_policy(model, V, gamma), V


# ---- The sweep they share ----------------------------------------------------------------------------------
class _Backup(NamedTuple):
    """The Bellman backup of some ``states`` as flat arrays; a sweep is one backup per in-place group.

    Its action values are ``reward + gamma * sum_k weight_k * V[next_state_k]``, the sum taken per
    ``slot``. For an optimality backup a slot is a (state, action) pair, ``width = nA``, and the reduce
    step takes the max over actions; for a policy's backup the weights and rewards already average over
    the policy, a slot is a state and ``width = 1`` (no reduce step).
    """

    states: np.ndarray
    slot: np.ndarray
    weight: np.ndarray
    next_state: np.ndarray
    reward: np.ndarray  # (len(states) * width,)
    width: int = 1

    def values(self, V: np.ndarray, gamma: float) -> np.ndarray:
        """The new values of ``states``: the flat ``(len(states) * width,)`` backed-up values, then the reduce step."""
        future = np.bincount(self.slot, weights=self.weight * V[self.next_state], minlength=self.reward.size)
        q = self.reward + gamma * future
        return q if self.width == 1 else q.reshape(-1, self.width).max(axis=1)


def _sweep_until(
    plan: list[_Backup], V: np.ndarray, gamma: float, theta: float, max_sweeps: int, name: str, hint: Callable[[], str]
) -> tuple[int, float]:
    """Sweep ``plan`` over ``V`` (updated) until a sweep changes no value by ``theta``; return (sweeps, delta).

    A backup reads ``V`` whole before writing its states, so a plan of one group of every state is the
    two-array (Jacobi) sweep, and a plan of the colour groups the in-place one.

    Raises:
        ConvergenceError: after ``max_sweeps`` sweeps, naming ``name`` and ending with ``hint()``.
    """
    sweeps, delta = 0, math.inf
    while delta >= theta:
        if sweeps == max_sweeps:
            raise ConvergenceError(
                f"{name} did not converge in max_sweeps={max_sweeps} sweeps (largest change in the last sweep: "
                f"{delta:.3g}, theta={theta:g}){hint()}"
            )
        delta = 0.0
        for backup in plan:
            new = backup.values(V, gamma)
            delta = max(delta, float(np.max(np.abs(new - V[backup.states]), initial=0.0)))
            V[backup.states] = new
        sweeps += 1
    return sweeps, delta


# ---- Arguments ---------------------------------------------------------------------------------------------
def _setup(
    P: ModelLike, gamma: float, theta: float, cap_name: str, cap: int, V0: np.ndarray | None = None
) -> tuple[TabularModel, float, float, int, np.ndarray]:
    """Build the model and check what every loop takes; return them with the starting values (``V0`` or zeros)."""
    model = build_model(P)
    gamma = check_number("gamma", gamma, 0, 1)
    theta = check_number("theta", theta, 0, math.inf, low_open=True, high_open=True)
    V = np.zeros(model.num_states) if V0 is None else check_values(V0, model.num_states, "V0")
    return model, gamma, theta, check_int(cap_name, cap, 1), V
