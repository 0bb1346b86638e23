"""Tests of gym_boardgames.checks: the shared argument checks and the bounded file read."""

from __future__ import annotations

import math
import os
import re

import gymnasium as gym
import numpy as np
import pytest

import gym_boardgames  # noqa: F401  (registers the envs)
from agents.matches.arena import play_game
from gym_boardgames.checks import check_action, check_bool, check_choice, check_int, check_number, read_regular_file
from gym_boardgames.errors import ActionTypeError, BadFileError
from gym_boardgames.opponents import Opponent


def test_check_int_returns_plain_int() -> None:
    value = check_int("episodes", np.int64(7), 1)
    assert value == 7 and type(value) is int


@pytest.mark.parametrize("value", [True, np.bool_(True), 0, 6, 1.0, "3", None])
def test_check_int_refuses_names_range_and_value(value: object) -> None:
    with pytest.raises(ValueError, match=r"^episodes must be an integer in \[1, 5\], got "):
        check_int("episodes", value, 1, 5)


def test_check_int_without_upper_bound() -> None:
    assert check_int("seed", 10**30, 0) == 10**30
    with pytest.raises(ValueError, match="seed must be an integer >= 0, got -1"):
        check_int("seed", -1, 0)


def test_check_number_interval_ends() -> None:
    assert check_number("alpha", 1, 0, 1, low_open=True) == 1.0
    with pytest.raises(ValueError, match=r"alpha must be a number in \(0, 1\], got 0"):
        check_number("alpha", 0, 0, 1, low_open=True)
    with pytest.raises(ValueError, match=r"gamma must be a number in \[0, 1\), got 1.0"):
        check_number("gamma", 1.0, 0, 1, high_open=True)
    assert check_number("c", 1e300, 0, math.inf) == 1e300


@pytest.mark.parametrize("value", [math.nan, True, "0.5", None, math.inf])
def test_check_number_refuses(value: object) -> None:
    with pytest.raises(ValueError, match=r"^epsilon must be a number in \[0, 1\], got "):
        check_number("epsilon", value, 0, 1)


def test_read_regular_file_reads_up_to_the_limit(tmp_path) -> None:
    path = tmp_path / "f.bin"
    path.write_bytes(b"abc")
    assert read_regular_file(path, 3) == b"abc"
    with pytest.raises(BadFileError, match=r"f.bin: is 3 bytes, more than the limit of 2$"):
        read_regular_file(path, 2)


def test_read_regular_file_refuses_special_files(tmp_path) -> None:
    with pytest.raises(BadFileError, match="is a directory, not a map file"):
        read_regular_file(tmp_path, 10, what="a map file")
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)  # opening it for reading must not block
    with pytest.raises(BadFileError, match=r"is not a regular file \(a FIFO\)"):
        read_regular_file(fifo, 10)
    with pytest.raises(BadFileError, match=r"character device"):
        read_regular_file("/dev/zero", 10)
    with pytest.raises(FileNotFoundError, match="no such file"):
        read_regular_file(tmp_path / "missing", 10)
    with pytest.raises(ValueError, match="max_bytes must be an integer >= 1"):
        read_regular_file(tmp_path / "missing", 0)


def test_read_regular_file_names_the_callers_setting(tmp_path) -> None:
    path = tmp_path / "f.bin"
    path.write_bytes(b"abc")
    with pytest.raises(BadFileError, match=r"more than the limit of 2 \(max_file_bytes\)$"):
        read_regular_file(path, 2, limit_name="max_file_bytes")
    with pytest.raises(ValueError, match="max_file_bytes must be an integer >= 1, got 0"):
        read_regular_file(path, 0, limit_name="max_file_bytes")


# ---- a move: one check, one message, at every door ------------------------------------------------------------

#: The fuzzers' bad moves (issue 41): none is an action of any board game.
BAD_MOVES = [True, np.True_, 0.7, "0", np.array([0]), 2**70, None]


