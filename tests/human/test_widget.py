"""gym_boardgames.human.widget: the widget's Python side, without a browser (test_widget_in_browser.py has one).

Messages go in as the page sends them, through the widget's comm handler; frames and the status line come out as
the widget's synced traits. Outside a kernel ipywidgets gives the widget a comm that sends nothing, so the traits
are what the page would receive. Waits have no deadline but a hang guard.
"""

import base64
import html
import io
import json
import math
import os
import re
import subprocess
import sys
import threading

import pytest

pytest.importorskip("pygame")

import gym_boardgames  # noqa: E402
from gym_boardgames.human.doors import Table  # noqa: E402
from gym_boardgames.rules.registry import make_game  # noqa: E402
from gym_boardgames.utils import MissingExtraError  # noqa: E402

HANG_GUARD_S = 600


@pytest.fixture(scope="module")
def notebook():
    if not os.environ.get("CI"):  # CI installs the notebook extra: there a missing one is a broken install
        pytest.importorskip("anywidget", reason="the notebook extra (anywidget) is not installed")
    import gym_boardgames.human.widget

    return gym_boardgames.human.widget


@pytest.fixture
def widgets():
    made = []
    yield made
    for widget in made:
        widget.close()


@pytest.fixture
def play(notebook, widgets):
    """``gym_boardgames.play(..., ui="notebook")``, as a cell calls it; each widget is closed after the test."""

    def start(*args, **kwargs):
        widget = gym_boardgames.play(*args, ui="notebook", **kwargs)
        widgets.append(widget)
        return widget

    return start


def send(widget, content):
    """Deliver ``content`` as the page's ``model.send(content)`` arrives: a custom message on the widget's comm."""
    widget._handle_msg({"content": {"data": {"method": "custom", "content": content}}, "buffers": []})


def until(widget, condition):
    """Wait until ``condition()`` holds for what the widget shows (its traits), or fail at the hang guard."""
    for _ in range(HANG_GUARD_S * 20):
        with widget.session.lock:
            if condition():
                return
        widget.session.wait_for_change(widget.session.version, 0.05)
    raise AssertionError(f"never happened; the widget shows {widget.status!r}, {widget.moves} moves")


def shown(widget):
    """The widget shows the session as it is now: the frame the views draw, the status, the moves."""
    session = widget.session
    return (widget.png, widget.status, widget.moves) == (session.png(), session.status(), len(session.env.moves))


def cell(widget, index):
    return list(widget.session.view.cell_rect(index).center)


def test_importing_the_module_imports_neither_the_widget_library_nor_pygame_nor_agents():
    names = "{'anywidget', 'ipywidgets', 'traitlets', 'pygame', 'agents'}"
    code = f"import sys, gym_boardgames.human.widget; print(sorted({names} & set(sys.modules)))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


def test_a_missing_extra_is_one_line_naming_the_install_before_any_work(monkeypatch, notebook):
    monkeypatch.setitem(sys.modules, "anywidget", None)  # import anywidget now raises ImportError
    notebook._widget_class.cache_clear()
    try:
        with pytest.raises(MissingExtraError, match=r'pip install "gym-boardgames\[notebook\]"'):
            gym_boardgames.play("no such game", ui="notebook")  # the game is not even looked at
    finally:
        notebook._widget_class.cache_clear()


def test_the_frame_out_is_the_png_the_views_draw(play):
    import pygame

    widget = play("tictactoe", opponent="alphabeta")
    until(widget, lambda: shown(widget))
    assert widget.png == widget.session.png()
    picture = pygame.image.load(io.BytesIO(widget.png), "frame.png")
    assert picture.get_size() == widget.session.view.size
    assert widget.status == "your move (X)" and widget.opponents[0] == "alphabeta" and widget.side == "first"


