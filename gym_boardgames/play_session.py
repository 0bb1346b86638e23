"""One game of a person against an agent, shared by the play window and the browser page.

:class:`PlaySession` holds what both front ends need and nothing about how a click arrives: the env in
self-play mode, whose turn it is, the agent's replies from a worker thread, the hints, undo, restart and swap,
the status line, and the drawing of the board with the package's own views. The window
(:class:`gym_boardgames.play.PlayApp`) feeds it pygame events; the web server (:mod:`gym_boardgames.web`)
feeds it the page's clicks and sends back the PNG it draws. The rules, the agents and the drawing are
therefore written once, in Python.

A session is safe to use from several threads: every method takes its lock, and the agent's worker plays
its reply under the same lock, then bumps :attr:`PlaySession.version` and wakes :meth:`PlaySession.wait_for_change`.
"""

from __future__ import annotations

import functools
import io
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from gym_boardgames.cancel import Cancelled, CancelSignal, cancellable
from gym_boardgames.envs.base import TwoPlayerEnv
from gym_boardgames.opponents import as_policy, make_opponent
from gym_boardgames.render.pygame_canvas import import_pygame

#: How a hint provider found its labels (:attr:`HintLabels.source`): every label the game-theoretic result...
EXACT = "exact"
#: ...or a depth-limited search's, ``"?"`` beyond its horizon.
SEARCH_ESTIMATE = "search estimate"
#: What :attr:`PlaySession.hint_source` says of estimated labels a network opponent added its priors to.
NETWORK_ESTIMATE = "network estimate"


class HintLabels(dict[int, str]):
    """A hint provider's ``{legal action: label}``, and how the labels were found (:attr:`source`).

    A plain ``dict`` in every other respect, so a provider that returns a plain one still works (its source
    is then unknown, ``""``, and the front ends name none).

    Args:
        labels: ``{legal action: label}``.
        source: :data:`EXACT` or :data:`SEARCH_ESTIMATE`.
    """

    def __init__(self, labels: Mapping[int, str], source: str) -> None:
        super().__init__(labels)
        self.source = source


#: A hint provider: ``(game, state, player) -> {legal action: label}`` for the mover's result after each
#: action: ``"win"``, ``"draw"``, ``"loss"`` or ``"?"`` (unknown), which may be followed by more words
#: (``"win in 3"``; the first word picks the colour). Returning :class:`HintLabels` also says how they were found.
HintProvider = Callable[[Any, Any, int], dict[int, str]]

MESSAGE_SECONDS = 2.5
# Hint labels are drawn on a white badge (the board, a disc or the hover's ghost disc may be under it), in
# colours dark enough to read on white: each has a contrast ratio of at least 5.5 with it (WCAG asks 4.5).
HINT_COLOURS = {"win": (22, 122, 58), "draw": (78, 78, 90), "loss": (186, 38, 38), "?": (92, 92, 106)}
HINT_BADGE = (255, 255, 255)
SOLVING = "solving the hints..."
#: The status line while the agent computes its reply; the window and the page count the seconds after it.
THINKING = "the agent is thinking..."
#: What :meth:`PlaySession.command` runs: the window's keys and the page's buttons.
COMMANDS = ("hints", "undo", "restart", "swap")
BACKGROUND = (246, 242, 233)


