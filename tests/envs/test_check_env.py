"""Gymnasium's own checker passes for every registered id and every render mode, headless."""

import warnings

import gymnasium as gym
import pytest
from gymnasium.utils.env_checker import check_env

import gym_boardgames  # noqa: F401

OUR_IDS = sorted(env_id for env_id, spec in gym.registry.items() if str(spec.entry_point).startswith("gym_boardgames."))


def test_the_package_registers_tictactoe():
    assert "TicTacToe-v0" in OUR_IDS


@pytest.mark.parametrize("env_id", OUR_IDS)
@pytest.mark.parametrize("render_mode", [None, "ansi", "rgb_array", "human"])
def test_check_env_passes_without_warnings(env_id, render_mode):
    env = gym.make(env_id, render_mode=render_mode)
    with warnings.catch_warnings():
        # Any checker warning (reused buffers, non-deterministic info, ...) is a failure here.
        warnings.simplefilter("error")
        check_env(env.unwrapped)
    env.close()


@pytest.mark.parametrize("env_id", OUR_IDS)
def test_check_env_passes_through_gymnasium_make_wrappers(env_id):
    env = gym.make(env_id)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        # Expected here: this test is about running the checker through make()'s wrappers.
        warnings.filterwarnings("ignore", message=".*different from the unwrapped version.*")
        check_env(env)
    env.close()
