"""The window door: a board game against an agent in a pygame window, played with the mouse.

:func:`open_window` is ``gym_boardgames.play(..., ui="window")``'s door (``scripts/play.py GAME`` runs it). Keys:
the session's :data:`~gym_boardgames.human.session.COMMANDS` (H hints, U undo, R restart, S swap), Esc/Q quit.
The game itself, its agent worker, hints and drawing are :class:`~gym_boardgames.human.session.PlaySession`'s,
shared with the other doors; this module adds the window, its keys and its event loop.

Without a screen (``SDL_VIDEODRIVER=dummy`` or ``offscreen``, or on Linux neither ``DISPLAY`` nor
``WAYLAND_DISPLAY`` set: :func:`no_screen_reason`), a ``screenshot`` draws the opening position, saves it and
returns (``max_frames`` runs that many frames first); without one the door says how to get a window, or a page,
instead of running one nobody can see.
"""

from __future__ import annotations

import io
import os
import sys
import time
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from gym_boardgames.checks import check_int
from gym_boardgames.human.session import COMMANDS, THINKING, PlaySession
from gym_boardgames.outputs import write_bytes_atomic

if TYPE_CHECKING:
    from gym_boardgames.human.table import Table

#: The key help under the board: the session's commands, then quit.
KEYS_HELP = "   ".join(f"{command.key.upper()} {command.name}" for command in COMMANDS) + "   Q quit"
HELP_HEIGHT = 26


class NoScreenError(RuntimeError):
    """The window would open where nobody can see it (no display), and no screenshot was asked for."""


def open_window(table: Table, *, screenshot: str | None = None, max_frames: int | None = None) -> None:
    """Play ``table``'s game in a pygame window until it is closed (``gym_boardgames.play(ui="window")``).

    Args:
        table: the game, opponent, side, hints and seed, resolved by :func:`gym_boardgames.human.table.resolve`.
        screenshot: a PNG path written when a game ends and on exit; without a screen, the opening position is
            saved there and the door returns.
        max_frames: quit after this many frames (about ``max_frames / 30`` s); 1 by default without a screen.

    Raises:
        NoScreenError: without a screen and without ``screenshot`` (the message says what works instead).
    """
    if max_frames is not None:
        check_int("max_frames", max_frames, 1)
    reason = no_screen_reason()
    if reason is not None:
        if screenshot is None:
            raise NoScreenError(
                f"no screen to show the window on ({reason}): play in a browser page instead (--web, ui='page'), "
                "run it in a desktop session (or under xvfb-run), or save the position headless (--screenshot FILE)"
            )
        os.environ.setdefault("SDL_VIDEODRIVER", "dummy")  # spares SDL probing for a display server not there
        max_frames = 1 if max_frames is None else max_frames
    table.session(kind=PlayApp, screenshot=screenshot, title=table.title).run(max_frames=max_frames)


