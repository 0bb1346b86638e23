"""Plain-text boards for ``render_mode="ansi"``; never imports pygame.

Each board function draws a position from the rules object, the state and what it marks (the last move and
the status line); see :mod:`gym_boardgames.render.board`. GridWorld's text is the map with the agent's cell,
and its value and policy tables laid out as the grid, as Figure 4.1 of Sutton & Barto prints them
(:func:`format_values`, :func:`format_policy`).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from gym_boardgames.rules.gridworld import TERMINAL, WALL
from gym_boardgames.tabular import best_actions, check_policy

# One-character arrows for GridWorld's policy table, UP, DOWN, LEFT, RIGHT (plain ASCII, so any terminal shows them).
_ARROW_TEXT = ("^", "v", "<", ">")


def _cell(symbol: str, marked: bool) -> str:
    """A three-character cell: the symbol in brackets when marked (the last move, the agent), else in spaces."""
    return f"[{symbol}]" if marked else f" {symbol} "


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
    rows = (
        "|".join(_cell(pieces[state.board[i]], i == last_cell) for i in range(r * game.cols, (r + 1) * game.cols))
        for r in range(game.rows)
    )
    lines.append(("\n" + "+".join(["---"] * game.cols) + "\n").join(rows))
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


def gridworld_text(env: Any, status: str, values: np.ndarray | None = None, policy: np.ndarray | None = None) -> str:
    """Return a GridWorld map as text, the agent's cell in brackets, then the status line and the tables.

    Args:
        env: a GridWorld env (wrapped or not), for its map ``desc`` and the agent's state ``s`` (None before
            ``reset``).
        status: the status line.
        values: ``(nS,)`` state values printed under ``values:`` (:func:`format_values`), or None.
        policy: ``(nS, nA)`` action probabilities printed under ``policy:`` (:func:`format_policy`), or None.
    """
    base = env.unwrapped
    cols = base.shape[1]
    lines = [
        "".join(_cell(char, r * cols + c == base.s) for c, char in enumerate(row)).rstrip()
        for r, row in enumerate(base.desc)
    ]
    lines.append(status)
    if values is not None:
        lines += ["values:", format_values(base, values)]
    if policy is not None:
        lines += ["policy:", format_policy(base, policy)]
    return "\n".join(lines) + "\n"


def format_values(env: Any, values: np.ndarray, decimals: int = 1) -> str:
    """Return ``values`` laid out as the grid, one text line per row, as Figure 4.1 prints them.

    Args:
        env: a GridWorld env (wrapped or not), for its shape.
        values: ``(nS,)`` or ``(rows, cols)`` state values.
        decimals: digits after the decimal point.

    Raises:
        ValueError: if ``values`` does not have ``nS`` entries.
    """
    base = env.unwrapped
    array = np.asarray(values, dtype=np.float64)
    if array.size != base.nS:
        raise ValueError(f"values must have {base.nS} entries, got {array.size}")
    grid = array.reshape(base.shape) + 0.0  # + 0.0 turns -0.0 into 0.0, so no "-0.0" is printed
    width = max(len(f"{v:.{decimals}f}") for v in grid.flat) + 2
    return "\n".join("".join(f"{v:{width}.{decimals}f}" for v in row) for row in grid)


def format_policy(env: Any, policy: np.ndarray) -> str:
    """Return ``policy`` laid out as the grid: ``^ v < >`` for each of a state's most probable actions.

    Terminal cells show ``T`` and walls ``#``.

    Args:
        env: a GridWorld env (wrapped or not), for its shape and cells.
        policy: ``(nS, nA)`` action probabilities.

    Raises:
        ValueError: if ``policy`` is not ``(nS, 4)`` rows of probabilities
            (:func:`gym_boardgames.tabular.check_policy`).
    """
    base = env.unwrapped
    array = check_policy(policy, base.nS, base.nA)
    arrows = ["".join(_ARROW_TEXT[a] for a in best_actions(row)) for row in array]
    symbols = [WALL if base.is_wall(s) else TERMINAL if base.is_terminal(s) else arrows[s] for s in range(base.nS)]
    width = max(len(symbol) for symbol in symbols) + 2
    cols = base.shape[1]
    return "\n".join(
        "".join(f"{symbol:>{width}}" for symbol in symbols[r * cols : (r + 1) * cols]) for r in range(base.shape[0])
    )
