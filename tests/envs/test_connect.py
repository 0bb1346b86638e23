"""The env side of every Connect-N board (envs/connect.py): its spaces, and the cell of the last move.

The rules of each id, step by step, are cross-checked against an independent reference in test_connectn.py.
"""

import gymnasium as gym
import numpy as np

import gym_boardgames  # noqa: F401  (registers the ids)


def test_each_id_has_its_board_its_actions_and_a_rows_by_cols_int8_observation() -> None:
    # Connect Four is the six-by-seven gravity board with four in a row, tic-tac-toe the 3x3 board without.
    env = gym.make("ConnectFour-v0")
    assert env.unwrapped.game.config == (6, 7, 4, True)
    assert env.action_space == gym.spaces.Discrete(7)
    assert env.observation_space.shape == (6, 7) and env.observation_space.dtype == np.int8
    free = gym.make("ConnectN-v0", rows=5, cols=5, n=4, gravity=False)
    assert free.action_space == gym.spaces.Discrete(25) and free.observation_space.shape == (5, 5)
    tictactoe = gym.make("TicTacToe-v0")
    assert tictactoe.unwrapped.game.config == (3, 3, 3, False)
    assert tictactoe.action_space == gym.spaces.Discrete(9) and tictactoe.observation_space.shape == (3, 3)


def test_the_last_cell_is_where_the_last_piece_landed_by_either_side() -> None:
    env = gym.make("ConnectN-v0", rows=3, cols=4, n=3, gravity=True, opponent=None)
    env.reset(seed=0)
    assert env.unwrapped.last_cell is None  # no move yet
    env.step(2)
    assert env.unwrapped.last_cell == 2 * 4 + 2  # column 2 lands on the bottom row
    env.step(2)
    assert env.unwrapped.last_cell == 1 * 4 + 2  # the second piece stacks on it
    free = gym.make("TicTacToe-v0", opponent=None)
    free.reset(seed=0)
    free.step(7)
    assert free.unwrapped.last_cell == 7  # without gravity the action is the cell