@pytest.mark.parametrize("action", [0, 8, np.int8(3), np.uint64(8), np.int64(2), np.array(5), np.array(5, np.uint8)])
def test_check_action_takes_python_and_numpy_integers_and_0d_integer_arrays(action: object) -> None:
    checked = check_action(action, 9)
    assert checked == int(action) and type(checked) is int


@pytest.mark.parametrize("action", [*BAD_MOVES, False, np.array(True), 1.0, np.float64(1), [1], (1,), b"1", -1, 9])
def test_check_action_refuses_what_is_no_action_in_one_line_naming_the_range(action: object) -> None:
    integer = isinstance(action, int) and not isinstance(action, bool)
    with pytest.raises(ValueError) as caught:
        check_action(action, 9, "the cells")
    assert str(caught.value) == f"action {action!r} is not an integer in 0..8 (the cells)"
    assert isinstance(caught.value, ActionTypeError) is not integer  # out of range is a plain ValueError
    with pytest.raises(type(caught.value), match=rf"^agent mcts:10 played {re.escape(repr(action))}, which is not"):
        check_action(action, 9, agent="mcts:10")


def test_check_bool_and_check_choice_refuse_in_the_shared_shape() -> None:
    assert check_bool("gravity", np.True_) is True
    with pytest.raises(ValueError, match=r"^gravity must be True or False, got 1$"):
        check_bool("gravity", 1)
    with pytest.raises(ValueError, match=r"^tie_break must be one of \('draw', 'second'\), got array\(\['draw'\]"):
        check_choice("tie_break", np.array(["draw"]), ("draw", "second"))


class Stubborn:
    """An agent that always plays one move, whatever the position."""

    def __init__(self, move: object) -> None:
        self.move = move

    def act(self, game: object, state: object) -> object:
        return self.move

    def __repr__(self) -> str:
        return "stubborn"


def _refusal(call, *args) -> ValueError:
    with pytest.raises(ValueError) as caught:
        call(*args)
    return caught.value


@pytest.mark.parametrize("env_id", ["ConnectFour-v0", "TicTacToe-v0"])
@pytest.mark.parametrize("action", BAD_MOVES, ids=repr)
def test_every_door_refuses_a_bad_move_with_the_same_one_line_message(env_id: str, action: object) -> None:
    """The env, the vector env, the PettingZoo envs, the env's opponent and the arena, each as a user reaches it."""
    pettingzoo = pytest.importorskip("gym_boardgames.pettingzoo")
    env = gym.make(env_id)
    env.reset(seed=0)
    n = env.action_space.n
    body = f"{action!r} is not an integer in 0..{n - 1}"  # the same words at every door
    kind = ValueError if isinstance(action, int) and not isinstance(action, bool) else ActionTypeError
    refusals = {"env": (_refusal(env.step, action), f"action {body}")}
    envs = gym.make_vec(env_id, num_envs=2)
    envs.reset(seed=0)
    refusals["vector env"] = (_refusal(envs.step, [action, action]), f"sub-env 0: action {body}")
    for maker in (pettingzoo.env, pettingzoo.raw_env):
        aec = maker(env_id.removesuffix("-v0"))
        aec.reset(seed=0)
        refusals[maker.__name__] = (_refusal(aec.step, action), f"action {body}")
    played = f"agent stubborn played {action!r}, which is not an integer in 0..{n - 1}"
    opponent = gym.make(env_id, opponent=Stubborn(action), agent_player=1)
    refusals["env opponent"] = (_refusal(lambda: opponent.reset(seed=0)), played)  # it opens at the reset
    game = env.unwrapped.game
    refusals["arena"] = (_refusal(play_game, game, Stubborn(action), "random"), played)
    named = Opponent(Stubborn(action), "mcts:10")  # as scripts/arena.py and the ladder build agents from specs
    refusals["arena, an agent by spec"] = (
        _refusal(play_game, game, named, "random"),
        played.replace("stubborn", "mcts:10"),
    )
    for door, (error, expected) in refusals.items():
        assert (door, str(error)) == (door, expected)
        assert type(error) is kind, door
