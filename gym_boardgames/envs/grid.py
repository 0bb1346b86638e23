"""The env side of every ConnectN board (tic-tac-toe, the m,n,k game, Connect Four).

:class:`GridBoardEnv` adds to the two-player contract only what is specific to a grid of pieces: the
``(rows, cols)`` int8 observation, the ansi text and the pygame view. Games are thin subclasses.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium import spaces

from gym_boardgames.envs.base import TwoPlayerEnv
from gym_boardgames.rules.connect import EMPTY, BoardState, ConnectN


class GridBoardEnv(TwoPlayerEnv):
    """A :class:`TwoPlayerEnv` over :class:`~gym_boardgames.rules.connect.ConnectN` rules.

    Observation: ``Box(-1, 1, (rows, cols), int8)``, +1 for the pieces of the player whose point of view
    is taken (the agent; in self-play the player to move), -1 for the other player's, 0 empty.
    """

    #: Text symbols of player 0 and player 1 (ansi rendering).
    symbols: tuple[str, str] = ("X", "O")
    player_names: tuple[str, str] = ("X", "O")

    def __init__(self, game: ConnectN, **kwargs: Any) -> None:
        super().__init__(game, **kwargs)
        self.observation_space = spaces.Box(-1, 1, shape=(game.rows, game.cols), dtype=np.int8)

    def _observation(self, state: BoardState, player: int) -> np.ndarray:
        return self.game.observation(state, player)

    @property
    def last_cell(self) -> int | None:
        """The board cell (row-major) of the last move, by either side; None before any move."""
        if self.last_action is None or self.state is None:
            return None
        if not self.game.gravity:
            return self.last_action
        # The last piece of a column is its topmost one.
        board, cols = self.state.board, self.game.cols
        cell = self.last_action
        while board[cell] == EMPTY:
            cell += cols
        return cell

    def _ansi(self) -> str:
        from gym_boardgames.render.text import grid_to_text

        return grid_to_text(self)

    def make_view(self) -> Any:
        """Return a new pygame view of this board (needs pygame)."""
        from gym_boardgames.render.grid_view import GridView

        return GridView(self.game)
