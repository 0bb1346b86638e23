"""Play a board game against an agent in a pygame window, with the mouse.

Run ``python scripts/play.py GAME [options]``; ``--help`` lists the games, opponents and options. Keys: H
hints, U undo, R restart, S swap sides, Esc/Q quit. ``--web`` serves the same game as a browser page instead
(:mod:`gym_boardgames.web`).

Without a screen (``SDL_VIDEODRIVER=dummy`` or ``offscreen``, or on Linux neither ``DISPLAY`` nor
``WAYLAND_DISPLAY`` set: :func:`no_screen_reason`), the script's ``--screenshot FILE`` draws the opening
position, saves it and exits (``--max-frames N`` runs N frames first); without ``--screenshot`` the script
says how to get a window, or a page (``--web``), instead of running one nobody can see.

The game itself, its agent worker, hints and drawing are :class:`~gym_boardgames.play_session.PlaySession`'s,
shared with the browser page; this module adds the window, its keys and its event loop.

This module never imports ``agents`` (the env package sits below the algorithms) and never reads the command
line: :class:`PlayApp` takes the env, the agent and the hint provider as objects. ``scripts/play.py`` parses
the command line, builds the agent with ``agents.factory.make_agent`` and hands it over with its exact and
searched hints (``agents.hints.hint_labels``: "win in N" / "draw" / "loss in N" on Connect Four).
"""

from __future__ import annotations

import io
import os
import sys
import time
from collections.abc import Mapping
from typing import Any

from gym_boardgames.envs.base import TwoPlayerEnv
from gym_boardgames.outputs import write_bytes_atomic
from gym_boardgames.play_session import THINKING, HintProvider, PlaySession

KEYS_HELP = "H hints   U undo   R restart   S swap   Q quit"
HELP_HEIGHT = 26


class PlayApp(PlaySession):
    """The game window: a :class:`~gym_boardgames.play_session.PlaySession` drawn in pygame, fed by its events.

    Args:
        env: a board env (TicTacToe, ConnectN or Dots and Boxes); it is used in self-play mode.
        agent: the opponent: an object with ``act(game, state) -> int`` or such a callable, or None to play
            both sides. If it also has ``evaluate(game, states) -> (priors, values)`` (a network), the hints
            add its priors and value.
        human_player: the side the human plays, 0 (moves first) or 1.
        screenshot: a PNG path written when a game ends and on exit.
        title: the window caption.
        hints: the hint provider the H key shows, or None (then every move is labelled ``"?"``); the status line
            names how the labels were found (``hints: exact``, ``hints: search estimate``...).
        name: the agent's name, for the status line if it fails (default: its class's name).
    """

    def __init__(
        self,
        env: TwoPlayerEnv,
        agent: Any,
        human_player: int = 0,
        screenshot: str | None = None,
        title: str = "",
        hints: HintProvider | None = None,
        name: str | None = None,
    ) -> None:
        self.screenshot = screenshot
        self.window: Any = None
        self.mouse = (-1, -1)
        self.running = True
        self.frames = 0
        super().__init__(env, agent, human_player=human_player, hints=hints, name=name)
        self.pygame.display.init()
        self.window = self.pygame.display.set_mode((self.view.size[0], self.view.size[1] + HELP_HEIGHT))
        self.pygame.display.set_caption(title or env.window_title)
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
            commands = {pygame.K_h: "hints", pygame.K_u: "undo", pygame.K_r: "restart", pygame.K_s: "swap"}
            if event.key in (pygame.K_ESCAPE, pygame.K_q):
                self.running = False
            elif event.key in commands:
                self.command(commands[event.key])

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


if __name__ == "__main__":
    sys.exit("the play window takes its agents from its caller: run `python scripts/play.py GAME [options]`")
