"""Every Gymnasium id of the package, registered here, and where each board game's env-side layers live.

:data:`LAYERS` holds one :class:`GameLayers` per board game, keyed by its rules row's name
(:data:`gym_boardgames.rules.registry.GAMES`): its env, pygame view, text picture, numpy-batched rules and vector
env, each named as ``"module:attribute"`` and imported on first use (as Gymnasium loads entry points), so
importing this module imports no env and no pygame. :func:`register_game` adds a game of one's own (its rules row
and its layers) and registers its id; :func:`layers_of` finds a rules object's layers, :func:`load_layer` one.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from gymnasium.envs.registration import load_env_creator, register, registry

from gym_boardgames.rules.registry import GAMES, BoardGame, row_of

_BOARD_ENV = "gym_boardgames.envs:board_env"


@dataclass(frozen=True)
class GameLayers:
    """Where one board game's env-side layers live.

    Attributes:
        env: ``"module:Class"`` of its Gymnasium env, built as ``Class(*env_args(game), **keywords)``; by default
            :func:`gym_boardgames.envs.board_env`, the plain two-player env over the game's rules.
        view: ``"module:Class"`` of its pygame view (importing it imports pygame), or None.
        text: ``"module:function"`` drawing its ansi picture ``(game, state, last, status, symbols)``, or None.
        vector: ``"module:Class"`` of its numpy-batched vector env (``gymnasium.make_vec``), or None (then
            Gymnasium's own vectorisation of the env).
        batch: ``"module:Class"`` of its batched rules, ``Class(game, num_envs)`` (what the vector env steps), or
            None.
        reward_threshold: the env id's ``spec.reward_threshold`` (docs/envs/index.md: how each was measured).
        env_args: the env's positional arguments for a rules object (its ``config`` by default).
    """

    env: str = _BOARD_ENV
    view: str | None = None
    text: str | None = None
    vector: str | None = None
    batch: str | None = None
    reward_threshold: float | None = None
    env_args: Callable[[Any], tuple[Any, ...]] = lambda game: tuple(game.config)

    def load(self, part: str) -> Any:
        """Return the object a ``"module:attribute"`` field that is not None names (``"env"``, ``"batch"``...).

        :func:`load_layer` is the checked way in, for a field that may be None.
        """
        return load_env_creator(getattr(self, part))

    def make_env(self, game: Any, **keywords: Any) -> Any:
        """Return this game's Gymnasium env over the same rules as ``game``, with the two-player ``keywords``."""
        args = (game,) if self.env == _BOARD_ENV else self.env_args(game)  # the plain env takes the rules object
        return self.load("env")(*args, **keywords)


def _connect(env: str, vector: str, reward_threshold: float, fixed: bool) -> GameLayers:
    """A Connect-N game's layers: its env and vector env, and the view, text and batched rules they share.

    A ``fixed`` game's env takes no arguments (its board is its id's); the others take the rules' ``config``.
    """
    return GameLayers(
        f"gym_boardgames.envs.{env}",
        view="gym_boardgames.render.connect_view:ConnectView",
        text="gym_boardgames.render.text:connect_text",
        vector=f"gym_boardgames.vector.connect:{vector}",
        batch="gym_boardgames.rules.batch:ConnectNBatch",
        reward_threshold=reward_threshold,
        **({"env_args": lambda game: ()} if fixed else {}),
    )


#: The board games' layers, by rules row name. The reward thresholds are a strong reference's mean return with
#: the id's defaults, less 0.1, rounded down: alpha-beta 0.959 on tic-tac-toe (1,000 games), the shipped
#: AlphaZero network 1.0 on Connect Four (200; ConnectN-v0's default board is Connect Four's), the exact table
#: 1.0 on Dots and Boxes 3x3 (1,000); docs/envs/index.md gives the command.
LAYERS: dict[str, GameLayers] = {
    "TicTacToe": _connect("tictactoe:TicTacToeEnv", "TicTacToeVectorEnv", 0.85, fixed=True),
    "ConnectN": _connect("connectn:ConnectNEnv", "ConnectNVectorEnv", 0.9, fixed=False),
    "ConnectFour": _connect("connectn:ConnectFourEnv", "ConnectFourVectorEnv", 0.9, fixed=True),
    "DotsAndBoxes": GameLayers(
        "gym_boardgames.envs.dots:DotsAndBoxesEnv",
        view="gym_boardgames.render.dots_view:DotsView",
        text="gym_boardgames.render.text:dots_text",
        vector="gym_boardgames.vector.dots:DotsAndBoxesVectorEnv",
        batch="gym_boardgames.rules.batch:DotsAndBoxesBatch",
        reward_threshold=0.9,
    ),
}
_OWN = frozenset(LAYERS)  # unregister_game keeps them

# The tabular tasks: episodes of a random policy must end, so they get a step limit. Their reward thresholds are
# the optimal policies' mean of the exact models, less 0.1, rounded down: -1.995 on GridWorld (10,000 episodes)
# and -0.0426 on Blackjack (100,000); docs/envs/index.md gives the command.
_TABULAR = {
    "GridWorld-v0": ("gym_boardgames.envs.gridworld:GridWorldEnv", 100, -2.1),
    "TabularBlackjack-v0": ("gym_boardgames.envs.blackjack:TabularBlackjackEnv", None, -0.15),
}


def layers_of(game: Any) -> GameLayers | None:
    """Return the layers of a rules object's game (:func:`~gym_boardgames.rules.registry.row_of`), or None."""
    row = row_of(game)
    return None if row is None else LAYERS.get(row.name)


def load_layer(game: Any, part: str) -> Any:
    """Return the ``part`` (``"view"``, ``"text"``, ``"batch"``...) of a rules object's game's layers.

    Raises:
        NotImplementedError: for a game the registry does not have, or one whose layers have no ``part``.
    """
    layers = layers_of(game)
    if layers is None or getattr(layers, part) is None:
        raise NotImplementedError(f"no {part} layer for {game!r}: an env of another game draws it itself")
    return layers.load(part)


def _register_id(name: str, layers: GameLayers) -> None:
    if f"{name}-v0" not in registry:  # importlib.reload must not warn about re-registration
        register(
            id=f"{name}-v0",
            entry_point=layers.env,
            vector_entry_point=layers.vector,
            reward_threshold=layers.reward_threshold,
            kwargs={"game": name} if layers.env == _BOARD_ENV else {},
        )


def register_game(game: BoardGame, layers: GameLayers | None = None) -> None:
    """Add a board game of one's own: its rules row, its layers, and its Gymnasium id ``NAME-v0``.

    Args:
        game: its rules row (a :class:`~gym_boardgames.rules.registry.BoardGame`).
        layers: where its view and text picture (and env, vector env...) live; by default none but the plain
            two-player env.

    Raises:
        ValueError: if a game of that name is registered already.
    """
    if game.name in GAMES:
        raise ValueError(f"a game named {game.name!r} is registered already")
    GAMES[game.name] = game
    LAYERS[game.name] = layers or GameLayers()
    _register_id(game.name, LAYERS[game.name])


def unregister_game(name: str) -> None:
    """Remove a game added by :func:`register_game`, and its Gymnasium id (a notebook cell run twice, a test).

    Raises:
        ValueError: for a name not registered, or one of the package's own games.
    """
    if name not in GAMES or name in _OWN:
        raise ValueError(f"{name!r} is not a game registered with register_game")
    del GAMES[name]
    LAYERS.pop(name, None)
    registry.pop(f"{name}-v0", None)


for _name, _layers in LAYERS.items():
    _register_id(_name, _layers)
for _env_id, (_entry_point, _max_steps, _threshold) in _TABULAR.items():
    if _env_id not in registry:
        register(id=_env_id, entry_point=_entry_point, max_episode_steps=_max_steps, reward_threshold=_threshold)
