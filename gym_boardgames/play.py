"""Play a board game against an agent in a pygame window, with the mouse.

Run ``python scripts/play.py GAME [options]``; ``--help`` lists the games, opponents and options. Keys: H
hints, U undo, R restart, S swap sides, Esc/Q quit.

Without a screen (``SDL_VIDEODRIVER=dummy`` or ``offscreen``, or on Linux neither ``DISPLAY`` nor
``WAYLAND_DISPLAY`` set: :func:`no_screen_reason`), the script's ``--screenshot FILE`` draws the opening
position, saves it and exits (``--max-frames N`` runs N frames first); without ``--screenshot`` the script
says how to get a window instead of running one nobody can see.

The window draws with the same views as the envs' ``human`` and ``rgb_array`` modes; the game itself is
an env in self-play mode (the window plays one side, the agent the other). The agent thinks in a worker
thread, so the window keeps answering while it does.

This module never imports ``agents`` (the env package sits below the algorithms) and never reads the command
line: :class:`PlayApp` takes the env, the agent and the hint provider as objects. ``scripts/play.py`` parses
the command line, builds the agent with ``agents.factory.make_agent`` and hands it over with its exact and
searched hints.
"""

from __future__ import annotations

import io
import os
import sys
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from gym_boardgames.envs.base import TwoPlayerEnv
from gym_boardgames.opponents import as_policy
from gym_boardgames.render.pygame_canvas import import_pygame
from gym_boardgames.rules.dots import DotsAndBoxes
from gym_boardgames.utils import write_bytes_atomic

#: A hint provider: ``(game, state, player) -> {legal action: label}``, each label ``"win"``, ``"draw"``,
#: ``"loss"`` or ``"?"`` (unknown) for the mover's result after that action.
HintProvider = Callable[[Any, Any, int], dict[int, str]]

KEYS_HELP = "H hints   U undo   R restart   S swap   Q quit"
HELP_HEIGHT = 26
MESSAGE_SECONDS = 2.5
# Hint labels are drawn on a white badge (the board, a disc or the hover's ghost disc may be under it), in
# colours dark enough to read on white: each has a contrast ratio of at least 5.5 with it (WCAG asks 4.5).
HINT_COLOURS = {"win": (22, 122, 58), "draw": (78, 78, 90), "loss": (186, 38, 38), "?": (92, 92, 106)}
HINT_BADGE = (255, 255, 255)
SOLVING = "solving the hints..."


