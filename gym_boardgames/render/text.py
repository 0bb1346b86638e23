"""Plain-text boards for ``render_mode="ansi"``; never imports pygame."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from gym_boardgames.envs.dots import DotsAndBoxesEnv
    from gym_boardgames.envs.grid import GridBoardEnv


def grid_to_text(env: GridBoardEnv) -> str:
    """Return the board of a grid env as text, the last move in brackets, then the status line.

    Gravity boards get a header with the column numbers, since those are the actions.
    """
    game = env.game
    if env.state is None:
        return env.status_text() + "\n"
    symbols = (".",) + tuple(env.symbols)
    last = env.last_cell
    lines = []
    if game.gravity:
        lines.append(" ".join(f"{c:^3}" for c in range(game.cols)).rstrip())
    separator = "+".join(["---"] * game.cols)
    for r in range(game.rows):
        cells = []
        for c in range(game.cols):
            i = r * game.cols + c
            symbol = symbols[env.state.board[i]]
            cells.append(f"[{symbol}]" if i == last else f" {symbol} ")
        lines.append("|".join(cells))
        if r < game.rows - 1:
            lines.append(separator)
    lines.append(env.status_text())
    return "\n".join(lines) + "\n"


def dots_to_text(env: DotsAndBoxesEnv) -> str:
    """Return a Dots and Boxes board as text, then the status line.

    Dots are ``+``; drawn edges are ``---`` and ``|``, the last one ``***`` or ``*``; a scored box shows
    the initial of its owner's name.
    """
    game, state = env.game, env.state
    if state is None:
        return env.status_text() + "\n"
    last = env.last_action
    initials = (" ",) + tuple(name[0] for name in env.player_names)

    def horizontal(edge: int) -> str:
        return ("***" if edge == last else "---") if state.edges[edge] else "   "

    def vertical(edge: int) -> str:
        return ("*" if edge == last else "|") if state.edges[edge] else " "

    lines = []
    for r in range(game.rows + 1):
        lines.append("+" + "+".join(horizontal(r * game.cols + c) for c in range(game.cols)) + "+")
        if r < game.rows:
            row = ""
            for c in range(game.cols + 1):
                row += vertical(game.num_horizontal + r * (game.cols + 1) + c)
                if c < game.cols:
                    row += f" {initials[state.owners[r * game.cols + c]]} "
            lines.append(row)
    lines.append(env.status_text())
    return "\n".join(lines) + "\n"
