"""Pure game rules: immutable states and the rules surface, with no gymnasium and no pygame.

Every game offers ``initial_state``, ``current_player``, ``legal_actions``, ``apply``, ``is_terminal``
and ``returns`` (see docs/design.md, "Rules surface"), plus a compact integer ``key`` for value tables.
"""

from gym_boardgames.rules.connect import BoardState, ConnectN, board_geometry
from gym_boardgames.rules.dots import DotsAndBoxes, DotsState, dots_geometry
from gym_boardgames.rules.tictactoe import TicTacToe

__all__ = ["BoardState", "ConnectN", "DotsAndBoxes", "DotsState", "TicTacToe", "board_geometry", "dots_geometry"]
