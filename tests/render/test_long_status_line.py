"""A status line of any length is drawn with a bounded number of text measures (it was once quadratic)."""

from __future__ import annotations

import pytest

pytest.importorskip("pygame")

from gym_boardgames.render import primitives  # noqa: E402


class _CountingFont:
    """A loaded font that counts its measures and the characters they measured."""

    def __init__(self, face, counts):
        self._face, self._counts = face, counts

    def size(self, text):
        self._counts["calls"] += 1
        self._counts["chars"] += len(text)
        return self._face.size(text)

    def __getattr__(self, name):
        return getattr(self._face, name)


@pytest.mark.parametrize("text", ["a" * 30_000, "word " * 6_000], ids=["one word", "many words"])
def test_a_30000_character_status_line_is_cut_with_few_measures(monkeypatch, text):
    counts = {"calls": 0, "chars": 0}
    real = primitives.font
    monkeypatch.setattr(primitives, "font", lambda size, bold=False: _CountingFont(real(size, bold), counts))
    surface = primitives.pygame.Surface((400, 300))
    primitives.draw_status_bar(surface, text, over=False)
    # Each of the ~50 sizes and splits is measured once, and the cut by bisection (log2(30,000) ~ 15 measures);
    # cutting one character at a time measured 30,000 times, up to 30,000 characters each.
    assert counts["calls"] < 100
    assert counts["chars"] < 100 * (len(text) + 3)


def test_the_cut_line_fits_its_bar_and_ends_in_dots():
    label = primitives.fitted_text("x" * 30_000, (300, 40), (0, 0, 0), 28)
    assert label.get_width() <= 300
    assert primitives.fitted_text("", (1, 1), (0, 0, 0), 28) is not None  # nothing fits: the bare "..."
