"""The board games by name: one row per game, with the rules-level facts every layer reads.

A :class:`BoardGame` row names a game once (the env id's name, ``"DotsAndBoxes"`` for ``DotsAndBoxes-v0``) and
carries its rules class, its size options, its family and its players' names and symbols. The layers look a
game up (:func:`row_of`) instead of testing its class. Each layer above keeps its own table keyed by the row's
name: :mod:`gym_boardgames.registration` (the Gymnasium ids, and where the env, the views and the batched rules
live), :data:`agents.alphazero.encoding.ENCODERS` (AlphaZero's encoders). So this module imports only the rules.

:func:`make_game` takes the scripts' names and size options; :func:`game_to_config` and
:func:`game_from_config` write and read a game as every saved file records it (its class name and ``config``).
"""

from __future__ import annotations

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
        last_mark: the cell or edge a move marks: ``(game, state before it, action) -> cell or edge``.
        marks_drawers: whether each edge belongs to the player who drew it (Dots and Boxes), so a frame colours it.
    """

    name: str
    rules: type
    make: Callable[..., Any]
    options: tuple[str, ...]
    family: str | None
    style: Callable[[Any], BoardStyle]
    last_mark: Callable[[Any, Any, int], int] = lambda game, previous, action: action
    marks_drawers: bool = False


_NUMBER_WORDS = ("One", "Two", "Three", "Four", "Five", "Six", "Seven", "Eight", "Nine", "Ten")


def _connect_style(game: ConnectN) -> BoardStyle:
    if game.gravity:
        # "Connect Four", as the docs spell it; the board is named where it is not the standard 6x7.
        n = _NUMBER_WORDS[game.n - 1] if game.n <= len(_NUMBER_WORDS) else str(game.n)
        board = "" if (game.rows, game.cols) == (6, 7) else f" {game.rows}x{game.cols}"
        return BoardStyle(("Red", "Yellow"), ("R", "Y"), f"Connect {n}{board}")
    return BoardStyle(("X", "O"), ("X", "O"), f"{game.rows},{game.cols},{game.n}-game")


_CONNECT: dict[str, Any] = {
    "family": "connect",
    "style": _connect_style,
    "last_mark": lambda game, previous, action: game.action_cell(previous, action),  # where a piece lands
}

#: Every board game, by name: the package's own, then those added by
#: :func:`gym_boardgames.registration.register_game`.
GAMES: dict[str, BoardGame] = {
    row.name: row
    for row in (
        BoardGame(
            "TicTacToe",
            TicTacToe,
            TicTacToe,
            (),
            **{**_CONNECT, "style": lambda game: BoardStyle(("X", "O"), ("X", "O"), "Tic-tac-toe")},
        ),
        # ConnectN's defaults are Connect Four's, as the scripts' --game connectn documents.
        BoardGame("ConnectN", ConnectN, ConnectN, ConnectN.config_names, **_CONNECT),
        BoardGame("ConnectFour", ConnectN, connect_four, (), **_CONNECT),
        BoardGame(
            "DotsAndBoxes",
            DotsAndBoxes,
            DotsAndBoxes,
            DotsAndBoxes.config_names,
            family="dots",
            style=lambda game: BoardStyle(("Blue", "Red"), ("B", "R"), "Dots and Boxes"),
            marks_drawers=True,
        ),
    )
}

#: The scripts' names of the package's games: each row's name in lower case (``--game dotsandboxes``).
GAME_NAMES = tuple(name.lower() for name in GAMES)


def row_of(game: Any) -> BoardGame | None:
    """Return the registry row of a rules object, or None for a game not registered (a user's own rules)."""
    return next((row for cls in type(game).__mro__ for row in GAMES.values() if row.rules is cls), None)


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
    return rules(*config)  # the constructor checks each value (a JSON 1 is no gravity: only a bool is)


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
