"""Helpers of the vector env tests: making a batch, and random play against the random opponent."""

import gymnasium as gym
import numpy as np

from gym_boardgames.rules.batch import random_legal_actions


def make_vec(spec, num_envs, **kwargs):
    env_id, game_kwargs = spec
    return gym.make_vec(env_id, num_envs=num_envs, **game_kwargs, **kwargs)


def pick(info, rng, illegal_rate=0.0):
    """Random legal actions; with ``illegal_rate``, some sub-envs get an illegal one where there is one."""
    mask = info["action_mask"]
    actions = random_legal_actions(mask, rng)
    for i in np.flatnonzero(rng.random(len(mask)) < illegal_rate):
        illegal = np.flatnonzero(mask[i] == 0)
        if len(illegal) and mask[i].any():
            actions[i] = rng.choice(illegal)
    return actions


def play_vs_random(spec, steps, num_envs=32, seed=0, **kwargs):
    """Yield (envs, previous info, actions, step outputs) for a batch against the random opponent."""
    envs = make_vec(spec, num_envs, **kwargs)
    rng = np.random.default_rng(seed)
    obs, info = envs.reset(seed=seed)
    for _ in range(steps):
        actions = random_legal_actions(info["action_mask"], rng)
        out = envs.step(actions)
        yield envs, info, actions, out
        info = out[4]
