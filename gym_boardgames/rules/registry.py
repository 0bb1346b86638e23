"""The one registry of the board games: one row per game, with what every layer needs, found by name or rules.

A :class:`BoardGame` row names a game once (the env id's name, ``"DotsAndBoxes"`` for ``DotsAndBoxes-v0``) and
carries its rules class, its players' names and symbols, and where its env, its pygame view and its text
picture live. The layers look a game up (:func:`row_of`) instead of testing its class: a new game is a new
row here plus its own modules (see docs/tutorials/new_game.md). The env, the view and the text are named as
``"module:attribute"`` and imported on first use, so this module (in :mod:`gym_boardgames.rules`) imports
neither gymnasium nor pygame, and no layer above it.

:func:`register_game` adds a row and registers its env id (the package's own rows register theirs when
:mod:`gym_boardgames` is imported); :func:`make_game` takes the scripts' names and size options;
:func:`game_to_config` and :func:`game_from_config` write and read a game as every saved file records it (its
class name and ``config``).
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, NamedTuple

from gym_boardgames.rules.connect import ConnectN
from gym_boardgames.rules.dots import DotsAndBoxes
from gym_boardgames.rules.tictactoe import TicTacToe


def connect_four() -> ConnectN:
    """Return the rules of Connect Four: ``ConnectN(6, 7, 4, gravity=True)``."""
    return ConnectN(6, 7, 4, gravity=True)


class BoardStyle(NamedTuple):
    """How a game names its players: ``names`` and text ``symbols`` (player 0 first), and the window ``title``."""

    names: tuple[str, str]
    symbols: tuple[str, str]
    title: str


@dataclass(frozen=True)
class BoardGame:
    """One board game's row in the registry.

    Attributes:
        name: the game's one name: its env id is ``NAME-v0``, the scripts take it in any case
            (``--game connectfour``), and a saved file records its rules class's name.
        rules: the rules class; :func:`row_of` finds a rules object's row by it (a subclass finds its own
            row first, then its base's: TicTacToe before ConnectN). Two rows may share one (ConnectFour is a
            ConnectN): the first one registered is the class's row.
        make: builds the rules from the scripts' size options (keywords; a missing one takes the default).
        options: the size options ``make`` takes.
        family: ``"connect"`` (a board of pieces: cells, lines) or ``"dots"`` (edges and boxes): what the
            agents' solvers, bots and hints are written for; None for a game of its own kind.
        style: the players' names and symbols and the window title of a rules object.
        env: ``"module:Class"`` of its Gymnasium env, built as ``Class(*env_args(game), **keywords)``; by default
            :func:`gym_boardgames.envs.board_env`, the plain two-player env over the row's rules.
        view: ``"module:Class"`` of its pygame view (importing it imports pygame), or None.
        text: ``"module:function"`` drawing its ansi picture ``(game, state, last, status, symbols)``, or None.
        vector: ``"module:Class"`` of its numpy-batched vector env (``gymnasium.make_vec``), or None (then
            Gymnasium's own vectorisation of the env).
        batch: ``"module:Class"`` of its batched rules, ``Class(game, num_envs)`` (what the vector env steps), or
            None.
        encoder: ``"module:Class"`` of its AlphaZero encoder (:mod:`agents.alphazero.encoding`), or None for
            the encoder of the rules' ``observation`` (no symmetries).
        reward_threshold: the env id's ``spec.reward_threshold`` (docs/envs/index.md: how each was measured).
        env_args: the env's positional arguments for a rules object (its ``config`` by default).
        last_mark: what a frame highlights for the last move: ``(game, state before it, action) -> cell or edge``.
        marks_drawers: whether a frame colours each edge by who drew it (Dots and Boxes).
    """

    name: str
    rules: type
    make: Callable[..., Any]
    options: tuple[str, ...]
    family: str | None
    style: Callable[[Any], BoardStyle]
    env: str = "gym_boardgames.envs:board_env"
    view: str | None = None
    text: str | None = None
    vector: str | None = None
    batch: str | None = None
    encoder: str | None = None
    reward_threshold: float | None = None
    env_args: Callable[[Any], tuple[Any, ...]] = lambda game: tuple(game.config)
    last_mark: Callable[[Any, Any, int], int] = lambda game, previous, action: action
    marks_drawers: bool = False

    def load(self, part: str) -> Any:
        """Return the object a ``"module:attribute"`` field names (``"env"``, ``"view"``, ``"encoder"``...).

        Raises:
            NotImplementedError: if this game has none (the field is None).
        """
        where = getattr(self, part)
        if where is None:
            raise NotImplementedError(f"{self.name} has no {part}")
        module, attribute = where.split(":")
        return getattr(importlib.import_module(module), attribute)

    def make_env(self, game: Any, **keywords: Any) -> Any:
        """Return this game's Gymnasium env over the same rules as ``game``, with the two-player ``keywords``."""
        if self.env == BoardGame.env:  # the plain env takes the rules object itself
            return self.load("env")(game, **keywords)
        return self.load("env")(*self.env_args(game), **keywords)


def _connect_style(game: ConnectN) -> BoardStyle:
    if game.gravity:
        return BoardStyle(("Red", "Yellow"), ("R", "Y"), f"Connect {game.n}")
    return BoardStyle(("X", "O"), ("X", "O"), f"{game.rows},{game.cols},{game.n}-game")


_CONNECT = {
    "family": "connect",
    "style": _connect_style,
    "view": "gym_boardgames.render.connect_view:ConnectView",
    "text": "gym_boardgames.render.text:connect_text",
    "encoder": "agents.alphazero.encoding:ConnectEncoder",
    "batch": "gym_boardgames.rules.batch:ConnectNBatch",
    "last_mark": lambda game, previous, action: game.action_cell(previous, action),  # where a piece lands
}

#: Every board game, by name. The env ids' reward thresholds are a strong reference's mean return with the id's
#: defaults, less 0.1, rounded down: alpha-beta 0.959 on tic-tac-toe (1,000 games), the shipped AlphaZero
#: network 1.0 on Connect Four (200; ConnectN-v0's default board is Connect Four's), the exact table 1.0 on Dots
#: and Boxes 3x3 (1,000); docs/envs/index.md gives the command.
GAMES: dict[str, BoardGame] = {}


def register_game(row: BoardGame) -> None:
    """Add a game to the registry and register its Gymnasium id ``NAME-v0`` (the package's games are here).

    Raises:
        ValueError: if a game of that name is registered already.
    """
    from gymnasium.envs.registration import register, registry

    if row.name in GAMES:
        raise ValueError(f"a game named {row.name!r} is registered already")
    GAMES[row.name] = row
    _BY_CLASS.setdefault(row.rules, row)
    if f"{row.name}-v0" not in registry:  # importlib.reload must not warn about re-registration
        register(
            id=f"{row.name}-v0",
            entry_point=row.env,
            vector_entry_point=row.vector,
            reward_threshold=row.reward_threshold,
            kwargs={"game": row.name} if row.env == BoardGame.env else {},
        )


def unregister_game(name: str) -> None:
    """Remove a game added by :func:`register_game`, and its Gymnasium id (a notebook cell run twice, a test).

    Raises:
        ValueError: for a name not registered, or one of the package's own games.
    """
    from gymnasium.envs.registration import registry

    row = GAMES.get(name)
    if row is None or row.rules in _OWN:
        raise ValueError(f"{name!r} is not a game registered with register_game")
    del GAMES[name]
    if _BY_CLASS.get(row.rules) is row:
        del _BY_CLASS[row.rules]
    registry.pop(f"{name}-v0", None)


_BY_CLASS: dict[type, BoardGame] = {}
_OWN = (TicTacToe, ConnectN, DotsAndBoxes)  # the package's own: unregister_game keeps them
for _row in (
    BoardGame(
        "TicTacToe",
        TicTacToe,
        TicTacToe,
        (),
        **{**_CONNECT, "style": lambda game: BoardStyle(("X", "O"), ("X", "O"), "Tic-tac-toe")},
        env="gym_boardgames.envs.tictactoe:TicTacToeEnv",
        vector="gym_boardgames.vector.connect:TicTacToeVectorEnv",
        reward_threshold=0.85,
        env_args=lambda game: (),
    ),
    BoardGame(
        "ConnectN",
        ConnectN,
        ConnectN,  # its defaults are Connect Four's, as the scripts' --game connectn documents
        ConnectN.config_names,
        **_CONNECT,
        env="gym_boardgames.envs.connectn:ConnectNEnv",
        vector="gym_boardgames.vector.connect:ConnectNVectorEnv",
        reward_threshold=0.9,
    ),
    BoardGame(
        "ConnectFour",
        ConnectN,
        connect_four,
        (),
        **_CONNECT,
        env="gym_boardgames.envs.connectn:ConnectFourEnv",
        vector="gym_boardgames.vector.connect:ConnectFourVectorEnv",
        reward_threshold=0.9,
        env_args=lambda game: (),
    ),
    BoardGame(
        "DotsAndBoxes",
        DotsAndBoxes,
        DotsAndBoxes,
        DotsAndBoxes.config_names,
        family="dots",
        style=lambda game: BoardStyle(("Blue", "Red"), ("B", "R"), "Dots and Boxes"),
        env="gym_boardgames.envs.dots:DotsAndBoxesEnv",
        view="gym_boardgames.render.dots_view:DotsView",
        text="gym_boardgames.render.text:dots_text",
        vector="gym_boardgames.vector.dots:DotsAndBoxesVectorEnv",
        batch="gym_boardgames.rules.batch:DotsAndBoxesBatch",
        encoder="agents.alphazero.encoding:DotsEncoder",
        reward_threshold=0.9,
        marks_drawers=True,
    ),
):
    register_game(_row)

#: The scripts' names of the games: each row's name in lower case (``--game dotsandboxes``).
GAME_NAMES = tuple(name.lower() for name in GAMES)


def row_of(game: Any) -> BoardGame | None:
    """Return the registry row of a rules object, or None for a game not registered (a user's own rules)."""
    return next((_BY_CLASS[cls] for cls in type(game).__mro__ if cls in _BY_CLASS), None)


def family_of(game: Any) -> str | None:
    """Return ``"connect"`` or ``"dots"`` for a registered game (:attr:`BoardGame.family`), else None."""
    row = row_of(game)
    return row.family if row is not None else None


def game_to_config(game: Any) -> dict[str, Any]:
    """Return how a saved file records ``game``: ``{"class": type(game).__name__, "config": list(game.config)}``.

    :func:`game_from_config` rebuilds the game from it; two games are the same game exactly when their
    records are equal. A rules object without ``config`` (a user's own game) records ``"config": None``.
    """
    config = getattr(game, "config", None)
    return {"class": type(game).__name__, "config": list(config) if config is not None else None}


def game_from_config(record: object) -> Any:
    """Return the rules object a saved file records (:func:`game_to_config`'s dict).

    Args:
        record: ``{"class": ..., "config": ...}`` (other keys are ignored: a TD file adds ``repr`` and
            ``n_keys``), where ``class`` is ``"TicTacToe"``, ``"ConnectN"`` or ``"DotsAndBoxes"`` and ``config``
            the game's ``config`` as a list (ignored for TicTacToe): ``[rows, cols, n, gravity]`` or
            ``[rows, cols, tie_break]``. The constructors
            check every size against the documented limits before allocating anything, so a record read
            from a file is safe to pass.

    Returns:
        the rules object, or None for a class name this registry does not know.

    Raises:
        ValueError: on a record that is not an object naming a class, or a config of the wrong length or with
            a bad value.
    """
    if not isinstance(record, dict) or "class" not in record:
        raise ValueError(f"a game must be recorded as an object with 'class' and 'config', got {record!r}")
    class_name, config = record["class"], record.get("config")
    rules = next((row.rules for row in GAMES.values() if row.rules.__name__ == class_name), None)
    if rules is None:
        return None
    if rules is TicTacToe:  # its config is the fixed 3x3 board's
        return TicTacToe()
    names = getattr(rules, "config_names", None)  # the constructor's arguments, in order
    if names is None:  # a game registered by its author: its constructor takes its config and checks it
        return rules(*config) if isinstance(config, (list, tuple)) else rules()
    if not isinstance(config, (list, tuple)) or len(config) != len(names):
        raise ValueError(f"a {class_name} config must be [{', '.join(names)}], got {config!r}")
    values = dict(zip(names, config, strict=True))
    if not isinstance(values.get("gravity", False), bool):  # a JSON 1 would pass the constructor's checks
        raise ValueError(f"gravity must be true or false, got {values['gravity']!r}")
    return rules(*config)


def game_row(name: str) -> BoardGame:
    """Return the row of the game ``name``, in any case (``"dotsandboxes"`` or ``"DotsAndBoxes"``).

    Raises:
        ValueError: on an unknown name, listing :data:`GAME_NAMES`.
    """
    row = {key.lower(): row for key, row in GAMES.items()}.get(str(name).lower())
    if row is None:
        raise ValueError(f"unknown game {name!r}: choose one of {', '.join(GAME_NAMES)}")
    return row


def make_game(name: str, **options: Any) -> Any:
    """Return the rules object of the game ``name`` (a row's name in any case: one of :data:`GAME_NAMES`).

    Args:
        name: ``"tictactoe"``, ``"connectn"`` (defaults 6x7, n=4, gravity), ``"connectfour"`` (6x7, n=4,
            gravity) or ``"dotsandboxes"`` (boxes; default 3x3).
        **options: the game's size options (:attr:`BoardGame.options`); None means the default. ConnectN:
            ``rows``, ``cols`` (at most ``MAX_BOARD_SIDE`` = 64), ``n``, ``gravity``; Dots and Boxes: ``rows``,
            ``cols`` (boxes, at most ``MAX_DOTS_SIDE`` = 32), ``tie_break``.

    Raises:
        ValueError: on an unknown name, an option the game does not take, or a size outside its limits.
    """
    row = game_row(name)
    given = {key: value for key, value in options.items() if value is not None}
    extra = sorted(set(given) - set(row.options))
    if extra:
        raise ValueError(f"{name} does not take {', '.join(extra)}")
    return row.make(**given)
