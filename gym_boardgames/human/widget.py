"""The notebook door: a widget that talks to the kernel over the widget channel, no port.

One cell plays; the widget is the cell's value::

    import gym_boardgames

    gym_boardgames.play("connectfour", ui="notebook")

The widget (an `anywidget <https://anywidget.dev>`_ of the ``notebook`` extra) runs on the same
:class:`~gym_boardgames.human.session.PlaySession` as the other doors. Its front end, ``widget.js``, shows the
PNG the package's own views draw, offers the session's commands, and sends the person's clicks (in the
picture's own pixels) and buttons back as widget messages; Python applies them to the session. A watcher thread
waits on :meth:`~gym_boardgames.human.session.PlaySession.wait_for_change` and pushes the new frame and status, so
the agent's reply, computed in the session's worker, shows without a request. It is the only thread that sets
the widget's state (ipykernel sends from any thread through its IOPub thread). Nothing listens on a port, so the
widget works wherever widgets do: JupyterHub, Binder, Colab, VS Code, a remote JupyterLab without a tunnel.

Where no kernel runs (an exported page, a notebook reopened later), the widget cannot draw, so a cell that shows it
keeps a still of the game beside the widget: two more outputs, the status line and the board's PNG, which the
watcher updates as the game goes (IPython's display ids). Each also carries a widget view of no model
(``"model_id": ""``, the mark ipywidgets gives a view that was removed): JupyterLab and Notebook 7 hide such a
view, so the board does not show twice while the game plays, and ``nbconvert`` falls back to the still's text
and picture, inline, offline too. The widget's own output cannot carry them: ``nbconvert --to html`` renders
one type per output, the widget view whenever the notebook holds the widget's state (as ``nbconvert --execute``
saves it), and that view needs the widget manager from a CDN.
"""

from __future__ import annotations

import base64
import functools
import threading
from importlib import resources
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from gym_boardgames.human.table import Table

#: Seconds between two readings of the status line while nothing changes: a message's few seconds run out so.
STATUS_POLL_SECONDS = 0.5
#: The widget views' type: a bundle holding one shows a widget where a widget manager runs.
WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"
#: What the notebook door says without the ``notebook`` extra.
MISSING = (
    'ui="notebook" needs anywidget, the notebook extra: pip install "gym-boardgames[notebook]" '
    '(a clone: -e ".[notebook]")'
)


def open_widget(table: Table) -> Any:
    """Return a widget that plays ``table``'s game in a notebook cell (``gym_boardgames.play(ui="notebook")``).

    Its menus offer ``table``'s opponents and every side; ``widget.close()`` ends the game and its watcher.

    Raises:
        MissingExtraError: (an ``ImportError``) without anywidget, before any game starts.
    """
    return widget_class()(table)


def widget_class() -> type:
    """The widget class, made once; :func:`gym_boardgames.play` asks for it before any work.

    Raises:
        MissingExtraError: (an ``ImportError``) without anywidget, the notebook extra.
    """
    from gym_boardgames.utils import MissingExtraError

    try:
        return _widget_class()
    except ImportError:
        raise MissingExtraError(MISSING) from None


