"""Exploring starts use one reset option, ``"start_state"``, and one attribute, ``nonterminal_states``, everywhere."""

import warnings

import gymnasium as gym
import pytest

import gym_boardgames  # noqa: F401  (registers the ids)
from agents.mc import mc_control_es
from gym_boardgames.envs.blackjack import encode


class RecordStarts(gym.Wrapper):
    """Records the reset options each episode was started with."""

    def __init__(self, env):
        super().__init__(env)
        self.options = []

    def reset(self, *, seed=None, options=None):
        self.options.append(options)
        return self.env.reset(seed=seed, options=options)


def test_mc_control_es_on_gridworld_starts_in_the_given_start_states():
    env = RecordStarts(gym.make("GridWorld-v0"))
    q, _ = mc_control_es(env, 60, seed=0, start_states=[1, 2, 3])
    assert {options["start_state"] for options in env.options} == {1, 2, 3}
    assert q.shape == (16, 4)


def test_mc_control_es_on_gridworld_explores_every_free_cell_by_default():
    # The S cell narrows GridWorld's own start distribution to state 4; exploring starts must still cover
    # every free non-terminal cell.
    env = RecordStarts(gym.make("GridWorld-v0", desc=["T..", "S#.", "..T"]))
    assert env.unwrapped.nonterminal_states == (1, 2, 3, 5, 6, 7)
    mc_control_es(env, 200, seed=0)
    assert {options["start_state"] for options in env.options} == {1, 2, 3, 5, 6, 7}


def test_blackjack_takes_start_state_as_its_only_reset_option():
    env = gym.make("TabularBlackjack-v0")
    start = encode(20, 5, 0)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert env.reset(seed=0, options={"start_state": start})[0] == start
    with pytest.raises(ValueError, match="start_state"):
        env.reset(seed=0, options={"state": start})


def test_a_bad_start_state_is_still_refused():
    with pytest.raises(ValueError, match="start_state"):
        mc_control_es(gym.make("GridWorld-v0"), 5, seed=0, start_states=[0])
