"""The tabular tasks' data: the model ``P``, a policy, their checks, and ``P`` as flat arrays.

``GridWorld-v0`` and ``TabularBlackjack-v0`` expose their exact model in Gymnasium's toy_text format,
``P[s][a] = [(probability, next_state, reward, terminated), ...]``, and a policy over them is an
``(nS, nA)`` array of action probabilities. The envs (GridWorld's overlay and text tables), dynamic
programming (:mod:`agents.tabular.dp`) and Monte Carlo (:mod:`agents.tabular.mc`) all read these, so their checks live
here, below both layers: the envs may not import ``agents``.

- :func:`check_policy` is the one check of a policy array and :func:`check_values` of a value array;
  :func:`best_actions` gives a policy row's most probable actions (the arrows GridWorld draws).
- :func:`build_model` checks ``P`` and flattens it once into a :class:`TabularModel`: numpy arrays with
  one entry per outcome, what whole-array sweeps read. It also precomputes what the sweeps of
  :mod:`agents.tabular.dp` need from the transition graph: groups of states with no transitions between members
  (a greedy colouring, so an in-place sweep can back up a whole group in one array operation) and the
  reverse mapping (the predecessors of each state). :meth:`TabularModel.unbounded_states` and
  :meth:`TabularModel.trapped_states` find the states from which episodes cannot end, which is where
  undiscounted values diverge.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

__all__ = [
    "MAX_SHOWN",
    "PROBABILITY_TOLERANCE",
    "TabularModel",
    "best_actions",
    "build_model",
    "check_policy",
    "check_values",
]

#: How far a row of probabilities may sum from 1 (float rounding of models and policies).
PROBABILITY_TOLERANCE = 1e-6
#: How many offending states an error message lists.
MAX_SHOWN = 10


def check_policy(policy: Any, num_states: int, num_actions: int) -> np.ndarray:
    """Return ``policy`` as a new float64 array after checking it is ``(num_states, num_actions)`` probability rows.

    The one check of a tabular policy: :mod:`agents.tabular.dp`, :mod:`agents.tabular.mc` and GridWorld's overlay
    and text use it.

    Raises:
        ValueError: on a non-numeric or wrongly shaped array, NaN or infinite entries, negative entries, or a
            row not summing to 1 (within 1e-6); the message names the offending states.
    """
    array = _finite_array(policy, (num_states, num_actions), "policy", "action probabilities")
    sums = array.sum(axis=1)
    off = np.abs(sums - 1.0) > PROBABILITY_TOLERANCE
    for bad, problem in (
        ((array < 0).any(axis=1), "has negative probabilities in states {states}"),
        (off, "rows must sum to 1 (action probabilities): states {states} sum to {sums}"),
    ):
        if (shown := np.flatnonzero(bad)[:MAX_SHOWN]).size:
            raise ValueError("policy " + problem.format(states=shown.tolist(), sums=sums[shown].round(9).tolist()))
    return array


def check_values(values: Any, num_states: int, name: str = "V") -> np.ndarray:
    """Return ``values`` as a new float64 array after checking it is ``(num_states,)`` finite state values.

    Raises:
        ValueError: on a wrong shape or NaN or infinite entries; the message calls the array ``name``.
    """
    return _finite_array(values, (num_states,), name, "state values")


def _finite_array(value: Any, shape: tuple[int, ...], name: str, what: str) -> np.ndarray:
    """``value`` as a new float64 array (the caller's is never changed), checked to be finite and of ``shape``."""
    wanted = f"must have shape {'(nS, nA)' if len(shape) == 2 else '(nS,)'} = {shape}, got"
    try:
        array = np.array(value, dtype=np.float64)
        problem = None if array.shape == shape else f"{wanted} {array.shape}"
    except (TypeError, ValueError):
        array, problem = None, f"{wanted} {value!r:.80}, not an array of {what}"
    if problem is None and not np.isfinite(array).all():
        problem = "holds NaN or infinite entries"
    if problem:
        raise ValueError(f"{name} {problem}")
    return array


def best_actions(probabilities: np.ndarray) -> list[int]:
    """Return the actions whose probability is within 1e-9 of the largest (the arrows drawn for a state)."""
    top = float(np.max(probabilities))
    return [a for a, p in enumerate(probabilities) if p > 0 and p >= top - 1e-9]


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
        future = np.bincount(
            self.state * nA + self.action, weights=self.continuing * V[self.next_state], minlength=nS * nA
        )
        return (self.expected_reward.ravel() + gamma * future).reshape(nS, nA)

    def entries(self, states: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Return the outcome indices ``k`` of ``states`` (concatenated) and, for each, its position in ``states``."""
        return _entries_of(self.ptr, states)

    def predecessors(self, states: np.ndarray) -> np.ndarray:
        """Return the states whose backups read ``V`` of ``states`` (an outcome continues into one of them)."""
        idx, _ = _entries_of(self.pred_ptr, states)
        return self.pred_idx[idx]

    def unbounded_states(self, policy: np.ndarray) -> np.ndarray:
        """Return the states whose undiscounted value under ``policy`` is unbounded (or undefined), ascending.

        In a finite chain every path eventually stays in a recurrent class. Episodes that never end stay in
        the closed set ``N`` of states that cannot reach a terminating outcome; the value is finite exactly
        when every recurrent class inside ``N`` collects zero expected reward. The union ``K`` of closed
        zero-reward sets is found by removing from the zero-reward states of ``N`` those that can reach a
        rewarding state of ``N``; a state of ``N`` that cannot reach ``K`` must end in a rewarding class.

        Args:
            policy: ``(nS, nA)`` action probabilities, already checked (:func:`check_policy`).
        """
        nS = self.num_states
        weight = policy[self.state, self.action] * self.prob
        used = weight > 0
        ends = np.zeros(nS, bool)
        ends[self.state[used & self.terminated]] = True
        moves = used & ~self.terminated
        src, dst = self.state[moves], self.next_state[moves]
        can_end = _reach_backwards(nS, src, dst, ends)
        if can_end.all():
            return np.zeros(0, np.int64)
        expected = np.bincount(self.state, weights=weight * self.reward, minlength=nS)
        rewarding = ~can_end & (np.abs(expected) > 0)
        leaks = _reach_backwards(nS, src, dst, rewarding)  # zero-reward states that can reach a rewarding one
        closed_zero = ~can_end & ~leaks
        return np.flatnonzero(~can_end & ~_reach_backwards(nS, src, dst, closed_zero))

    def trapped_states(self) -> np.ndarray:
        """Return the states that cannot end an episode whatever they do (with ``gamma=1`` their values may diverge)."""
        ends = np.zeros(self.num_states, bool)
        ends[self.state[self.terminated & (self.prob > 0)]] = True
        moves = ~self.terminated & (self.prob > 0)
        return np.flatnonzero(~_reach_backwards(self.num_states, self.state[moves], self.next_state[moves], ends))


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
        try:
            P = P.get_wrapper_attr("P")  # the outermost holder first: a wrapper env may hold it, not the core
        except AttributeError:
            raise ValueError(f"{P} has no tabular model P (neither it nor its wrappers have a P attribute)") from None
    problem = _structure_problem(P)
    if problem:
        raise ValueError(problem)
    nS, num_actions = len(P), len(P[0])
    rows = [P[s][a] for s in range(nS) for a in range(num_actions)]
    row_count = np.fromiter(map(len, rows), np.int64, len(rows))
    if (empty := np.flatnonzero(row_count == 0)).size:
        raise ValueError(f"P[{empty[0] // num_actions}][{empty[0] % num_actions}] has no outcomes")
    flat = [outcome for outcomes in rows for outcome in outcomes]
    # Checked as whole arrays: a Python loop per outcome costs seconds on large models.
    row = np.repeat(np.arange(nS * num_actions), row_count)

    def where(k: int) -> str:
        return f"P[{row[k] // num_actions}][{row[k] % num_actions}] holds {flat[k]!r}"

    try:  # one conversion of every outcome at once; terminated flags become 1.0 / 0.0
        table = np.array(flat, dtype=np.float64)
    except (TypeError, ValueError):
        table = None
    if table is None or table.shape != (len(flat), 4):  # only now look for the culprit, to name it
        culprit = next(k for k, outcome in enumerate(flat) if not _is_outcome(outcome))
        raise ValueError(f"{where(culprit)}: expected (prob, next_state, reward, terminated) numbers")
    prob, next_state, reward, terminated = table[:, 0], table[:, 1], table[:, 2], table[:, 3] != 0
    next_ok = (next_state >= 0) & (next_state < nS) & (next_state == np.floor(next_state))
    for bad, problem in (
        (~((prob >= 0) & (prob <= 1 + PROBABILITY_TOLERANCE)), "the probability must be in [0, 1]"),
        (~np.isfinite(reward), "the reward must be finite"),
        (~next_ok, f"next_state must be an int in 0..{nS - 1}"),
    ):
        if bad.any():
            raise ValueError(f"{where(int(np.argmax(bad)))}: {problem}")
    sums = np.bincount(row, weights=prob, minlength=nS * num_actions)
    if (off := np.flatnonzero(np.abs(sums - 1.0) > PROBABILITY_TOLERANCE)).size:
        s, a = divmod(int(off[0]), num_actions)
        raise ValueError(f"the probabilities of P[{s}][{a}] sum to {sums[off[0]]:.9g}, not 1")
    next_state = next_state.astype(np.int64)
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


def _structure_problem(P: Any) -> str | None:
    """What is wrong with the shape of ``P`` (its states ``0..nS-1``, the same actions ``0..nA-1`` in each), or None."""
    if not isinstance(P, (Mapping, Sequence)) or len(P) == 0:
        return f"P must be a non-empty dict or list P[s][a] = [(prob, next_state, reward, terminated)], got {P!r:.80}"
    if isinstance(P, Mapping) and set(P) != set(range(len(P))):
        return f"the states of P must be 0..{len(P) - 1}, got keys {sorted(P, key=repr)[:MAX_SHOWN]}..."
    if (num_actions := len(P[0])) == 0:
        return "P[0] has no actions"
    for s in range(len(P)):
        actions = P[s]
        if len(actions) != num_actions or (isinstance(actions, Mapping) and set(actions) != set(range(num_actions))):
            return f"every state must have the actions 0..{num_actions - 1} (as P[0] has); P[{s}] does not"
    return None


def _is_outcome(outcome: Any) -> bool:
    try:
        return len(outcome) == 4 and np.array(outcome, dtype=np.float64).shape == (4,)
    except (TypeError, ValueError):
        return False


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
