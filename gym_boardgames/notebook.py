"""Play a board game in a Jupyter notebook: a widget that talks to the kernel over the widget channel, no port.

One cell plays::

    from gym_boardgames.notebook import play
    play("connectfour")  # the last value of a cell: the board, its buttons and the status line

The widget (an `anywidget <https://anywidget.dev>`_ of the ``notebook`` extra) runs on the same
:class:`~gym_boardgames.play_session.PlaySession` as the window and the browser page. Its front end,
``notebook.js``, shows the PNG the package's own views draw and sends the person's clicks (in the picture's own
pixels) and buttons back as widget messages; Python applies them to the session. A watcher thread waits on
:meth:`~gym_boardgames.play_session.PlaySession.wait_for_change` and pushes the new frame and status, so the
agent's reply, computed in the session's worker, shows without a request. It is the only thread that sets the
widget's state (ipykernel sends from any thread through its IOPub thread). Nothing listens on a port, so the
widget works wherever widgets do: JupyterHub, Binder, Colab, VS Code, a remote JupyterLab without a tunnel.
"""

from __future__ import annotations

import base64
import functools
import importlib
import threading
from collections.abc import Callable
from importlib import resources
from typing import Any

#: The sides the widget's menu offers: the person moves first, second, or plays both sides (no agent).
SIDES = ("first", "second", "both")
#: Seconds between two readings of the status line while nothing changes: a message's few seconds run out so.
STATUS_POLL_SECONDS = 0.5
#: The module of the hint labels (``hint_labels``), imported by its name: ``gym_boardgames`` never imports ``agents``.
HINTS = "agents.hints"
#: What :func:`play` says without the ``notebook`` extra.
MISSING = (
    'play() needs anywidget, the notebook extra: pip install "gym-boardgames[notebook]" (a clone: -e ".[notebook]")'
)


def play(
    game: Any,
    opponent: str | None = None,
    *,
    you: str = "first",
    hints: Any = True,
    seed: int | None = 0,
    **options: Any,
) -> Any:
    """Return a widget that plays ``game`` against ``opponent`` in a notebook cell, through the kernel's widget channel.

    Args:
        game: a game name as ``scripts/play.py`` takes it (``"tictactoe"``, ``"connectfour"``, ``"dotsandboxes"``,
            ``"connectn"``...) or a rules object.
        opponent: an agent name as ``scripts/play.py --opponent`` takes it (default: the game's
            ``agents.factory.default_opponent``). The widget's menu offers it, the default and the game's
            ``suggested_opponents``.
        you: ``"first"``, ``"second"`` or ``"both"`` (two people, no agent).
        hints: True for ``agents.hints.hint_labels`` behind the Hints button, False for none (every move ``"?"``),
            or a hint provider of one's own.
        seed: seeds each game's agent.
        **options: the game's size options when ``game`` is a name (``rows``, ``cols``, ``n``, ``gravity``,
            ``tie_break``), as :func:`gym_boardgames.rules.registry.make_game` takes them.

    Returns:
        The widget; ``widget.close()`` ends the game and its watcher thread.

    Raises:
        MissingExtraError: (an ``ImportError``) without anywidget, before any work.
        ValueError: an unknown game, size or side, or an opponent that cannot be built (the valid names listed).
    """
    from gym_boardgames.utils import MissingExtraError

    try:
        widget_class = _widget_class()
    except ImportError:
        raise MissingExtraError(MISSING) from None
    from gym_boardgames.checks import check_choice
    from gym_boardgames.opponents import FACTORY
    from gym_boardgames.play_session import PlaySession, session_for
    from gym_boardgames.rules.registry import make_game

    if isinstance(game, str):
        game = make_game(game, **options)
    elif options:
        raise ValueError(f"size options ({', '.join(options)}) go with a game's name, not a rules object")
    check_choice("you", you, SIDES)
    if opponent is not None and not isinstance(opponent, str):
        raise ValueError(f"opponent must be an agent name (the menu lists names), got {opponent!r:.60}")
    factory = importlib.import_module(FACTORY)
    default = factory.default_opponent(game)
    names = list(dict.fromkeys([opponent or default, default, *factory.suggested_opponents(game)]))
    provider = importlib.import_module(HINTS).hint_labels if hints is True else hints or None

    def new_session(name: str, side: str) -> PlaySession:
        return session_for(game, None if side == "both" else name, int(side == "second"), provider, seed)

    return widget_class(new_session(names[0], you), new_session, names, you)


