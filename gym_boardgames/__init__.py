"""gym-boardgames: registered Gymnasium environments for board games and textbook RL tasks.

Ids: ``TicTacToe-v0``, ``ConnectN-v0``, ``ConnectFour-v0``, ``DotsAndBoxes-v0``, ``GridWorld-v0``,
``TabularBlackjack-v0``.

Importing the package only registers the environments (string entry points), so it is quick and never
imports pygame::

    import gymnasium as gym
    import gym_boardgames  # noqa: F401  (registers the ids)

    env = gym.make("TicTacToe-v0", opponent="random")

``gym.make("gym_boardgames:TicTacToe-v0")`` also works without the explicit import.
"""

from __future__ import annotations

import importlib
from typing import Any

from gymnasium.envs.registration import register, registry

__version__ = "0.2.0"

_ENVS = {
    "TicTacToe-v0": "gym_boardgames.envs.tictactoe:TicTacToeEnv",
    "ConnectN-v0": "gym_boardgames.envs.connectn:ConnectNEnv",
    "ConnectFour-v0": "gym_boardgames.envs.connectn:ConnectFourEnv",
    "DotsAndBoxes-v0": "gym_boardgames.envs.dots:DotsAndBoxesEnv",
}

# Tabular tasks: episodes of a random policy must end, so they get a step limit.
_TABULAR_ENVS = {
    "GridWorld-v0": ("gym_boardgames.envs.gridworld:GridWorldEnv", 100),
    "TabularBlackjack-v0": ("gym_boardgames.envs.blackjack:TabularBlackjackEnv", None),
}

# numpy-batched versions of the board games, used by gymnasium.make_vec(id, num_envs=...).
_VECTOR_ENVS = {
    "TicTacToe-v0": "gym_boardgames.vector.connect:TicTacToeVectorEnv",
    "ConnectN-v0": "gym_boardgames.vector.connect:ConnectNVectorEnv",
    "ConnectFour-v0": "gym_boardgames.vector.connect:ConnectFourVectorEnv",
    "DotsAndBoxes-v0": "gym_boardgames.vector.dots:DotsAndBoxesVectorEnv",
}

# The mean episode return at which an id counts as solved (``env.spec.reward_threshold``, which Tianshou's
# examples and other threshold-based stops read): a strong reference's mean, with the id's defaults, less 0.1,
# rounded down. The references (docs/envs/index.md gives the command): alpha-beta 0.959 on tic-tac-toe (1,000
# games), the exact table 1.0 on Dots and Boxes 3x3 (1,000), the shipped AlphaZero network 1.0 on Connect Four
# (200; ConnectN-v0's default board is Connect Four's), and the optimal policies of the exact models, -1.995 on
# GridWorld (10,000 episodes) and -0.0426 on Blackjack (100,000).
_REWARD_THRESHOLDS = {
    "TicTacToe-v0": 0.85,
    "ConnectN-v0": 0.9,
    "ConnectFour-v0": 0.9,
    "DotsAndBoxes-v0": 0.9,
    "GridWorld-v0": -2.1,
    "TabularBlackjack-v0": -0.15,
}

for _env_id, _entry_point in _ENVS.items():
    if _env_id not in registry:  # importlib.reload must not warn about re-registration
        register(
            id=_env_id,
            entry_point=_entry_point,
            vector_entry_point=_VECTOR_ENVS.get(_env_id),
            reward_threshold=_REWARD_THRESHOLDS[_env_id],
        )
for _env_id, (_entry_point, _max_steps) in _TABULAR_ENVS.items():
    if _env_id not in registry:
        register(
            id=_env_id,
            entry_point=_entry_point,
            max_episode_steps=_max_steps,
            reward_threshold=_REWARD_THRESHOLDS[_env_id],
        )

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
}

__all__ = ["__version__", *_LAZY]


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        return getattr(importlib.import_module(_LAZY[name]), name)
    raise AttributeError(f"module 'gym_boardgames' has no attribute {name!r}")
