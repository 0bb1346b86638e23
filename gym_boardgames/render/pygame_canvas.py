"""The pygame backend shared by every env: an off-screen surface, and a window in human mode.

Both render modes draw on the same off-screen surface; ``human`` copies it to a window, ``rgb_array``
copies it to a numpy array, so the two can never show different pictures.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium.error import DependencyNotInstalled


def import_pygame() -> Any:
    """Import pygame (the pygame-ce distribution) or raise a clear ``DependencyNotInstalled``."""
    try:
        import pygame
    except ImportError as error:
        raise DependencyNotInstalled(
            'pygame is not installed, so "human" and "rgb_array" rendering are unavailable: '
            'run `pip install pygame-ce` (or use render_mode="ansi")'
        ) from error
    return pygame


_fonts: dict[tuple[int, bool], Any] = {}


def font(size: int, bold: bool = False) -> Any:
    """Return pygame's default font at ``size`` px, loaded once per size and weight.

    Other code (Gymnasium's own toy_text envs, for one) may call ``pygame.quit()``, which invalidates
    every loaded font; the cache is then dropped and the fonts are loaded again.
    """
    pygame = import_pygame()
    if not pygame.font.get_init():
        pygame.font.init()
        _fonts.clear()
    loaded = _fonts.get((size, bold))
    if loaded is None:
        loaded = _fonts[size, bold] = pygame.font.Font(None, size)
        loaded.set_bold(bold)
    return loaded


class Canvas:
    """An off-screen surface of ``size`` pixels, shown in a window on demand.

    Args:
        size: ``(width, height)`` in pixels.
        title: the window caption in human mode.
        fps: frames per second of human mode (``show`` waits to keep this rate, except on SDL's dummy
            display driver, where nothing is shown).
    """

    def __init__(self, size: tuple[int, int], title: str, fps: float) -> None:
        self.pygame = import_pygame()
        self.size = size
        self.title = title
        self.fps = fps
        self.surface = self.pygame.Surface(size)
        self.view: Any = None
        self._window: Any = None
        self._clock: Any = None

    def show(self) -> None:
        """Copy the surface to the window (opening it first), process window events, keep the fps.

        On SDL's headless ``dummy`` driver nothing is shown, so it does not wait.
        """
        pygame = self.pygame
        if self._window is None:
            # Only the display: pygame.init() would also start audio and joysticks for nothing.
            pygame.display.init()
            self._window = pygame.display.set_mode(self.size)
            pygame.display.set_caption(self.title)
            # SDL's dummy driver (headless tests, CI) shows nothing, so waiting for the frame rate there
            # would only slow the caller: about 30 s of the test suite was spent in tick().
            self._clock = pygame.time.Clock() if pygame.display.get_driver() != "dummy" else None
        # Without pumping events the OS marks the window as not responding.
        pygame.event.pump()
        self._window.blit(self.surface, (0, 0))
        pygame.display.flip()
        if self._clock is not None:
            self._clock.tick(self.fps)

    def to_array(self) -> np.ndarray:
        """Return a new ``(H, W, 3)`` uint8 copy of the surface."""
        return np.ascontiguousarray(np.transpose(self.pygame.surfarray.array3d(self.surface), (1, 0, 2)))

    @property
    def window_open(self) -> bool:
        """Whether a human-mode window is open."""
        return self._window is not None

    def close(self) -> None:
        """Close the window if one is open; safe to call more than once."""
        if self._window is not None:
            self.pygame.display.quit()
            self._window = None
            self._clock = None
