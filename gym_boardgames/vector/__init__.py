"""numpy-batched versions of the board-game envs, made by ``gymnasium.make_vec(id, num_envs=...)``.

``import gym_boardgames`` registers each board id with a ``vector_entry_point`` here, so::

    import gymnasium as gym
    import gym_boardgames  # noqa: F401

    envs = gym.make_vec("TicTacToe-v0", num_envs=4096, opponent=None)

returns a :class:`~gym_boardgames.vector.connect.TicTacToeVectorEnv` that steps all 4096 games with a few
numpy operations. The contract is the single envs' one with a batch axis; see
:class:`~gym_boardgames.vector.base.TwoPlayerVectorEnv`. Nothing is imported until a name is used.
"""

from __future__ import annotations

import importlib
from typing import Any

_LAZY = {
    "TwoPlayerVectorEnv": "gym_boardgames.vector.base",
    "TicTacToeVectorEnv": "gym_boardgames.vector.connect",
    "ConnectNVectorEnv": "gym_boardgames.vector.connect",
    "ConnectFourVectorEnv": "gym_boardgames.vector.connect",
    "DotsAndBoxesVectorEnv": "gym_boardgames.vector.dots",
}

__all__ = list(_LAZY)


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        return getattr(importlib.import_module(_LAZY[name]), name)
    raise AttributeError(f"module 'gym_boardgames.vector' has no attribute {name!r}")
