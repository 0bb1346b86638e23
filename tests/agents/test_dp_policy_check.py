"""One policy-array check, agents.dp.check_policy, serves dynamic programming and Monte Carlo alike."""

import gymnasium as gym
import numpy as np
import pytest

import gym_boardgames  # noqa: F401  (registers the ids)
from agents import dp, mc


@pytest.mark.parametrize(
    "policy, message",
    [
        (np.full((16, 3), 1 / 3), r"shape \(nS, nA\) = \(16, 4\)"),
        (np.tile([1.5, -0.5, 0.0, 0.0], (16, 1)), r"negative probabilities in states \[0, 1, 2"),
        (np.full((16, 4), 0.3), "rows must sum to 1"),
        ("random", "array of action probabilities"),
    ],
)
def test_dp_and_mc_refuse_a_bad_policy_with_the_same_message(policy, message):
    env = gym.make("GridWorld-v0")
    with pytest.raises(ValueError, match=message):
        dp.policy_evaluation(env, policy)
    with pytest.raises(ValueError, match=message):
        mc.mc_prediction(env, policy, 1, seed=0)
