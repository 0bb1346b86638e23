"""gym-boardgames: registered Gymnasium environments for board games and textbook RL tasks.

Ids: ``TicTacToe-v0``, ``ConnectN-v0``, ``ConnectFour-v0``, ``DotsAndBoxes-v0``, ``GridWorld-v0``,
``TabularBlackjack-v0``.

Importing the package only registers the environments (string entry points, all in
:mod:`gym_boardgames.registration`), so it is quick and never imports pygame::

    import gymnasium as gym
    import gym_boardgames  # noqa: F401  (registers the ids)

    env = gym.make("TicTacToe-v0", opponent="random")

``gym.make("gym_boardgames:TicTacToe-v0")`` also works without the explicit import.

A person plays any agent through one call, :func:`gym_boardgames.play` (:mod:`gym_boardgames.human`), loaded at
its first use: ``gym_boardgames.play("connectfour", ui="notebook")``.
"""

from __future__ import annotations

import importlib
from typing import Any

import gym_boardgames.registration  # noqa: F401  (registers every id; imports no env)

__version__ = "0.2.0"

# Public names loaded on first use, so the import above stays light.
_LAZY = {
    "TicTacToe": "gym_boardgames.rules.tictactoe",
    "ConnectN": "gym_boardgames.rules.connect",
    "DotsAndBoxes": "gym_boardgames.rules.dots",
    "TwoPlayerEnv": "gym_boardgames.envs.base",
    "TicTacToeEnv": "gym_boardgames.envs.tictactoe",
    "ConnectNEnv": "gym_boardgames.envs.connectn",
    "ConnectFourEnv": "gym_boardgames.envs.connectn",
    "DotsAndBoxesEnv": "gym_boardgames.envs.dots",
    "play": "gym_boardgames.human.doors",
}

__all__ = ["__version__", *_LAZY]


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        return getattr(importlib.import_module(_LAZY[name]), name)
    raise AttributeError(f"module 'gym_boardgames' has no attribute {name!r}")
