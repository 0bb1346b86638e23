"""pygame drawing of Connect-N boards: X/O marks without gravity, discs in a frame with gravity.

The view draws a whole frame from the rules, a state and its :class:`~gym_boardgames.render.board.BoardMarks`
(the last move's cell, the status line, whether the game is over), so the envs' ``human``/``rgb_array``
modes, the PettingZoo adapter and the play window share it without the view ever seeing an env.
"""

from __future__ import annotations

from typing import Any

from gym_boardgames.render.board import BoardMarks
from gym_boardgames.render.primitives import BACKGROUND, HIGHLIGHT, STATUS_HEIGHT, draw_status_bar, thick_line
from gym_boardgames.render.pygame_canvas import import_pygame
from gym_boardgames.rules.connect import ConnectN

pygame = import_pygame()

GRID = (70, 70, 80)
X_COLOUR = (214, 69, 65)
O_COLOUR = (46, 103, 196)
DISC_COLOURS = ((214, 48, 49), (244, 196, 48))  # red, yellow
FRAME = (33, 82, 168)
WIN_LINE = (30, 140, 70)
MARGIN = 12


class ConnectView:
    """Draws a Connect-N board and a status bar on a pygame surface.

    Args:
        game: the rules object (its ``rows``, ``cols`` and ``gravity`` set the layout).
        max_board_px: the largest side of the board area; cells shrink to fit, down to 16 px.
    """

    def __init__(self, game: ConnectN, max_board_px: int = 640) -> None:
        self.game = game
        self.cell = max(16, min(100, max_board_px // max(game.rows, game.cols)))
        self.board_w = game.cols * self.cell
        self.board_h = game.rows * self.cell
        self.size = (self.board_w + 2 * MARGIN, self.board_h + 2 * MARGIN + STATUS_HEIGHT)

    def cell_rect(self, cell: int) -> Any:
        """Return the pygame ``Rect`` of a board cell."""
        r, c = divmod(cell, self.game.cols)
        return pygame.Rect(MARGIN + c * self.cell, MARGIN + r * self.cell, self.cell, self.cell)

    @property
    def hint_size(self) -> tuple[int, int]:
        """The hint labels' largest font (about a quarter of a cell) and width (the cell less the badge's margins)."""
        return max(14, min(26, int(self.cell * 0.28))), self.cell - 16

    def action_at(self, pos: tuple[int, int], state: Any) -> tuple[int | None, str]:
        """Return the move a click at pixel ``pos`` means in ``state`` (its cell or column), or None and why not."""
        cell = self.cell_at(pos)
        if cell is None:
            return None, "click on the board"
        if self.game.gravity:
            column = cell % self.game.cols
            return (column, "") if self.game.is_legal(state, column) else (None, f"column {column} is full")
        return (cell, "") if self.game.is_legal(state, cell) else (None, "that cell is taken")

    def hint_centre(self, state: Any, action: int) -> tuple[int, int]:
        """Return the pixel centre of ``action``'s cell (with gravity: where its piece would land)."""
        return self.cell_rect(self.game.action_cell(state, action)).center

    def draw_hover(self, surface: Any, state: Any, action: int, mover: int) -> None:
        """Draw where ``mover``'s ``action`` would go: a faint disc in its landing cell, or a tinted cell."""
        rect = self.cell_rect(self.game.action_cell(state, action))
        if self.game.gravity:
            ghost = pygame.Surface(rect.size, pygame.SRCALPHA)
            colour = (*DISC_COLOURS[mover], 120 if mover == 0 else 140)
            pygame.draw.circle(ghost, colour, (ghost.get_width() // 2, ghost.get_height() // 2), int(self.cell * 0.4))
            surface.blit(ghost, rect.topleft)
        else:
            pygame.draw.rect(surface, (200, 220, 245), rect.inflate(-6, -6), border_radius=6)

    def cell_at(self, pos: tuple[int, int]) -> int | None:
        """Return the cell under the pixel ``pos``, or None outside the board."""
        col = (pos[0] - MARGIN) // self.cell
        row = (pos[1] - MARGIN) // self.cell
        return row * self.game.cols + col if 0 <= row < self.game.rows and 0 <= col < self.game.cols else None

    def draw(self, surface: Any, state: Any, marks: BoardMarks) -> None:
        """Draw the whole frame of ``state`` on ``surface``.

        Args:
            surface: the pygame surface, at least :attr:`size`.
            state: the position (a :class:`~gym_boardgames.rules.connect.BoardState`), or None for an
                empty frame before the first reset.
            marks: the last move's cell (highlighted), the status line and whether the game is over.
        """
        surface.fill(BACKGROUND)
        board = self._draw_discs if self.game.gravity else self._draw_marks
        board(surface, state, marks.last)
        if state is not None:
            self._draw_win_line(surface, self.game.winning_line(state))
        draw_status_bar(surface, marks.status, marks.over, self.size[1])

    def _draw_marks(self, surface: Any, state: Any, last: int | None) -> None:
        if last is not None:
            pygame.draw.rect(surface, HIGHLIGHT, self.cell_rect(last))
        width = max(2, self.cell // 25)
        for i in range(1, self.game.cols):
            x = MARGIN + i * self.cell
            pygame.draw.line(surface, GRID, (x, MARGIN), (x, MARGIN + self.board_h), width)
        for i in range(1, self.game.rows):
            y = MARGIN + i * self.cell
            pygame.draw.line(surface, GRID, (MARGIN, y), (MARGIN + self.board_w, y), width)
        if state is None:
            return
        stroke = max(3, self.cell // 10)
        pad = self.cell // 4
        for i, value in enumerate(state.board):
            rect = self.cell_rect(i)
            if value == 1:
                inner = rect.inflate(-2 * pad, -2 * pad)
                thick_line(surface, X_COLOUR, inner.topleft, inner.bottomright, stroke)
                thick_line(surface, X_COLOUR, inner.topright, inner.bottomleft, stroke)
            elif value == 2:
                pygame.draw.aacircle(surface, O_COLOUR, rect.center, self.cell // 2 - pad + stroke // 2, stroke)

    def _draw_discs(self, surface: Any, state: Any, last: int | None) -> None:
        frame = pygame.Rect(MARGIN, MARGIN, self.board_w, self.board_h)
        pygame.draw.rect(surface, FRAME, frame, border_radius=self.cell // 6)
        radius = int(self.cell * 0.4)
        for i in range(self.game.rows * self.game.cols):
            value = state.board[i] if state is not None else 0
            centre = self.cell_rect(i).center
            colour = BACKGROUND if value == 0 else DISC_COLOURS[value - 1]
            pygame.draw.aacircle(surface, colour, centre, radius)
            if i == last:
                pygame.draw.aacircle(surface, HIGHLIGHT, centre, radius, max(2, self.cell // 14))

    def _draw_win_line(self, surface: Any, line: tuple[int, ...] | None) -> None:
        if not line:
            return
        start, end = self.cell_rect(line[0]).center, self.cell_rect(line[-1]).center
        thick_line(surface, WIN_LINE, start, end, max(4, self.cell // 12))