class PlayApp:
    """The game window: mouse moves for the human, agent replies from a worker thread.

    Args:
        env: a board env (TicTacToe, ConnectN or Dots and Boxes); it is used in self-play mode.
        agent: the opponent: an object with ``act(game, state) -> int`` or such a callable. If it also has
            ``evaluate(game, states) -> (priors, values)`` (a network), the hints add its priors and value.
        human_player: the side the human plays, 0 (moves first) or 1.
        screenshot: a PNG path written when a game ends and on exit.
        title: the window caption.
        hints: the hint provider the H key shows, or None (then every move is labelled ``"?"``).
    """

    def __init__(
        self,
        env: TwoPlayerEnv,
        agent: Any,
        human_player: int = 0,
        screenshot: str | None = None,
        title: str = "",
        hints: HintProvider | None = None,
    ) -> None:
        if human_player not in (0, 1):
            raise ValueError(f"human_player must be 0 or 1, got {human_player!r}")
        self.pygame = import_pygame()
        self.env, self.game, self.agent = env, env.game, agent
        self._act = as_policy(agent)
        self.hint_provider = hints
        self.human = human_player
        self.screenshot = screenshot
        self.view = env.make_view()
        width, height = self.view.size
        self.pygame.display.init()
        self.window = self.pygame.display.set_mode((width, height + HELP_HEIGHT))
        self.pygame.display.set_caption(title or env.window_title)
        self.clock = self.pygame.time.Clock()
        self.mouse = (-1, -1)
        self.show_hints = False
        self.hints: dict[int, str] = {}
        self.message, self.message_until = "", 0.0
        self.running = True
        self.frames = 0
        self._generation = 0  # bumped by undo/restart/swap so stale worker results are dropped
        self._lock = threading.Lock()
        self._agent_result: tuple[int, Any] | None = None
        self._hint_result: tuple[int, dict[int, str]] | None = None
        self._thinking = False
        self._hints_pending = False  # hints are being computed (the Dots 3x3 table takes seconds to solve)
        self._saved_end = False
        self.restart()

    # ---- game flow ---------------------------------------------------------------------------

    def restart(self, moves: Sequence[int] = ()) -> None:
        """Start a new game (or rebuild one from ``moves``) and let the agent move if it is its turn."""
        self._generation += 1
        self._thinking = False
        self._hints_pending = False
        self.env.reset(seed=0)
        for action in moves:
            self.env.step(action)
        self._saved_end = False
        self.hints = {}
        self._after_move()

    @property
    def human_to_move(self) -> bool:
        """Whether the game is on and it is the human's turn."""
        return not self.env.episode_over and self.game.current_player(self.env.state) == self.human

    def _after_move(self) -> None:
        if self.env.episode_over:
            self._save_screenshot()
            return
        if self.human_to_move:
            self.hints = {}
            if self.show_hints:
                self._request_hints()
        else:
            self._thinking = True
            self._start_worker(self._compute_agent_move)

    def _start_worker(self, target: Any) -> None:
        thread = threading.Thread(target=target, args=(self._generation, self.env.state), daemon=True)
        thread.start()

    def _request_hints(self) -> None:
        """Compute the hints in a worker; until they arrive the status line says it is solving."""
        self._hints_pending = True
        self._start_worker(self._compute_hints)

    def _compute_agent_move(self, generation: int, state: Any) -> None:
        try:
            result: Any = int(self._act(self.game, state))
        except Exception as error:  # shown in the window instead of killing the worker silently
            result = error
        with self._lock:
            self._agent_result = (generation, result)

    def _compute_hints(self, generation: int, state: Any) -> None:
        try:
            labels = self._hint_labels(state)
        except Exception as error:  # shown in the window; without a result the status would say "solving" forever
            labels = {}
            self.say(f"the hints failed: {error!r}", seconds=10)
        with self._lock:
            self._hint_result = (generation, labels)

    def _hint_labels(self, state: Any) -> dict[int, str]:
        if self.hint_provider is not None:
            labels = self.hint_provider(self.game, state, self.human)
        else:
            labels = dict.fromkeys(self.game.legal_actions(state), "?")
        evaluate = getattr(self.agent, "evaluate", None)
        if callable(evaluate):
            # A network opponent (AlphaZero) also shows what it thinks of the human's moves: its prior per
            # move under the exact or searched label, and its value of the position for the human.
            priors, values = evaluate(self.game, [state])
            labels = {a: f"{label} {priors[0][a]:.0%}" for a, label in labels.items()}
            self.say(f"network: value {float(values[0]):+.2f} for you; % = its prior for each move", seconds=8)
        return labels

    def _collect_worker_results(self) -> None:
        with self._lock:
            agent_result, self._agent_result = self._agent_result, None
            hint_result, self._hint_result = self._hint_result, None
        if hint_result is not None and hint_result[0] == self._generation:
            self.hints = hint_result[1]
            self._hints_pending = False
        if agent_result is None or agent_result[0] != self._generation:
            return
        self._thinking = False
        action = agent_result[1]
        if isinstance(action, Exception) or not self.game.is_legal(self.env.state, action):
            self.say(f"the agent failed: {action!r}", seconds=10)
            return
        self.env.step(action)
        self._after_move()

    def play_human(self, action: int) -> None:
        """Play the human's move ``action`` (assumed legal and the human's turn)."""
        self.hints = {}
        self.env.step(action)
        self._after_move()

    def undo(self) -> None:
        """Take back the human's last move and the agent's replies after it."""
        moves = list(self.env.moves)
        while moves and moves[-1][0] != self.human:
            moves.pop()
        if not moves:
            self.say("nothing to undo")
            return
        moves.pop()
        self.restart([action for _, action in moves])

    def swap(self) -> None:
        """Swap sides and start a new game."""
        self.human = 1 - self.human
        self.restart()

    def say(self, text: str, seconds: float = MESSAGE_SECONDS) -> None:
        """Show ``text`` in the status bar for a while."""
        self.message, self.message_until = text, time.monotonic() + seconds

    # ---- input -------------------------------------------------------------------------------

    def action_at(self, pos: tuple[int, int]) -> tuple[int | None, str]:
        """Return (the action a click at ``pos`` means, or None, and why not)."""
        state = self.env.state
        if isinstance(self.game, DotsAndBoxes):
            edge = self.view.edge_at(pos)
            if edge is None:
                return None, "click closer to an edge"
            return (edge, "") if self.game.is_legal(state, edge) else (None, "that edge is already drawn")
        cell = self.view.cell_at(pos)
        if cell is None:
            return None, "click on the board"
        if self.game.gravity:
            column = cell % self.game.cols
            return (column, "") if self.game.is_legal(state, column) else (None, f"column {column} is full")
        return (cell, "") if self.game.is_legal(state, cell) else (None, "that cell is taken")

    def handle(self, event: Any) -> None:
        """Process one pygame event."""
        pygame = self.pygame
        if event.type == pygame.QUIT:
            self.running = False
        elif event.type == pygame.MOUSEMOTION:
            self.mouse = event.pos
        elif event.type == pygame.MOUSEBUTTONDOWN and event.button == 1:
            self.mouse = event.pos
            if self.env.episode_over:
                self.say("the game is over: R starts a new one")
            elif not self.human_to_move:
                self.say("wait: the agent is thinking")
            else:
                action, reason = self.action_at(event.pos)
                if action is None:
                    self.say(reason)
                else:
                    self.play_human(action)
        elif event.type == pygame.KEYDOWN:
            if event.key in (pygame.K_ESCAPE, pygame.K_q):
                self.running = False
            elif event.key == pygame.K_h:
                self.show_hints = not self.show_hints
                if self.show_hints and self.human_to_move:
                    self.message_until = 0.0  # the status line says "solving" until the hints show
                    self._request_hints()
                else:
                    self._hints_pending = False
                    self.say("hints on" if self.show_hints else "hints off")
            elif event.key == pygame.K_u:
                self.undo()
            elif event.key == pygame.K_r:
                self.restart()
            elif event.key == pygame.K_s:
                self.swap()

    # ---- drawing -----------------------------------------------------------------------------

    def status(self) -> str:
        """The status-bar text: a recent message, the result, or whose turn it is."""
        names = self.env.player_names
        you = names[self.human]
        if time.monotonic() < self.message_until:
            return self.message
        if self.env.episode_over:
            result = self.env.status_text()
            winner = self.env.winner
            verdict = "Draw" if winner not in (0, 1) else ("You win!" if winner == self.human else "You lose")
            return f"{verdict} - {result}"
        if self._thinking:
            return "the agent is thinking..."
        scores = ""
        if isinstance(self.game, DotsAndBoxes):
            boxes = self.game.scores(self.env.state)
            scores = f" - you {boxes[self.human]}, agent {boxes[1 - self.human]}"
        if self.show_hints and self._hints_pending:
            return f"your move ({you}){scores} - {SOLVING}"
        return f"your move ({you}){scores}"

    def draw(self) -> None:
        """Draw the board, the mouse feedback, hints, the status and the key help."""
        from gym_boardgames.render.primitives import fitted_text

        pygame = self.pygame
        surface = self.window
        surface.fill((246, 242, 233))
        self.view.draw(surface, self.env.state, self.env.marks()._replace(status=self.status()))
        if self.human_to_move and not self._thinking:
            self._draw_hover(surface)
        if self.show_hints and self.human_to_move:
            self._draw_hints(surface)
        help_bar = pygame.Rect(0, self.view.size[1], self.view.size[0], HELP_HEIGHT)
        pygame.draw.rect(surface, (214, 208, 194), help_bar)
        label = fitted_text(KEYS_HELP, help_bar.inflate(-8, -2).size, (60, 60, 66), 20, smallest=10)
        surface.blit(label, label.get_rect(center=help_bar.center))

    def _draw_hover(self, surface: Any) -> None:
        from gym_boardgames.render.primitives import thick_line

        pygame = self.pygame
        action, _ = self.action_at(self.mouse)
        if action is None:
            return
        if isinstance(self.game, DotsAndBoxes):
            start, end = self.view.edge_segment(action)
            thick_line(surface, (160, 190, 235) if self.human == 0 else (240, 170, 165), start, end, 8)
        elif self.game.gravity:
            cell = self.game.action_cell(self.env.state, action)
            ghost = pygame.Surface(self.view.cell_rect(cell).size, pygame.SRCALPHA)
            colour = (214, 48, 49, 120) if self.human == 0 else (244, 196, 48, 140)
            pygame.draw.circle(
                ghost, colour, (ghost.get_width() // 2, ghost.get_height() // 2), int(self.view.cell * 0.4)
            )
            surface.blit(ghost, self.view.cell_rect(cell).topleft)
        else:
            rect = self.view.cell_rect(action).inflate(-6, -6)
            pygame.draw.rect(surface, (200, 220, 245), rect, border_radius=6)

    def hint_centre(self, action: int) -> tuple[int, int]:
        """Return the pixel centre of ``action``'s hint label: its cell, its landing cell, or its edge's middle."""
        if isinstance(self.game, DotsAndBoxes):
            start, end = self.view.edge_segment(action)
            return ((start[0] + end[0]) // 2, (start[1] + end[1]) // 2)
        if self.game.gravity:
            return self.view.cell_rect(self.game.action_cell(self.env.state, action)).center
        return self.view.cell_rect(action).center

    def _draw_hints(self, surface: Any) -> None:
        from gym_boardgames.render.primitives import fitted_text

        # Labels scale with the board: their font about a quarter of a cell (a fifth of the dot spacing), the
        # text no wider than the cell less the badge's margins (shrunk to fit, as "draw 11%" needs).
        if isinstance(self.game, DotsAndBoxes):
            largest, room = max(12, min(24, self.view.spacing // 5)), int(self.view.spacing * 0.6)
        else:
            largest, room = max(14, min(26, int(self.view.cell * 0.28))), self.view.cell - 16
        for action, label in self.hints.items():
            colour = HINT_COLOURS[label.split()[0]]
            text = fitted_text(label, (room, 2 * largest), colour, largest, bold=True)
            badge = text.get_rect(center=self.hint_centre(action)).inflate(10, 6)
            self.pygame.draw.rect(surface, HINT_BADGE, badge, border_radius=badge.height // 2)
            self.pygame.draw.rect(surface, colour, badge, width=2, border_radius=badge.height // 2)
            surface.blit(text, text.get_rect(center=badge.center))

    def _save_screenshot(self) -> None:
        if self.screenshot and not self._saved_end:
            self._write_screenshot()
            self._saved_end = True

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
        """Run one frame: events, worker results, drawing."""
        for event in self.pygame.event.get():
            self.handle(event)
        self._collect_worker_results()
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
        while self._thinking and time.monotonic() < deadline:
            self.frame()
            time.sleep(0.002)
        if self._thinking:
            raise TimeoutError(f"the agent did not reply within {timeout} s")

    def close(self) -> None:
        """Save the screenshot (if asked) and close the window."""
        if self.screenshot and self.pygame.display.get_init() and self.pygame.display.get_surface() is not None:
            self._write_screenshot()
        self._generation += 1
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
