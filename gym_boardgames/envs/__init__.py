"""Gymnasium environments over the rules in :mod:`gym_boardgames.rules`."""

from __future__ import annotations

import warnings
from typing import Any

from gym_boardgames.envs.base import TwoPlayerEnv
from gym_boardgames.envs.connect import ConnectBoardEnv
from gym_boardgames.envs.connectn import ConnectFourEnv, ConnectNEnv
from gym_boardgames.envs.dots import DotsAndBoxesEnv
from gym_boardgames.envs.tictactoe import TicTacToeEnv

__all__ = ["ConnectBoardEnv", "ConnectFourEnv", "ConnectNEnv", "DotsAndBoxesEnv", "TicTacToeEnv", "TwoPlayerEnv"]


def __getattr__(name: str) -> Any:
    if name == "GridBoardEnv":  # the old name, for one version
        warnings.warn("GridBoardEnv is deprecated: use ConnectBoardEnv", DeprecationWarning, stacklevel=2)
        return ConnectBoardEnv
    raise AttributeError(f"module 'gym_boardgames.envs' has no attribute {name!r}")
