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

Build the model once with :func:`build_model` and pass the :class:`TabularModel` instead of ``P`` when
calling several functions on the same ``P``: every function accepts either.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple

import numpy as np

from gym_boardgames.tabular import MAX_SHOWN, PROBABILITY_TOLERANCE, check_policy

__all__ = [
    "ConvergenceError",
    "TabularModel",
    "async_value_iteration",
    "build_model",
    "check_policy",
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
# How far a row of P or of a policy may be from summing to 1.


class ConvergenceError(RuntimeError):
    """A dynamic-programming loop reached its iteration cap before ``theta`` was met."""


@dataclass(frozen=True, eq=False)
class TabularModel:
    """``P`` flattened into numpy arrays, once, for vectorised sweeps.

    Every outcome of every ``(s, a)`` is one entry ``k`` of the flat arrays, sorted by ``s`` then ``a``.
    Build it with :func:`build_model`.

    Attributes:
        num_states: ``nS``.
        num_actions: ``nA``.
        state: ``(K,)`` the state ``s`` of each outcome.
        action: ``(K,)`` the action ``a`` of each outcome.
        next_state: ``(K,)`` the next state.
        prob: ``(K,)`` the probability.
        reward: ``(K,)`` the reward.
        terminated: ``(K,)`` bool, whether the outcome ends the episode.
        continuing: ``(K,)`` ``prob`` where the episode continues, 0 where it ends: the weight of
            ``V[next_state]`` in a backup.
        expected_reward: ``(nS, nA)`` the expected reward of each action.
        ptr: ``(nS + 1,)`` entries of state ``s`` are ``ptr[s]:ptr[s + 1]``.
        pred_ptr: ``(nS + 1,)`` with ``pred_idx``, the reverse mapping: the predecessors of ``s`` (states
            with an outcome that continues into ``s``) are ``pred_idx[pred_ptr[s]:pred_ptr[s + 1]]``.
        pred_idx: see ``pred_ptr``.
        groups: states split into groups with no continuing transition between members of a group
            (self-loops aside), in the order in-place sweeps visit them.
    """

    num_states: int
    num_actions: int
    state: np.ndarray
    action: np.ndarray
    next_state: np.ndarray
    prob: np.ndarray
    reward: np.ndarray
    terminated: np.ndarray
    continuing: np.ndarray
    expected_reward: np.ndarray
    ptr: np.ndarray
    pred_ptr: np.ndarray
    pred_idx: np.ndarray
    groups: tuple[np.ndarray, ...]

    def q_values(self, V: np.ndarray, gamma: float) -> np.ndarray:
        """Return ``Q[s, a] = sum_k prob * (reward + gamma * V[next] * (not terminated))``, shape ``(nS, nA)``."""
        nS, nA = self.num_states, self.num_actions
        every_state = _Backup(
            np.arange(nS), self.state * nA + self.action, self.continuing, self.next_state, self.expected_reward.ravel()
        )
        return every_state.action_values(V, gamma).reshape(nS, nA)


ModelLike = Any  # a P (dict or list), an env or wrapper with a ``P`` attribute, or a TabularModel


def build_model(P: ModelLike) -> TabularModel:
    """Check ``P`` and flatten it into a :class:`TabularModel`.

    Args:
        P: the toy_text model ``P[s][a] = [(prob, next_state, reward, terminated), ...]`` as a dict or a
            list, an env that has that model as its ``P`` attribute (on the env or any of its wrappers), or
            a ``TabularModel`` (returned unchanged).

    Returns:
        The model as flat arrays, with its in-place sweep groups and reverse mapping.

    Raises:
        ValueError: if ``P`` is empty, its states are not ``0..nS-1``, the states do not all have the
            same actions ``0..nA-1``, an outcome is malformed (a next state out of range, a negative or
            non-finite probability or reward) or an ``(s, a)`` row's probabilities do not sum to 1.
    """
    if isinstance(P, TabularModel):
        return P
    if not isinstance(P, (Mapping, Sequence)) and hasattr(P, "unwrapped"):
        P = _model_of_env(P)
    if not isinstance(P, (Mapping, Sequence)) or len(P) == 0:
        raise ValueError(
            f"P must be a non-empty dict or list P[s][a] = [(prob, next_state, reward, terminated)], got {P!r:.80}"
        )
    nS = len(P)
    if isinstance(P, Mapping) and set(P) != set(range(nS)):
        raise ValueError(f"the states of P must be 0..{nS - 1}, got keys {sorted(P, key=repr)[:MAX_SHOWN]}...")
    num_actions = len(P[0])
    if num_actions == 0:
        raise ValueError("P[0] has no actions")

    counts: list[int] = []
    flat: list[Any] = []
    for s in range(nS):
        actions = P[s]
        if len(actions) != num_actions or (isinstance(actions, Mapping) and set(actions) != set(range(num_actions))):
            raise ValueError(f"every state must have the actions 0..{num_actions - 1} (as P[0] has); P[{s}] does not")
        for a in range(num_actions):
            outcomes = actions[a]
            counts.append(len(outcomes))
            flat.extend(outcomes)
    row_count = np.asarray(counts)
    empty = np.flatnonzero(row_count == 0)
    if empty.size:
        raise ValueError(f"P[{empty[0] // num_actions}][{empty[0] % num_actions}] has no outcomes")
    # Checked as whole arrays: a Python loop per outcome costs seconds on large models.
    row = np.repeat(np.arange(nS * num_actions), row_count)

    def where(k: int) -> str:
        return f"P[{row[k] // num_actions}][{row[k] % num_actions}] holds {flat[k]!r}"

    try:
        # One conversion of every outcome at once; terminated flags become 1.0 / 0.0.
        table = np.array(flat, dtype=np.float64)
        if table.ndim != 2 or table.shape[1] != 4:
            raise ValueError
    except (TypeError, ValueError):
        for k, outcome in enumerate(flat):  # only now look for the culprit, to name it
            try:
                if len(outcome) == 4 and np.array(outcome, dtype=np.float64).shape == (4,):
                    continue
            except (TypeError, ValueError):
                pass
            raise ValueError(f"{where(k)}: expected (prob, next_state, reward, terminated) numbers") from None
        raise
    prob, reward, terminated = table[:, 0], table[:, 2], table[:, 3] != 0
    next_state = table[:, 1]
    checks = (
        (~((prob >= 0) & (prob <= 1 + PROBABILITY_TOLERANCE)), "the probability must be in [0, 1]"),
        (~np.isfinite(reward), "the reward must be finite"),
        (
            (next_state < 0) | (next_state >= nS) | (next_state != np.floor(next_state)),
            f"next_state must be an int in 0..{nS - 1}",
        ),
    )
    for bad_mask, problem in checks:
        if bad_mask.any():
            raise ValueError(f"{where(int(np.argmax(bad_mask)))}: {problem}")
    next_state = next_state.astype(np.int64)
    sums = np.bincount(row, weights=prob, minlength=nS * num_actions)
    off = np.flatnonzero(np.abs(sums - 1.0) > PROBABILITY_TOLERANCE)
    if off.size:
        raise ValueError(
            f"the probabilities of P[{off[0] // num_actions}][{off[0] % num_actions}] sum to {sums[off[0]]:.9g}, not 1"
        )
    state, action = row // num_actions, row % num_actions
    continuing = np.where(terminated, 0.0, prob)
    expected_reward = np.bincount(state * num_actions + action, weights=prob * reward, minlength=nS * num_actions)
    ptr = np.searchsorted(state, np.arange(nS + 1))  # rows were appended in state order

    # The reverse mapping: which states' backups read V[s'] (each predecessor once).
    live = continuing > 0
    pairs = np.unique(next_state[live] * nS + state[live])
    pred_idx = pairs % nS
    pred_ptr = np.searchsorted(pairs // nS, np.arange(nS + 1))

    return TabularModel(
        num_states=nS,
        num_actions=num_actions,
        state=state,
        action=action,
        next_state=next_state,
        prob=prob,
        reward=reward,
        terminated=terminated,
        continuing=continuing,
        expected_reward=expected_reward.reshape(nS, num_actions),
        ptr=ptr,
        pred_ptr=pred_ptr,
        pred_idx=pred_idx,
        groups=_colour_groups(nS, state[live], next_state[live]),
    )


def _model_of_env(env: Any) -> Any:
    """Return the ``P`` of an env, looked up through its wrappers (a wrapper env may hold it, not the core)."""
    lookup = getattr(env, "get_wrapper_attr", None)  # Gymnasium >= 1.0: outermost holder first
    if callable(lookup):
        try:
            return lookup("P")
        except AttributeError:
            pass
    model = getattr(env.unwrapped, "P", None)
    if model is None:
        raise ValueError(f"{env} has no tabular model P (neither it nor its wrappers have a P attribute)")
    return model


def _colour_groups(num_states: int, src: np.ndarray, dst: np.ndarray) -> tuple[np.ndarray, ...]:
    """Split the states into groups with no edge ``src -> dst`` inside a group (a greedy graph colouring).

    Within a group no state's backup reads another member's value, so the group can be backed up in one
    array operation with the same result as one member after another: an in-place sweep in group order.
    """
    off_diagonal = src != dst  # a self-loop reads the state's own old value, as a sequential sweep does
    a, b = src[off_diagonal], dst[off_diagonal]
    pairs = np.unique(np.concatenate([a * num_states + b, b * num_states + a]))
    neighbours_ptr = np.searchsorted(pairs // num_states, np.arange(num_states + 1)).tolist()
    neighbours = (pairs % num_states).tolist()
    colour = [-1] * num_states
    for s in range(num_states):  # visiting in state order keeps the grouping deterministic
        used = {colour[t] for t in neighbours[neighbours_ptr[s] : neighbours_ptr[s + 1]]}
        c = 0
        while c in used:
            c += 1
        colour[s] = c
    colours = np.asarray(colour)
    return tuple(np.flatnonzero(colours == c) for c in range(int(colours.max()) + 1))


def _entries_of(ptr: np.ndarray, states: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Return the CSR entry indices of ``states`` (concatenated) and, for each, its position in ``states``."""
    starts = ptr[states]
    counts = ptr[states + 1] - starts
    position = np.repeat(np.arange(len(states)), counts)
    # entry j of state i is starts[i] + j; j counts up from 0 within each state's run
    offsets = np.arange(int(counts.sum())) - np.repeat(np.cumsum(counts) - counts, counts)
    return np.repeat(starts, counts) + offsets, position


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

    def action_values(self, V: np.ndarray, gamma: float) -> np.ndarray:
        """The flat ``(len(states) * width,)`` backed-up values before the reduce step."""
        future = np.bincount(self.slot, weights=self.weight * V[self.next_state], minlength=self.reward.size)
        return self.reward + gamma * future

    def values(self, V: np.ndarray, gamma: float) -> np.ndarray:
        """The new values of ``states``."""
        q = self.action_values(V, gamma)
        return q if self.width == 1 else q.reshape(-1, self.width).max(axis=1)


def _optimal_backup(model: TabularModel, states: np.ndarray) -> _Backup:
    """``V(s) <- max_a sum p (r + gamma V(s'))`` for ``states``."""
    idx, position = _entries_of(model.ptr, states)
    nA = model.num_actions
    slot, rewards = position * nA + model.action[idx], model.expected_reward[states].ravel()
    return _Backup(states, slot, model.continuing[idx], model.next_state[idx], rewards, nA)


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


def _check_gamma_theta(gamma: float, theta: float | None = None) -> tuple[float, float | None]:
    if isinstance(gamma, bool) or not isinstance(gamma, (int, float, np.integer, np.floating)):
        raise ValueError(f"gamma must be a number in [0, 1], got {gamma!r}")
    if not 0.0 <= float(gamma) <= 1.0:
        raise ValueError(f"gamma must be in [0, 1], got {gamma!r}")
    if theta is not None:
        if isinstance(theta, bool) or not isinstance(theta, (int, float, np.integer, np.floating)):
            raise ValueError(f"theta must be a positive number, got {theta!r}")
        if not (float(theta) > 0.0 and math.isfinite(theta)):
            raise ValueError(f"theta must be positive and finite, got {theta!r}")
        theta = float(theta)
    return float(gamma), theta


def _check_cap(value: int, name: str) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
        raise ValueError(f"{name} must be a positive int, got {value!r}")
    return int(value)


def _check_values(V: Any, model: TabularModel, name: str) -> np.ndarray:
    array = np.array(V, dtype=np.float64)  # a copy: the caller's array is never changed
    if array.shape != (model.num_states,):
        raise ValueError(f"{name} must have shape (nS,) = ({model.num_states},), got {array.shape}")
    if not np.isfinite(array).all():
        raise ValueError(f"{name} holds NaN or infinite entries")
    return array


def _reach_backwards(num_states: int, src: np.ndarray, dst: np.ndarray, targets: np.ndarray) -> np.ndarray:
    """Return a bool mask of the states with a path along edges ``src -> dst`` into ``targets`` (included)."""
    order = np.argsort(dst, kind="stable")
    pred = src[order]
    pred_ptr = np.searchsorted(dst[order], np.arange(num_states + 1))
    reached = targets.copy()
    frontier = np.flatnonzero(reached)
    while frontier.size:  # breadth-first, one whole level per step
        idx, _ = _entries_of(pred_ptr, frontier)
        found = np.unique(pred[idx])
        frontier = found[~reached[found]]
        reached[frontier] = True
    return reached


def _unbounded_states(model: TabularModel, policy: np.ndarray) -> np.ndarray:
    """States whose undiscounted value under ``policy`` is unbounded (or undefined).

    In a finite chain every path eventually stays in a recurrent class. Episodes that never end stay in
    the closed set ``N`` of states that cannot reach a terminating outcome; the value is finite exactly
    when every recurrent class inside ``N`` collects zero expected reward. The union ``K`` of closed
    zero-reward sets is found by removing from the zero-reward states of ``N`` those that can reach a
    rewarding state of ``N``; a state of ``N`` that cannot reach ``K`` must end in a rewarding class.
    """
    nS = model.num_states
    weight = policy[model.state, model.action] * model.prob
    used = weight > 0
    ends = np.zeros(nS, bool)
    ends[model.state[used & model.terminated]] = True
    moves = used & ~model.terminated
    src, dst = model.state[moves], model.next_state[moves]
    can_end = _reach_backwards(nS, src, dst, ends)
    if can_end.all():
        return np.zeros(0, np.int64)
    expected = np.bincount(model.state, weights=weight * model.reward, minlength=nS)
    rewarding = ~can_end & (np.abs(expected) > 0)
    leaks = _reach_backwards(nS, src, dst, rewarding)  # zero-reward states that can reach a rewarding one
    closed_zero = ~can_end & ~leaks
    return np.flatnonzero(~can_end & ~_reach_backwards(nS, src, dst, closed_zero))


def uniform_policy(P: ModelLike) -> np.ndarray:
    """Return the equiprobable random policy, a new ``(nS, nA)`` array with every entry ``1 / nA``.

    Args:
        P: the model (``P``, an env, or a :class:`TabularModel`).

    Raises:
        ValueError: if ``P`` is malformed (see :func:`build_model`).
    """
    model = build_model(P)
    return np.full((model.num_states, model.num_actions), 1.0 / model.num_actions)


def q_values(P: ModelLike, V: np.ndarray, gamma: float = 1.0) -> np.ndarray:
    """Return the action values ``Q[s, a] = sum p * (r + gamma * V[s'])`` of ``V``, shape ``(nS, nA)``.

    ``V[s']`` is not used for outcomes that end the episode.

    Args:
        P: the model (``P``, an env, or a :class:`TabularModel`).
        V: ``(nS,)`` state values.
        gamma: discount factor in [0, 1].

    Raises:
        ValueError: on a malformed ``P``, a ``V`` of the wrong shape or a bad ``gamma``.
    """
    model = build_model(P)
    gamma, _ = _check_gamma_theta(gamma)
    return model.q_values(_check_values(V, model, "V"), gamma)


def _greedy_actions(q: np.ndarray) -> np.ndarray:
    """The lowest-numbered action within the tie tolerance of each row's best."""
    best = q.max(axis=1, keepdims=True)
    return np.argmax(q >= best - TIE_TOLERANCE * np.maximum(1.0, np.abs(best)), axis=1)


def _one_hot(actions: np.ndarray, num_actions: int) -> np.ndarray:
    policy = np.zeros((len(actions), num_actions))
    policy[np.arange(len(actions)), actions] = 1.0
    return policy


def greedy_policy(P: ModelLike, V: np.ndarray, gamma: float = 1.0, split_ties: bool = False) -> np.ndarray:
    """Return the policy greedy with respect to ``V``, a new ``(nS, nA)`` array.

    Args:
        P: the model (``P``, an env, or a :class:`TabularModel`).
        V: ``(nS,)`` state values.
        gamma: discount factor in [0, 1].
        split_ties: if False, probability 1 on the lowest-numbered best action; if True, equal
            probability on every action within the tie tolerance of the best (the arrows of Figure 4.1).

    Raises:
        ValueError: on a malformed ``P``, a ``V`` of the wrong shape or a bad ``gamma``.
    """
    q = q_values(P, V, gamma)
    if not split_ties:
        return _one_hot(_greedy_actions(q), q.shape[1])
    best = q.max(axis=1, keepdims=True)
    ties = (q >= best - TIE_TOLERANCE * np.maximum(1.0, np.abs(best))).astype(np.float64)
    return ties / ties.sum(axis=1, keepdims=True)


def _evaluation_sweeps(model: TabularModel, policy: np.ndarray, in_place: bool) -> list[_Backup]:
    """Per group, the backup ``V(s) <- sum_a pi(a|s) sum p (r + gamma V(s'))``."""
    groups = model.groups if in_place else (np.arange(model.num_states),)
    r_pi = (policy * model.expected_reward).sum(axis=1)
    weight_all = policy[model.state, model.action] * model.continuing
    plan = []
    for states in groups:
        idx, position = _entries_of(model.ptr, states)
        keep = weight_all[idx] > 0  # outcomes the policy never reaches cost nothing per sweep
        plan.append(_Backup(states, position[keep], weight_all[idx][keep], model.next_state[idx][keep], r_pi[states]))
    return plan


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
        P: the model (``P``, an env, or a :class:`TabularModel`).
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
    model = build_model(P)
    policy = check_policy(policy, model.num_states, model.num_actions)
    gamma, theta = _check_gamma_theta(gamma, theta)
    max_sweeps = _check_cap(max_sweeps, "max_sweeps")
    V = np.zeros(model.num_states) if V0 is None else _check_values(V0, model, "V0")
    if gamma == 1.0:
        unbounded = _unbounded_states(model, policy)
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
        P: the model (``P``, an env, or a :class:`TabularModel`).
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
    model = build_model(P)
    gamma, theta = _check_gamma_theta(gamma, theta)
    max_iterations = _check_cap(max_iterations, "max_iterations")
    current = uniform_policy(model) if policy is None else check_policy(policy, model.num_states, model.num_actions)
    V = np.zeros(model.num_states)
    sweeps_per_evaluation: list[int] = []
    rows = np.arange(model.num_states)
    for _ in range(max_iterations):
        evaluation: dict[str, Any] = {}
        V = policy_evaluation(model, current, gamma, theta, V0=V, max_sweeps=max_sweeps, info=evaluation)
        sweeps_per_evaluation.append(evaluation["sweeps"])
        q = model.q_values(V, gamma)
        best = q.max(axis=1)
        chosen = _greedy_actions(q)
        # Keep the old action where it is still (within tolerance) best, so equal actions never swap.
        old = np.argmax(current, axis=1)
        deterministic = current[rows, old] == 1.0
        keep = deterministic & (q[rows, old] >= best - TIE_TOLERANCE * np.maximum(1.0, np.abs(best)))
        chosen = np.where(keep, old, chosen)
        improved = _one_hot(chosen, model.num_actions)
        if np.array_equal(improved, current):
            if info is not None:
                info.update(
                    iterations=len(sweeps_per_evaluation),
                    evaluation_sweeps=sweeps_per_evaluation,
                    sweeps=sum(sweeps_per_evaluation),
                    updates=sum(sweeps_per_evaluation) * model.num_states,
                )
            return improved, V
        current = improved
    raise ConvergenceError(f"policy iteration did not find a stable policy in max_iterations={max_iterations}")


def _no_end_message(model: TabularModel) -> str:
    """Describe the states that cannot end an episode whatever they do (why gamma=1 may diverge)."""
    ends = np.zeros(model.num_states, bool)
    ends[model.state[model.terminated & (model.prob > 0)]] = True
    moves = ~model.terminated & (model.prob > 0)
    stuck = np.flatnonzero(~_reach_backwards(model.num_states, model.state[moves], model.next_state[moves], ends))
    if stuck.size == 0:
        return ""
    return (
        f"; states {stuck[:MAX_SHOWN].tolist()}{' ...' if stuck.size > MAX_SHOWN else ''} can never end an episode, "
        "so with gamma=1 their values may be unbounded: use gamma < 1"
    )


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
        P: the model (``P``, an env, or a :class:`TabularModel`).
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
    model = build_model(P)
    gamma, theta = _check_gamma_theta(gamma, theta)
    max_sweeps = _check_cap(max_sweeps, "max_sweeps")
    V = np.zeros(model.num_states) if V0 is None else _check_values(V0, model, "V0")
    plan = [_optimal_backup(model, states) for states in (model.groups if in_place else (np.arange(model.num_states),))]
    sweeps, delta = _sweep_until(plan, V, gamma, theta, max_sweeps, "value iteration", lambda: _no_end_message(model))
    if info is not None:
        info.update(sweeps=sweeps, updates=sweeps * model.num_states, delta=delta)
    return _one_hot(_greedy_actions(model.q_values(V, gamma)), model.num_actions), V


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
    and changing it by more than ``theta`` queues the predecessors of ``s`` (from the reverse mapping
    built once in :func:`build_model`); a state is never queued twice at once. The queue is drained in
    rounds, group by group in place (see the module docstring); the loop ends when it is empty.

    Args:
        P: the model (``P``, an env, or a :class:`TabularModel`).
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
    model = build_model(P)
    gamma, theta = _check_gamma_theta(gamma, theta)
    max_rounds = _check_cap(max_rounds, "max_rounds")
    V = np.zeros(model.num_states) if V0 is None else _check_values(V0, model, "V0")
    nA = model.num_actions
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
                pred, _ = _entries_of(model.pred_ptr, changed)
                queued[model.pred_idx[pred]] = True
        rounds += 1
    if info is not None:
        info.update(rounds=rounds, updates=updates, delta=delta)
    return _one_hot(_greedy_actions(model.q_values(V, gamma)), nA), V
