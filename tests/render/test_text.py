"""Plain-text rendering (render/text.py): GridWorld's ansi map, status line, and its value and policy tables."""

import gymnasium as gym
import numpy as np

import gym_boardgames  # noqa: F401  (registers the ids)
from gym_boardgames.envs.gridworld import DOWN, RIGHT
from gym_boardgames.render.text import format_policy, format_values

MAZE = ["T..#", ".#..", "S..#", "...T"]


def test_ansi_shows_the_agent_status_and_the_overlay(random_policy_overlay):
    env = gym.make("GridWorld-v0", render_mode="ansi")
    env.reset(seed=0, options={"start_state": 6})
    env.step(DOWN)
    text = env.render()
    assert text.splitlines()[:5] == [
        " T  .  .  .",
        " .  .  .  .",
        " .  . [.] .",
        " .  .  .  T",
        "state 10 after DOWN, return -1",
    ]
    V, policy = random_policy_overlay(env)
    env.unwrapped.set_overlay(values=V, policy=policy)
    lines = env.render().splitlines()
    assert lines[5] == "values:" and lines[6].split() == ["0.0", "-14.0", "-20.0", "-22.0"]
    assert lines[10] == "policy:" and lines[11].split() == ["T", "<", "<", "v<"]
    env.unwrapped.set_overlay()
    assert env.render() == text


def test_format_helpers_lay_out_the_grid():
    env = gym.make("GridWorld-v0", desc=MAZE)
    values = np.arange(16.0)
    assert format_values(env, values).splitlines()[1].split() == ["4.0", "5.0", "6.0", "7.0"]
    policy = np.zeros((16, 4))
    policy[:, RIGHT] = 1.0
    assert format_policy(env, policy).splitlines()[0].split() == ["T", ">", ">", "#"]
