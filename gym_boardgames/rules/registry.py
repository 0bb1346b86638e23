"""The one registry of the board games: one row per game, with what every layer needs, found by name or rules.

A :class:`BoardGame` row names a game once (the env id's name, ``"DotsAndBoxes"`` for ``DotsAndBoxes-v0``) and
carries its rules class, its players' names and symbols, and where its env, its pygame view and its text
picture live. The layers look a game up (:func:`row_of`) instead of testing its class: a new game is a new
row here plus its own modules (see docs/tutorials/new_game.md). The env, the view and the text are named as
``"module:attribute"`` and imported on first use, so this module (in :mod:`gym_boardgames.rules`) imports
neither gymnasium nor pygame, and no layer above it.

:func:`make_game` takes the scripts' and play.py's names and size options; :data:`RULES` maps the names of
the env ids to rules factories, as the PettingZoo adapter takes them; :func:`game_to_config` and
:func:`game_from_config` write and read a game as every saved file records it (its class name and
``config``).
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, NamedTuple

from gym_boardgames.rules.connect import ConnectN
from gym_boardgames.rules.dots import DotsAndBoxes
from gym_boardgames.rules.tictactoe import TicTacToe

GAME_NAMES = ("tictactoe", "connectfour", "connectn", "dots")


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
        name: the game's name: its env id without ``-v0``, and the class name its saved files record.
        rules: the rules class; :func:`row_of` finds a rules object's row by it (a subclass finds its own
            row first, then its base's: TicTacToe before ConnectN).
        family: ``"connect"`` (a board of pieces: cells, lines) or ``"dots"`` (edges and boxes): what the
            agents' encoders, solvers and bots are written for.
        style: the players' names and symbols and the window title of a rules object.
        env: ``"module:Class"`` of its Gymnasium env, built as ``Class(*env_args(game), **keywords)``.
        view: ``"module:Class"`` of its pygame view (importing it imports pygame).
        text: ``"module:function"`` drawing its ansi picture ``(game, state, last, status, symbols)``.
        env_args: the env's positional arguments for a rules object (its ``config`` by default).
        last_mark: what a frame highlights for the last move: ``(game, state before it, action) -> cell or edge``.
        marks_drawers: whether a frame colours each edge by who drew it (Dots and Boxes).
    """

    name: str
    rules: type
    family: str
    style: Callable[[Any], BoardStyle]
    env: str
    view: str
    text: str
    env_args: Callable[[Any], tuple[Any, ...]] = lambda game: tuple(game.config)
    last_mark: Callable[[Any, Any, int], int] = lambda game, previous, action: action
    marks_drawers: bool = False

    def load(self, part: str) -> Any:
        """Return the object a ``"module:attribute"`` field names (``"env"``, ``"view"`` or ``"text"``)."""
        module, attribute = getattr(self, part).split(":")
        return getattr(importlib.import_module(module), attribute)

    def make_env(self, game: Any, **keywords: Any) -> Any:
        """Return this game's Gymnasium env over the same rules as ``game``, with the two-player ``keywords``."""
        return self.load("env")(*self.env_args(game), **keywords)


def _connect_style(game: ConnectN) -> BoardStyle:
    if game.gravity:
        return BoardStyle(("Red", "Yellow"), ("R", "Y"), f"Connect {game.n}")
    return BoardStyle(("X", "O"), ("X", "O"), f"{game.rows},{game.cols},{game.n}-game")


_CONNECT = {
    "family": "connect",
    "view": "gym_boardgames.render.connect_view:ConnectView",
    "text": "gym_boardgames.render.text:connect_text",
    "last_mark": lambda game, previous, action: game.action_cell(previous, action),  # where a piece lands
}

#: Every board game, by name.
GAMES: dict[str, BoardGame] = {
    row.name: row
    for row in (
        BoardGame(
            "TicTacToe",
            TicTacToe,
            style=lambda game: BoardStyle(("X", "O"), ("X", "O"), "Tic-tac-toe"),
            env="gym_boardgames.envs.tictactoe:TicTacToeEnv",
            env_args=lambda game: (),
            **_CONNECT,
        ),
        BoardGame(
            "ConnectN", ConnectN, style=_connect_style, env="gym_boardgames.envs.connectn:ConnectNEnv", **_CONNECT
        ),
        BoardGame(
            "DotsAndBoxes",
            DotsAndBoxes,
            family="dots",
            style=lambda game: BoardStyle(("Blue", "Red"), ("B", "R"), "Dots and Boxes"),
            env="gym_boardgames.envs.dots:DotsAndBoxesEnv",
            view="gym_boardgames.render.dots_view:DotsView",
            text="gym_boardgames.render.text:dots_text",
            marks_drawers=True,
        ),
    )
}
_BY_CLASS = {row.rules: row for row in GAMES.values()}


def row_of(game: Any) -> BoardGame | None:
    """Return the registry row of a rules object, or None for a game not registered (a user's own rules)."""
    for cls in type(game).__mro__:
        if cls in _BY_CLASS:
            return _BY_CLASS[cls]
    return None


def family_of(game: Any) -> str | None:
    """Return ``"connect"`` or ``"dots"`` for a registered game (:attr:`BoardGame.family`), else None."""
    row = row_of(game)
    return row.family if row is not None else None


