"""One game of a person against an agent, the engine under every play door.

:class:`PlaySession` holds what the four doors (:func:`gym_boardgames.play`: the window, the browser page, the
notebook widget and the terminal) need and nothing about how a click or a typed move arrives: the env in
self-play mode, whose turn it is, the agent's replies from a worker thread, the hints, undo, restart and swap
(:data:`COMMANDS`, the one list every door offers), the status line, and the drawing of the board with the
package's own views. The rules, the agents and the drawing are therefore written once, in Python.

A session is safe to use from several threads: every method takes its lock, and the agent's worker plays
its reply under the same lock, then bumps :attr:`PlaySession.version` and wakes :meth:`PlaySession.wait_for_change`.
Its arguments come resolved from :func:`gym_boardgames.human.doors.play`, which checks them once.
"""

from __future__ import annotations

import functools
import io
import threading
import time
from collections.abc import Callable, Sequence
from typing import Any, NamedTuple

from agents.hints import EXACT, HintLabels, HintProvider
from gym_boardgames.cancel import Cancelled, CancelSignal, cancellable
from gym_boardgames.checks import check_action, check_move
from gym_boardgames.envs.base import TwoPlayerEnv
from gym_boardgames.errors import describe_error, shown
from gym_boardgames.opponents import make_opponent
from gym_boardgames.render.pygame_canvas import import_pygame

#: What :attr:`PlaySession.hint_source` says of estimated labels a network opponent added its priors to.
NETWORK_ESTIMATE = "network estimate"


MESSAGE_SECONDS = 2.5
# Hint labels are drawn on a white badge (the board, a disc or the hover's ghost disc may be under it), in
# colours dark enough to read on white: each has a contrast ratio of at least 5.5 with it (WCAG asks 4.5).
HINT_COLOURS = {"win": (22, 122, 58), "draw": (78, 78, 90), "loss": (186, 38, 38), "?": (92, 92, 106)}
HINT_BADGE = (255, 255, 255)
SOLVING = "solving the hints..."
#: The status line while the agent computes its reply; the window and the page count the seconds after it.
THINKING = "the agent is thinking..."
#: The person's side, in every door: the first mover, the second, or both sides (two people, no agent).
SIDES = ("first", "second", "both")


class Command(NamedTuple):
    """One thing a person can ask of a game, as every door offers it."""

    #: What :meth:`PlaySession.command` runs, and what the page and the widget send.
    name: str
    #: The window's and the page's key, and the terminal's letter.
    key: str
    #: What :data:`COMMANDS` does, for the terminal's help and the buttons' titles.
    help: str


#: The commands of every door, in the order the buttons show them (the page and the widget get them from here).
COMMANDS = (
    Command("hints", "h", 'show or hide what each of your moves leads to ("win in 3", "draw", "loss", "?": unknown)'),
    Command("undo", "u", "take back your last move and the agent's replies"),
    Command("restart", "r", "start a new game"),
    Command("swap", "s", "swap sides and start a new game"),
)
BACKGROUND = (246, 242, 233)

COMMAND_NAMES = tuple(command.name for command in COMMANDS)


