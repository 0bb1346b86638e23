"""gym_boardgames.human.server: the token, the bounds, the refusals, and games that never block each other.

Every request goes to 127.0.0.1. Nothing here is timed: a slow agent is an Event the test releases, and the idle
timeout runs on a clock the test moves.
"""

import io
import json
import re
import socket
import threading
import urllib.error
import urllib.request
import warnings

import pytest

pygame = pytest.importorskip("pygame")

import gym_boardgames  # noqa: E402
from agents.factory import suggested_opponents  # noqa: E402
from agents.hints import EXACT, HintLabels  # noqa: E402
from gym_boardgames.envs import ConnectNEnv, DotsAndBoxesEnv, TicTacToeEnv  # noqa: E402
from gym_boardgames.human import server as server_module  # noqa: E402
from gym_boardgames.human.doors import Table, resolve  # noqa: E402
from gym_boardgames.human.server import Limits, PlayServer  # noqa: E402
from gym_boardgames.human.session import PlaySession  # noqa: E402
from gym_boardgames.rules.registry import make_game  # noqa: E402

HANG_GUARD_S = 600  # only for a hang: how long anything takes is not what these tests check


class Lowest:
    def act(self, game, state):
        return game.legal_actions(state)[0]


class Gated:
    """An agent that thinks until the test lets it answer."""

    def __init__(self):
        self.release = threading.Event()
        self.started = threading.Event()

    def act(self, game, state):
        self.started.set()
        assert self.release.wait(HANG_GUARD_S)
        return game.legal_actions(state)[0]


class FakeClock:
    def __init__(self):
        self.now = 1000.0

    def __call__(self):
        return self.now


def tictactoe_table(opponents=None, side="first", hints=None, title="Tic-tac-toe"):
    """Tic-tac-toe against the test's own agents (default: two that take the lowest free cell), by name."""
    opponents = {"lowest": Lowest(), "other": Lowest()} if opponents is None else opponents
    return Table(make_game("tictactoe"), opponents, side, hints, 0, title)


@pytest.fixture
def make_server():
    made = []

    def make(table=None, **options):
        options.setdefault("log", io.StringIO())
        server = PlayServer(table or tictactoe_table(), **options).start()
        made.append(server)
        return server

    yield make
    for server in made:
        server.close()


def request(server, method, path, body=None, token=True, headers=None, raw_body=None):
    """Send one request; return (status, decoded JSON or text)."""
    data = raw_body if raw_body is not None else (None if body is None else json.dumps(body).encode())
    all_headers = dict(headers or {})
    if token is True:
        all_headers["X-Play-Token"] = server.token
    elif isinstance(token, str):
        all_headers["X-Play-Token"] = token
    req = urllib.request.Request(f"http://127.0.0.1:{server.port}{path}", data=data, method=method, headers=all_headers)
    try:
        with urllib.request.urlopen(req, timeout=HANG_GUARD_S) as response:
            status, payload, kind = response.status, response.read(), response.headers.get("Content-Type", "")
    except urllib.error.HTTPError as error:
        status, payload, kind = error.code, error.read(), error.headers.get("Content-Type", "")
    if "json" in kind:
        return status, json.loads(payload)
    return status, payload.decode("utf-8", "replace")


def raw_request(server, data: bytes) -> bytes:
    """Send raw bytes (a request http.client would never write) and read the whole answer."""
    with socket.create_connection(("127.0.0.1", server.port), timeout=HANG_GUARD_S) as conn:
        conn.sendall(data)
        chunks = []
        while chunk := conn.recv(65536):
            chunks.append(chunk)
    return b"".join(chunks)


def new_game(server, opponent="lowest", side="first"):
    status, state = request(server, "POST", "/api/games", {"opponent": opponent, "side": side})
    assert status == 201, state
    return state


def wait_until(server, state, predicate):
    """Long-poll the game until ``predicate(state)`` holds (no deadline but the hang guard)."""
    for _ in range(HANG_GUARD_S):
        if predicate(state):
            return state
        status, state = request(server, "GET", f"/api/games/{state['id']}?since={state['version']}&wait=1")
        assert status == 200, state
    raise AssertionError(f"never reached: {state['status']}")


# ---- the token -------------------------------------------------------------------------------


@pytest.mark.parametrize("path", ["/", "/api/games/abc", "/nope", "/../etc/passwd"])
def test_every_request_without_the_token_gets_403(make_server, path):
    server = make_server()
    assert request(server, "GET", path, token=False)[0] == 403
    assert request(server, "GET", path, token="x" * 43)[0] == 403
    assert request(server, "GET", path, token=server.token[:-1] + ("A" if server.token[-1] != "A" else "B"))[0] == 403
    assert request(server, "POST", "/api/games", {"opponent": "lowest"}, token=False)[0] == 403
    assert not server.games


