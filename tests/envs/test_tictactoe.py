"""Hypothesis properties of TicTacToe-v0: no sequence of calls crashes the env or corrupts its state.

Hypothesis draws arbitrary sequences of resets and actions: legal moves, occupied cells, out-of-space
integers and values of the wrong type. The only exceptions allowed are the documented ones, each raised for
its documented reason, and after every call the env's state must still be a reachable tic-tac-toe position
whose mask is exactly the rules' legal moves. A rejected call must change nothing at all.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import gymnasium as gym
import numpy as np
import pytest
from hypothesis import event, given, settings
from hypothesis import strategies as st

import gym_boardgames  # noqa: F401  (registers the ids)
from gym_boardgames.errors import ActionTypeError, ResetNeeded

# ---- what hypothesis draws -----------------------------------------------------------------


@dataclass(frozen=True)
class Step:
    """``kind`` says what the action is meant to be, so the expected outcome is known without the env.

    "legal" and "occupied" hold an index resolved at run time into the legal / occupied cells of the
    current position (so games get deep); the other kinds hold the action passed to ``step`` as is.
    """

    kind: str  # "legal" | "occupied" | "cell" | "out_of_range" | "wrong_type"
    value: Any


@dataclass(frozen=True)
class Reset:
    seed: int | None
    agent_player: int | str | None  # a one-episode override through options, or None for none


# Every form of integer an agent may hand over: Python ints, numpy scalars, 0-d integer arrays.
INT_FORMS = (int, np.int64, np.int32, np.uint8, np.array)

cells = st.tuples(st.integers(0, 8), st.sampled_from(INT_FORMS)).map(lambda t: t[1](t[0]))
out_of_range = st.one_of(
    st.sampled_from([-1, 9, 100, np.int64(-1), np.int64(9), np.uint8(200), np.array(9)]),
    st.integers(max_value=-1),
    st.integers(min_value=9),
)
# Not integers at all: floats (even integral ones), strings, None, bools, containers, non-scalar arrays.
WRONG_TYPES = (1.5, 2.0, "a", "3", None, True, False, np.bool_(True), np.float64(1.0), np.array(1.0))
WRONG_CONTAINERS = ([1], (1,), np.array([1, 2]), b"\x01", 1 + 0j)
wrong_types = st.one_of(st.sampled_from(WRONG_TYPES + WRONG_CONTAINERS), st.floats(allow_nan=True, allow_infinity=True))
legal_steps = st.builds(Step, st.just("legal"), st.integers(0, 8))
steps = st.one_of(
    # Legal moves are drawn most often (one_of picks a branch uniformly) so that episodes reach wins,
    # draws and their aftermath between the odd bad action and reset.
    *[legal_steps] * 8,
    st.builds(Step, st.just("occupied"), st.integers(0, 8)),
    st.builds(Step, st.just("cell"), cells),
    st.builds(Step, st.just("out_of_range"), out_of_range),
    st.builds(Step, st.just("wrong_type"), wrong_types),
)
resets = st.builds(
    Reset,
    seed=st.one_of(st.none(), st.integers(0, 2**32 - 1)),
    agent_player=st.sampled_from([None, None, 0, 1, "random"]),
)
programs = st.tuples(st.integers(0, 2**32 - 1), st.lists(st.one_of(*[steps] * 10, resets), min_size=10, max_size=60))


# ---- checks ----------------------------------------------------------------------------------


def snapshot(env: gym.Env) -> tuple[Any, ...]:
    """Everything a step could change, including the opponent's random stream (for reproducibility)."""
    u = env.unwrapped
    return (
        u.state, u.lastaction, u.last_mover, u.episode_over, u.winner, u.illegal_move_made,
        u.agent_player, u.np_random.bit_generator.state, u.action_masks().tolist(),
    )  # fmt: skip


def piece_counts(board: bytes) -> tuple[int, int]:
    return board.count(1), board.count(2)


def assert_consistent(env: gym.Env, ended: bool, info: dict[str, Any] | None = None) -> None:
    """The env's state is a reachable position, and its mask is the rules' legal moves (zeros at the end)."""
    u = env.unwrapped
    state, game = u.state, u.game
    assert len(state.board) == 9 and set(state.board) <= {0, 1, 2}
    count0, count1 = piece_counts(state.board)
    assert count0 - count1 in (0, 1)  # player 0 opens, so it is never behind nor two ahead
    assert game.current_player(state) == count0 - count1
    # Rebuilding the state from its board re-derives the player and the cached winner from scratch.
    assert game.state_from_board(state.board) == state
    assert u.episode_over == ended
    mask = u.action_masks()
    assert mask.dtype == np.int8 and mask.shape == (9,)
    if ended:
        assert not mask.any()
        assert game.is_terminal(state) or u.illegal_move_made
    else:
        assert not game.is_terminal(state)
        assert np.flatnonzero(mask).tolist() == list(game.legal_actions(state))
        assert mask.any()  # a running game always has a move
    if info is not None:
        np.testing.assert_array_equal(info["action_mask"], mask)
        assert info["current_player"] == game.current_player(state)
        assert ("winner" in info) == ended