def test_a_click_at_a_cell_plays_it_and_the_watcher_pushes_the_agents_reply(play):
    widget = play("tictactoe", opponent="alphabeta")
    pushers = []
    widget.observe(lambda change: pushers.append(threading.current_thread().name), "moves")
    send(widget, {"click": cell(widget, 4)})
    until(widget, lambda: widget.moves == 2 and not widget.thinking and shown(widget))
    assert widget.session.env.moves[0] == (0, 4)
    assert set(pushers) == {"play-widget"}  # pushed by the watcher thread, not by the message handler


def test_the_default_opponent_and_the_menu(play, notebook):
    from agents.factory import default_opponent, suggested_opponents
    from gym_boardgames.rules.registry import make_game

    game = make_game("connectn", rows=5, cols=5, n=4)
    widget = play(game, opponent="random")
    assert widget.opponents == list(dict.fromkeys(["random", default_opponent(game), *suggested_opponents(game)]))
    assert widget.session.name == "random"
    sized = play("connectn", rows=5, cols=5, n=4, side="second")
    assert sized.session.game == game and sized.session.name == default_opponent(game) and sized.session.side == 1


def test_the_menus_and_the_buttons_are_the_sessions_sides_and_commands(play):
    from gym_boardgames.human.session import COMMANDS, SIDES

    widget = play("tictactoe", opponent="alphabeta", side="second")
    assert widget.sides == list(SIDES) == ["first", "second", "both"] and widget.side == "second"
    assert widget.commands == [command._asdict() for command in COMMANDS]
    assert [command["name"] for command in widget.commands] == ["hints", "undo", "restart", "swap"]


@pytest.mark.parametrize(
    ("command", "expect"),
    [
        ("hints", lambda session: session.show_hints),
        ("undo", lambda session: session.env.moves == []),
        ("restart", lambda session: session.env.moves == [] and session.version > 0),
        ("swap", lambda session: session.side == 1 and len(session.env.moves) == 1),  # the agent has opened
    ],
)
def test_each_button_runs_its_command_on_the_session(play, command, expect):
    widget = play("tictactoe", opponent="alphabeta")
    send(widget, {"click": cell(widget, 4)})
    until(widget, lambda: widget.moves == 2 and not widget.thinking)
    send(widget, {"command": command})
    until(widget, lambda: expect(widget.session) and not widget.session.thinking and shown(widget))


def test_a_new_game_from_the_menus_replaces_the_session_and_ends_the_old_one(play, monkeypatch):
    widget = play("tictactoe", opponent="alphabeta")
    old, closed = widget.session, []
    monkeypatch.setattr(old, "close", lambda: closed.append(old))
    send(widget, {"new": {"opponent": "random", "side": "both"}})
    assert widget.session is not old and widget.session.both_sides and closed == [old]
    until(widget, lambda: shown(widget) and widget.status == "X to move")
    send(widget, {"new": {"opponent": "mcts:200", "side": "second"}})
    until(widget, lambda: widget.moves == 1 and shown(widget))
    assert widget.session.name == "mcts:200" and widget.session.side == 1


@pytest.mark.parametrize(
    ("message", "said"),
    [
        ({"click": [1]}, "a click is [x, y]"),
        ({"click": [True, 2]}, "a click is [x, y]"),
        ({"click": [math.nan, 2]}, "a click is [x, y]"),
        ({"click": "centre"}, "a click is [x, y]"),
        ({"command": "explode"}, "unknown command 'explode': use one of hints, undo, restart, swap"),
        ({"command": ["hints"]}, "unknown command"),
        ({"new": {"opponent": "nosuch", "side": "first"}}, "unknown opponent 'nosuch': use one of alphabeta, "),
        (
            {"new": {"opponent": "random", "side": "third"}},
            "side must be one of ('first', 'second', 'both'), got 'third'",
        ),
        ({"new": {"opponent": "random", "side": 1}}, "side must be one of ('first', 'second', 'both'), got 1"),
        ({"new": {"opponent": 3, "side": "first"}}, "unknown opponent 3: use one of alphabeta, "),
        ({"new": {"opponent": ["random"], "side": "both"}}, "unknown opponent ['random']: use one of alphabeta, "),
        ({"new": 3}, "a new game is"),
        ({"click": [1, 2], "command": "undo"}, "send"),
        ({}, "send"),
        ("hints", "send"),
        (None, "send"),
    ],
)
def test_a_bad_message_is_answered_in_the_status_line_not_a_traceback(play, message, said):
    widget = play("tictactoe", opponent="alphabeta")
    old, statuses = widget.session, statuses_of(widget)
    widget._receive(widget, message, [])  # raises nothing
    until(widget, lambda: any(status.startswith(f"refused: {said}") for status in statuses))
    assert widget.session is old and old.env.moves == []


