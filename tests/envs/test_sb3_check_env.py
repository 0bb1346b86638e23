"""Stable-Baselines3's own env checker accepts the board-game envs (skipped without the 'sb3' extra)."""

import warnings

import gymnasium as gym
import pytest

import gym_boardgames  # noqa: F401  (registers the ids)

env_checker = pytest.importorskip(
    "stable_baselines3.common.env_checker",
    reason="stable-baselines3 is not installed (the 'sb3' extra: pip install -e '.[sb3]')",
)

CASES = [
    ("TicTacToe-v0", {}),
    ("ConnectFour-v0", {}),
    ("ConnectN-v0", {"gravity": False}),
    ("DotsAndBoxes-v0", {}),
]


@pytest.mark.parametrize(("env_id", "kwargs"), CASES, ids=[f"{i}{'-nogravity' if k else ''}" for i, k in CASES])
def test_sb3_check_env_passes(env_id, kwargs):
    env = gym.make(env_id, **kwargs)
    try:
        with warnings.catch_warnings():
            # The boards are 2-D (rows, cols) by design; SB3 only recommends flattening, and its MLP does so.
            warnings.filterwarnings("ignore", message=".*unconventional shape.*")
            env_checker.check_env(env, warn=True, skip_render_check=True)
            env_checker.check_env(env.unwrapped, warn=True, skip_render_check=True)
    finally:
        env.close()


@pytest.mark.parametrize(("env_id", "kwargs"), CASES, ids=[f"{i}{'-nogravity' if k else ''}" for i, k in CASES])
def test_action_masks_reach_through_the_wrappers(env_id, kwargs):
    # MaskablePPO asks for the mask through get_wrapper_attr, so gymnasium.make's wrappers must not hide it.
    env = gym.make(env_id, **kwargs)
    _, info = env.reset(seed=0)
    mask = env.get_wrapper_attr("action_masks")()
    assert mask.shape == (env.action_space.n,)
    assert (mask == info["action_mask"]).all()
    env.close()