def test_the_printed_url_carries_the_token_and_opens_the_page(make_server):
    server = make_server(tictactoe_table(title="Tic-tac-toe <test>"))
    assert server.url.startswith("http://127.0.0.1:") and f"?token={server.token}" in server.url
    with urllib.request.urlopen(server.url, timeout=HANG_GUARD_S) as response:
        page = response.read().decode()
        assert response.headers["Referrer-Policy"] == "no-referrer"
    assert "Tic-tac-toe &lt;test&gt;" in page and "<script>" in page
    assert "https://" not in page and "http://" not in page  # offline: no CDN, no font, no script from elsewhere


def test_tokens_are_random_and_long(make_server):
    first, second = make_server(), make_server()
    assert first.token != second.token and len(first.token) == server_module.MIN_TOKEN_CHARS == 43


@pytest.mark.parametrize(
    "token",
    ["short", "a" * 42, "a" * 42 + "!", "a" * 42 + "=", "a" * 42 + "%", "a b" * 20, "é" * 43, "a" * 257, 43],
)
def test_a_given_token_shorter_than_a_generated_one_or_not_url_safe_is_refused_in_one_line(token):
    with pytest.raises(ValueError) as info:
        PlayServer(tictactoe_table(), token=token)
    assert str(info.value) == (
        "a token must be 43 to 256 characters of A-Z a-z 0-9 - _, as secrets.token_urlsafe(32) makes"
    )


def test_a_server_restarted_with_the_same_token_takes_the_old_url_and_says_its_game_is_gone(make_server):
    first = make_server()
    old_url, game = first.url, new_game(first)
    port, token = first.port, first.token
    first.close()
    second = make_server(port=port, token="-_" + token[2:])  # any URL-safe token as long as a generated one
    assert request(second, "GET", f"/api/games/{game['id']}", token=token)[0] == 403
    second.close()
    third = make_server(port=port, token=token)
    with urllib.request.urlopen(old_url, timeout=HANG_GUARD_S) as response:
        assert response.status == 200  # the old tab's address, token and all
    assert request(third, "GET", f"/api/games/{game['id']}")[0] == 404  # the page starts a new game then


# ---- nothing but the page --------------------------------------------------------------------


@pytest.mark.parametrize(
    "path",
    [
        "/../../../../etc/passwd",
        "/%2e%2e/%2e%2e/%2e%2e/etc/passwd",
        "/..%2f..%2f..%2fetc%2fpasswd",
        "/%252e%252e/%252e%252e/etc/passwd",
        "/page.js",
        "/page.html",
        "/server.py",
        "/web/../play_session.py",
        "/api/games/../../../etc/passwd",
        "/api/games/%2e%2e%2f%2e%2e%2fserver.py",
        "//etc/passwd",
        "/static/../../pyproject.toml",
    ],
)
def test_no_path_reaches_a_file(make_server, path):
    server = make_server()
    status, payload = request(server, "GET", path)
    assert status == 404, (path, payload)
    text = json.dumps(payload)
    assert "root:" not in text and "import" not in text and "[project]" not in text


def test_a_raw_traversal_request_line_is_refused_too(make_server):
    server = make_server()
    answer = raw_request(server, f"GET /../../etc/passwd?token={server.token} HTTP/1.0\r\n\r\n".encode())
    assert answer.startswith(b"HTTP/1.0 404") and b"root:" not in answer


# ---- bad requests: a 4xx and one log line, never a traceback ---------------------------------


def test_bad_requests_get_a_4xx_and_one_log_line_each(make_server):
    log = io.StringIO()
    server = make_server(log=log, limits=Limits(body_bytes=256))
    game = new_game(server)
    path = f"/api/games/{game['id']}"
    cases = [
        (request(server, "POST", "/api/games", raw_body=b"{not json"), 400),
        (request(server, "POST", "/api/games", raw_body=b"[1, 2]"), 400),
        (request(server, "POST", "/api/games", {"opponent": "td:/etc/passwd"}), 400),
        (request(server, "POST", "/api/games", {"opponent": "lowest", "side": 2}), 400),
        (request(server, "POST", "/api/games", {"opponent": "lowest", "side": True}), 400),
        (request(server, "POST", path, {"click": "here"}), 400),
        (request(server, "POST", path, {"click": [1e300, 5]}), 400),
        (request(server, "POST", path, {"click": [True, 5]}), 400),
        (request(server, "POST", path, {"command": "rm -rf"}), 400),
        (request(server, "POST", path, {}), 400),
        (request(server, "POST", path, raw_body=b"x" * 1000), 413),
        (request(server, "GET", f"{path}?since=abc"), 400),
        (request(server, "GET", f"{path}?wait=1e9"), 400),
        (request(server, "GET", f"{path}?wait=nan"), 400),
        (request(server, "GET", "/api/games/nosuchgame"), 404),
        (request(server, "PUT", "/"), 501),
        (request(server, "DELETE", "/"), 405),
    ]
    for (status, payload), expected in cases:
        assert status == expected, payload
        if status != 501:  # http.server's own answer to an unknown method
            assert payload["error"]
    refused_unknown = cases[2][0][1]["error"]
    assert "lowest" in refused_unknown and "other" in refused_unknown  # names the valid choices
    lines = log.getvalue().splitlines()
    assert len(lines) == len(cases)
    assert "Traceback" not in log.getvalue()
    assert server.token not in log.getvalue()  # refusals are logged without the query that may hold it


