"""Drawing primitives and colours shared by every pygame view."""

from __future__ import annotations

from typing import Any

from gym_boardgames.render.pygame_canvas import font, import_pygame

pygame = import_pygame()

# The boards' background, the last move's highlight, and text.
BACKGROUND, HIGHLIGHT, TEXT = (246, 242, 233), (255, 236, 150), (30, 30, 35)
# The status bar while a game runs; once the result is shown, the bar and its text.
STATUS_BAR, RESULT_BAR, RESULT_TEXT = (228, 222, 208), (52, 58, 74), (255, 255, 255)
STATUS_HEIGHT = 44
STATUS_PADDING = 8  # px kept free at each end of the status line


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


def fitted_text(
    text: str, size: tuple[int, int], colour: tuple[int, int, int], largest: int, bold: bool = False, smallest: int = 12
) -> Any:
    """Render ``text`` as large as it fits in ``size`` (width, height), on a transparent surface.

    Tried in this order: one line, shrinking down to three quarters of ``largest``; two lines split at the
    text's newline (which is a space on one line) or else at a space, from ``largest`` down to ``smallest``;
    one line down to ``smallest``; at last one line at ``smallest`` cut short with "...". A text wider than
    its bar is never cut at both ends. Each try measures each line once, and the cut is found by bisection,
    so a line of n characters is measured O(log n) times more (a 30,000-character line was once cut one
    character at a time, 30,000 measures of up to 30,000 characters: over a minute).

    Args:
        text: the text.
        size: the room for it in pixels, ``(width, height)``.
        colour: the text colour.
        largest: the font size to start from (pygame's default font, in px).
        bold: bold text.
        smallest: the smallest font size to use.

    Returns:
        a pygame surface with the line(s) centred, at most ``size`` (less only when even the cut text
        at ``smallest`` is taller than ``size``).
    """
    width, height = size
    halves = _split_in_two(text)
    text = text.replace("\n", " ")
    attempts = [(s, [text]) for s in range(largest, max(smallest, largest * 3 // 4) - 1, -1)]
    attempts += [(s, halves) for s in range(largest, smallest - 1, -1) if halves]
    attempts += [(s, [text]) for s in range(max(smallest, largest * 3 // 4) - 1, smallest - 1, -1)]
    for point_size, lines in attempts:
        face = font(point_size, bold)
        if len(lines) * face.get_linesize() <= height and all(face.size(line)[0] <= width for line in lines):
            return _render_lines(face, lines, colour)
    face = font(smallest, bold)
    # The longest start of the text that fits with "..." after it (a longer start is never narrower); the
    # bare "..." is drawn even where it does not fit.
    low, high = 0, len(text)
    while low < high:
        middle = (low + high + 1) // 2
        if face.size(text[:middle].rstrip() + "...")[0] <= width:
            low = middle
        else:
            high = middle - 1
    return _render_lines(face, [text[:low].rstrip() + "..."], colour)


def _split_in_two(text: str) -> list[str] | None:
    """Split ``text`` at its newline, else at the space that makes the longer half shortest, else return None."""
    if "\n" in text:
        first, _, rest = text.partition("\n")
        return [first, rest.replace("\n", " ")]
    spaces = [i for i, char in enumerate(text) if char == " "]
    if not spaces:
        return None
    middle = min(spaces, key=lambda i: max(i, len(text) - i - 1))
    return [text[:middle].rstrip(), text[middle + 1 :].lstrip()]


def _render_lines(face: Any, lines: list[str], colour: tuple[int, int, int]) -> Any:
    """Render ``lines`` in ``face``, each centred, on one transparent surface."""
    rendered = [face.render(line, True, colour) for line in lines]
    if len(rendered) == 1:
        return rendered[0]
    step = face.get_linesize()
    surface = pygame.Surface(
        (max(label.get_width() for label in rendered), step * (len(lines) - 1) + rendered[-1].get_height()),
        pygame.SRCALPHA,
    )
    # Transparent pixels of the text's own colour: blending the anti-aliased edges onto them keeps their
    # colour (onto transparent black they would come out darker).
    surface.fill((*colour, 0))
    for row, label in enumerate(rendered):
        surface.blit(label, label.get_rect(midtop=(surface.get_width() // 2, row * step)))
    return surface


def draw_status_bar(surface: Any, text: str, over: bool, bottom: int | None = None) -> None:
    """Draw the status line in a bar ending at ``bottom`` (default: the bottom of ``surface``).

    The bar turns dark with bold text once the game is ``over``. A line too long for the bar is drawn
    smaller or on two lines (:func:`fitted_text`), so a narrow window shows all of it.
    """
    width, height = surface.get_size()
    bottom = height if bottom is None else bottom
    bar = pygame.Rect(0, bottom - STATUS_HEIGHT, width, STATUS_HEIGHT)
    pygame.draw.rect(surface, RESULT_BAR if over else STATUS_BAR, bar)
    room = bar.inflate(-2 * STATUS_PADDING, -4)
    label = fitted_text(text, room.size, RESULT_TEXT if over else TEXT, 28, bold=over)
    surface.blit(label, label.get_rect(center=bar.center))