def assert_rejected(env: gym.Env, action: Any, error: type[BaseException], match: str | None = None) -> BaseException:
    """``step(action)`` raises ``error`` and leaves the env exactly as it was; return the exception."""
    before = snapshot(env)
    with pytest.raises(error, match=match) as caught:
        env.step(action)
    assert snapshot(env) == before
    return caught.value


def resolve(step: Step, board: bytes) -> Any:
    if step.kind == "legal":
        empty = [i for i, v in enumerate(board) if v == 0]
        return empty[step.value % len(empty)] if empty else 0  # a full board: the game is over anyway
    if step.kind == "occupied":
        taken = [i for i, v in enumerate(board) if v != 0]
        return taken[step.value % len(taken)] if taken else None
    return step.value


# ---- the driver ------------------------------------------------------------------------------


def run_program(
    env: gym.Env, first_seed: int, program: list[Step | Reset], *, self_play: bool, illegal_action: str
) -> None:
    u = env.unwrapped
    # Before the first reset every step is refused (by the OrderEnforcing wrapper, or by the env itself).
    with pytest.raises(gym.error.ResetNeeded):
        env.step(0)
    with pytest.raises(ResetNeeded, match=r"reset\(\)"):
        u.step(0)

    ended = True  # no episode yet; the leading reset below starts one
    side: int | None = None
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
            assert piece_counts(u.state.board) == ((1, 0) if side == 1 else (0, 0))
            assert info["current_player"] == (0 if side is None else side)
            assert not info["illegal_action"]
            assert_consistent(env, ended, info)
            continue

        action = resolve(op, u.state.board)
        if ended:
            event("step after the end")
            # A finished game stays finished, whatever is passed, until reset.
            assert_rejected(env, action, ResetNeeded, match=r"reset\(\)")
        elif op.kind == "wrong_type":
            # docs/design.md, "Errors": anything outside the space is a ValueError; a non-integer is also a TypeError.
            error = assert_rejected(env, action, ValueError, match=r"\b8\b")
            assert isinstance(error, TypeError) and isinstance(error, ActionTypeError)
        elif op.kind == "out_of_range":
            assert_rejected(env, action, ValueError, match=r"\b8\b")  # the message gives the valid range
        elif action is None:
            continue  # "occupied" on an empty board: nothing to play
        elif u.state.board[int(action)] != 0 and illegal_action == "raise":
            assert_rejected(env, action, ValueError, match="illegal")
        elif u.state.board[int(action)] != 0:
            ended = step_illegal_and_lose(env, action, side)
        else:
            ended = step_legal(env, int(action), side)
        assert_consistent(env, ended)
        if ended:
            event("episode ended by an illegal move" if u.illegal_move_made else "episode ended by the rules")
            assert_rejected(env, 0, ResetNeeded)


def step_illegal_and_lose(env: gym.Env, action: Any, side: int | None) -> bool:
    """An occupied cell with illegal_action="lose": the offender loses and nothing else moves."""
    u = env.unwrapped
    state_before, rng_before = u.state, u.np_random.bit_generator.state
    offender = u.game.current_player(u.state)
    obs, reward, terminated, truncated, info = env.step(action)
    assert (reward, terminated, truncated) == (-1.0, True, False)
    assert info["illegal_action"] is True and u.illegal_move_made
    assert info["winner"] == 1 - offender and info["current_player"] == offender
    assert u.state == state_before  # the board is unchanged
    assert u.np_random.bit_generator.state == rng_before  # and no opponent move was drawn
    viewer = offender if side is None else side
    np.testing.assert_array_equal(obs, observe(u.state.board, viewer))
    assert_consistent(env, True, info)
    return True


def step_legal(env: gym.Env, cell: int, side: int | None) -> bool:
    """A legal move lands on ``cell``; against an opponent, at most one reply follows it."""
    u = env.unwrapped
    state_before = u.state
    mover = u.game.current_player(state_before)
    assert side is None or mover == side  # against an opponent, only the agent is ever asked to move
    agent_ended_it = u.game.is_terminal(u.game.apply(state_before, cell))
    obs, reward, terminated, truncated, info = env.step(cell)
    board, board_before = u.state.board, state_before.board
    changed = [i for i in range(9) if board[i] != board_before[i]]
    assert all(board_before[i] == 0 for i in changed)  # pieces are only ever added
    assert board[cell] == mover + 1
    # Self-play adds exactly the mover's piece; an opponent adds one reply unless the move ended the game.
    if side is None or agent_ended_it:
        assert changed == [cell]
    else:
        (reply,) = (i for i in changed if i != cell)
        assert board[reply] == 2 - mover
    assert truncated is False and not info["illegal_action"]
    assert terminated == u.game.is_terminal(u.state)
    winner = u.game.winner(u.state)
    if terminated:
        assert info["winner"] == (-1 if winner is None else winner)  # a draw is -1 since 0.2.0
        seat = mover if side is None else side  # whose reward it is
        assert reward == (0.0 if winner is None else (1.0 if winner == seat else -1.0))
    else:
        assert reward == 0.0
        assert info["current_player"] == (1 - mover if side is None else side)
    viewer = u.game.current_player(u.state) if side is None else side
    np.testing.assert_array_equal(obs, observe(board, viewer))
    assert_consistent(env, terminated, info)
    return bool(terminated)


