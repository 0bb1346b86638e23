"""Plain-text boards for ``render_mode="ansi"``; never imports pygame."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
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
        lines.append(" " + " ".join(f"{c:^3}" for c in range(game.cols)).rstrip())
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
