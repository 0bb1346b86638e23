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

import gym_boardgames.rules.registry  # noqa: F401  (registers the board games' ids; imports no env)

__version__ = "0.2.0"

# The board games register their ids from their registry rows (gym_boardgames.rules.registry: the env, the
# numpy-batched vector env for gymnasium.make_vec, the reward threshold). Tabular tasks: episodes of a random
# policy must end, so they get a step limit. A reward threshold is the mean episode return at which an id counts
# as solved (``env.spec.reward_threshold``, which Tianshou's examples and other threshold-based stops read): the
# optimal policies' mean of the exact models, less 0.1, rounded down: -1.995 on GridWorld (10,000 episodes) and
# -0.0426 on Blackjack (100,000); docs/envs/index.md gives the command.
_TABULAR_ENVS = {
    "GridWorld-v0": ("gym_boardgames.envs.gridworld:GridWorldEnv", 100, -2.1),
    "TabularBlackjack-v0": ("gym_boardgames.envs.blackjack:TabularBlackjackEnv", None, -0.15),
}
for _env_id, (_entry_point, _max_steps, _threshold) in _TABULAR_ENVS.items():
    if _env_id not in registry:  # importlib.reload must not warn about re-registration
        register(id=_env_id, entry_point=_entry_point, max_episode_steps=_max_steps, reward_threshold=_threshold)

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
