"""The env side of every Connect-N board (tic-tac-toe, the m,n,k game, Connect Four).

:class:`ConnectBoardEnv` adds to the two-player contract only what is specific to a board of pieces: the
cell a frame highlights for the last move (with gravity the cell the piece landed in, which the rules'
``action_cell`` answers). Games are thin subclasses.
"""

from __future__ import annotations

from gym_boardgames.envs.base import TwoPlayerEnv
from gym_boardgames.render.board import last_mark


class ConnectBoardEnv(TwoPlayerEnv):
    """A :class:`TwoPlayerEnv` over :class:`~gym_boardgames.rules.connect.ConnectN` rules.

    Observation: ``Box(-1, 1, (rows, cols), int8)``, +1 for the pieces of the player whose point of view
    is taken (the agent; in self-play the player to move), -1 for the other player's, 0 empty.
    """

    @property
    def last_cell(self) -> int | None:
        """The cell (row-major) of the last move, by either side (with gravity: where it landed); None before any."""
        return last_mark(self.game, self.moves, self._previous)
