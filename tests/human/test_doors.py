"""gym_boardgames.play, the one way in: every door takes the same arguments, checked once by the one builder, and
every door shows the network's priors against ``alphazero`` when the agent is built the way a user builds it."""

import io
import json
import subprocess
import sys
import threading
import urllib.request

import numpy as np
import pytest

pygame = pytest.importorskip("pygame")

import gym_boardgames  # noqa: E402
from gym_boardgames.errors import ActionTypeError  # noqa: E402
from gym_boardgames.human.session import COMMANDS, SIDES  # noqa: E402
from gym_boardgames.human.table import resolve  # noqa: E402

#: Only for a hang: how long anything takes is not what these tests check.
HANG_GUARD_S = 600
#: A quick network opponent: the shipped Connect Four model with few simulations.
NETWORK = "alphazero:8"


def test_import_stays_instant_and_play_is_reached_lazily():
    code = (
        "import sys, gym_boardgames\n"
        "print(sorted(m for m in ('pygame', 'agents', 'gym_boardgames.human') if m in sys.modules))\n"
        "print(callable(gym_boardgames.play), gym_boardgames.play.__module__)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split("\n")
    assert out[0] == "[]" and out[1] == "True gym_boardgames.human.doors"


@pytest.mark.parametrize(
    "arguments, message",
    [
        ({"side": 1}, "side must be one of ('first', 'second', 'both'), got 1"),
        ({"side": "you"}, "side must be one of ('first', 'second', 'both'), got 'you'"),
        ({"ui": "tv"}, "ui must be one of ('window', 'page', 'notebook', 'terminal'), got 'tv'"),
        ({"hints": "yes"}, "hints must be True, False or a provider (game, state, player) -> labels, got 'yes'"),
        ({"seed": -1}, "seed must be an integer >= 0, got -1"),
        ({"seed": 1.5}, "seed must be an integer >= 0, got 1.5"),
        ({"port": 8765}, "ui='terminal' takes no port: its options are input, output"),
        ({"screenshot": "x.png"}, "ui='terminal' takes no screenshot: its options are input, output"),
        ({"rows": 0}, "rows"),
        ({"opponent": "nonsense"}, "unknown agent 'nonsense'"),
        ({"opponent": "always4never3"}, "plays Dots and Boxes only"),
    ],
)
def test_every_argument_is_refused_in_one_line_before_any_door_opens(arguments, message):
    arguments = {"ui": "terminal", **arguments}
    output = io.StringIO()
    with pytest.raises(ValueError) as refused:
        gym_boardgames.play("tictactoe", input=io.StringIO("q\n"), output=output, **arguments)
    assert message in str(refused.value) and "\n" not in str(refused.value)
    assert output.getvalue() == ""  # refused before the terminal printed anything


@pytest.mark.parametrize("move", [True, np.True_, 0.7, "0", np.array([0]), None])
def test_the_session_refuses_a_bad_move_as_the_env_does(move):
    import gymnasium as gym

    env = gym.make("TicTacToe-v0", opponent=None)
    env.reset(seed=0)
    with pytest.raises(ActionTypeError) as from_env:
        env.step(move)
    session = resolve("tictactoe", side="both").session()
    with pytest.raises(ActionTypeError) as from_session:
        session.play(move)
    session.close()
    assert str(from_session.value) == str(from_env.value)


def test_the_command_list_is_one_list_in_every_door():
    from gym_boardgames.human import server, terminal, window

    names = [command.name for command in COMMANDS]
    assert names == ["hints", "undo", "restart", "swap"]
    assert all(f"{c.key.upper()} {c.name}" in window.KEYS_HELP for c in COMMANDS)
    assert all(f"{c.key} {c.name}" in terminal.HELP and f"{c.key}(" in terminal.SHORT_HELP for c in COMMANDS)
    page = server.PlayServer(resolve("tictactoe"), port=0, log=io.StringIO())
    try:
        config = page.page.decode().split('id="config">', 1)[1].split("</script>", 1)[0]
        assert json.loads(config)["commands"] == [command._asdict() for command in COMMANDS]
    finally:
        page.close()


# ---- the network's priors, through every door ------------------------------------------------------------------


def has_priors(hints):
    """Whether every label carries the network's prior (``"? 14%"``, ``"win in 3 86%"``)."""
    return bool(hints) and all(label.endswith("%") for label in hints.values())


def test_the_terminal_door_shows_the_networks_priors():
    output = io.StringIO()
    status = gym_boardgames.play("connectfour", NETWORK, ui="terminal", input=io.StringIO("h\nq\n"), output=output)
    text = output.getvalue()
    assert status == 0 and "network: value" in text
    hints = next(line for line in text.splitlines() if line.startswith("hints: 1 "))
    assert hints.count("%") == 7, hints


def test_the_window_door_shows_the_networks_priors(monkeypatch, tmp_path):
    from gym_boardgames.human import window

    seen = {}

    def run(app, max_frames=None, fps=30):  # the door's own app, driven by one H key press instead of a person
        try:
            app.handle(pygame.event.Event(pygame.KEYDOWN, key=pygame.K_h))
            for _ in range(HANG_GUARD_S * 100):
                if not app.hints_pending and app.hints:
                    break
                app.wait_for_change(app.version, 0.01)
            seen.update(hints=dict(app.hints), status=app.status(), opponent=app.name)
        finally:
            app.close()

    monkeypatch.setattr(window.PlayApp, "run", run)
    gym_boardgames.play("connectfour", NETWORK, ui="window", screenshot=str(tmp_path / "shot.png"))
    assert seen["opponent"] == NETWORK and has_priors(seen["hints"]), seen
    assert (tmp_path / "shot.png").stat().st_size > 0


def test_the_page_door_shows_the_networks_priors():
    server = gym_boardgames.play("connectfour", NETWORK, ui="page", wait=False, port=0, log=io.StringIO())
    try:

        def call(method, path, body=None):
            data = None if body is None else json.dumps(body).encode()
            headers = {"X-Play-Token": server.token, "Content-Type": "application/json"}
            request = urllib.request.Request(f"http://127.0.0.1:{server.port}{path}", data, headers, method=method)
            with urllib.request.urlopen(request, timeout=HANG_GUARD_S) as response:
                return json.loads(response.read())

        state = call("POST", "/api/games", {"opponent": NETWORK, "side": "first"})
        assert state["side"] == "first" and state["opponent"] == NETWORK
        state = call("POST", f"/api/games/{state['id']}", {"command": "hints"})
        for _ in range(HANG_GUARD_S):
            if state["hint_source"]:
                break
            state = call("GET", f"/api/games/{state['id']}?since={state['version']}&wait=1")
        session = server.games[state["id"]].session
        assert state["hint_source"] in ("network estimate", "exact") and has_priors(session.hints), state
    finally:
        server.close()


def test_the_notebook_door_shows_the_networks_priors():
    pytest.importorskip("anywidget")
    widget = gym_boardgames.play("connectfour", NETWORK, ui="notebook")
    try:
        assert widget.commands == [command._asdict() for command in COMMANDS] and widget.sides == list(SIDES)
        widget._receive(widget, {"command": "hints"}, [])
        session = widget.session
        changed = threading.Event()
        for _ in range(HANG_GUARD_S * 100):
            with session.lock:
                if session.hints and not session.hints_pending:
                    changed.set()
                    break
            session.wait_for_change(session.version, 0.01)
        assert changed.is_set() and has_priors(session.hints), session.status()
        assert "network" in session.status()
    finally:
        widget.close()
