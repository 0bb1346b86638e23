"""Every env of the package refuses ``step()`` before ``reset()`` and after the episode ended, the same way.

From the reliability issue: GridWorld-v0 and TabularBlackjack-v0 stepped on after the end while the four
board envs raised. All six now raise :class:`gym_boardgames.errors.ResetNeeded` (a ``RuntimeError`` and
Gymnasium's ``ResetNeeded``) with the same words, naming ``reset()`` (docs/design.md, "Two-player env
contract", Order, and "Tabular tasks").
"""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest

import gym_boardgames  # noqa: F401  (registers the ids)
from gym_boardgames.errors import ResetNeeded

BOARD_IDS = ("TicTacToe-v0", "ConnectN-v0", "ConnectFour-v0", "DotsAndBoxes-v0")
ALL_IDS = (*BOARD_IDS, "GridWorld-v0", "TabularBlackjack-v0")
AFTER_END = r"^step\(\) called after the episode ended: call reset\(\) to start a new one$"
BEFORE_RESET = r"^step\(\) called before reset\(\): call reset\(\) to start an episode$"
GRID_NEXT_TO_TERMINAL, LEFT = 1, 2  # state 1 of example 4.1: LEFT enters terminal 0
STICK = 0  # Blackjack: sticking always ends the hand


def start(env, env_id):
    """Reset ``env`` so that the episode can be ended in a few steps; return reset's info."""
    if env_id == "GridWorld-v0":
        return env.reset(seed=0, options={"start_state": GRID_NEXT_TO_TERMINAL})[1]
    return env.reset(seed=0)[1]


def play_to_the_end(env, env_id, info):
    """Step until ``terminated``; return the number of steps (never truncated: these episodes end first)."""
    for steps in range(1, 10_000):
        if env_id == "GridWorld-v0":
            action = LEFT
        elif env_id == "TabularBlackjack-v0":
            action = STICK
        else:
            action = int(np.flatnonzero(info["action_mask"])[0])
        _, _, terminated, truncated, info = env.step(action)
        assert not truncated
        if terminated:
            return steps
    raise AssertionError(f"{env_id}: the episode did not end")


@pytest.mark.parametrize("env_id", ALL_IDS)
def test_step_after_the_end_raises_reset_needed_naming_reset(env_id):
    env = gym.make(env_id)
    play_to_the_end(env, env_id, start(env, env_id))
    for action in (0, 1):  # whatever the action, even one legal in the final position
        with pytest.raises(ResetNeeded, match=AFTER_END) as caught:
            env.step(action)
        assert isinstance(caught.value, RuntimeError) and isinstance(caught.value, gym.error.ResetNeeded)
    # reset() starts a new episode that plays as usual.
    assert play_to_the_end(env, env_id, start(env, env_id)) >= 1
    env.close()


@pytest.mark.parametrize("env_id", ALL_IDS)
def test_step_before_reset_raises_the_same_error_in_every_env(env_id):
    # The unwrapped env: gymnasium.make's OrderEnforcing wrapper would answer first, with its own words.
    env = gym.make(env_id).unwrapped
    with pytest.raises(ResetNeeded, match=BEFORE_RESET):
        env.step(0)
    env.close()


@pytest.mark.parametrize("env_id", ["GridWorld-v0", "TabularBlackjack-v0"])
def test_the_tabular_models_keep_their_absorbing_terminal_states(env_id):
    # Dynamic programming still reads a terminal state as a self-loop worth 0: only step() refuses it.
    model = gym.make(env_id).unwrapped.P
    terminal = 0 if env_id == "GridWorld-v0" else max(model)
    assert all(model[terminal][a] == [(1.0, terminal, 0.0, True)] for a in model[terminal])
