"""What every picture of a board game is drawn from: the rules, a state, and what the frame marks.

A view never reads an env. The caller (a Gymnasium env, the PettingZoo adapter, the play window) owns the
game's history and computes the :class:`BoardMarks` of a frame: the cell or edge of the last move, the
status line, whether the game is over, and for Dots and Boxes who drew each edge. :func:`board_text` draws
``(game, state, marks)`` as text, and the pygame views (:mod:`.connect_view`, :mod:`.dots_view`, picked by
:func:`gym_boardgames.render.modes.board_view`) draw it with pygame. :func:`board_style` gives each game its
player names, text symbols and window title, so that every caller names the players alike.

This module imports neither pygame nor the views: they import it (for :class:`BoardMarks`), never the other way.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, NamedTuple

from gym_boardgames.registration import load_layer
from gym_boardgames.rules.dots import DRAW
from gym_boardgames.rules.registry import BoardStyle, row_of

__all__ = ["BoardMarks", "BoardStyle", "board_marks", "board_style", "board_text", "last_mark", "status_line"]


class BoardMarks(NamedTuple):
    """What a frame marks beside the position itself.

    Attributes:
        last: the board cell (Connect-N, the landing cell with gravity) or the edge (Dots and Boxes) of
            the last move, or None before any move.
        status: the status-bar (or last text) line.
        over: whether the game has ended (the status bar turns dark).
        drawers: Dots and Boxes only: ``{edge: player who drew it}``; edges missing from it are grey.
    """

    last: int | None = None
    status: str = ""
    over: bool = False
    drawers: Mapping[int, int] | None = None


def board_style(game: Any) -> BoardStyle | None:
    """Return the player names, text symbols and window title of a board game's rules object.

    Returns:
        the style of its registry row; None for a game the registry does not have (a user's own rules, see
        the new-game tutorial).
    """
    row = row_of(game)
    return row.style(game) if row is not None else None


def status_line(
    game: Any, state: Any, names: tuple[str, str], winner: int | None = None, offender: int | None = None
) -> str:
    """Return the one-line status of a game: whose move it is, or the result; a game that scores adds the score.

    Args:
        game: the rules object.
        state: the position, or None before the first reset.
        names: the players' display names, player 0 first.
        winner: None while the game goes on; at the end 0, 1, or -1 (``DRAW``).
        offender: the player whose illegal move ended the game, if one did.
    """
    if state is None:
        return "call reset() to start"
    if offender is not None:
        text = f"{names[offender]} made an illegal move: {names[1 - offender]} wins"
    elif winner is not None:
        text = "Draw" if winner == DRAW else f"{names[winner]} wins"
    else:
        text = f"{names[game.current_player(state)]} to move"
    if hasattr(game, "scores"):  # Dots and Boxes' boxes
        scores = game.scores(state)
        first = winner if winner in (0, 1) and offender is None else 0  # "Red wins (5-4)": the winner's score first
        text += f" ({scores[first]}-{scores[1 - first]})"
    return text


def last_mark(game: Any, moves: Sequence[tuple[int, int]], previous: Any) -> int | None:
    """Return the cell (Connect-N) or edge (Dots and Boxes) a frame highlights for the last of ``moves``.

    Args:
        game: the rules object.
        moves: ``(player, action)`` of every move so far.
        previous: the state the last move was played in (where a gravity piece landed is a rules
            question: ``game.action_cell(previous, action)``).
    """
    if not moves:
        return None
    row = row_of(game)
    return row.last_mark(game, previous, moves[-1][1]) if row is not None else moves[-1][1]


def board_marks(game: Any, moves: Sequence[tuple[int, int]], previous: Any, status: str, over: bool) -> BoardMarks:
    """Return the marks of a frame from a game's history: the last move's cell or edge, and who drew each edge.

    Args:
        game: the rules object.
        moves: ``(player, action)`` of every move so far.
        previous: the state the last move was played in.
        status: the status line.
        over: whether the game has ended.
    """
    row = row_of(game)
    drawers = {action: player for player, action in moves} if row is not None and row.marks_drawers else None
    return BoardMarks(last_mark(game, moves, previous), status, over, drawers)


def board_text(game: Any, state: Any, marks: BoardMarks, style: BoardStyle) -> str:
    """Return the ansi picture of ``state``: the board with the last move marked, then the status line.

    Raises:
        NotImplementedError: for a game the registry does not have.
    """
    return load_layer(game, "text")(game, state, marks.last, marks.status, style.symbols)
