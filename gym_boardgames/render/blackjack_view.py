"""pygame drawing of TabularBlackjack-v0: the dealer's and the player's cards, their totals, and the result.

:class:`BlackjackView` draws a whole frame from the hands (the player's and the dealer's cards, the name of
the dealer's showing card), whether the hand is over and the status line; the env computes them and the
view never sees it. While a hand is played the dealer's second card is
face down and only the showing card counts; once the hand is over every dealer card is face up, both
totals are written, and the status bar turns dark with the result (win, lose or draw).

Gymnasium's own picture of ``Blackjack-v1`` is not used: it keeps the hidden card face down at the end, shows
no result, and opens the display even for ``rgb_array`` frames.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from gymnasium.envs.toy_text.blackjack import is_natural, sum_hand, usable_ace

from gym_boardgames.render.primitives import STATUS_HEIGHT, draw_status_bar
from gym_boardgames.render.pygame_canvas import font, import_pygame
from gym_boardgames.rules.blackjack import card_label

pygame = import_pygame()

# The table and its text; a card's face, edge and ink (an ace's in red); a card's back and its hatching.
FELT, FELT_TEXT = (40, 110, 76), (240, 240, 228)
CARD_FACE, CARD_EDGE, CARD_INK, ACE_INK = (252, 250, 245), (60, 60, 70), (30, 30, 35), (176, 32, 40)
CARD_BACK, CARD_BACK_PATTERN = (46, 78, 160), (120, 150, 215)
CARD_W, CARD_H = 64, 92
MARGIN = 20
WIDTH = 480
# Where each hand's label and cards go; a long hand overlaps its cards to stay inside the frame.
DEALER_TOP, PLAYER_TOP = 16, 176
LABEL_HEIGHT = 36
HEIGHT = PLAYER_TOP + LABEL_HEIGHT + CARD_H + MARGIN + STATUS_HEIGHT


class BlackjackView:
    """Draws the blackjack table and a status bar on a pygame surface of a fixed :attr:`size`."""

    def __init__(self) -> None:
        self.size = (WIDTH, HEIGHT)

    def draw(
        self, surface: Any, player: Sequence[int], dealer: Sequence[int], showing: str, over: bool, status: str
    ) -> None:
        """Draw the whole frame on ``surface``, of size ``self.size``.

        Args:
            surface: the pygame surface.
            player: the player's cards, 1 (ace) .. 10; empty before the first deal (an empty table).
            dealer: the dealer's cards, the showing one first.
            showing: the showing card's name as Gymnasium gives it (``"A"``, ``"2"`` .. ``"K"``).
            over: whether the hand has ended (then every dealer card is face up and both totals shown).
            status: the status-bar text; the bar turns dark when the hand is ``over``.
        """
        surface.fill(FELT)
        if dealer:
            if over:
                dealer_title = f"Dealer {sum_hand(dealer)}{'  bust' if sum_hand(dealer) > 21 else ''}"
                labels: list[str | None] = [showing] + [card_label(card) for card in dealer[1:]]
            else:
                # Only the showing card is known: the rest stay face down (None) until the hand ends.
                dealer_title = f"Dealer shows {showing}"
                labels = [showing] + [None] * (len(dealer) - 1)
            self._hand(surface, dealer_title, labels, DEALER_TOP)
            total = sum_hand(player)
            bust = "  bust" if total > 21 else ""
            note = " (natural)" if is_natural(player) else " (usable ace)" if usable_ace(player) else bust
            self._hand(surface, f"Player {total}{note}", [card_label(card) for card in player], PLAYER_TOP)
        draw_status_bar(surface, status, over=over)

    def _hand(self, surface: Any, title: str, labels: list[str | None], top: int) -> None:
        """A title, then a row of cards; ``None`` is a card face down."""
        text = font(30, bold=True).render(title, True, FELT_TEXT)
        surface.blit(text, (MARGIN, top))
        room = WIDTH - 2 * MARGIN - CARD_W
        step = CARD_W + 10 if len(labels) < 2 else min(CARD_W + 10, room // (len(labels) - 1))
        for i, label in enumerate(labels):
            rect = pygame.Rect(MARGIN + i * step, top + LABEL_HEIGHT, CARD_W, CARD_H)
            pygame.draw.rect(surface, CARD_BACK if label is None else CARD_FACE, rect, border_radius=7)
            pygame.draw.rect(surface, CARD_EDGE, rect, 2, border_radius=7)
            if label is None:
                self._back(surface, rect)
            else:
                self._face(surface, rect, label)

    @staticmethod
    def _face(surface: Any, rect: Any, label: str) -> None:
        ink = ACE_INK if label == "A" else CARD_INK
        big = font(44, bold=True).render(label, True, ink)
        surface.blit(big, big.get_rect(center=rect.center))
        corner = font(22, bold=True).render(label, True, ink)
        surface.blit(corner, (rect.left + 6, rect.top + 5))

    @staticmethod
    def _back(surface: Any, rect: Any) -> None:
        inner = rect.inflate(-14, -14)
        for offset in range(-inner.height, inner.width, 10):  # diagonal hatching, clipped to the inner frame
            start = (inner.left + max(0, offset), inner.top + max(0, -offset))
            length = min(inner.width - max(0, offset), inner.height - max(0, -offset))
            if length > 0:
                end = (start[0] + length - 1, start[1] + length - 1)
                pygame.draw.line(surface, CARD_BACK_PATTERN, start, end, 2)