@functools.cache
def _widget_class() -> type:
    """The widget class, made at the first :func:`open_widget`: importing the module imports no anywidget, no pygame."""
    import anywidget
    import traitlets
    from IPython.display import display, update_display

    from gym_boardgames.human.session import COMMANDS, SIDES, check_click

    class PlayWidget(anywidget.AnyWidget):
        """A game as a notebook widget: its state is the frame and the status line, ``notebook.js`` draws them.

        The page sends ``{"click": [x, y]}``, ``{"command": NAME}`` (a name of
        :data:`~gym_boardgames.human.session.COMMANDS`) and ``{"new": {"opponent": NAME, "side": SIDE}}`` (a key
        left out: the table's choice, as on the browser page).
        """

        _esm = resources.files("gym_boardgames.human").joinpath("widget.js").read_text(encoding="utf-8")
        png = traitlets.Bytes().tag(sync=True)
        status = traitlets.Unicode().tag(sync=True)
        moves = traitlets.Int().tag(sync=True)
        thinking = traitlets.Bool().tag(sync=True)
        opponents = traitlets.List(traitlets.Unicode()).tag(sync=True)
        side = traitlets.Unicode().tag(sync=True)
        sides = traitlets.List(traitlets.Unicode()).tag(sync=True)
        commands = traitlets.List(traitlets.Dict()).tag(sync=True)

        def __init__(self, table: Table):
            session = table.session()
            commands = [command._asdict() for command in COMMANDS]
            # The first frame is in the state the widget is made with: a notebook saved or exported at once keeps it.
            menus = {"opponents": list(table.opponents), "side": table.side, "sides": list(SIDES)}
            super().__init__(commands=commands, **menus, **_frame(session)[1])
            self.table, self.session, self._stop = table, session, threading.Event()
            # Once a cell has shown the widget: the still's widget view (of no model) and its two display ids.
            self._stills: tuple[dict[str, Any], str, str] | None = None
            self._still_lock = threading.Lock()
            self.on_msg(self._receive)
            self._watcher = threading.Thread(target=self._watch, daemon=True, name="play-widget")
            self._watcher.start()

        def _watch(self) -> None:
            shown: tuple[Any, ...] = ()
            while not self._stop.is_set():
                key, state = _frame(self.session, unless=shown)
                if key != shown and not self._stop.is_set():
                    with self._still_lock:  # before the traits: a cell that waits on them finds the still sent
                        self._show_still(state, update=True)
                    with self.hold_sync():
                        self.set_trait("png", state["png"])  # one message with all four
                        self.status, self.moves, self.thinking = state["status"], state["moves"], state["thinking"]
                    shown = key
                key[0].wait_for_change(key[1], STATUS_POLL_SECONDS)  # close() and a new game wake it

        def _repr_mimebundle_(self, **kwargs: Any) -> tuple[dict[str, Any], dict[str, Any]]:
            """The widget view, and beside it the board as a PNG and the status line as text.

            For a host that asks the widget for one bundle; IPython shows :meth:`_ipython_display_`'s outputs instead.
            """
            view, metadata = self._view()
            _key, state = _frame(self.session)
            return {WIDGET_VIEW: view, **_still(state)}, metadata

        def _ipython_display_(self) -> None:
            """Show the widget (a cell's value, ``display(widget)``), then its still: the status line and the board.

            The widget's own output holds the view and, as its text, the game's title (anywidget's is the repr).
            """
            view, metadata = self._view()
            display({WIDGET_VIEW: view, "text/plain": self.table.title}, metadata=metadata, raw=True)
            with self._still_lock:  # the frame is read under it: one the watcher sent before is not lost
                # The view of no model: JupyterLab hides the output, nbconvert falls back to the text or the PNG.
                removed = {WIDGET_VIEW: {**view, "model_id": ""}}
                self._stills = self._stills or (removed, f"{self.model_id}-status", f"{self.model_id}-board")
                # A second display of the widget makes a second still with the same ids: each update reaches both.
                self._show_still(_frame(self.session)[1], update=False)

        def _show_still(self, state: dict[str, Any], update: bool) -> None:
            """Show ``state`` (a :func:`_frame`) in the still's two outputs, once a cell has shown the widget.

            The watcher updates them and a cell displays them, each holding ``_still_lock``, so one at a time.
            """
            if self._stills is None:  # not shown by IPython: outside a kernel display() would print it
                return
            removed, *display_ids = self._stills
            still = _still(state)
            status = {**removed, "text/plain": still["text/plain"]}
            board = {**removed, "image/png": still["image/png"], "text/plain": f"the board of {self.table.title}"}
            for data, display_id in zip((status, board), display_ids, strict=True):
                (update_display if update else display)(data, raw=True, display_id=display_id)

        def _view(self) -> tuple[dict[str, Any], dict[str, Any]]:
            """The widget view's fields (protocol version, model id) and the output's metadata, as anywidget has them.

            In Colab the metadata names its custom widget manager.
            """
            data, metadata = super()._repr_mimebundle_()
            return data[WIDGET_VIEW], metadata

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
                    self._new_game(value)
                else:
                    raise ValueError(
                        f'send {{"click": [x, y]}}, {{"command": C}} or {{"new": ...}}, not {message!r:.60}'
                    )
            except (TypeError, ValueError, OSError, ImportError) as error:  # a name whose agent cannot be built
                self.session.say(f"refused: {error}", seconds=8)

        def _new_game(self, asked: dict[str, Any]) -> None:
            """Start the game ``{"opponent": NAME, "side": SIDE}`` asks for, as the page's ``POST /api/games`` does.

            A key left out means the table's choice; ``null`` is refused with the page's line. It is checked here:
            :meth:`~gym_boardgames.human.table.Table.session` takes Python's ``None`` for the table's choice.
            """
            opponent, side = asked.get("opponent", self.table.opponent), asked.get("side", self.table.side)
            if opponent is None or side is None:
                names = ", ".join(self.table.opponents)
                raise ValueError(
                    f'a game is {{"opponent": one of {names}, "side": one of {", ".join(SIDES)}}}, '
                    f"got {opponent!r:.60} and {side!r:.60}"
                )
            old, self.session = self.session, self.table.session(opponent, side)
            old.close()  # wakes the watcher, which then shows the new game

        def close(self) -> None:
            """End the game and the watcher thread, then close the widget."""
            self._stop.set()
            self.session.close()
            self._watcher.join(timeout=30)
            super().close()

    def _still(state: dict[str, Any]) -> dict[str, str]:
        """``state``'s board (a :func:`_frame`) as a bundle's ``image/png``, its status line as ``text/plain``."""
        return {"image/png": base64.b64encode(state["png"]).decode("ascii"), "text/plain": state["status"]}

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
