"""Deprecated: the Connect-N env base is :mod:`gym_boardgames.envs.connect` (``ConnectBoardEnv``).

This module stays for one version so that old imports keep working; importing it warns.
``GridBoardEnv`` is ``ConnectBoardEnv``.
"""

from __future__ import annotations

import warnings

from gym_boardgames.envs.connect import ConnectBoardEnv

warnings.warn(
    "gym_boardgames.envs.grid is deprecated: use gym_boardgames.envs.connect.ConnectBoardEnv",
    DeprecationWarning,
    stacklevel=2,
)

GridBoardEnv = ConnectBoardEnv

__all__ = ["GridBoardEnv"]
