"""Plain-text boards for ``render_mode="ansi"``; never imports pygame.

Each function draws a position from the rules object, the state and what it marks (the last move and
the status line); see :mod:`gym_boardgames.render.board`.
"""

from __future__ import annotations

from typing import Any


def connect_text(game: Any, state: Any, last_cell: int | None, status: str, symbols: tuple[str, str]) -> str:
    """Return a Connect-N board as text, the last move's cell in brackets, then the status line.

    Gravity boards get a header with the column numbers, since those are the actions.

    Args:
        game: the :class:`~gym_boardgames.rules.connect.ConnectN` rules.
        state: the position, or None (then only the status line).
        last_cell: the cell (row-major) of the last move, or None.
        status: the status line.
        symbols: the pieces of player 0 and player 1.
    """
    if state is None:
        return status + "\n"
    pieces = (".", *symbols)
    lines = []
    if game.gravity:
        lines.append(" ".join(f"{c:^3}" for c in range(game.cols)).rstrip())
    separator = "+".join(["---"] * game.cols)
    for r in range(game.rows):
        cells = []
        for c in range(game.cols):
            i = r * game.cols + c
            symbol = pieces[state.board[i]]
            cells.append(f"[{symbol}]" if i == last_cell else f" {symbol} ")
        lines.append("|".join(cells))
        if r < game.rows - 1:
            lines.append(separator)
    lines.append(status)
    return "\n".join(lines) + "\n"


def dots_text(game: Any, state: Any, last_edge: int | None, status: str, initials: tuple[str, str]) -> str:
    """Return a Dots and Boxes board as text, then the status line.

    Dots are ``+``; drawn edges are ``---`` and ``|``, the last one ``***`` or ``*``; a scored box shows
    its owner's initial.

    Args:
        game: the :class:`~gym_boardgames.rules.dots.DotsAndBoxes` rules.
        state: the position, or None (then only the status line).
        last_edge: the edge of the last move, or None.
        status: the status line.
        initials: the one-letter marks of player 0's and player 1's boxes.
    """
    if state is None:
        return status + "\n"
    owners = (" ", *initials)

    def horizontal(edge: int) -> str:
        return ("***" if edge == last_edge else "---") if state.edges[edge] else "   "

    def vertical(edge: int) -> str:
        return ("*" if edge == last_edge else "|") if state.edges[edge] else " "

    lines = []
    for r in range(game.rows + 1):
        lines.append("+" + "+".join(horizontal(r * game.cols + c) for c in range(game.cols)) + "+")
        if r < game.rows:
            row = ""
            for c in range(game.cols + 1):
                row += vertical(game.num_horizontal + r * (game.cols + 1) + c)
                if c < game.cols:
                    row += f" {owners[state.owners[r * game.cols + c]]} "
            lines.append(row)
    lines.append(status)
    return "\n".join(lines) + "\n"