def test_a_click_off_the_board_says_why(play):
    widget = play("tictactoe", opponent="alphabeta")
    statuses = statuses_of(widget)
    send(widget, {"click": [-5, -5]})
    until(widget, lambda: any(status != "your move (X)" for status in statuses))
    assert widget.session.env.moves == [] and statuses[-1] == widget.session.message


def statuses_of(widget):
    """Every status line the widget will show (a message is shown for a few seconds only)."""
    statuses = []
    widget.observe(lambda change: statuses.append(change["new"]), "status")
    return statuses


def test_a_bad_opponent_name_is_refused_with_the_valid_names(play):
    with pytest.raises(ValueError, match="alphabeta") as refused:
        play("tictactoe", opponent="nosuch")
    assert "nosuch" in str(refused.value) and "mcts" in str(refused.value)
    needs = r"<object object at 0x[0-9a-f]+> is not an agent: it needs act\(game, state\) -> int or to be callable"
    with pytest.raises(ValueError, match=needs):
        play("tictactoe", opponent=object())
    with pytest.raises(ValueError, match="side must be one of"):
        play("tictactoe", side="last")
    with pytest.raises(ValueError, match="rows"):
        play("tictactoe", rows=4)


class Gated:
    """An opponent that replies only when released."""

    def __init__(self):
        self.release, self.started = threading.Event(), threading.Event()

    def act(self, game, state):
        self.started.set()
        assert self.release.wait(HANG_GUARD_S)
        return game.legal_actions(state)[0]


def test_close_ends_the_session_and_the_watcher(notebook):
    agent = Gated()
    table = Table(make_game("tictactoe"), {"gated": agent}, "second", None, 0, "Tic-tac-toe")  # the agent moves first
    widget = notebook._widget_class()(table)
    session = widget.session
    assert widget.opponents == ["gated"] and widget.side == "second" and session.side == 1
    assert agent.started.wait(HANG_GUARD_S) and session.thinking
    widget.close()
    assert not widget._watcher.is_alive() and widget.comm is None
    assert not session.thinking  # session.close() dropped the reply still being computed
    agent.release.set()


def test_the_widget_is_made_with_its_first_frame_and_offers_a_picture_and_text_beside_its_view(play):
    widget = play("tictactoe", "random")
    assert widget.png.startswith(b"\x89PNG") and widget.status  # before the watcher: a notebook saved at once keeps it
    data, _metadata = widget._repr_mimebundle_()
    assert "application/vnd.jupyter.widget-view+json" in data
    assert base64.b64decode(data["image/png"]).startswith(b"\x89PNG")
    assert data["text/plain"] == widget.session.status() and "object at 0x" not in data["text/plain"]


@pytest.fixture(scope="module")
def exported(notebook, tmp_path_factory):
    """A notebook whose one cell is the docs' ``gym_boardgames.play("connectfour", ui="notebook")``, run by
    ``jupyter nbconvert --execute``."""
    pytest.importorskip("nbconvert", reason="nbconvert (brought by jupyterlab, the browser extra) is not installed")
    pytest.importorskip("ipykernel", reason="no kernel (ipykernel, brought by jupyterlab) is installed")
    import nbformat

    folder = tmp_path_factory.mktemp("exported")
    code = 'import gym_boardgames\ngym_boardgames.play("connectfour", ui="notebook")'
    nbformat.write(nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(code)]), folder / "play.ipynb")

    def export(*options):
        command = [sys.executable, "-m", "nbconvert", "--execute", *options, "play.ipynb"]
        subprocess.run(command, cwd=folder, check=True, capture_output=True, timeout=HANG_GUARD_S)

    return folder, export