@functools.cache
def _widget_class() -> type:
    """The widget class, made at the first :func:`play`: importing this module imports neither anywidget nor pygame."""
    import anywidget
    import traitlets

    from gym_boardgames.play_session import check_click

    class PlayWidget(anywidget.AnyWidget):
        """A game as a notebook widget: its state is the frame and the status line, ``notebook.js`` draws them.

        The page sends ``{"click": [x, y]}``, ``{"command": NAME}`` (one of
        :data:`~gym_boardgames.play_session.COMMANDS`) and ``{"new": {"opponent": NAME, "side": SIDE}}``.
        """

        _esm = resources.files("gym_boardgames").joinpath("notebook.js").read_text(encoding="utf-8")
        png = traitlets.Bytes().tag(sync=True)
        status = traitlets.Unicode().tag(sync=True)
        moves = traitlets.Int().tag(sync=True)
        thinking = traitlets.Bool().tag(sync=True)
        opponents = traitlets.List(traitlets.Unicode()).tag(sync=True)
        side = traitlets.Unicode().tag(sync=True)

        def __init__(self, session: Any, new_session: Callable[[str, str], Any], opponents: list[str], side: str):
            # The first frame is in the state the widget is made with: a notebook saved or exported at once keeps it.
            super().__init__(opponents=opponents, side=side, **_frame(session)[1])
            self.session, self._new_session, self._stop = session, new_session, threading.Event()
            self.on_msg(self._receive)
            self._watcher = threading.Thread(target=self._watch, daemon=True, name="play-widget")
            self._watcher.start()

        def _watch(self) -> None:
            shown: tuple[Any, ...] = ()
            while not self._stop.is_set():
                key, state = _frame(self.session, unless=shown)
                if key != shown and not self._stop.is_set():
                    with self.hold_sync():
                        self.set_trait("png", state["png"])  # one message with all four
                        self.status, self.moves, self.thinking = state["status"], state["moves"], state["thinking"]
                    shown = key
                key[0].wait_for_change(key[1], STATUS_POLL_SECONDS)  # close() and a new game wake it

        def _repr_mimebundle_(self, **kwargs: Any) -> tuple[dict[str, Any], dict[str, Any]]:
            """The widget view, and beside it the board as a PNG and the status line as text.

            A front end with a live kernel shows the view; where there is none (a notebook reopened without its
            kernel, ``nbconvert --to markdown``, a viewer that runs no widgets) the picture or the text shows,
            not the object's repr.
            """
            bundle = super()._repr_mimebundle_(**kwargs)
            data, metadata = bundle if isinstance(bundle, tuple) else (bundle or {}, {})
            _key, state = _frame(self.session)
            still = {"image/png": base64.b64encode(state["png"]).decode("ascii"), "text/plain": state["status"]}
            return {**data, **still}, metadata

        def _receive(self, _widget: Any, message: Any, _buffers: Any) -> None:
            """Apply a message from the page; a bad one is answered in the status line, never a traceback."""
            kind, value = next(iter(message.items())) if isinstance(message, dict) and len(message) == 1 else ("", 0)
            try:
                if kind == "click":
                    self.session.click(check_click(value))
                elif kind == "command":
                    self.session.command(value)
                elif kind == "new":
                    if not isinstance(value, dict):
                        raise ValueError(f'a new game is {{"opponent": NAME, "side": SIDE}}, not {value!r:.60}')
                    self._new_game(value.get("opponent"), value.get("side"))
                else:
                    raise ValueError(
                        f'send {{"click": [x, y]}}, {{"command": C}} or {{"new": ...}}, not {message!r:.60}'
                    )
            except (TypeError, ValueError, OSError, ImportError) as error:  # a name whose agent cannot be built
                self.session.say(f"refused: {error}", seconds=8)

        def _new_game(self, opponent: Any, side: Any) -> None:
            if opponent not in self.opponents:
                raise ValueError(f"unknown opponent {opponent!r:.60}: use one of {', '.join(self.opponents)}")
            if side not in SIDES:
                raise ValueError(f"side must be one of {', '.join(SIDES)}, got {side!r:.60}")
            old, self.session = self.session, self._new_session(opponent, side)
            old.close()  # wakes the watcher, which then shows the new game

        def close(self) -> None:
            """End the game and the watcher thread, then close the widget."""
            self._stop.set()
            self.session.close()
            self._watcher.join(timeout=30)
            super().close()

    def _frame(session: Any, unless: tuple[Any, ...] = ()) -> tuple[tuple[Any, ...], dict[str, Any]]:
        """``(key, state)``: the session's frame, status line, thinking flag and move count, read under its lock.

        The state holds the widget's traits; ``key`` says which frame it is, and the state is ``{}`` if it is
        ``unless``.
        """
        with session.lock:
            key = (session, session.version, session.status())
            if key == unless:
                return key, {}
            state = {"png": session.png(), "status": key[2], "thinking": session.thinking}
            return key, {**state, "moves": len(session.env.moves)}

    PlayWidget.__qualname__ = PlayWidget.__name__  # not _widget_class.<locals>.PlayWidget in reprs and errors
    return PlayWidget