def test_a_malformed_request_line_gets_400_without_a_traceback(make_server):
    log = io.StringIO()
    server = make_server(log=log)
    # A bare word is an HTTP/0.9 request to http.server: its answer has no status line, only the error page.
    assert b"Error code: 400" in raw_request(server, b"GARBAGE\r\n\r\n")
    assert b"Error code: 505" in raw_request(server, b"GET / HTTP/9.9\r\n\r\n")
    assert "Traceback" not in log.getvalue() and len(log.getvalue().splitlines()) == 2


def status_of(answer: bytes) -> int:
    return int(answer.split(b" ", 2)[1])


@pytest.mark.parametrize(
    ("content_length", "expected"),
    [
        (b"9" * 4301, 413),  # past Python's 4,300-digit int-string limit: a 500 it was
        (b"9" * 4300, 413),
        (b"0" * 5000 + b"2", 201),  # leading zeros are still the number 2
        (b"-1", 400),
        (b"+2", 400),
        (b"1_0", 400),
        (b"2, 2", 400),
        ("\u0662".encode(), 400),  # an Arabic-Indic 2 sent as UTF-8: http.server reads the bytes as Latin-1
        (b"\xff", 400),
    ],
)
def test_every_malformed_content_length_is_a_4xx_with_one_line(make_server, content_length, expected):
    log = io.StringIO()
    server = make_server(log=log)
    head = b"POST /api/games HTTP/1.1\r\nHost: x\r\nConnection: close\r\nX-Play-Token: " + server.token.encode()
    answer = raw_request(server, head + b"\r\nContent-Length: " + content_length + b"\r\n\r\n{}")
    assert status_of(answer) == expected, answer[:300]
    assert "Traceback" not in log.getvalue() and "failed" not in log.getvalue()


def test_duplicate_headers_the_server_reads_are_a_400_unless_they_agree(make_server):
    log = io.StringIO()
    server = make_server(log=log)
    token = b"X-Play-Token: " + server.token.encode() + b"\r\n"
    head = b"POST /api/games HTTP/1.1\r\nConnection: close\r\n"
    body = b'{"opponent": "lowest"}'
    two_lengths = head + token + b"Content-Length: %d\r\nContent-Length: 5\r\n\r\n" % len(body) + body
    assert status_of(raw_request(server, two_lengths)) == 400  # which one frames the body is not guessed
    two_tokens = b"GET / HTTP/1.1\r\nConnection: close\r\n" + token + b"X-Play-Token: " + b"x" * 43 + b"\r\n\r\n"
    assert status_of(raw_request(server, two_tokens)) == 400
    same_twice = head + token + token + b"Content-Length: %d\r\nContent-Length: %d\r\n\r\n" % ((len(body),) * 2)
    assert status_of(raw_request(server, same_twice + body)) == 201
    assert "Traceback" not in log.getvalue() and "failed" not in log.getvalue()


def test_odd_bytes_in_every_header_and_path_are_answered_without_a_500(make_server):
    log = io.StringIO()
    server = make_server(log=log)
    token = server.token.encode()
    odd = b"\xff\xfe\xc3\x28"
    cases = [
        (
            b"GET /?token="
            + token
            + b" HTTP/1.1\r\nHost: "
            + odd
            + b"\r\nOrigin: "
            + odd
            + b"\r\nCookie: a="
            + odd
            + b"\r\nRange: bytes="
            + b"9" * 5000
            + b"-\r\nReferer: "
            + odd
            + b"\r\n",
            200,
        ),  # read by none of them
        (b"GET / HTTP/1.1\r\nX-Play-Token: " + odd + b"\r\n", 403),
        (b"GET /?token=%ff%fe%ed%a0%80 HTTP/1.1\r\n", 403),
        (b"GET /" + odd + b"?token=" + token + b" HTTP/1.1\r\n", 404),
        (b"GET http://[::1 HTTP/1.1\r\nX-Play-Token: " + token + b"\r\n", 400),  # urlsplit raises: the answer was none
        (b"GET /api/games/x?since=" + b"9" * 5000 + b"&token=" + token + b" HTTP/1.1\r\n", 404),
    ]
    for request_head, expected in cases:
        answer = raw_request(server, request_head + b"Connection: close\r\n\r\n")
        assert answer and status_of(answer) == expected, (request_head[:80], answer[:200])
    assert "Traceback" not in log.getvalue() and "failed" not in log.getvalue()