class PlaySession:
    """A game between a person and an agent (or a person on both sides), without any display.

    Args:
        env: a board env (TicTacToe, ConnectN or Dots and Boxes); it is used in self-play mode.
        agent: the opponent: an object with ``act(game, state) -> int`` or such a callable, or None for a
            person on both sides. If it also has ``evaluate(game, states) -> (priors, values)`` (a
            network), the hints add its priors and value.
        human_player: the side the person plays, 0 (moves first) or 1; ignored without an agent.
        hints: the hint provider, or None (then every move is labelled ``"?"``). If it returns
            :class:`HintLabels`, :attr:`hint_source` and the status line say how the labels were found.
        name: the agent's name, for the status line if it fails (default: its class's name).

    Raises:
        ValueError: if ``human_player`` is not 0 or 1, or ``env`` has a built-in opponent (it would move too).
    """

    def __init__(
        self,
        env: TwoPlayerEnv,
        agent: Any,
        human_player: int = 0,
        hints: HintProvider | None = None,
        name: str | None = None,
    ) -> None:
        if type(human_player) is not int or human_player not in (0, 1):  # 1.0 or True would index lists
            raise ValueError(f"human_player must be 0 or 1, got {human_player!r}")
        if not env.self_play:
            raise ValueError(
                "the env must be in self-play mode (opponent=None): the session's agent plays the other side"
            )
        self.env, self.game, self.agent = env, env.game, agent
        self._act = None if agent is None else as_policy(agent)
        self.name = name or getattr(agent, "__name__", type(agent).__name__)
        #: Why the agent could not reply (it raised, or played an illegal move), or ``""``: the game is over then.
        self.failure = ""
        self.hint_provider = hints
        self.human = human_player
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
        return self._act is None

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
        return not self.over and (self.both_sides or self.game.current_player(self.env.state) == self.human)

    @property
    def hints_pending(self) -> bool:
        """Whether hints are being computed for the position (a big search can take seconds)."""
        return self._hints_pending

    @property
    def mover(self) -> int:
        """The side the person moves for now: the side to move when playing both, else :attr:`human`."""
        return self.game.current_player(self.env.state) if self.both_sides else self.human

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
        try:
            with self._agent_busy:
                start = time.perf_counter()
                result: Any = int(self._act(self.game, state))  # type: ignore[misc]
        except Exception as error:  # shown in the status line instead of killing the worker silently
            result = error
        seconds = time.perf_counter() - start
        with self.lock:
            if generation != self._generation:
                return
            self._thinking_since = None
            if isinstance(result, Exception) or not self.game.is_legal(self.env.state, result):
                # The game cannot go on: it is over, and the status says why until a restart.
                why = repr(result) if isinstance(result, Exception) else f"it played {result}, not a legal move"
                self.failure = f"the opponent {self.name} failed: {why}"
                self._touch()
                return
            self.last_think_seconds = seconds
            self.agent_moves += 1
            self.env.step(result)
            self._after_move()

    def _compute_hints(self, generation: int, state: Any) -> None:
        try:
            labels = self._hint_labels(state)
        except Cancelled:  # the position was left: nobody waits for these hints
            return
        except Exception as error:  # shown; without a result the status would say "solving" forever
            labels = HintLabels({}, "")
            self.say(f"the hints failed: {error!r}", seconds=10)
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
        evaluate = getattr(self.agent, "evaluate", None)
        if callable(evaluate):
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
        """Play the person's ``action`` (a click's, or a move typed as text), or say in the status why not."""
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
                while moves and moves[-1][0] != self.human:
                    moves.pop()
            if not moves:
                self.say("nothing to undo")
                return
            moves.pop()
            self.restart([action for _, action in moves])

    def swap(self) -> None:
        """Swap sides and start a new game."""
        with self.lock:
            self.human = 1 - self.human
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
        """Run one of :data:`COMMANDS`: :meth:`toggle_hints`, :meth:`undo`, :meth:`restart` or :meth:`swap`.

        Raises:
            ValueError: on another name (the page and the widget send what a person's browser sent).
        """
        if name not in COMMANDS:
            raise ValueError(f"unknown command {name!r:.60}: use one of {', '.join(COMMANDS)}")
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
                    verdict = "You win!" if winner == self.human else "You lose"
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


def session_for(
    game: Any, opponent: str | None, human: int, hints: HintProvider | None = None, seed: Any = 0
) -> PlaySession:
    """Return a session of ``game`` against the agent named ``opponent`` (None: a person on both sides).

    The one place the page and the notebook widget turn a name into a session: the agent is built as the envs
    build theirs (:func:`gym_boardgames.opponents.make_opponent`, its failures one ValueError).
    """
    from gym_boardgames.envs import env_for_game

    agent = None if opponent is None else make_opponent(opponent, game, seed)
    return PlaySession(env_for_game(game, opponent=None), agent, human_player=human, hints=hints, name=opponent)