#: Rules factories by the name of their env id (``"ConnectFour"`` for ``ConnectFour-v0``); each takes the
#: game's keyword parameters (none for TicTacToe and ConnectFour).
RULES: dict[str, Callable[..., Any]] = {name: row.rules for name, row in GAMES.items()} | {"ConnectFour": connect_four}


def game_to_config(game: Any) -> dict[str, Any]:
    """Return how a saved file records ``game``: ``{"class": type(game).__name__, "config": list(game.config)}``.

    :func:`game_from_config` rebuilds the game from it; two games are the same game exactly when their
    records are equal. A rules object without ``config`` (a user's own game) records ``"config": None``.
    """
    config = getattr(game, "config", None)
    return {"class": type(game).__name__, "config": list(config) if config is not None else None}


#: The options of each game in the older record ``{"name": ..., option: value, ...}`` (AlphaZero models up to
#: issue 20 wrote it; still read, never written).
_NAMED_OPTIONS = {
    "tictactoe": set(),
    "connectn": {"rows", "cols", "n", "gravity"},
    "dots": {"rows", "cols", "tie_break"},
}


def game_from_config(record: object) -> Any:
    """Return the rules object a saved file records (:func:`game_to_config`'s dict).

    Args:
        record: ``{"class": ..., "config": ...}`` (other keys are ignored: a TD file adds ``repr`` and
            ``n_keys``), where ``class`` is ``"TicTacToe"``, ``"ConnectN"`` or ``"DotsAndBoxes"`` and ``config``
            the game's ``config`` as a list (ignored for TicTacToe): ``[rows, cols, n, gravity]`` or
            ``[rows, cols, tie_break]``. The older form ``{"name": "tictactoe" | "connectn" | "dots", ...}``
            with the game's options by name (the shipped AlphaZero models) is read too. The constructors
            check every size against the documented limits before allocating anything, so a record read
            from a file is safe to pass.

    Returns:
        the rules object, or None for a class name this registry does not know.

    Raises:
        ValueError: on a record that is not an object naming a class (or a known name), or a config of the
            wrong length or with a bad value.
    """
    if isinstance(record, dict) and "class" in record:
        return _game_from_class(record["class"], record.get("config"))
    if isinstance(record, dict) and record.get("name") in _NAMED_OPTIONS:
        name = record["name"]
        options = {k: v for k, v in record.items() if k != "name"}
        if set(options) - _NAMED_OPTIONS[name]:
            raise ValueError(f"{name} does not take {sorted(set(options) - _NAMED_OPTIONS[name])}")
        return make_game(name, **options)
    raise ValueError(
        f"a game must be recorded as an object with 'class' and 'config' (or naming tictactoe, connectn or dots), "
        f"got {record!r}"
    )


def _game_from_class(class_name: object, config: object) -> Any:
    """Return the rules object of class ``class_name`` with ``config``, or None for an unknown class."""
    if class_name == "TicTacToe":
        return TicTacToe()
    lengths = {"ConnectN": 4, "DotsAndBoxes": 3}
    if class_name not in lengths:
        return None
    if not isinstance(config, (list, tuple)) or len(config) != lengths[class_name]:
        fields = "[rows, cols, n, gravity]" if class_name == "ConnectN" else "[rows, cols, tie_break]"
        raise ValueError(f"a {class_name} config must be {fields}, got {config!r}")
    if class_name == "ConnectN":
        rows, cols, n, gravity = config
        if not isinstance(gravity, bool):
            raise ValueError(f"gravity must be true or false, got {gravity!r}")
        return ConnectN(rows, cols, n, gravity)
    return DotsAndBoxes(*config)


def make_game(
    name: str,
    rows: int | None = None,
    cols: int | None = None,
    n: int | None = None,
    gravity: bool | None = None,
    tie_break: str = "draw",
) -> Any:
    """Return the rules object for ``name`` (one of :data:`GAME_NAMES`).

    Args:
        name: ``"tictactoe"``, ``"connectfour"`` (6x7, n=4, gravity), ``"connectn"`` (defaults 6x7, n=4,
            gravity) or ``"dots"`` (boxes; default 3x3).
        rows: board rows (ConnectN, at most ``MAX_BOARD_SIDE`` = 64) or box rows (dots, at most
            ``MAX_DOTS_SIDE`` = 32).
        cols: board columns or box columns (the same limits).
        n: pieces in a row to win (ConnectN only).
        gravity: ConnectN only.
        tie_break: Dots and Boxes only.

    Raises:
        ValueError: on an unknown name, an option the game does not take, or a size outside its limits.
    """
    if name not in GAME_NAMES:
        raise ValueError(f"unknown game {name!r}: choose one of {', '.join(GAME_NAMES)}")
    given = {"rows": rows, "cols": cols, "n": n, "gravity": gravity}
    allowed = {
        "tictactoe": (),
        "connectfour": (),
        "connectn": ("rows", "cols", "n", "gravity"),
        "dots": ("rows", "cols"),
    }
    extra = [key for key, value in given.items() if value is not None and key not in allowed[name]]
    if extra:
        raise ValueError(f"{name} does not take {', '.join(extra)}")
    if name == "tictactoe":
        return TicTacToe()
    if name == "connectfour":
        return connect_four()
    if name == "connectn":
        return ConnectN(
            rows if rows is not None else 6,
            cols if cols is not None else 7,
            n if n is not None else 4,
            gravity if gravity is not None else True,
        )
    return DotsAndBoxes(rows if rows is not None else 3, cols if cols is not None else 3, tie_break=tie_break)