@pytest.mark.parametrize("limits", [{"games": 0}, {"games": 4}, None, 8, (8, 4096, 120.0)])
def test_the_page_door_refuses_limits_that_are_not_a_limits_at_the_call(limits):
    with pytest.raises(TypeError, match=r"limits must be a gym_boardgames\.human\.server\.Limits\(games="):
        gym_boardgames.play("tictactoe", "random", ui="page", limits=limits, start=False)


def test_limits_with_a_bad_field_are_refused_when_made_naming_the_field():
    with pytest.raises(ValueError, match=r"games must be an integer in \[1, 1000\], got 0"):
        Limits(games=0)


def refusal(opponent, side):
    """The 400's one line for a new game of ``opponent`` on ``side`` that the test server does not offer."""
    offered = 'a game is {"opponent": one of lowest, other, "side": one of first, second, both}'
    return f"{offered}, got {opponent!r:.60} and {side!r:.60}"


@pytest.mark.parametrize(
    "side", [0, 1, 1.0, 0.0, True, False, 10**30, "1", None, [1], ["first"], {"side": "first"}, "third", "First"]
)
def test_a_side_that_is_not_one_of_the_sides_names_is_a_400_and_holds_no_slot(make_server, side):
    log = io.StringIO()
    server = make_server(log=log, limits=Limits(games=1))
    status, payload = request(server, "POST", "/api/games", {"opponent": "lowest", "side": side})
    assert status == 400 and payload["error"] == refusal("lowest", side)
    assert not server.games and "Traceback" not in log.getvalue()
    new_game(server, side="second")  # the one slot is free


@pytest.mark.parametrize("opponent", [None, "nosuch", "LOWEST", "td:/etc/passwd", "random", 0, True, ["lowest"]])
def test_an_opponent_that_is_not_offered_is_a_400_and_holds_no_slot(make_server, opponent):
    log = io.StringIO()
    server = make_server(log=log, limits=Limits(games=1))
    for side in ("first", "both"):  # null is no opponent: two people are the side "both"
        status, payload = request(server, "POST", "/api/games", {"opponent": opponent, "side": side})
        assert status == 400 and payload["error"] == refusal(opponent, side)
    assert not server.games and "Traceback" not in log.getvalue()
    new_game(server, "other")  # the one slot is free


def test_a_game_asked_for_without_an_opponent_or_a_side_gets_the_tables(make_server):
    server = make_server(tictactoe_table(side="second"))
    assert b'"side": "second"' in server.page  # the page's menu starts on the table's side too
    status, state = request(server, "POST", "/api/games", {})
    assert status == 201 and state["opponent"] == "lowest" and state["side"] == "second"
    state = wait_until(server, state, lambda s: s["agent_moves"] == 1)  # the agent opens: the person is second
    assert state["moves"] == 1 and state["status"] == "your move (O)"


@pytest.mark.parametrize("depth", [9, 2000, 100_000])
@pytest.mark.parametrize("bracket", ["[", '{"a":'])
def test_a_deeply_nested_body_is_a_400_before_it_is_parsed(make_server, depth, bracket):
    log = io.StringIO()
    server = make_server(log=log, limits=Limits(body_bytes=1 << 20))
    closing = "]" if bracket == "[" else "}"
    body = ('{"opponent": ' + bracket * depth + "0" + closing * depth + "}").encode()
    status, payload = request(server, "POST", "/api/games", raw_body=body)
    assert status == 400 and payload["error"] == "the body nests deeper than 8 levels"
    unclosed = request(server, "POST", "/api/games", raw_body=b"[" * 4000)
    assert unclosed == (400, {"error": "the body nests deeper than 8 levels"})
    assert not server.games and "Traceback" not in log.getvalue() and "Recursion" not in log.getvalue()


def test_brackets_inside_strings_do_not_count_as_nesting(make_server):
    server = make_server()
    name = '[[[[[[[[[[\\"{{{{{{{{{{'
    status, payload = request(server, "POST", "/api/games", {"opponent": name, "side": "first"})
    assert status == 400 and payload["error"] == refusal(name, "first")  # refused as a name, not for its depth