class PlayApp(PlaySession):
    """The game window: a :class:`~gym_boardgames.human.session.PlaySession` drawn in pygame, fed by its events.

    Args:
        *args: :class:`~gym_boardgames.human.session.PlaySession`'s (env, agent, side, hints, seed).
        screenshot: a PNG path written when a game ends and on exit.
        title: the window caption (default: the env's).
        **kwargs: :class:`~gym_boardgames.human.session.PlaySession`'s, by name.
    """

    def __init__(self, *args: Any, screenshot: str | None = None, title: str = "", **kwargs: Any) -> None:
        self.screenshot = screenshot
        self.window: Any = None
        self.mouse = (-1, -1)
        self.running = True
        self.frames = 0
        super().__init__(*args, **kwargs)
        self.pygame.display.init()
        self.window = self.pygame.display.set_mode((self.view.size[0], self.view.size[1] + HELP_HEIGHT))
        self.pygame.display.set_caption(title or self.env.window_title)
        self.clock = self.pygame.time.Clock()

    def status(self) -> str:
        """:meth:`PlaySession.status`, counting the seconds while the agent thinks (each frame redraws it)."""
        text = super().status()
        return f"{text} {self.thinking_seconds:.0f} s" if text == THINKING else text

    def _on_game_over(self) -> None:
        # Once per game: a finished game takes no move, so only a restart (a new game) leads here again.
        if self.screenshot and self.window is not None:
            self._write_screenshot()

    # ---- input -------------------------------------------------------------------------------

    def handle(self, event: Any) -> None:
        """Process one pygame event."""
        pygame = self.pygame
        if event.type == pygame.QUIT:
            self.running = False
        elif event.type == pygame.MOUSEMOTION:
            self.mouse = event.pos
        elif event.type == pygame.MOUSEBUTTONDOWN and event.button == 1:
            self.mouse = event.pos
            self.click(event.pos)
        elif event.type == pygame.KEYDOWN:
            key = pygame.key.name(event.key)
            if event.key == pygame.K_ESCAPE or key == "q":
                self.running = False
            elif command := next((c.name for c in COMMANDS if c.key == key), None):
                self.command(command)

    # ---- drawing -----------------------------------------------------------------------------

    def draw(self) -> None:
        """Draw the board, the mouse feedback, hints, the status and the key help."""
        from gym_boardgames.render.primitives import fitted_text

        pygame = self.pygame
        surface = self.window
        self.draw_board(surface, None if self.thinking else self.mouse)
        help_bar = pygame.Rect(0, self.view.size[1], self.view.size[0], HELP_HEIGHT)
        pygame.draw.rect(surface, (214, 208, 194), help_bar)
        label = fitted_text(KEYS_HELP, help_bar.inflate(-8, -2).size, (60, 60, 66), 20, smallest=10)
        surface.blit(label, label.get_rect(center=help_bar.center))

    def _write_screenshot(self) -> None:
        """Draw the window and write it to ``screenshot`` atomically, so a kill mid-save leaves the earlier file whole.

        The image is encoded in memory, in the format the file name's suffix names (pygame's rule, as when it
        saves to the path itself), then written by ``write_bytes_atomic`` (a temporary file, then a rename).
        """
        self.draw()
        buffer = io.BytesIO()
        self.pygame.image.save(self.window, buffer, os.path.basename(self.screenshot))
        write_bytes_atomic(self.screenshot, buffer.getvalue())

    # ---- the loop ----------------------------------------------------------------------------

    def frame(self) -> None:
        """Run one frame: events, then drawing (the agent's worker plays its reply by itself)."""
        for event in self.pygame.event.get():
            self.handle(event)
            if not self.running:
                return  # quit at once: no more drawing
        self.draw()
        self.pygame.display.flip()
        self.frames += 1

    def run(self, max_frames: int | None = None, fps: int = 30) -> None:
        """Run until the window is closed (or ``max_frames`` frames), then save the screenshot and close."""
        try:
            while self.running and (max_frames is None or self.frames < max_frames):
                self.frame()
                self.clock.tick(fps)
        finally:
            self.close()

    def wait_for_agent(self, timeout: float = 30.0) -> None:
        """Run frames until the agent has replied (for scripted use and tests)."""
        deadline = time.monotonic() + timeout
        while self.thinking and time.monotonic() < deadline:
            self.frame()
            time.sleep(0.002)
        if self.thinking:
            raise TimeoutError(f"the agent did not reply within {timeout} s")
        self.frame()

    def close(self) -> None:
        """Save the screenshot (if asked), drop any reply still being computed and close the window."""
        if self.screenshot and self.pygame.display.get_init() and self.pygame.display.get_surface() is not None:
            self._write_screenshot()
        super().close()
        self.pygame.display.quit()


def no_screen_reason(environ: Mapping[str, str] | None = None, platform: str | None = None) -> str | None:
    """Return why SDL would open no visible window here, or None if it can as far as the environment tells.

    SDL's ``dummy`` and ``offscreen`` drivers draw nowhere; on Linux without ``DISPLAY`` or ``WAYLAND_DISPLAY``
    SDL falls back to ``offscreen`` by itself, so the window would run without anyone seeing it.

    Args:
        environ: the environment (default ``os.environ``).
        platform: ``sys.platform`` (default the running one).
    """
    environ = os.environ if environ is None else environ
    platform = sys.platform if platform is None else platform
    driver = environ.get("SDL_VIDEODRIVER", "")
    if driver in ("dummy", "offscreen"):
        return f"SDL_VIDEODRIVER={driver}"
    if (
        not driver
        and platform.startswith("linux")
        and not environ.get("DISPLAY")
        and not environ.get("WAYLAND_DISPLAY")
    ):
        return "neither DISPLAY nor WAYLAND_DISPLAY is set"
    return None
