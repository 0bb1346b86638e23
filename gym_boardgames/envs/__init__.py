"""Gymnasium environments over the rules in :mod:`gym_boardgames.rules`.

The package imports every board env, so :func:`env_for_game`, which picks one by its rules object, lives here:
above the env modules, which import :mod:`gym_boardgames.envs.contract` and never this package.
"""

from __future__ import annotations

from typing import Any

from gym_boardgames.envs.base import TwoPlayerEnv
from gym_boardgames.envs.connect import ConnectBoardEnv
from gym_boardgames.envs.connectn import ConnectFourEnv, ConnectNEnv
from gym_boardgames.envs.dots import DotsAndBoxesEnv
from gym_boardgames.envs.tictactoe import TicTacToeEnv
from gym_boardgames.registration import layers_of
from gym_boardgames.rules.registry import GAMES

__all__ = [
    "ConnectBoardEnv",
    "ConnectFourEnv",
    "ConnectNEnv",
    "DotsAndBoxesEnv",
    "TicTacToeEnv",
    "TwoPlayerEnv",
    "board_env",
    "env_for_game",
]


def board_env(game: Any, **keywords: Any) -> TwoPlayerEnv:
    """Return the plain :class:`TwoPlayerEnv` of a registered game: the env of a game that names no env of its own.

    Args:
        game: the rules object, or a row's name: ``gymnasium.make("NAME-v0", **keywords)`` comes here with the
            name, and the rules are built from the row's size options among ``keywords``.
        **keywords: the sizes (with a name), and the two-player keywords (``opponent``, ``agent_player``,
            ``illegal_action``, ``render_mode``).
    """
    if isinstance(game, str):
        row = GAMES[game]
        game = row.make(**{key: keywords.pop(key) for key in row.options if key in keywords})
    return TwoPlayerEnv(game, **keywords)


def env_for_game(game: Any, **kwargs: Any) -> TwoPlayerEnv:
    """Return the board env of a rules object (its game's layers' env) with the same parameters.

    Args:
        game: the rules object.
        **kwargs: the two-player keywords (``opponent``, ``agent_player``, ``illegal_action``,
            ``render_mode``); for Dots and Boxes also ``reward``.

    Raises:
        ValueError: if ``game`` is none of the registered board games.
    """
    layers = layers_of(game)
    if layers is None:
        raise ValueError(f"no board env plays {game!r}")
    return layers.make_env(game, **kwargs)
