"""Gymnasium environments over the rules in :mod:`gym_boardgames.rules`."""

from gym_boardgames.envs.base import TwoPlayerEnv
from gym_boardgames.envs.connectn import ConnectFourEnv, ConnectNEnv
from gym_boardgames.envs.dots import DotsAndBoxesEnv
from gym_boardgames.envs.grid import GridBoardEnv
from gym_boardgames.envs.tictactoe import TicTacToeEnv

__all__ = ["ConnectFourEnv", "ConnectNEnv", "DotsAndBoxesEnv", "GridBoardEnv", "TicTacToeEnv", "TwoPlayerEnv"]
