"""Gymnasium environments over the rules in :mod:`gym_boardgames.rules`."""

from __future__ import annotations

from gym_boardgames.envs.base import TwoPlayerEnv
from gym_boardgames.envs.connect import ConnectBoardEnv
from gym_boardgames.envs.connectn import ConnectFourEnv, ConnectNEnv
from gym_boardgames.envs.dots import DotsAndBoxesEnv
from gym_boardgames.envs.tictactoe import TicTacToeEnv

__all__ = ["ConnectBoardEnv", "ConnectFourEnv", "ConnectNEnv", "DotsAndBoxesEnv", "TicTacToeEnv", "TwoPlayerEnv"]
