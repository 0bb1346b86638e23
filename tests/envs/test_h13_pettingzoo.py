"""Issue 13 on the PettingZoo adapter: a draw's winner is -1, and a boolean action is refused as in the board envs."""

from __future__ import annotations

import warnings
from typing import Any

import gymnasium as gym
import numpy as np
import pytest

pytest.importorskip("pettingzoo")

import gym_boardgames  # noqa: E402, F401  (registers the Gymnasium ids)
from gym_boardgames import pettingzoo as gp  # noqa: E402
from gym_boardgames.errors import ActionTypeError  # noqa: E402

DRAW_SEQUENCE = [0, 1, 2, 3, 4, 6, 5, 8, 7]


@pytest.mark.parametrize("factory", [gp.env, gp.raw_env], ids=["env", "raw_env"])
def test_a_draw_reports_winner_minus_one_to_both_agents(factory: Any) -> None:
    aec = factory("TicTacToe")
    aec.reset()
    for move in DRAW_SEQUENCE:
        aec.step(move)
    assert all(aec.terminations.values())
    assert aec.unwrapped.winner == -1
    assert [aec.infos[agent]["winner"] for agent in gp.AGENTS] == [-1, -1]
    aec.reset()
    assert aec.unwrapped.winner is None


def _board_env_message(value: object) -> str:
    env = gym.make("TicTacToe-v0")
    env.reset(seed=0)
    with pytest.raises(ActionTypeError) as caught:
        env.step(value)
    return str(caught.value)


@pytest.mark.parametrize("value", [True, False, np.True_, np.array(True)], ids=repr)
@pytest.mark.parametrize("factory", [gp.env, gp.raw_env], ids=["env", "raw_env"])
def test_a_boolean_action_is_refused_with_the_board_envs_message(factory: Any, value: object) -> None:
    aec = factory("TicTacToe")
    aec.reset()
    before = aec.unwrapped.state
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no "illegal move" warning either: the action is refused, not played
        with pytest.raises((ActionTypeError, AssertionError)) as caught:
            aec.step(value)
    if isinstance(caught.value, AssertionError):
        # AssertOutOfBoundsWrapper already refuses what Discrete(9).contains refuses (numpy booleans).
        assert factory is gp.env and not isinstance(value, bool)
    else:
        assert str(caught.value) == _board_env_message(value)
    assert aec.unwrapped.state == before and aec.agent_selection == "player_0"
    assert not any(aec.terminations.values())
    aec.step(1)  # still usable: the integer 1 plays cell 1
    assert aec.agent_selection == "player_1"


@pytest.mark.parametrize("value", [1.0, "1", [1]], ids=repr)
def test_raw_env_refuses_non_integers_with_the_board_envs_message(value: object) -> None:
    aec = gp.raw_env("ConnectFour")
    aec.reset()
    with pytest.raises(ActionTypeError) as caught:
        aec.step(value)
    env = gym.make("ConnectFour-v0")
    env.reset(seed=0)
    with pytest.raises(ActionTypeError) as expected:
        env.step(value)
    assert str(caught.value) == str(expected.value)


def test_numpy_integers_are_still_actions() -> None:
    aec = gp.env("TicTacToe")
    aec.reset()
    aec.step(np.int64(4))
    aec.step(np.array(0))
    assert aec.unwrapped.state.board[4] == 1 and aec.unwrapped.state.board[0] == 2