def test_an_agent_that_fails_ends_the_game_and_the_state_says_so(make_server):
    class Broken:
        def act(self, game, state):
            raise RuntimeError("boom")

    server = make_server(resolve("tictactoe", Broken(), "second", None, 0))
    assert server.opponents[0] == "Broken"
    state = wait_until(server, new_game(server, "Broken", side="second"), lambda s: not s["thinking"])
    failed = "the game stopped: agent Broken: its act() raised RuntimeError: boom"
    assert state["over"] and state["status"] == failed
    state = request(server, "POST", f"/api/games/{state['id']}", {"click": [162, 184]})[1]
    assert state["moves"] == 0 and state["status"] == f"{failed} (the game is over: R starts a new one)"


def test_the_long_poll_waits_for_a_new_version_not_for_the_agents_seconds(make_server):
    gated = Gated()
    server = make_server(tictactoe_table({"lowest": gated}))
    game = new_game(server, side="second")
    assert gated.started.wait(HANG_GUARD_S)
    answers, path = [], f"/api/games/{game['id']}?since={game['version']}&wait=10"
    poll = threading.Thread(target=lambda: answers.append(request(server, "GET", path)))
    poll.start()
    poll.join(timeout=3)  # the agent thinks on: the version stays, so the poll must still be waiting
    assert poll.is_alive() and not answers
    gated.release.set()
    poll.join(HANG_GUARD_S)
    ((status, state),) = answers
    assert status == 200 and state["version"] > game["version"] and state["agent_moves"] == 1


def test_one_opponent_name_is_one_opponent_not_one_per_letter():
    server = gym_boardgames.play("tictactoe", "mcts:50", ui="page", start=False, log=io.StringIO())
    try:
        offered = ["mcts:50", *suggested_opponents(make_game("tictactoe"))]
        assert server.opponents == offered and "m" not in server.opponents
        assert b'"opponents": ' + json.dumps(offered).encode() in server.page
    finally:
        server.close()


def test_an_empty_host_is_refused_in_one_line():
    with pytest.raises(ValueError, match=r"^host must be an address: 127\.0\.0\.1 \(this machine\), or 0\.0\.0\.0"):
        PlayServer(tictactoe_table(), host="", allow_remote=True)


def test_an_agent_that_cannot_be_built_is_a_400_not_a_500(make_server):
    # An offered name is built again for each game: here one whose saved file is missing.
    server = make_server(
        tictactoe_table({"lowest": Lowest(), "broken": "td:/no/such/model.pkl"}), limits=Limits(games=1)
    )
    status, payload = request(server, "POST", "/api/games", {"opponent": "broken"})
    assert (
        status == 400 and payload["error"] == "cannot start a game against 'broken': /no/such/model.pkl: no such file"
    )
    assert not server.games  # the slot it held is free again
    new_game(server)


def test_a_bug_behind_a_route_is_a_500_with_one_line(make_server, monkeypatch):
    log = io.StringIO()
    server = make_server(log=log)
    game = new_game(server)
    monkeypatch.setattr(server_module._Game, "state", lambda self: 1 / 0)
    status, payload = request(server, "GET", f"/api/games/{game['id']}")
    assert status == 500 and "internal error" in payload["error"]
    assert "ZeroDivisionError" in log.getvalue() and "Traceback" not in log.getvalue()


# ---- bounds ----------------------------------------------------------------------------------


def test_games_per_server_are_bounded_and_a_freed_one_makes_room(make_server):
    server = make_server(limits=Limits(games=2))
    first = new_game(server)
    new_game(server)
    status, payload = request(server, "POST", "/api/games", {"opponent": "lowest"})
    assert status == 429 and "2 games are open" in payload["error"]
    assert request(server, "DELETE", f"/api/games/{first['id']}")[0] == 204
    new_game(server)


def test_an_idle_game_is_freed_after_the_timeout(make_server):
    clock = FakeClock()
    server = make_server(limits=Limits(idle_seconds=60), clock=clock)
    idle, polled = new_game(server), new_game(server)
    clock.now += 40
    assert request(server, "GET", f"/api/games/{polled['id']}")[0] == 200
    clock.now += 30  # idle: 70 s without a request; polled: 30 s
    assert request(server, "GET", f"/api/games/{idle['id']}")[0] == 404
    assert request(server, "GET", f"/api/games/{polled['id']}")[0] == 200


