"""A new game's pygame view: a row of stones (file 2 of the new game; importing it imports pygame)."""

from __future__ import annotations

from typing import Any

from gym_boardgames.render.board import BoardMarks
from gym_boardgames.render.primitives import BACKGROUND, STATUS_HEIGHT, draw_status_bar
from gym_boardgames.render.pygame_canvas import import_pygame

pygame = import_pygame()
CELL, MARGIN = 40, 12


class NimView:
    """Draws the pile; a click on the k-th remaining stone from the right takes k stones."""

    def __init__(self, game: Any) -> None:
        self.game = game
        self.size = (game.stones * CELL + 2 * MARGIN, CELL + 2 * MARGIN + STATUS_HEIGHT)
        self.hint_size = (14, CELL - 4)

    def _centre(self, index: int) -> tuple[int, int]:
        return (MARGIN + index * CELL + CELL // 2, MARGIN + CELL // 2)

    def draw(self, surface: Any, state: Any, marks: BoardMarks) -> None:
        surface.fill(BACKGROUND)
        for index in range(state.stones if state is not None else 0):
            pygame.draw.circle(surface, (90, 90, 100), self._centre(index), CELL // 3)
        draw_status_bar(surface, marks.status, marks.over)

    def action_at(self, pos: tuple[int, int], state: Any) -> tuple[int | None, str]:
        index = (pos[0] - MARGIN) // CELL
        if not 0 <= index < state.stones or not MARGIN <= pos[1] < MARGIN + CELL:
            return None, "click on a stone"
        action = state.stones - index - 1  # take this stone and every one right of it
        return (action, "") if self.game.is_legal(state, action) else (None, f"take at most {self.game.max_take}")

    def hint_centre(self, state: Any, action: int) -> tuple[int, int]:
        return self._centre(state.stones - action - 1)

    def draw_hover(self, surface: Any, state: Any, action: int, mover: int) -> None:
        for index in range(state.stones - action - 1, state.stones):
            pygame.draw.circle(surface, (200, 220, 245), self._centre(index), CELL // 3, 3)