class PlaySession:
    """A game between a person and an agent (or a person on both sides), without any display.

    Args:
        env: a board env (TicTacToe, ConnectN or Dots and Boxes) in self-play mode (``opponent=None``).
        agent: the opponent, in any form :func:`~gym_boardgames.opponents.make_opponent` takes (a name, a
            user's ``module:Class``, an object, a callable, an :class:`~gym_boardgames.opponents.Opponent`), or
            None for a person on both sides. If its agent has ``evaluate(game, states) -> (priors, values)`` (a
            network), the hints add its priors and value.
        side: the seat the person plays, 0 (moves first) or 1; ignored without an agent.
        hints: the hint provider, or None (then every move is labelled ``"?"``). If it returns
            :class:`~agents.hints.HintLabels`, :attr:`hint_source` and the status line say how they were found.
        seed: seeds an agent built here from its name.
    """

    def __init__(
        self, env: TwoPlayerEnv, agent: Any, side: int = 0, hints: HintProvider | None = None, seed: Any = 0
    ) -> None:
        self.env, self.game = env, env.game
        #: The opponent as every door plays it (None: a person on both sides); its ``evaluate`` feeds the hints.
        self.agent = None if agent is None else make_opponent(agent, env.game, seed)
        self.name = "" if self.agent is None else self.agent.name
        #: Why the agent could not reply (it raised, or played an illegal move), or ``""``: the game is over then.
        self.failure = ""
        self.hint_provider = hints
        #: The person's seat: 0 (moves first) or 1.
        self.side = side
        self.show_hints = False
        self.hints: dict[int, str] = {}
        #: How :attr:`hints` were found: :data:`EXACT`, :data:`SEARCH_ESTIMATE`, :data:`NETWORK_ESTIMATE`
        #: (estimated labels with a network's priors), or ``""`` (no hints yet, or a provider that does not say).
        self.hint_source = ""
        self.message, self.message_until = "", 0.0
        #: Bumped at every change a viewer must redraw (a move, the hints, a message): the page waits on it.
        self.version = 0
        #: The agent's thinking time of its last reply, in seconds (the browser's round trip subtracts it).
        self.last_think_seconds = 0.0
        self.agent_moves = 0
        #: Held by every method; hold it to read several attributes of one moment (the web server does).
        self.lock = threading.RLock()
        self._changed = threading.Condition(self.lock)
        self._generation = 0  # bumped by undo/restart/swap/close so stale worker results are dropped
        # Cancelled with each bump: the workers' searches of the old position stop instead of computing on.
        self._cancel = CancelSignal()
        # One search of the agent at a time: a new reply waits for the cancelled one to stop, since an agent
        # (its random stream, its kept tree) is not made to be searched from two threads at once.
        self._agent_busy = threading.Lock()
        self._thinking_since: float | None = None
        self._hints_pending = False  # hints are being computed (a big search can take seconds)
        self.restart()

    # ---- game flow ---------------------------------------------------------------------------

    @functools.cached_property
    def pygame(self) -> Any:
        """pygame, imported at the first drawing or click: a session played as text never needs it."""
        return import_pygame()

    @functools.cached_property
    def view(self) -> Any:
        """The package's pygame view of the board, made at the first drawing or click."""
        self.pygame  # noqa: B018 - a clear DependencyNotInstalled before the view's own import
        return self.env.make_view()

    @property
    def both_sides(self) -> bool:
        """Whether the person plays both sides (no agent)."""
        return self.agent is None

    @property
    def thinking(self) -> bool:
        """Whether the agent is computing its reply."""
        return self._thinking_since is not None

    @property
    def thinking_seconds(self) -> float:
        """How long the agent has been computing its reply, in seconds (0 when it is not)."""
        return 0.0 if self._thinking_since is None else time.monotonic() - self._thinking_since

    @property
    def over(self) -> bool:
        """Whether the game is over: it ended, or the agent failed (:attr:`failure`)."""
        return self.env.episode_over or bool(self.failure)

    @property
    def human_to_move(self) -> bool:
        """Whether the game is on and it is the person's turn."""
        return not self.over and (self.both_sides or self.game.current_player(self.env.state) == self.side)

    @property
    def hints_pending(self) -> bool:
        """Whether hints are being computed for the position (a big search can take seconds)."""
        return self._hints_pending

    @property
    def mover(self) -> int:
        """The seat the person moves for now: the seat to move when playing both, else :attr:`side`."""
        return self.game.current_player(self.env.state) if self.both_sides else self.side

    def restart(self, moves: Sequence[int] = ()) -> None:
        """Start a new game (or rebuild one from ``moves``) and let the agent move if it is its turn.

        A reply or hints still being computed for the old position are dropped and their search stopped.
        """
        with self.lock:
            self._abandon_workers()
            self._hints_pending = False
            self.failure = ""
            self.env.reset(seed=0)
            for action in moves:
                self.env.step(action)
            self._after_move()

    def _after_move(self) -> None:
        self.hints, self.hint_source = {}, ""  # the last position's hints
        self.message_until = 0.0  # and its message: a restart, an undo or a reply makes it stale
        self._touch()
        if self.env.episode_over:
            self._on_game_over()
            return
        if self.human_to_move:
            if self.show_hints:
                self._request_hints()
        else:
            self._thinking_since = time.monotonic()
            self._start_worker(self._compute_agent_move)

    def _on_game_over(self) -> None:
        """Called once when a game ends (the window saves its screenshot here)."""

    def _touch(self) -> None:
        self.version += 1
        self._changed.notify_all()

    def _abandon_workers(self) -> None:
        """Drop the results of the running workers and stop their searches (:mod:`gym_boardgames.cancel`)."""
        self._generation += 1
        self._thinking_since = None
        self._cancel.cancel()
        self._cancel = CancelSignal()

    def _start_worker(self, target: Callable[[int, Any], None]) -> None:
        def work(generation: int, state: Any, signal: CancelSignal) -> None:
            with cancellable(signal):
                target(generation, state)

        args = (self._generation, self.env.state, self._cancel)
        threading.Thread(target=work, args=args, name="play session worker", daemon=True).start()

    def _request_hints(self) -> None:
        self._hints_pending = True
        self._start_worker(self._compute_hints)

    def _compute_agent_move(self, generation: int, state: Any) -> None:
        why = ""
        with self._agent_busy:
            start = time.perf_counter()
            try:  # the move is checked as the env and the arena check an agent's: one refusal, naming the agent
                action = check_move(self.game, state, self.agent.act(self.game, state), self.name)
            except Exception as error:  # shown in the status line instead of killing the worker silently
                why = str(error) if str(error).startswith("agent ") else f"agent {self.name}: {describe_error(error)}"
        seconds = time.perf_counter() - start
        with self.lock:
            if generation != self._generation:
                return
            self._thinking_since = None
            if why:  # the game cannot go on: it is over, and the status says why until a restart
                self.failure = f"the game stopped: {why}"
                self._touch()
                return
            self.last_think_seconds = seconds
            self.agent_moves += 1
            self.env.step(action)
            self._after_move()

    def _compute_hints(self, generation: int, state: Any) -> None:
        try:
            labels = self._hint_labels(state)
        except Cancelled:  # the position was left: nobody waits for these hints
            return
        except Exception as error:  # shown; without a result the status would say "solving" forever
            labels = HintLabels({}, "")
            self.say(f"the hints failed: {shown(error)}", seconds=10)
        with self.lock:
            if generation == self._generation:
                self.hints, self.hint_source = dict(labels), labels.source
                self._hints_pending = False
                self._touch()

    def _hint_labels(self, state: Any) -> HintLabels:
        """Return the provider's labels of ``state`` with their source; a network opponent adds its priors."""
        player = self.game.current_player(state)
        if self.hint_provider is not None:
            labels = self.hint_provider(self.game, state, player)
        else:
            labels = dict.fromkeys(self.game.legal_actions(state), "?")
        source = getattr(labels, "source", "")
        evaluate = None if self.agent is None else self.agent.evaluate
        if evaluate is not None:
            # A network opponent (AlphaZero) also shows what it thinks of the person's moves: its prior per
            # move under the exact or searched label, and its value of the position for the person. Labels
            # that are not exact are then the network's estimate, searched labels and priors together.
            priors, values = evaluate(self.game, [state])
            labels = {a: f"{label} {priors[0][a]:.0%}" for a, label in labels.items()}
            source = source if source == EXACT else NETWORK_ESTIMATE
            self.say(
                f"hints: {source}; network: value {float(values[0]):+.2f} for you, % = its prior for each move",
                seconds=8,
            )
        return HintLabels(labels, source)

    def click(self, pos: tuple[int, int]) -> None:
        """Play the move a click at pixel ``pos`` of the board means, or say in the status why not."""
        with self.lock:
            if self.over:
                self.say("the game is over: R starts a new one")
            elif not self.human_to_move:
                self.say("wait: the agent is thinking")
            else:
                action, reason = self.action_at(pos)
                self.say(reason) if action is None else self.play(action)

    def play(self, action: int) -> None:
        """Play the person's ``action`` (a click's, or a move typed as text), or say in the status why not.

        Raises:
            ActionTypeError: if ``action`` is not an integer action (the env's and the arena's refusal).
        """
        action = check_action(action, self.game.num_actions)
        with self.lock:
            if not self.human_to_move:
                self.say("the game is over" if self.over else "wait: the agent is thinking")
            elif not self.game.is_legal(self.env.state, action):
                self.say(f"{action} is not a legal move here")
            else:
                self.env.step(action)
                self._after_move()

    def undo(self) -> None:
        """Take back the person's last move and the agent's replies after it (one move when playing both)."""
        with self.lock:
            moves = list(self.env.moves)
            if not self.both_sides:
                while moves and moves[-1][0] != self.side:
                    moves.pop()
            if not moves:
                self.say("nothing to undo")
                return
            moves.pop()
            self.restart([action for _, action in moves])

    def swap(self) -> None:
        """Swap sides and start a new game."""
        with self.lock:
            self.side = 1 - self.side
            self.restart()

    def toggle_hints(self) -> None:
        """Show or hide the hints; shown, they are computed for the position in a worker."""
        with self.lock:
            self.show_hints = not self.show_hints
            if self.show_hints and self.human_to_move:
                self.message_until = 0.0  # the status line says "solving" until the hints show
                self._request_hints()
            else:
                self._hints_pending = False
                self.say("hints on" if self.show_hints else "hints off")
            self._touch()

    def stop_hints(self) -> None:
        """Stop the hints being computed and hide them; the game goes on (Ctrl-C in the terminal game)."""
        with self.lock:
            if self._hints_pending:  # hints are computed on the person's turn: the agent has no search to stop
                self._abandon_workers()
            self.show_hints, self._hints_pending = False, False
            self.say("hints stopped: h shows them again")

    def command(self, name: str) -> None:
        """Run one of :data:`COMMANDS` by its name: :meth:`toggle_hints`, :meth:`undo`, :meth:`restart` or :meth:`swap`.

        Raises:
            ValueError: on another name (the page and the widget send what a person's browser sent).
        """
        if name not in COMMAND_NAMES:
            raise ValueError(f"unknown command {name!r:.60}: use one of {', '.join(COMMAND_NAMES)}")
        {"hints": self.toggle_hints, "undo": self.undo, "restart": self.restart, "swap": self.swap}[name]()

    def say(self, text: str, seconds: float = MESSAGE_SECONDS) -> None:
        """Show ``text`` in the status line for a while, or until the position changes (a result stays beside it)."""
        with self.lock:
            self.message, self.message_until = text, time.monotonic() + seconds
            self._touch()

    def close(self) -> None:
        """Drop any reply or hint still being computed and stop its search: the session is done."""
        with self.lock:
            self._abandon_workers()
            self._touch()

    def wait_for_change(self, since: int, timeout: float) -> int:
        """Block until :attr:`version` exceeds ``since`` or ``timeout`` seconds pass; return the version."""
        with self.lock:
            self._changed.wait_for(lambda: self.version > since, timeout=timeout)
            return self.version

    # ---- clicks ------------------------------------------------------------------------------

    def action_at(self, pos: tuple[int, int]) -> tuple[int | None, str]:
        """Return (the action a click at ``pos`` means, or None, and why not)."""
        return self.view.action_at(pos, self.env.state)

    # ---- the status and the drawing ----------------------------------------------------------

    def status(self) -> str:
        """The status line: the result once the game is over, else a recent message or whose turn it is.

        The result is never hidden: a message that arrives after the end (the hints' network value, a click)
        is shown after it.
        """
        with self.lock:
            message = self.message if time.monotonic() < self.message_until else ""
            if self.over:
                winner = self.env.winner
                if self.failure:
                    result = self.failure
                elif self.both_sides:  # the env's own line names the winner ("X wins", "Red wins (5-4)")
                    result = self.env.status_text()
                elif winner not in (0, 1):  # the env's line says the draw already ("Draw", "Draw (2-2)")
                    result = self.env.status_text()
                else:
                    verdict = "You win!" if winner == self.side else "You lose"
                    result = f"{verdict} - {self.env.status_text()}"
                return f"{result} ({message})" if message else result
            if message:
                return message
            if self.thinking:
                return THINKING
            you = self.env.player_names[self.mover]
            scores = ""
            if hasattr(self.game, "scores"):  # Dots and Boxes' boxes
                boxes = self.game.scores(self.env.state)
                other = "other" if self.both_sides else "agent"
                scores = f" - you {boxes[self.mover]}, {other} {boxes[1 - self.mover]}"
            turn = f"{you} to move" if self.both_sides else f"your move ({you})"
            hints = ""
            if self.show_hints and self._hints_pending:
                hints = f" - {SOLVING}"
            elif self.show_hints and self.hint_source:
                hints = f" - hints: {self.hint_source}"
            return f"{turn}{scores}{hints}"

    def draw_board(self, surface: Any, mouse: tuple[int, int] | None = None) -> None:
        """Draw the board, the status line, the hover under ``mouse`` and the hints on ``surface``."""
        with self.lock:
            surface.fill(BACKGROUND)
            self.view.draw(surface, self.env.state, self.env.marks()._replace(status=self.status()))
            action = self.action_at(mouse)[0] if mouse is not None and self.human_to_move else None
            if action is not None:
                self.view.draw_hover(surface, self.env.state, action, self.mover)
            if self.show_hints and self.human_to_move:
                self._draw_hints(surface)

    def png(self) -> bytes:
        """Return the board as :meth:`draw_board` draws it (no hover), encoded as PNG."""
        surface = self.pygame.Surface(self.view.size)
        self.draw_board(surface)
        buffer = io.BytesIO()
        self.pygame.image.save(surface, buffer, "board.png")
        return buffer.getvalue()

    def _draw_hints(self, surface: Any) -> None:
        from gym_boardgames.render.primitives import fitted_text

        largest, room = self.view.hint_size  # labels scale with the board, shrunk to fit (as "draw 11%" needs)
        for action, label in self.hints.items():
            colour = HINT_COLOURS[label.split()[0]]
            # On two lines a network's prior goes below the result: "win in 19" over "86%", not "19 86%".
            result, _, prior = label.rpartition(" ")
            text = f"{result}\n{prior}" if prior.endswith("%") else label
            text = fitted_text(text, (room, 2 * largest), colour, largest, bold=True)
            badge = text.get_rect(center=self.view.hint_centre(self.env.state, action)).inflate(10, 6)
            radius = min(badge.height // 2, 14)  # a pill on one line; on two, round ends would cut the text's corners
            self.pygame.draw.rect(surface, HINT_BADGE, badge, border_radius=radius)
            self.pygame.draw.rect(surface, colour, badge, width=2, border_radius=radius)
            surface.blit(text, text.get_rect(center=badge.center))


def check_click(point: Any) -> tuple[int, int]:
    """Return a click ``[x, y]`` sent by the page or the widget as pixels, or raise ValueError naming it."""
    numbers = isinstance(point, list) and len(point) == 2 and all(type(v) in (int, float) for v in point)
    if not (numbers and all(-1e6 < v < 1e6 for v in point)):  # not NaN either: no comparison holds for it
        raise ValueError(f"a click is [x, y] in the picture's pixels, not {point!r:.60}")
    return int(point[0]), int(point[1])
