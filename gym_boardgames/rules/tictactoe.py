"""Tic-tac-toe: the m,n,k game with m = n = k = 3 and no gravity.

It is :class:`~gym_boardgames.rules.connect.ConnectN` with fixed parameters, so everything there holds:
actions are cells ``row * 3 + col`` (row 0 at the top), player 0 (X) moves first, and the compact key is
``sum(board[i] * 3**i)`` in ``0 .. 3**9 - 1``. From the empty board 5478 distinct positions are
reachable, 958 of them terminal, and perfect play draws.
"""

from __future__ import annotations

from gym_boardgames.rules.connect import ConnectN


class TicTacToe(ConnectN):
    """Tic-tac-toe rules: ``ConnectN(rows=3, cols=3, n=3, gravity=False)``."""

    def __init__(self) -> None:
        super().__init__(rows=3, cols=3, n=3, gravity=False)

    def __repr__(self) -> str:
        return "TicTacToe()"
