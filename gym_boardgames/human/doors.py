"""One way in: :func:`play` opens any of the four doors where a person plays an agent.

The doors are the pygame window (``ui="window"``), a browser page served by the package (``"page"``), a
Jupyter widget (``"notebook"``) and the terminal (``"terminal"``). Every door takes the same five things, and
:func:`~gym_boardgames.human.table.resolve` resolves each of them once into a
:class:`~gym_boardgames.human.table.Table`: the game (a name as ``scripts/play.py``
takes it, with its size options, or a rules object), the opponent (any form
:func:`~gym_boardgames.opponents.make_opponent` takes; default: the game's
:func:`~agents.factory.default_opponent`), the person's side (``"first"``, ``"second"``, ``"both"``), the hints
(True: the package's :func:`~agents.hints.hint_labels`) and the seed. A door then only makes sessions from the
table and shows them::

    import gym_boardgames

    gym_boardgames.play("tictactoe", "alphabeta", ui="terminal")  # type moves: b2, h(ints), q(uit)
    gym_boardgames.play("connectfour", ui="page")  # a script: prints the URL, serves until Ctrl-C
    server = gym_boardgames.play("connectfour", ui="page")  # a REPL, a notebook: server.url; server.close()
    gym_boardgames.play("connectfour", ui="notebook")  # a Jupyter cell's value: the widget

One function rather than four: a person (or a tutorial) learns one call, as Gymnasium's ``play(env)``, and the
door is one argument. What only one door has (the window's ``screenshot``, the page's ``port``) is a keyword
that door takes; another door refuses it by name.
"""

from __future__ import annotations

import inspect
import warnings
from collections.abc import Callable
from typing import Any

from gym_boardgames.checks import check_choice
from gym_boardgames.human.server import PlayServer, in_kernel, serve
from gym_boardgames.human.table import Table, resolve
from gym_boardgames.human.terminal import open_terminal
from gym_boardgames.human.widget import open_widget, widget_class
from gym_boardgames.human.window import open_window

__all__ = ["UIS", "NoNotebookWarning", "open_door", "play"]

#: The doors of :func:`play`: the function that opens each on a :class:`~gym_boardgames.human.table.Table`, and
#: for a door that hands its ``**options`` on, what takes them (the page's server).
DOORS: dict[str, tuple[Callable[..., Any], Callable[..., Any] | None]] = {
    "window": (open_window, None),
    "page": (serve, PlayServer),
    "notebook": (open_widget, None),
    "terminal": (open_terminal, None),
}
UIS = tuple(DOORS)
#: The size options of a game given by its name (:func:`gym_boardgames.rules.registry.make_game`'s).
SIZE_OPTIONS = ("rows", "cols", "n", "gravity", "tie_break")


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
        ui: the door: ``"window"`` (pygame, the mouse), ``"page"`` (a browser page: from a script it prints the
            URL and serves until Ctrl-C; in a REPL or a notebook it returns the started
            :class:`~gym_boardgames.human.server.PlayServer`, whose value shows the URL, and ``close()`` stops
            it; see :func:`~gym_boardgames.human.server.serve`), ``"notebook"`` (returns the Jupyter widget, to
            be a cell's value; outside a Jupyter kernel a :class:`NoNotebookWarning` says nothing will show) or
            ``"terminal"`` (typed moves; returns the exit status).
        **options: the game's size options with a name (``rows``, ``cols``, ``n``, ``gravity``, ``tie_break``),
            and the door's own: the window's ``screenshot``, ``max_frames``; the page's ``host``, ``port``,
            ``token``, ``allow_remote``, ``limits``, ``wait``, ``start``; the terminal's ``input``, ``output``.

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
    """The function that opens door ``ui``; refuses the options it does not take, naming those it does."""
    door, handed_to = DOORS[check_choice("ui", ui, UIS)]
    if door is open_widget:
        widget_class()  # a missing extra is said before the game and its agent are built
        if not in_kernel():
            warnings.warn(NOTEBOOK_ONLY, NoNotebookWarning, stacklevel=3)
    takes = [name for function in (door, handed_to) if function for name in _keywords(function)]
    unknown = [name for name in options if name not in takes]
    if unknown:
        raise ValueError(f"ui={ui!r} takes no {', '.join(unknown)}: its options are {', '.join(takes) or 'none'}")
    return door


#: What ``ui="notebook"`` says where no Jupyter kernel runs (``python file.py``): the widget would show nothing.
NOTEBOOK_ONLY = (
    "ui='notebook' shows the game in a Jupyter cell, and no Jupyter kernel runs here, so nothing will show: "
    "from a script or a terminal use ui='window', 'page' or 'terminal'"
)


class NoNotebookWarning(UserWarning):
    """``ui="notebook"`` outside a Jupyter kernel: the widget is made, and nothing can show it."""


def _keywords(function: Callable[..., Any]) -> list[str]:
    """The keyword-only parameters of ``function``: a door's own options."""
    return [name for name, p in inspect.signature(function).parameters.items() if p.kind is p.KEYWORD_ONLY]
