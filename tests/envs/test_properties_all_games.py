"""Hypothesis properties of every board env: no sequence of calls crashes an env or corrupts it.

For TicTacToe-v0, ConnectN-v0 (with and without gravity) and DotsAndBoxes-v0, hypothesis draws arbitrary
sequences of resets and actions:
legal moves, moves illegal in the position (a full column, an occupied cell, a drawn edge), raw in-space
integers of every integer type, out-of-space integers and values of the wrong type. The only exceptions
allowed are the documented ones, each for its documented reason, a rejected call changes nothing at all,
and after every call the state is a position the rules can reach: the mask is the rules' legal moves
(zeros at the end), ConnectN piece counts differ by at most one and gravity pieces never float, Dots
scores equal the owned boxes and never decrease, and a finished game stays finished until reset.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np
import pytest
from hypothesis import event, given, settings
from hypothesis import strategies as st

import gym_boardgames  # noqa: F401  (registers the ids)

sys.path.insert(0, str(Path(__file__).parent))  # importlib import mode: put the sibling helper on the path
from property_helpers import ConnectSpec, DotsSpec, assert_consistent, assert_rejected  # noqa: E402

from gym_boardgames.errors import ActionTypeError, ResetNeeded

#: Hypothesis runs 50 programs per game and mode: ``pytest -m "not slow"`` keeps tic-tac-toe, one ConnectN and one
#: Dots board.
SLOW = pytest.mark.slow
GAMES = [
    ConnectSpec(3, 3, 3, gravity=False, env_id="TicTacToe-v0"),
    ConnectSpec(4, 4, 3, gravity=True),
    pytest.param(ConnectSpec(6, 7, 4, gravity=True), marks=SLOW),
    pytest.param(ConnectSpec(4, 5, 3, gravity=False), marks=SLOW),
    DotsSpec(2, 2, "win"),
    pytest.param(DotsSpec(2, 2, "score"), marks=SLOW),
    pytest.param(DotsSpec(3, 3, "win"), marks=SLOW),
    pytest.param(DotsSpec(3, 3, "score"), marks=SLOW),
]

# ---- what hypothesis draws -----------------------------------------------------------------


@dataclass(frozen=True)
class Step:
    """``kind`` says what the action is meant to be, so the expected outcome is known without the env.

    "legal" and "blocked" hold an index resolved at run time into the legal / illegal-in-position actions
    of the current position (so games get deep); "index" is ``value[0] % num_actions`` in the integer
    type ``value[1]``, legal or not; "out_of_range" is ``num_actions + value`` or a negative ``value``;
    "wrong_type" is passed to ``step`` as is; "finish" plays legal moves (picked with ``value``) until the
    episode ends, so that endings by the rules are frequent even on boards with many moves.
    """

    kind: str
    value: Any


@dataclass(frozen=True)
class Reset:
    seed: int | None
    agent_player: int | str | None  # a one-episode override through options, or None for none


# Every form of integer an agent may hand over: Python ints, numpy scalars, 0-d integer arrays.
INT_FORMS = (int, np.int64, np.int32, np.uint8, np.array)
indices = st.tuples(st.integers(0, 10_000), st.sampled_from(INT_FORMS))
out_of_range = st.tuples(
    st.one_of(st.integers(0, 3), st.integers(0, 10**12), st.integers(-(10**12), -1)),
    st.sampled_from((int, np.int64, np.array)),
)
# Not integers at all: floats (even integral ones), strings, None, bools, containers, non-scalar arrays.
WRONG_TYPES = (1.5, 2.0, "a", "3", None, True, False, np.bool_(True), np.float64(1.0), np.array(1.0))
WRONG_CONTAINERS = ([1], (1,), np.array([1, 2]), b"\x01", 1 + 0j)
wrong_types = st.one_of(st.sampled_from(WRONG_TYPES + WRONG_CONTAINERS), st.floats(allow_nan=True, allow_infinity=True))
legal_steps = st.builds(Step, st.just("legal"), st.integers(0, 100))
steps = st.one_of(
    # Legal moves are drawn most often (one_of picks a branch uniformly) so that episodes reach their
    # ends and the aftermath between the odd bad action and reset.
    *[legal_steps] * 8,
    st.builds(Step, st.just("finish"), st.integers(0, 2**32 - 1)),
    st.builds(Step, st.just("blocked"), st.integers(0, 100)),
    st.builds(Step, st.just("index"), indices),
    st.builds(Step, st.just("out_of_range"), out_of_range),
    st.builds(Step, st.just("wrong_type"), wrong_types),
)
resets = st.builds(
    Reset,
    seed=st.one_of(st.none(), st.integers(0, 2**32 - 1)),
    agent_player=st.sampled_from([None, None, 0, 1, "random"]),
)
programs = st.tuples(st.integers(0, 2**32 - 1), st.lists(st.one_of(*[steps] * 12, resets), min_size=10, max_size=70))


def resolve(step: Step, spec: ConnectSpec | DotsSpec, state: Any) -> tuple[str, Any]:
    """Turn a drawn step into ``(expected kind, action)`` for the current position."""
    n = spec.num_actions
    if step.kind in ("legal", "finish"):
        free = spec.free(state)
        return ("legal", free[step.value % len(free)]) if free else ("blocked", 0)
    if step.kind == "blocked":
        blocked = spec.blocked(state)
        return ("blocked", blocked[step.value % len(blocked)]) if blocked else ("skip", None)
    if step.kind == "index":
        index, form = step.value
        action = index % n
        return ("legal" if action in spec.free(state) else "blocked"), form(action)
    if step.kind == "out_of_range":
        offset, form = step.value
        return "out_of_range", form(n + offset if offset >= 0 else offset)
    return "wrong_type", step.value


# ---- the driver ------------------------------------------------------------------------------


def run_program(
    spec: ConnectSpec | DotsSpec, env: gym.Env, first_seed: int, program: list[Step | Reset], *, self_play: bool,
    illegal_action: str,
) -> None:  # fmt: skip
    u = env.unwrapped
    last_action = rf"\b{spec.num_actions - 1}\b"  # error messages give the valid range 0..n-1
    # Before the first reset every step is refused (by the OrderEnforcing wrapper, or by the env itself).
    with pytest.raises(gym.error.ResetNeeded):
        env.step(0)
    with pytest.raises(ResetNeeded, match=r"reset\(\)"):
        u.step(0)

    ended = True  # no episode yet; the leading reset below starts one
    side: int | None = None
    episode_start: Any = None
    for op in [Reset(first_seed, None), *program]:
        if isinstance(op, Reset):
            options = None if op.agent_player is None else {"agent_player": op.agent_player}
            obs, info = env.reset(seed=op.seed, options=options)
            ended = False
            side = None if self_play else u.agent_player
            if not self_play:
                # The override lasts one episode; without one the constructor's setting (0) applies.
                requested = 0 if op.agent_player is None else op.agent_player
                assert side == requested or (requested == "random" and side in (0, 1))
            # A fresh game: empty, or just the opponent's opening move when the agent plays second.
            assert len(u.moves) == (1 if side == 1 else 0)
            assert info["current_player"] == (0 if side is None else side)
            assert not info["illegal_action"]
            spec.check_state(env, None)
            np.testing.assert_array_equal(obs, spec.observe(u.state, 0 if side is None else side))
            assert_consistent(env, ended, info)
            episode_start = u.state
            continue

        kind, action = resolve(op, spec, u.state)
        if ended:
            event("step after the end")
            # A finished game stays finished, whatever is passed, until reset.
            assert_rejected(env, action, ResetNeeded, match=r"reset\(\)")
            continue
        previous = u.state
        if kind == "wrong_type":
            # docs/design.md, "Errors": anything outside the space is a ValueError; a non-integer is also a TypeError.
            error = assert_rejected(env, action, ValueError, match=last_action)
            assert isinstance(error, TypeError) and isinstance(error, ActionTypeError)
        elif kind == "out_of_range":
            assert_rejected(env, action, ValueError, match=last_action)
        elif kind == "skip":
            continue  # nothing is illegal in this position (an empty board)
        elif kind == "blocked" and illegal_action == "raise":
            assert_rejected(env, action, ValueError, match="illegal")
        elif kind == "blocked":
            ended = step_illegal_and_lose(spec, env, action, side)
        else:
            ended = step_legal(spec, env, int(action), side)
            if op.kind == "finish":
                picks = np.random.default_rng(op.value)
                while not ended:
                    spec.check_state(env, previous)
                    previous, free = u.state, spec.free(u.state)
                    ended = step_legal(spec, env, int(free[picks.integers(len(free))]), side)
        spec.check_state(env, previous)
        spec.check_state(env, episode_start)  # monotone over the whole episode, too
        assert_consistent(env, ended)
        if ended:
            event("episode ended by an illegal move" if u.illegal_move_made else "episode ended by the rules")
            assert_rejected(env, 0, ResetNeeded)


def step_illegal_and_lose(spec: ConnectSpec | DotsSpec, env: gym.Env, action: Any, side: int | None) -> bool:
    """An illegal-in-position action with illegal_action="lose": the offender loses and nothing moves."""
    u = env.unwrapped
    state_before, rng_before = u.state, u.np_random.bit_generator.state
    offender = u.game.current_player(u.state)
    obs, reward, terminated, truncated, info = env.step(action)
    assert (reward, terminated, truncated) == (-1.0, True, False)  # -1 in every reward mode
    assert info["illegal_action"] is True and u.illegal_move_made
    assert info["winner"] == 1 - offender and info["current_player"] == offender
    assert u.state == state_before  # the board is unchanged
    assert u.np_random.bit_generator.state == rng_before  # and no opponent move was drawn
    np.testing.assert_array_equal(obs, spec.observe(u.state, offender if side is None else side))
    assert_consistent(env, True, info)
    return True


def step_legal(spec: ConnectSpec | DotsSpec, env: gym.Env, action: int, side: int | None) -> bool:
    u = env.unwrapped
    before = u.state
    mover = u.game.current_player(before)
    assert side is None or mover == side  # against an opponent, only the agent is ever asked to move
    obs, reward, terminated, truncated, info = env.step(action)
    assert truncated is False and not info["illegal_action"]
    assert terminated == u.game.is_terminal(u.state)
    spec.check_legal_step(env, before, action, mover, side)
    seat = mover if side is None else side  # whose reward it is
    assert spec.reward_ok(env, before, seat, reward, terminated), (reward, seat)
    if terminated:
        returns = u.game.returns(u.state)
        assert info["winner"] == (-1 if returns[0] == returns[1] else int(np.argmax(returns)))
    viewer = u.game.current_player(u.state) if side is None else side
    np.testing.assert_array_equal(obs, spec.observe(u.state, viewer))
    assert obs.dtype == np.int8
    assert_consistent(env, terminated, info)
    return bool(terminated)


# ---- the properties --------------------------------------------------------------------------


@pytest.mark.parametrize("illegal_action", ["lose", "raise"])
@pytest.mark.parametrize("opponent", [None, "random"], ids=["self-play", "random-opponent"])
@pytest.mark.parametrize("spec", GAMES, ids=repr)
@settings(max_examples=50, deadline=None)
@given(program=programs)
def test_any_call_sequence_raises_only_documented_errors_and_keeps_a_reachable_state(
    spec: ConnectSpec | DotsSpec, opponent: str | None, illegal_action: str, program: tuple[int, list[Step | Reset]]
) -> None:
    env = spec.make(opponent=opponent, illegal_action=illegal_action)
    first_seed, ops = program
    run_program(spec, env, first_seed, ops, self_play=opponent is None, illegal_action=illegal_action)


@pytest.mark.slow
@pytest.mark.parametrize("illegal_action", ["lose", "raise"])
@pytest.mark.parametrize("opponent", [None, "random"], ids=["self-play", "random-opponent"])
@settings(max_examples=150, deadline=None)
@given(program=programs)
def test_tictactoe_keeps_its_150_programs_per_mode(
    opponent: str | None, illegal_action: str, program: tuple[int, list[Step | Reset]]
) -> None:
    # Tic-tac-toe's own property ran 150 programs per mode before it joined the shared driver: the full
    # suite keeps that depth, the quick subset the 50 above.
    spec = GAMES[0]
    env = spec.make(opponent=opponent, illegal_action=illegal_action)
    first_seed, ops = program
    run_program(spec, env, first_seed, ops, self_play=opponent is None, illegal_action=illegal_action)
