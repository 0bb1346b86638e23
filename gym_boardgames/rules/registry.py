"""Build a rules object from a game name and size options (as scripts and play.py take them)."""

from __future__ import annotations

from typing import Any

from gym_boardgames.rules.connect import ConnectN
from gym_boardgames.rules.dots import DotsAndBoxes
from gym_boardgames.rules.tictactoe import TicTacToe

GAME_NAMES = ("tictactoe", "connectfour", "connectn", "dots")


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
        return ConnectN(6, 7, 4, gravity=True)
    if name == "connectn":
        return ConnectN(
            rows if rows is not None else 6,
            cols if cols is not None else 7,
            n if n is not None else 4,
            gravity if gravity is not None else True,
        )
    return DotsAndBoxes(rows if rows is not None else 3, cols if cols is not None else 3, tie_break=tie_break)
