"""pygame drawing of Dots and Boxes: dots, edges in the colour of who drew them, owned boxes filled.

Like :mod:`.connect_view`, the view draws a whole frame from the rules, a state and its
:class:`~gym_boardgames.render.board.BoardMarks` (the last edge, who drew each edge, the status line), so
the env, the PettingZoo adapter and the play window share it without the view ever seeing an env.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from gym_boardgames.render.board import BoardMarks
from gym_boardgames.render.primitives import BACKGROUND, HIGHLIGHT, STATUS_HEIGHT, draw_status_bar, thick_line
from gym_boardgames.render.pygame_canvas import import_pygame
from gym_boardgames.rules.dots import DotsAndBoxes

pygame = import_pygame()

PLAYER_COLOURS = ((46, 103, 196), (214, 69, 65))  # blue, red
BOX_TINTS = ((196, 214, 240), (242, 200, 196))
FREE_EDGE = (222, 216, 203)
DOT = (40, 40, 48)
MARGIN = 28


class DotsView:
    """Draws a Dots and Boxes board and a status bar with the scores.

    Args:
        game: the rules object.
        max_board_px: the largest side of the board area; the dot spacing shrinks to fit.
    """

    def __init__(self, game: DotsAndBoxes, max_board_px: int = 560) -> None:
        self.game = game
        self.spacing = max(28, min(120, max_board_px // max(game.rows, game.cols)))
        self.size = (game.cols * self.spacing + 2 * MARGIN, game.rows * self.spacing + 2 * MARGIN + STATUS_HEIGHT)

    def dot_position(self, row: int, col: int) -> tuple[int, int]:
        """Return the pixel centre of dot ``(row, col)``."""
        return (MARGIN + col * self.spacing, MARGIN + row * self.spacing)

    def edge_segment(self, edge: int) -> tuple[tuple[int, int], tuple[int, int]]:
        """Return the pixel end points of ``edge``."""
        (r0, c0), (r1, c1) = self.game.edge_endpoints(edge)
        return self.dot_position(r0, c0), self.dot_position(r1, c1)

    @property
    def hint_size(self) -> tuple[int, int]:
        """The hint labels' largest font (a fifth of the dot spacing) and width (0.6 of the spacing)."""
        return max(12, min(24, self.spacing // 5)), int(self.spacing * 0.6)

    def action_at(self, pos: tuple[int, int], state: Any) -> tuple[int | None, str]:
        """Return the free edge a click at pixel ``pos`` means in ``state``, or None and why not."""
        edge = self.edge_at(pos)
        if edge is None:
            return None, "click closer to an edge"
        return (edge, "") if self.game.is_legal(state, edge) else (None, "that edge is already drawn")

    def hint_centre(self, state: Any, action: int) -> tuple[int, int]:
        """Return the pixel middle of edge ``action``."""
        start, end = self.edge_segment(action)
        return ((start[0] + end[0]) // 2, (start[1] + end[1]) // 2)

    def draw_hover(self, surface: Any, state: Any, action: int, mover: int) -> None:
        """Draw edge ``action`` faintly in ``mover``'s colour."""
        thick_line(surface, (160, 190, 235) if mover == 0 else (240, 170, 165), *self.edge_segment(action), 8)

    def edge_at(self, pos: tuple[int, int]) -> int | None:
        """Return the edge whose middle is nearest to pixel ``pos``, if within a third of the spacing."""
        middles = np.mean([self.edge_segment(edge) for edge in range(self.game.num_edges)], axis=1)
        distances = np.hypot(*(np.asarray(pos) - middles).T)
        nearest = int(np.argmin(distances))
        return nearest if distances[nearest] < self.spacing / 3 else None

    def draw(self, surface: Any, state: Any, marks: BoardMarks) -> None:
        """Draw the whole frame of ``state`` on ``surface``.

        Args:
            surface: the pygame surface, at least :attr:`size`.
            state: the position (a :class:`~gym_boardgames.rules.dots.DotsState`), or None for an empty
                frame before the first reset.
            marks: the last edge (highlighted), who drew each edge (its colour), the status line and
                whether the game is over.
        """
        surface.fill(BACKGROUND)
        game = self.game
        stroke = max(4, self.spacing // 12)
        if state is not None:
            for box, owner in enumerate(state.owners):
                if owner:
                    x, y = self.dot_position(*divmod(box, game.cols))
                    pygame.draw.rect(surface, BOX_TINTS[owner - 1], (x, y, self.spacing, self.spacing))
            drawers = marks.drawers or {}
            for edge in range(game.num_edges):
                start, end = self.edge_segment(edge)
                if not state.edges[edge]:
                    pygame.draw.line(surface, FREE_EDGE, start, end, 2)
                    continue
                if edge == marks.last:
                    thick_line(surface, HIGHLIGHT, start, end, stroke * 2.4)
                # An edge drawn without a recorded drawer (a position set up directly) is grey.
                colour = PLAYER_COLOURS[drawers[edge]] if edge in drawers else DOT
                thick_line(surface, colour, start, end, stroke)
        radius = max(4, self.spacing // 14)
        for r in range(game.rows + 1):
            for c in range(game.cols + 1):
                pygame.draw.aacircle(surface, DOT, self.dot_position(r, c), radius)
        draw_status_bar(surface, marks.status, marks.over, self.size[1])
