"""One way in: :func:`play` opens any of the four doors where a person plays an agent.

The doors are the pygame window (``ui="window"``), a browser page served by the package (``"page"``), a
Jupyter widget (``"notebook"``) and the terminal (``"terminal"``). Every door takes the same five things, and
:func:`resolve` resolves each of them once, here, into a :class:`Table`: the game (a name as ``scripts/play.py``
takes it, with its size options, or a rules object), the opponent (any form
:func:`~gym_boardgames.opponents.make_opponent` takes; default: the game's
:func:`~agents.factory.default_opponent`), the person's side (:data:`SIDES`), the hints (True: the package's
:func:`~agents.hints.hint_labels`) and the seed. A door then only makes sessions from the table and shows them::

    import gym_boardgames

    gym_boardgames.play("tictactoe", "alphabeta", ui="terminal")  # type moves: b2, h(ints), q(uit)
    server = gym_boardgames.play("connectfour", ui="page")       # server.url; server.close() stops it
    gym_boardgames.play("connectfour", ui="notebook")             # a Jupyter cell's value: the widget

One function rather than four: a person (or a tutorial) learns one call, as Gymnasium's ``play(env)``, and the
door is one argument. What only one door has (the window's ``screenshot``, the page's ``port``) is a keyword
that door takes; another door refuses it by name.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from agents.factory import default_opponent, suggested_opponents
from agents.hints import HintProvider, hint_labels
from gym_boardgames.checks import check_choice, check_int
from gym_boardgames.envs import env_for_game
from gym_boardgames.human.session import SIDES, PlaySession
from gym_boardgames.opponents import make_opponent
from gym_boardgames.rules.registry import make_game

__all__ = ["SIDES", "UIS", "Table", "open_door", "play", "resolve"]

#: The doors of :func:`play`.
UIS = ("window", "page", "notebook", "terminal")
#: The size options of a game given by its name (:func:`gym_boardgames.rules.registry.make_game`'s).
SIZE_OPTIONS = ("rows", "cols", "n", "gravity", "tie_break")


@dataclass(frozen=True)
class Table:
    """A game ready to be played through any door: everything :func:`play` was given, resolved once.

    Attributes:
        game: the rules object.
        opponents: the opponents a door offers, by name, the chosen one first (then the game's suggested
            agents); each maps to what :func:`~gym_boardgames.opponents.make_opponent` builds it from.
        side: the person's side, one of :data:`SIDES`.
        hints: the hint provider, or None (every move ``"?"``).
        seed: seeds each game's agent.
        title: the game's title.
    """

    game: Any
    opponents: dict[str, Any]
    side: str
    hints: HintProvider | None
    seed: int | None
    #: The game's title (``"Connect Four"``), for the window's caption and the page's heading.
    title: str

    @property
    def opponent(self) -> str:
        """The name of the opponent chosen (the first offered)."""
        return next(iter(self.opponents))

    def session(
        self, opponent: str | None = None, side: str | None = None, kind: type[PlaySession] = PlaySession, **extra: Any
    ) -> PlaySession:
        """Return a new game against ``opponent`` (a name of :attr:`opponents`; default the chosen one) on ``side``.

        ``kind`` is the session's class (the window's :class:`~gym_boardgames.human.window.PlayApp`), given
        ``extra`` keywords.

        Raises:
            ValueError: a name that is not offered, or a side not in :data:`SIDES` (the page and the widget pass
                what a person's browser sent); an opponent that cannot be built names itself.
        """
        opponent = self.opponent if opponent is None else opponent
        side = check_choice("side", self.side if side is None else side, SIDES)
        if opponent not in self.opponents:
            raise ValueError(f"unknown opponent {opponent!r:.60}: use one of {', '.join(self.opponents)}")
        agent = None if side == "both" else self.opponents[opponent]
        env = env_for_game(self.game, opponent=None)
        return kind(env, agent, side=int(side == "second"), hints=self.hints, seed=self.seed, **extra)


def resolve(
    game: Any, opponent: Any = None, side: str = "first", hints: Any = True, seed: int | None = 0, **sizes: Any
) -> Table:
    """Return the :class:`Table` of :func:`play`'s arguments: each checked once, here (see :func:`play`).

    The chosen opponent is built once now, so that one that cannot play the game is refused before any door
    opens; a door builds each game's agent again from the same form.
    """
    if isinstance(game, str):
        game = make_game(game, **sizes)
    elif sizes:
        raise ValueError(f"size options ({', '.join(sizes)}) go with a game's name, not a rules object")
    side = check_choice("side", side, SIDES)
    if hints is True:
        hints = hint_labels
    elif hints is False or hints is None:
        hints = None
    elif not callable(hints):
        raise ValueError(f"hints must be True, False or a provider (game, state, player) -> labels, got {hints!r:.60}")
    if seed is not None:
        check_int("seed", seed, 0)
    title = env_for_game(game, opponent=None).window_title  # a game without a board env is refused here
    chosen = default_opponent(game) if opponent is None else opponent
    first = make_opponent(chosen, game, seed)
    # A name is built again for each game (a fresh agent, seeded alike); an object is played as it is.
    opponents = {first.name: chosen if isinstance(chosen, str) else first}
    for name in suggested_opponents(game):
        opponents.setdefault(name, name)
    return Table(game, opponents, side, hints, seed, title)


def play(
    game: Any,
    opponent: Any = None,
    *,
    side: str = "first",
    hints: Any = True,
    seed: int | None = 0,
    ui: str = "window",
    **options: Any,
) -> Any:
    """Play ``game`` against ``opponent`` through the door ``ui``.

    Args:
        game: a game's name as ``scripts/play.py`` takes it (``"tictactoe"``, ``"connectfour"``, ``"connectn"``,
            ``"dotsandboxes"``...) or a rules object.
        opponent: the agent: a name of the agent table (``"alphazero"``, ``"mcts:2000"``, ``"perfect"``...),
            a user's ``"module:Class"`` or ``"file.py:Class"``, an object with ``act(game, state) -> int``, a
            callable, or None for the game's default (``agents.factory.default_opponent``). The page's and the
            widget's menus offer it, then the game's suggested agents.
        side: ``"first"``, ``"second"`` or ``"both"`` (two people, no agent).
        hints: True for the package's hints (exact where a solver reaches, searched elsewhere; against a network
            its priors and value too), False for none, or a provider ``(game, state, player) -> {action: label}``.
        seed: seeds each game's agent (an int >= 0, or None).
        ui: the door: ``"window"`` (pygame, the mouse), ``"page"`` (a browser page; returns the started
            :class:`~gym_boardgames.human.server.PlayServer`), ``"notebook"`` (returns the Jupyter widget, to be
            a cell's value) or ``"terminal"`` (typed moves; returns the exit status).
        **options: the game's size options with a name (``rows``, ``cols``, ``n``, ``gravity``, ``tie_break``),
            and the door's own: the window's ``screenshot``, ``max_frames``; the page's ``host``, ``port``,
            ``token``, ``allow_remote``, ``limits``, ``start``; the terminal's ``input``, ``output``.

    Raises:
        ValueError: an unknown game, size, side, door or option, hints that are no provider, or an opponent that
            cannot play the game (the message names the valid choices).
        MissingExtraError: (an ``ImportError``) ``"notebook"`` without anywidget, before any work.
    """
    door = _door(ui, [name for name in options if name not in SIZE_OPTIONS])
    table = resolve(game, opponent, side, hints, seed, **{k: v for k, v in options.items() if k in SIZE_OPTIONS})
    return door(table, **{name: value for name, value in options.items() if name not in SIZE_OPTIONS})


def open_door(table: Table, ui: str, **options: Any) -> Any:
    """Open the door ``ui`` on a resolved ``table`` with the door's own ``options`` (what :func:`play` does last).

    ``scripts/play.py`` resolves the table while it parses its flags (a refusal names ``--opponent``), then
    opens the door its flags chose here.
    """
    return _door(ui, list(options))(table, **options)


def _door(ui: str, options: list[str]) -> Callable[..., Any]:
    """The function that opens door ``ui``, imported only when that door is asked for; refuses others' options."""
    check_choice("ui", ui, UIS)
    if ui == "window":
        from gym_boardgames.human.window import open_window as door
    elif ui == "page":
        from gym_boardgames.human.server import serve as door
    elif ui == "notebook":
        from gym_boardgames.human.widget import open_widget as door
    else:
        from gym_boardgames.human.terminal import open_terminal as door
    takes = [name for name in inspect.signature(door).parameters if name != "table"]
    unknown = [name for name in options if name not in takes]
    if unknown:
        raise ValueError(f"ui={ui!r} takes no {', '.join(unknown)}: its options are {', '.join(takes) or 'none'}")
    return door
