"""The shared drawing primitives: the status bar turns into a dark result bar at the end of a game."""

import gymnasium as gym

import gym_boardgames  # noqa: F401  (registers the ids)


def test_rgb_array_marks_the_end_with_a_result_bar():
    env = gym.make("TicTacToe-v0", opponent=None, render_mode="rgb_array")
    env.reset(seed=0)
    playing = env.render()
    for move in [0, 3, 1, 4, 2]:
        env.step(move)
    finished = env.render()
    # The bottom rows hold the status bar, drawn dark once the game is over.
    assert finished[-5:].mean() < playing[-5:].mean() - 50
