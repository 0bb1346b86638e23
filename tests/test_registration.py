"""Every registered id carries a reward_threshold that its reference reaches and a random policy does not."""

import importlib.util
import sys
from pathlib import Path

import gymnasium as gym
import numpy as np
import pytest

import gym_boardgames  # noqa: F401  (registers the ids)

IDS = ("TicTacToe-v0", "ConnectN-v0", "ConnectFour-v0", "DotsAndBoxes-v0", "GridWorld-v0", "TabularBlackjack-v0")


def load_script():
    path = Path(__file__).resolve().parents[1] / "scripts" / "reward_thresholds.py"
    spec = importlib.util.spec_from_file_location("reward_thresholds", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def random_mean(env_id, episodes):
    env = gym.make(env_id)
    rng, total = np.random.default_rng(0), 0.0
    for episode in range(episodes):
        _, info = env.reset(seed=episode)
        done = False
        while not done:
            mask = info.get("action_mask")
            legal = np.flatnonzero(mask) if mask is not None else np.arange(env.action_space.n)
            _, reward, terminated, truncated, info = env.step(int(rng.choice(legal)))
            total += float(reward)
            done = terminated or truncated
    return total / episodes


@pytest.mark.parametrize("env_id", IDS)
def test_every_id_has_a_threshold_a_random_policy_stays_below(env_id):
    threshold = gym.spec(env_id).reward_threshold
    assert threshold is not None
    assert random_mean(env_id, 100) < threshold


@pytest.mark.parametrize("env_id", ["TicTacToe-v0", "GridWorld-v0", "TabularBlackjack-v0"])
def test_the_reference_reaches_the_threshold_the_script_derives(env_id):
    sys.modules.pop("reward_thresholds", None)
    script = load_script()
    reference, _ = script.REFERENCES[env_id]
    episodes = 5000 if env_id == "TabularBlackjack-v0" else 300
    mean = script.mean_return(env_id, reference, episodes)
    assert mean >= gym.spec(env_id).reward_threshold