def test_another_host_needs_an_explicit_flag_and_then_warns(monkeypatch):
    with pytest.raises(ValueError, match="allow_remote"):
        PlayServer(tictactoe_table(), host="0.0.0.0")
    with pytest.raises(ValueError, match="allow_remote"):
        PlayServer(tictactoe_table(), host="192.168.1.10")
    # Pretend loopback is remote, so the warning path runs while the socket stays on 127.0.0.1.
    monkeypatch.setattr(server_module, "is_loopback", lambda host: False)
    log = io.StringIO()
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # one plain line in the log, not a Python warning with its source line
        PlayServer(tictactoe_table(), host="127.0.0.1", allow_remote=True, log=log).close()
    assert log.getvalue() == (
        "play server: warning: on 127.0.0.1, any machine that reaches it with the token can play\n"
    )


def test_the_server_listens_on_loopback_by_default():
    server = PlayServer(tictactoe_table())
    try:
        assert server.server_address[0] == "127.0.0.1"
    finally:
        server.close()


# ---- playing ---------------------------------------------------------------------------------


def test_a_click_plays_and_the_agents_reply_arrives_by_long_poll(make_server):
    server = make_server()
    game = new_game(server)
    assert game["status"] == "your move (X)" and game["frame"].startswith("data:image/png;base64,")
    status, state = request(server, "POST", f"/api/games/{game['id']}", {"click": [162, 184]})  # the centre cell
    assert status == 200 and state["moves"] >= 1
    state = wait_until(server, state, lambda s: s["agent_moves"] == 1)
    assert state["moves"] == 2 and state["status"] == "your move (X)" and state["frame"] != game["frame"]


def test_a_slow_agent_blocks_no_other_request(make_server):
    gated = Gated()
    server = make_server(tictactoe_table({"lowest": gated, "other": Lowest()}))
    slow = new_game(server, "lowest", side="second")  # the agent opens, and thinks until released
    assert gated.started.wait(HANG_GUARD_S)
    status, state = request(server, "GET", f"/api/games/{slow['id']}")
    # The status does not count the seconds (the page does, from the seconds so far said once).
    assert status == 200 and state["thinking"] and state["status"] == "the agent is thinking..."
    assert state["thinking_seconds"] >= 0
    other = new_game(server, "other")
    status, state = request(server, "POST", f"/api/games/{other['id']}", {"click": [162, 184]})
    assert status == 200 and state["moves"] >= 1  # another game plays on while the first agent thinks
    status, state = request(server, "POST", f"/api/games/{slow['id']}", {"command": "restart"})
    assert status == 200  # commands on the thinking game answer too
    gated.release.set()


def test_commands_undo_restart_swap_and_hints(make_server):
    server = make_server()
    game = new_game(server)
    path = f"/api/games/{game['id']}"
    state = request(server, "POST", path, {"click": [162, 184]})[1]
    state = wait_until(server, state, lambda s: s["agent_moves"] == 1)
    state = request(server, "POST", path, {"command": "undo"})[1]
    assert state["moves"] == 0
    state = request(server, "POST", path, {"command": "hints"})[1]
    assert state["hints"] is True
    state = request(server, "POST", path, {"command": "swap"})[1]
    assert state["side"] == "second"
    # The agent opens now: its second reply of the session (the count never goes back), the game's one move.
    state = wait_until(server, state, lambda s: s["moves"] == 1 and not s["thinking"])
    assert state["agent_moves"] == 2
    state = request(server, "POST", path, {"command": "restart"})[1]
    assert state["side"] == "second"


def test_the_state_says_how_the_shown_hints_were_found(make_server):
    release = threading.Event()

    def exact_hints(game, state, player):
        assert release.wait(HANG_GUARD_S)
        return HintLabels(dict.fromkeys(game.legal_actions(state), "draw"), EXACT)

    server = make_server(tictactoe_table(hints=exact_hints))
    game = new_game(server)
    path = f"/api/games/{game['id']}"
    assert game["hint_source"] == ""
    state = request(server, "POST", path, {"command": "hints"})[1]
    assert state["hints"] is True and state["hint_source"] == ""  # still solving: no labels, no source
    release.set()
    state = wait_until(server, state, lambda s: "solving" not in s["status"])
    assert state["hint_source"] == "exact" and state["status"] == "your move (X) - hints: exact"
    state = request(server, "POST", path, {"command": "hints"})[1]
    assert state["hints"] is False and state["hint_source"] == ""  # hidden hints name no source


def test_both_sides_and_the_result(make_server):
    server = make_server()
    game = new_game(server, side="both")
    assert game["side"] == "both" and game["status"] == "X to move"
    path = f"/api/games/{game['id']}"
    session = server.games[game["id"]].session
    for cell in (0, 3, 1, 4, 2):  # X completes the top row
        x, y = session.view.cell_rect(cell).center
        state = request(server, "POST", path, {"click": [x, y]})[1]
    assert state["over"] and state["status"] == "X wins"  # said once, by the env's own line
    assert state["agent_moves"] == 0


