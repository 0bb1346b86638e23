"""gym_boardgames.wrappers: every id observes a flat float32 vector, as CleanRL's dqn.py and ppo.py need.

Those scripts build their first layer as ``nn.Linear(prod(single_observation_space.shape), ...)`` and feed it
the observation batch as it comes, so the observation must be 1-D (a 2-D board or a ``Discrete`` integer makes
them crash; docs/tutorials/cleanrl.md has the errors) and is best ``float32``. The checks below stand in for
that layer with a numpy matrix, so they need neither PyTorch nor CleanRL.
"""

from __future__ import annotations

import subprocess
import sys

import gymnasium as gym
import numpy as np
import pytest

import gym_boardgames  # noqa: F401  (registers the ids)
from gym_boardgames.wrappers import ActionMaskObservation, flat_float32, make_flat

IDS = ["TicTacToe-v0", "ConnectN-v0", "ConnectFour-v0", "DotsAndBoxes-v0", "GridWorld-v0", "TabularBlackjack-v0"]
BOARD_IDS = IDS[:4]


def is_flat_float32_box(space: gym.Space) -> bool:
    return isinstance(space, gym.spaces.Box) and len(space.shape) == 1 and space.dtype == np.float32


def first_legal(info: dict, n: int) -> int:
    return int(np.flatnonzero(info.get("action_mask", np.ones(n)))[0])


def test_every_id_is_registered_here():
    ours = sorted(i for i, spec in gym.registry.items() if str(spec.entry_point).startswith("gym_boardgames."))
    assert ours == sorted(IDS)


@pytest.mark.parametrize("env_id", IDS)
def test_no_raw_id_observes_a_flat_float32_box(env_id: str):
    """Why the wrappers exist: without them no id has the observation CleanRL's scripts are written for."""
    assert not is_flat_float32_box(gym.make(env_id).observation_space)


@pytest.mark.parametrize("action_mask", [False, True], ids=["plain", "mask"])
@pytest.mark.parametrize("env_id", IDS)
def test_make_flat_observes_a_flat_float32_box_through_a_cleanrl_style_vector_env(env_id: str, action_mask: bool):
    # As CleanRL builds it: a SyncVectorEnv of thunks, the layer sized by prod(single_observation_space.shape).
    envs = gym.vector.SyncVectorEnv([lambda: make_flat(env_id, action_mask=action_mask) for _ in range(2)])
    space = envs.single_observation_space
    assert is_flat_float32_box(space), space
    layer = np.zeros((int(np.array(space.shape).prod()), envs.single_action_space.n), dtype=np.float32)
    obs, infos = envs.reset(seed=0)
    assert obs.dtype == np.float32 and obs.shape == (2, *space.shape)
    assert (obs @ layer).shape == (2, envs.single_action_space.n)
    n = int(envs.single_action_space.n)
    masks = infos.get("action_mask", np.ones((2, n)))
    actions = np.array([int(np.flatnonzero(mask)[0]) for mask in masks])
    obs, rewards, terminated, truncated, _ = envs.step(actions)
    assert obs.dtype == np.float32 and all(space.contains(o) for o in obs)
    assert rewards.shape == terminated.shape == truncated.shape == (2,)
    envs.close()


@pytest.mark.parametrize("env_id", IDS)
def test_a_seeded_wrapped_episode_is_the_raw_episode_flattened(env_id: str):
    raw, flat = gym.make(env_id), make_flat(env_id)
    raw_obs, raw_info = raw.reset(seed=3)
    obs, info = flat.reset(seed=3)
    n = int(raw.action_space.n)
    for _ in range(200):
        expected = gym.spaces.flatten(raw.observation_space, raw_obs).astype(np.float32)
        np.testing.assert_array_equal(obs, expected)
        action = first_legal(raw_info, n)
        raw_obs, raw_reward, raw_end, raw_cut, raw_info = raw.step(action)
        obs, reward, end, cut, info = flat.step(action)
        assert (reward, end, cut) == (raw_reward, raw_end, raw_cut)
        if end or cut:
            break
    else:
        pytest.fail("the episode did not end in 200 steps")


def test_a_discrete_state_becomes_one_hot():
    env = make_flat("GridWorld-v0")
    obs, _ = env.reset(seed=0)
    state = env.unwrapped.s
    assert obs.sum() == 1.0 and obs[state] == 1.0


@pytest.mark.parametrize("env_id", BOARD_IDS)
def test_the_mask_ends_the_observation_and_is_info_action_mask(env_id: str):
    env = make_flat(env_id, action_mask=True)
    n = int(env.action_space.n)
    obs, info = env.reset(seed=1)
    for _ in range(200):
        np.testing.assert_array_equal(obs[-n:], info["action_mask"])
        assert obs[-n:].any()  # a live position has a legal move
        obs, _, terminated, truncated, info = env.step(first_legal(info, n))
        if terminated or truncated:
            break
    assert terminated and not obs[-n:].any()  # all zeros once the game is over


@pytest.mark.parametrize("env_id", BOARD_IDS)
def test_an_illegal_move_still_loses_through_the_wrappers(env_id: str):
    """The envs' default illegal_action="lose" is what lets an unmasked script run: the move ends the episode."""
    # Self-play on the lowest legal move: a cell, a column (filled by alternating pieces, so nobody wins) or an
    # edge soon becomes illegal; then play it.
    env = make_flat(env_id, action_mask=True, opponent=None)
    n = int(env.action_space.n)
    obs, info = env.reset(seed=0)
    for _ in range(200):
        illegal = np.flatnonzero(info["action_mask"] == 0)
        if illegal.size:
            break
        obs, _, _, _, info = env.step(first_legal(info, n))
    obs, reward, terminated, _, info = env.step(int(illegal[0]))
    assert (reward, terminated, info["illegal_action"]) == (-1.0, True, True)
    assert not obs[-n:].any()


@pytest.mark.parametrize("env_id", ["GridWorld-v0", "TabularBlackjack-v0"])
def test_envs_without_a_mask_get_all_ones(env_id: str):
    env = make_flat(env_id, action_mask=True)
    n = int(env.action_space.n)
    obs, _ = env.reset(seed=0)
    assert (obs[-n:] == 1.0).all()
    obs, *_ = env.step(0)
    assert (obs[-n:] == 1.0).all()


def test_flat_float32_wraps_an_env_made_with_arguments():
    env = flat_float32(gym.make("ConnectN-v0", rows=4, cols=5, n=3), action_mask=True)
    assert env.observation_space.shape == (4 * 5 + 5,)
    obs, _ = env.reset(seed=0)
    assert obs.shape == (25,) and env.observation_space.contains(obs)


def test_action_mask_observation_refuses_a_board_that_is_not_flat():
    with pytest.raises(ValueError, match="FlattenObservation"):
        ActionMaskObservation(gym.make("TicTacToe-v0"))


def test_make_flat_passes_arguments_to_gymnasium_make():
    env = make_flat("TicTacToe-v0", opponent=None, illegal_action="raise")
    env.reset(seed=0)
    env.step(4)
    with pytest.raises(ValueError, match="illegal"):
        env.step(4)


def test_importing_the_wrappers_loads_neither_pygame_nor_agents():
    code = "import sys, gym_boardgames.wrappers; print('pygame' in sys.modules, 'agents' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.split() == ["False", "False"]