def test_an_html_export_keeps_the_board_in_the_saved_widget_state(exported):
    folder, export = exported
    export("--to", "html", "--output", "saved_state")
    page = (folder / "saved_state.html").read_text(encoding="utf-8")
    found = re.search(r'<script type="application/vnd.jupyter.widget-state\+json">(.*?)</script>', page, re.S)
    assert found, "the export holds no widget state"
    models = json.loads(html.unescape(found[1]))["state"].values()
    (model,) = [model for model in models if model["state"].get("_anywidget_id", "").endswith("PlayWidget")]
    (frame,) = [buffer for buffer in model["buffers"] if buffer["path"] == ["png"]]
    assert base64.b64decode(frame["data"]).startswith(b"\x89PNG")  # the frame the widget view draws from
    assert model["state"]["status"].startswith("your move")


def test_an_html_export_without_widget_state_shows_the_board_as_an_image(exported):
    folder, export = exported
    export("--to", "html", "--ExecutePreprocessor.store_widget_state=False", "--output", "no_state")
    page = (folder / "no_state.html").read_text(encoding="utf-8")
    assert re.search(r'<img [^>]*src="data:image/png;base64,iVBORw0KGgo', page)
    assert "object at 0x" not in page


def test_a_markdown_export_shows_the_board_as_an_image_not_the_objects_repr(exported):
    folder, export = exported
    export("--to", "markdown", "--output", "play")
    text = (folder / "play.md").read_text(encoding="utf-8")
    assert "object at 0x" not in text and "PlayWidget" not in text
    (image,) = re.findall(r"!\[png\]\((play_files/[^)]+\.png)\)", text)
    assert (folder / image).read_bytes().startswith(b"\x89PNG")


@pytest.mark.parametrize("asked", [{"opponent": None, "side": "first"}, {"opponent": "random", "side": None}])
def test_a_null_in_a_new_game_is_refused_with_the_pages_line_and_the_game_plays_on(play, asked):
    import io

    from gym_boardgames.human.server import HttpError, PlayServer

    widget = play("tictactoe", opponent="alphabeta")
    old, statuses = widget.session, statuses_of(widget)
    server = PlayServer(widget.table, log=io.StringIO())  # not started: its new-game route is called directly
    try:
        with pytest.raises(HttpError) as refused:
            server.new_game(asked)
    finally:
        server.close()
    status, line = refused.value.args
    assert status == 400
    send(widget, {"new": asked})
    assert widget.session is old and old.message == f"refused: {line}"  # no new game: the session says why
    until(widget, lambda: f"refused: {line}" in statuses)
    assert not old.env.moves  # nothing else changed
    send(widget, {"click": cell(widget, 4)})
    until(widget, lambda: widget.moves == 2 and not widget.thinking and shown(widget))


def test_a_new_game_without_its_keys_is_the_tables_choice_as_on_the_page(play):
    widget = play("tictactoe", opponent="random", side="second")
    old = widget.session
    send(widget, {"new": {}})
    assert widget.session is not old and widget.session.name == "random" and widget.session.side == 1
    until(widget, lambda: widget.moves == 1 and shown(widget))


@pytest.mark.parametrize("value", ["x", 1.5, True, None, 99, "x" * 30_000], ids=repr)
def test_a_bad_click_is_the_one_line_of_check_click_at_once_and_no_move(play, value):
    from gym_boardgames.human.session import check_click

    widget = play("tictactoe", opponent="alphabeta")
    statuses = statuses_of(widget)
    with pytest.raises(ValueError) as checked:
        check_click(value)  # the page's POST answers the same line (a 400): tests/human/test_server.py
    line = f"refused: {checked.value}"
    send(widget, {"click": value})
    assert widget.session.message == line
    assert "\n" not in line and len(line) < 200 and widget.session.env.moves == []
    until(widget, lambda: line in statuses)