def test_a_draw_against_an_agent_says_draw_once(make_server):
    server = make_server()
    game = new_game(server)  # Lowest takes the lowest free cell
    path = f"/api/games/{game['id']}"
    session = server.games[game["id"]].session
    for moves, cell in enumerate((1, 3, 4, 6, 8)):  # X 1 3 4 6 8, O 0 2 5 7: no line
        state = wait_until(server, game, lambda state, done=2 * moves: state["moves"] == done)
        game = request(server, "POST", path, {"click": list(session.view.cell_rect(cell).center)})[1]
    state = wait_until(server, game, lambda state: state["over"])
    assert state["status"] == "Draw"  # not "Draw - Draw": the page shows the server's status as it is


def test_the_page_door_builds_named_agents_through_the_provider():
    pytest.importorskip("agents")
    options = {"rows": 2, "cols": 2, "ui": "page", "wait": False, "log": io.StringIO()}
    with gym_boardgames.play("dotsandboxes", "alphabeta:2", side="second", **options) as server:
        offered = list(dict.fromkeys(["alphabeta:2", *suggested_opponents(make_game("dotsandboxes", rows=2, cols=2))]))
        assert server.opponents == offered
        game = new_game(server, "alphabeta:2", side="second")
        state = wait_until(server, game, lambda s: s["agent_moves"] == 1)
        assert state["moves"] == 1
        game = new_game(server, "random", side="second")  # an offered name is built when a game asks for it
        assert wait_until(server, game, lambda s: s["agent_moves"] == 1)["moves"] == 1
        status, payload = request(server, "POST", "/api/games", {"opponent": "mcts:7"})
        assert status == 400 and f"one of {', '.join(offered)}, " in payload["error"]


def test_the_page_door_refuses_a_game_without_a_board_env():
    with pytest.raises(ValueError, match=r"^no board env plays <object object at "):
        gym_boardgames.play(object(), "random", ui="page")


def test_the_page_shows_inline_in_jupyter(make_server):
    server = make_server()
    html = server._repr_html_()
    assert html.startswith("<iframe") and server.token in html and f":{server.port}/" in html


@pytest.mark.parametrize("env", [ConnectNEnv, DotsAndBoxesEnv, TicTacToeEnv])
def test_every_board_game_draws_a_png_of_its_board(env):
    session = PlaySession(env(opponent=None), Lowest())
    picture = pygame.image.load(io.BytesIO(session.png()), "board.png")
    board = pygame.Surface(session.view.size)
    session.draw_board(board)
    assert picture.get_size() == session.view.size
    pixels = pygame.surfarray.array3d(picture)
    assert (pixels == pygame.surfarray.array3d(board)).all()  # PNG is lossless: the very frame drawn
    assert len({tuple(p) for p in pixels.reshape(-1, 3)}) > 2  # a board, not a blank or two-colour fill


# ---- a game's end: reloads, leaving pages, a stopped server ----------------------------------


def record_closes(monkeypatch):
    """The list every session appends itself to when it is closed (the server closes a game's session)."""
    closed, close = [], PlaySession.close
    monkeypatch.setattr(PlaySession, "close", lambda session: (closed.append(session), close(session))[1])
    return closed


def eventually(condition):
    """Wait for ``condition`` with no deadline but the hang guard (the server's loop acts between requests)."""
    for _ in range(HANG_GUARD_S * 100):
        if condition():
            return
        threading.Event().wait(0.01)
    raise AssertionError("never happened")


def waiting_poll(server, game):
    """A long poll of ``game`` (a page's), started and waiting for a change; join it for its answer."""
    answers = []
    session = server.games[game["id"]].session
    path = f"/api/games/{game['id']}?since={game['version']}&wait=10"
    poll = threading.Thread(target=lambda: answers.append(request(server, "GET", path)))
    poll.start()
    eventually(lambda: session._changed._waiters)  # in wait_for_change: it asked before anything that follows
    return poll, answers


def test_every_way_a_game_ends_closes_its_session(make_server, monkeypatch):
    clock, closed = FakeClock(), record_closes(monkeypatch)
    server = make_server(clock=clock, limits=Limits(idle_seconds=60))
    deleted, idle, left, kept = games = [new_game(server) for _ in range(4)]
    d, i, l, k = (server.games[game["id"]].session for game in games)  # noqa: E741
    assert request(server, "DELETE", f"/api/games/{deleted['id']}")[0] == 204
    assert closed == [d]
    assert request(server, "POST", f"/api/games/{left['id']}", {"leaving": True})[0] == 200
    clock.now += server_module.LEAVE_GRACE_SECONDS + 1  # the page that left never came back; the others are idle
    eventually(lambda: len(closed) == 2)  # freed between requests: nobody needs to ask
    assert closed[1] is l and set(server.games) == {idle["id"], kept["id"]}
    assert request(server, "GET", f"/api/games/{kept['id']}")[0] == 200
    clock.now += 60 - server_module.LEAVE_GRACE_SECONDS  # idle: 61 s without a request; kept: 40 s
    eventually(lambda: len(closed) == 3)
    assert closed[2] is i and set(server.games) == {kept["id"]}
    server.close()
    assert closed[3] is k and not server.games


