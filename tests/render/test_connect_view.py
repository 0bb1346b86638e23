"""The Connect-N view: rgb_array frames change after a move and highlight the last one."""

import gymnasium as gym
import numpy as np

import gym_boardgames  # noqa: F401  (registers the ids)
from gym_boardgames.render.connect_view import ConnectView


def test_rgb_array_is_uint8_hwc_and_changes_after_a_move():
    env = gym.make("TicTacToe-v0", opponent=None, render_mode="rgb_array")
    env.reset(seed=0)
    first = env.render()
    assert first.dtype == np.uint8 and first.ndim == 3 and first.shape[2] == 3
    assert first.shape[0] > first.shape[1]  # a status bar under a square board
    env.step(4)
    second = env.render()
    assert second.shape == first.shape and not np.array_equal(first, second)
    assert not np.shares_memory(first, second)


def test_rgb_array_highlights_the_last_move():
    env = gym.make("TicTacToe-v0", opponent=None, render_mode="rgb_array")
    env.reset(seed=0)
    env.step(0)
    env.step(8)
    frame = env.render()
    view = ConnectView(env.unwrapped.game)
    corner = lambda cell: tuple(frame[view.cell_rect(cell).top + 3, view.cell_rect(cell).left + 3])  # noqa: E731
    assert corner(8) != corner(0)  # only the last move (cell 8) has the highlight behind it
    assert corner(0) == corner(5)  # the first move's cell looks like an empty one