def observe(board: bytes, viewer: int) -> np.ndarray:
    """+1 for ``viewer``'s pieces, -1 for the other player's, 0 for empty."""
    mine, theirs = viewer + 1, 2 - viewer
    return np.array([1 if v == mine else -1 if v == theirs else 0 for v in board], dtype=np.int8).reshape(3, 3)


# ---- the properties --------------------------------------------------------------------------


@pytest.mark.slow
@pytest.mark.parametrize("illegal_action", ["lose", "raise"])
@pytest.mark.parametrize("opponent", [None, "random"], ids=["self-play", "random-opponent"])
@settings(max_examples=150, deadline=None)
@given(program=programs)
def test_any_call_sequence_raises_only_documented_errors_and_keeps_a_valid_state(
    opponent: str | None, illegal_action: str, program: tuple[int, list[Step | Reset]]
) -> None:
    env = gym.make("TicTacToe-v0", opponent=opponent, illegal_action=illegal_action)
    first_seed, ops = program
    run_program(env, first_seed, ops, self_play=opponent is None, illegal_action=illegal_action)


# A buggy custom opponent: each call returns one of these, in the order hypothesis chose.
BAD_REPLIES = ("occupied", "off_board", "float", "string", "none")


class ScriptedOpponent:
    """Returns a legal move or one of :data:`BAD_REPLIES`, following a script."""

    def __init__(self, script: list[str]) -> None:
        self.script = list(script)
        self.calls = 0

    def __repr__(self) -> str:
        return "ScriptedOpponent()"

    def act(self, game: Any, state: Any) -> Any:
        reply = self.script[self.calls % len(self.script)]
        self.calls += 1
        legal = list(game.legal_actions(state))
        occupied = [i for i in range(9) if i not in legal]
        return {
            "legal": legal[self.calls % len(legal)],
            "occupied": occupied[0] if occupied else 9,
            "off_board": 9,
            "float": 1.5,
            "string": "4",
            "none": None,
        }[reply]


@settings(max_examples=150, deadline=None)
@given(
    script=st.lists(st.sampled_from(("legal", "legal", *BAD_REPLIES)), min_size=1, max_size=12),
    agent_player=st.sampled_from([0, 1]),
    moves=st.lists(st.integers(0, 8), max_size=12),
)
def test_buggy_custom_opponent_raises_value_error_naming_it_and_changes_nothing(
    script: list[str], agent_player: int, moves: list[int]
) -> None:
    opponent = ScriptedOpponent([*script, "legal"])  # at least one legal reply, so some reset succeeds
    # Gymnasium 1.4's PassiveEnvChecker crashes (TypeError, its own bug) on the first step after a first
    # reset() that raised, which a buggy opening reply causes here; this test is about the env, not it.
    env = gym.make("TicTacToe-v0", opponent=opponent, agent_player=agent_player, disable_env_checker=True)
    u = env.unwrapped
    if agent_player == 1:
        # Each reset asks for one opening move: every bad one fails that reset, naming the opponent, and
        # leaves the env needing another reset rather than half-started.
        for _ in range(opponent.script.index("legal")):
            with pytest.raises(ValueError, match=r"ScriptedOpponent\(\)"):
                env.reset(seed=0)
            with pytest.raises(ResetNeeded):
                u.step(0)
    env.reset(seed=0)
    ended = False
    for index in moves:
        assert_consistent(env, ended)
        if ended:
            assert_rejected(env, 0, ResetNeeded)
            break
        legal = list(u.game.legal_actions(u.state))
        cell = legal[index % len(legal)]
        calls_before = opponent.calls
        # The opponent is asked exactly once per agent move, unless that move itself ended the game.
        asked = not u.game.is_terminal(u.game.apply(u.state, cell))
        reply = opponent.script[calls_before % len(opponent.script)] if asked else None
        if reply not in (None, "legal"):
            # The opponent's bug, not a loss: reported with its name, and the agent's move is rolled back.
            before = snapshot(env)
            with pytest.raises(ValueError, match=r"opponent ScriptedOpponent\(\)"):
                env.step(cell)
            assert opponent.calls == calls_before + 1
            assert snapshot(env) == before
            continue
        _, _, terminated, _, _ = env.step(cell)
        ended = bool(terminated)
        assert opponent.calls == calls_before + asked
    assert_consistent(env, ended)