def test_a_page_back_within_the_grace_keeps_its_game_and_a_poll_left_behind_does_not(make_server):
    clock = FakeClock()
    server = make_server(clock=clock)
    reloaded, closed = new_game(server), new_game(server)
    for game in (reloaded, closed):
        poll, answers = waiting_poll(server, game)  # the page's poll, waiting when its tab goes
        assert request(server, "POST", f"/api/games/{game['id']}", {"leaving": True})[0] == 200
        server.games[game["id"]].session.say("a change ends the poll")
        poll.join(HANG_GUARD_S)
        assert answers[0][0] == 200
    clock.now += 5
    assert request(server, "GET", f"/api/games/{reloaded['id']}")[0] == 200  # the reloaded page asks
    clock.now += server_module.LEAVE_GRACE_SECONDS
    assert request(server, "GET", f"/api/games/{reloaded['id']}")[0] == 200
    assert request(server, "GET", f"/api/games/{closed['id']}")[0] == 404


def test_a_poll_waiting_when_the_server_stops_hears_that_it_stopped_not_that_its_game_is_gone(make_server):
    server = make_server()
    poll, answers = waiting_poll(server, new_game(server))
    server.close()
    poll.join(HANG_GUARD_S)
    assert answers == [(503, {"error": "the server has stopped"})]


def test_the_state_names_its_opponent_so_the_page_menus_can_follow_it(make_server):
    server = make_server()
    assert new_game(server, "other")["opponent"] == "other"
    assert new_game(server, "other", side="both")["opponent"] == "other"  # the menu keeps its choice


def test_a_restart_clears_the_message_of_the_finished_game(make_server):
    server = make_server()
    game = new_game(server, side="both")
    path = f"/api/games/{game['id']}"
    view = server.games[game["id"]].session.view
    for cell in (0, 3, 1, 4, 2, 5):  # X completes the top row; the last click is on the finished game
        state = request(server, "POST", path, {"click": list(view.cell_rect(cell).center)})[1]
    assert state["status"] == "X wins (the game is over: R starts a new one)"
    assert request(server, "POST", path, {"command": "restart"})[1]["status"] == "X to move"


def test_a_server_entered_after_serve_started_it_runs_one_loop_that_close_stops():
    before = {thread for thread in threading.enumerate() if thread.name == "play-server"}
    with gym_boardgames.play("tictactoe", "random", ui="page", wait=False, log=io.StringIO()) as server:
        loops = {thread for thread in threading.enumerate() if thread.name == "play-server"} - before
        assert len(loops) == 1  # serve() started it; entering it did not start a second loop
    for thread in loops:
        thread.join(HANG_GUARD_S)
        assert not thread.is_alive()
    assert server.games == {}


@pytest.mark.parametrize("port", [70000, -1, 65536, 8.5, True, "80"])
def test_a_port_outside_the_tcp_range_is_one_valueerror_naming_the_range(port):
    # 70000 reached the socket, whose refusal was an OverflowError.
    with pytest.raises(ValueError, match=rf"^port must be an integer in \[0, 65535\], got {re.escape(repr(port))}$"):
        gym_boardgames.play("tictactoe", "random", ui="page", port=port, wait=False)


# A 30,000-character click is a 413 here before it is parsed (the body limit); 3,000 characters fit in a body.
@pytest.mark.parametrize("value", ["x", 1.5, True, None, 99, "x" * 3_000, [1e9, 0]], ids=lambda v: repr(v)[:20])
def test_a_bad_click_is_a_400_with_check_clicks_one_line_as_in_the_widget(make_server, value):
    from gym_boardgames.human.session import check_click

    server = make_server()
    game = new_game(server)
    with pytest.raises(ValueError) as checked:
        check_click(value)  # the widget shows the same line: tests/human/test_widget.py
    status, payload = request(server, "POST", f"/api/games/{game['id']}", {"click": value})
    assert status == 400 and payload["error"] == str(checked.value) and "\n" not in payload["error"]
    status, state = request(server, "GET", f"/api/games/{game['id']}")
    assert status == 200 and state["moves"] == 0  # no move made
