"""The one registry of the board games' rules: by the scripts' names, by the env ids' names, by class.

:func:`make_game` takes the scripts' and play.py's names and size options; :data:`RULES` maps the names of
the env ids (``"TicTacToe"`` for ``TicTacToe-v0``...) to rules factories, as the PettingZoo adapter takes
them; :func:`game_from_config` rebuilds a rules object from its class name and ``config``, as saved agent
files store it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from gym_boardgames.rules.connect import ConnectN
from gym_boardgames.rules.dots import DotsAndBoxes
from gym_boardgames.rules.tictactoe import TicTacToe

GAME_NAMES = ("tictactoe", "connectfour", "connectn", "dots")


def connect_four() -> ConnectN:
    """Return the rules of Connect Four: ``ConnectN(6, 7, 4, gravity=True)``."""
    return ConnectN(6, 7, 4, gravity=True)


#: Rules factories by the name of their env id (``"ConnectFour"`` for ``ConnectFour-v0``); each takes the
#: game's keyword parameters (none for TicTacToe and ConnectFour).
RULES: dict[str, Callable[..., Any]] = {
    "TicTacToe": TicTacToe,
    "ConnectN": ConnectN,
    "ConnectFour": connect_four,
    "DotsAndBoxes": DotsAndBoxes,
}


def game_from_config(class_name: object, config: object) -> Any:
    """Return the rules object of class ``class_name`` with ``config`` (``type(game).__name__`` and ``game.config``).

    Args:
        class_name: ``"TicTacToe"``, ``"ConnectN"`` or ``"DotsAndBoxes"``.
        config: the game's ``config`` as a list or tuple (ignored for TicTacToe): ``[rows, cols, n, gravity]``
            or ``[rows, cols, tie_break]``. The constructors check every size against the documented limits
            before allocating anything, so a config read from a file is safe to pass.

    Returns:
        the rules object, or None for a class name this registry does not know.

    Raises:
        ValueError: on a config of the wrong length or with a bad value.
    """
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
