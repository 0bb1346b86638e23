"""pygame drawing of GridWorld-v0: cells, walls, terminals, the agent, and an optional value/policy overlay.

:class:`GridWorldView` is built from the grid's layout (``shape``, walls, terminals, marked start cells) and
draws a whole frame from the agent's state ``s``, the status line and an optional overlay; it never sees
the env. The env's ``rgb_array`` and ``human`` modes use it with the overlay set by
``env.unwrapped.set_overlay(values=V, policy=pi)``; :func:`gym_boardgames.envs.gridworld.render_gridworld`
draws one frame with any overlay, whatever the env's render mode::

    from agents.tabular.dp import value_iteration
    from gym_boardgames.envs.gridworld import render_gridworld

    policy, V = value_iteration(env.unwrapped.P)
    frame = render_gridworld(env, values=V, policy=policy)  # (H, W, 3) uint8

The overlay is a heat map of the values (dark purple lowest, yellow highest, the viridis ramp) with the
numbers written in cells of at least 48 px, and an arrow from each cell's centre for each of its most
probable actions (several on ties, as Figure 4.1 of the book draws them) in cells of at least 12 px.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np

from gym_boardgames.render.primitives import BACKGROUND, STATUS_HEIGHT, TEXT, draw_status_bar, thick_line
from gym_boardgames.render.pygame_canvas import font, import_pygame

pygame = import_pygame()

# The cells (free, wall, terminal and its edge) and the lines between them; the agent and the start marks.
FREE_CELL, WALL_CELL, TERMINAL_CELL, TERMINAL_EDGE = (252, 250, 245), (58, 60, 70), (190, 194, 202), (70, 74, 86)
GRID_LINE, AGENT, START_MARK = (150, 150, 158), (214, 48, 49), (46, 139, 87)
MARGIN = 12
MIN_WIDTH = 320  # room for the status line under narrow grids
MIN_TEXT_CELL = 48  # smallest cell (px) that shows its value as a number
MIN_ARROW_CELL = 12  # smallest cell (px) that shows policy arrows
# The viridis colour map at five evenly spaced points, interpolated linearly in between.
_RAMP = np.array([(68, 1, 84), (59, 82, 139), (33, 145, 140), (94, 201, 98), (253, 231, 37)], dtype=np.float64)
_DIRECTIONS = ((0.0, -1.0), (0.0, 1.0), (-1.0, 0.0), (1.0, 0.0))  # (dx, dy) on screen of UP, DOWN, LEFT, RIGHT


def heat_colours(values: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """Return ``(n, 3)`` uint8 viridis colours of ``values``, scaled to the range of ``values[mask]``."""
    shown = values[mask] if mask.any() else values
    low, high = float(shown.min()), float(shown.max())
    t = np.zeros_like(values) if high == low else np.clip((values - low) / (high - low), 0.0, 1.0)
    position = t * (len(_RAMP) - 1)
    i = np.minimum(position.astype(int), len(_RAMP) - 2)
    frac = (position - i)[:, None]
    return np.round(_RAMP[i] * (1 - frac) + _RAMP[i + 1] * frac).astype(np.uint8)


def _value_label(value: float) -> str:
    return f"{value:.1f}" if abs(value) < 1000 else f"{value:.0f}"


class GridWorldView:
    """Draws a GridWorld and a status bar on a pygame surface.

    Args:
        shape: ``(rows, cols)`` of the grid.
        walls: the wall states.
        terminals: the terminal states.
        marked_starts: the start cells to mark (a map's ``S`` cells; none when every cell is a start).
        max_board_px: the largest side of the grid; cells shrink to fit, from 96 px down to 3 px.
    """

    def __init__(
        self,
        shape: tuple[int, int],
        walls: Iterable[int] = (),
        terminals: Iterable[int] = (),
        marked_starts: Iterable[int] = (),
        max_board_px: int = 640,
    ) -> None:
        rows, cols = shape
        self.shape = (rows, cols)
        self.walls = np.isin(np.arange(rows * cols), list(walls))
        self.terminals = np.isin(np.arange(rows * cols), list(terminals))
        self.marked_starts = frozenset(marked_starts)
        self.cell = max(3, min(96, max_board_px // max(rows, cols)))
        board_w, board_h = cols * self.cell, rows * self.cell
        width = max(board_w + 2 * MARGIN, MIN_WIDTH)
        self.left = (width - board_w) // 2  # the grid is centred over a wider status bar
        self.top = MARGIN
        self.size = (width, board_h + 2 * MARGIN + STATUS_HEIGHT)

    def cell_rect(self, state: int) -> Any:
        """Return the pygame ``Rect`` of a state's cell."""
        r, c = divmod(state, self.shape[1])
        return pygame.Rect(self.left + c * self.cell, self.top + r * self.cell, self.cell, self.cell)

    def draw(
        self,
        surface: Any,
        current: int | None,
        status: str,
        values: np.ndarray | None = None,
        arrows: Sequence[Sequence[int]] | None = None,
    ) -> None:
        """Draw the whole frame on ``surface``: the grid, the agent in state ``current``, an optional overlay.

        Args:
            surface: the pygame surface, of size ``self.size``.
            current: the agent's state (the env's ``s``), or None before the first reset (no agent drawn).
            status: the status-bar text; the bar turns dark when ``current`` is a terminal state.
            values: ``(nS,)`` values for the heat map, or None.
            arrows: for each state, the actions to draw an arrow for (a policy's most probable ones), or
                None; terminal and wall cells get none.
        """
        surface.fill(BACKGROUND)
        cell = self.cell
        walls, terminals, marked_starts = self.walls, self.terminals, self.marked_starts
        n = walls.size
        colours = heat_colours(values, ~walls).tolist() if values is not None else None
        for s in range(n):
            rect = self.cell_rect(s)
            if walls[s]:
                pygame.draw.rect(surface, WALL_CELL, rect)
                continue
            fill = colours[s] if colours is not None else TERMINAL_CELL if terminals[s] else FREE_CELL
            pygame.draw.rect(surface, fill, rect)
            if terminals[s] and cell >= 8:
                # A frame inside the cell marks a terminal even under the heat map's colour.
                pygame.draw.rect(surface, TERMINAL_EDGE, rect.inflate(-cell // 6, -cell // 6), max(1, cell // 14))
            if s in marked_starts and cell >= 16:
                pygame.draw.circle(surface, START_MARK, rect.move(cell // 6, cell // 6).topleft, max(2, cell // 14))
        if cell >= 6:
            width = 1 if cell < 24 else 2
            rows, cols = self.shape
            for c in range(cols + 1):
                x = self.left + c * cell
                pygame.draw.line(surface, GRID_LINE, (x, self.top), (x, self.top + rows * cell), width)
            for r in range(rows + 1):
                y = self.top + r * cell
                pygame.draw.line(surface, GRID_LINE, (self.left, y), (self.left + cols * cell, y), width)

        with_text = values is not None and cell >= MIN_TEXT_CELL
        label_font = self._label_font(values, arrows is not None) if with_text else None
        for s in range(n):
            if walls[s]:
                continue
            ink = self._ink(colours[s]) if colours is not None else TEXT
            centre = self.cell_rect(s).center
            half_w = half_h = 0.06 * cell  # how far from the centre the arrows start
            if with_text:
                label = label_font.render(_value_label(float(values[s])), True, ink)
                surface.blit(label, label.get_rect(center=centre))
                gap = self._label_gap()
                half_w, half_h = label.get_width() / 2 + gap, label.get_height() / 2 + gap / 2
            if arrows is not None and cell >= MIN_ARROW_CELL and not terminals[s]:
                for a in arrows[s]:
                    self._arrow(surface, centre, _DIRECTIONS[a], ink, half_h if a in (0, 1) else half_w)
        if current is not None:
            self._agent(surface, self.cell_rect(current).center, filled=values is None and arrows is None)
        draw_status_bar(surface, status, over=current is not None and bool(terminals[current]))

    def _label_gap(self) -> float:
        """The clear space (px) between a number and the arrows beside it."""
        return max(3.0, self.cell / 16)

    def _label_font(self, values: np.ndarray, with_arrows: bool) -> Any:
        """The numbers' font: a quarter of the cell, a fifth beside arrows, smaller if the widest would touch them.

        An arrow needs its head and as much shaft again between the gap after the number and its tip (see
        :meth:`_arrow`); a number such as ``-20.0`` at a quarter of a 96 px cell left the arrows 3 px from it.
        """
        if not with_arrows:
            return font(max(12, self.cell // 4))
        size = max(12, self.cell // 5)
        widest = max((_value_label(float(v)) for v in values), key=len)
        room = 2 * (0.47 * self.cell - 2 * max(3.0, self.cell * 0.09) - self._label_gap())
        while size > 12 and font(size).size(widest)[0] > room:
            size -= 1
        return font(size)

    @staticmethod
    def _ink(colour: Any) -> tuple[int, int, int]:
        """Dark text on light cells, white on dark ones (by perceived luminance)."""
        r, g, b = (int(x) for x in colour)
        return TEXT if 0.299 * r + 0.587 * g + 0.114 * b > 140 else (255, 255, 255)

    def _arrow(
        self, surface: Any, centre: tuple[int, int], direction: tuple[float, float], ink: Any, start: float
    ) -> None:
        """An arrow pointing in ``direction``, from ``start`` px off the centre to near the cell's edge."""
        cell = self.cell
        dx, dy = direction
        tip = 0.47 * cell
        head = max(3.0, cell * 0.09)
        start = min(start, tip - 1.5 * head)  # a long label leaves at least a head to draw
        x0, y0 = centre[0] + dx * start, centre[1] + dy * start
        x1, y1 = centre[0] + dx * tip, centre[1] + dy * tip
        if start < tip - 2 * head:  # the shaft, when there is room for one
            thick_line(surface, ink, (x0, y0), (x1 - dx * head, y1 - dy * head), max(1.5, cell / 32))
        px, py = -dy, dx  # perpendicular, for the head's base
        base_x, base_y = x1 - dx * head * 1.4, y1 - dy * head * 1.4
        wing = head * 0.8  # px and py are 0 or 1 in size, so px * wing is px * head * 0.8 exactly
        pygame.draw.polygon(
            surface, ink, [(x1, y1), (base_x + px * wing, base_y + py * wing), (base_x - px * wing, base_y - py * wing)]
        )

    def _agent(self, surface: Any, centre: tuple[int, int], filled: bool) -> None:
        """The agent: a filled disc, or a ring that leaves an overlay's number and arrows readable."""
        if filled or self.cell < 12:
            pygame.draw.aacircle(surface, AGENT, centre, max(1, int(self.cell * 0.3)))
        else:
            pygame.draw.aacircle(surface, AGENT, centre, int(self.cell * 0.42), max(2, self.cell // 14))
