"""Drawing primitives and colours shared by every pygame view."""

from __future__ import annotations

from typing import Any

from gym_boardgames.render.pygame_canvas import font, import_pygame

pygame = import_pygame()

BACKGROUND = (246, 242, 233)
HIGHLIGHT = (255, 236, 150)
TEXT = (30, 30, 35)
STATUS_BAR = (228, 222, 208)
RESULT_BAR = (52, 58, 74)
RESULT_TEXT = (255, 255, 255)
STATUS_HEIGHT = 44


def thick_line(
    surface: Any, colour: tuple[int, int, int], start: tuple[float, float], end: tuple[float, float], width: float
) -> None:
    """Draw an anti-aliased line ``width`` px thick with round caps (a filled polygon with smooth edges)."""
    (x0, y0), (x1, y1) = start, end
    length = max(1e-9, ((x1 - x0) ** 2 + (y1 - y0) ** 2) ** 0.5)
    # Half-width offset perpendicular to the line.
    ox, oy = -(y1 - y0) / length * width / 2, (x1 - x0) / length * width / 2
    corners = [(x0 + ox, y0 + oy), (x1 + ox, y1 + oy), (x1 - ox, y1 - oy), (x0 - ox, y0 - oy)]
    pygame.draw.polygon(surface, colour, corners)
    pygame.draw.aalines(surface, colour, True, corners)
    for point in (start, end):
        pygame.draw.aacircle(surface, colour, point, width / 2)


def draw_status_bar(surface: Any, text: str, over: bool, bottom: int | None = None) -> None:
    """Draw the status line in a bar ending at ``bottom`` (default: the bottom of ``surface``).

    The bar turns dark with bold text once the game is ``over``.
    """
    width, height = surface.get_size()
    bottom = height if bottom is None else bottom
    bar = pygame.Rect(0, bottom - STATUS_HEIGHT, width, STATUS_HEIGHT)
    pygame.draw.rect(surface, RESULT_BAR if over else STATUS_BAR, bar)
    label = font(28, bold=over).render(text, True, RESULT_TEXT if over else TEXT)
    surface.blit(label, label.get_rect(center=bar.center))
