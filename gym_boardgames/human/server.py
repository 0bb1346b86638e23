"""The play server: one board game's page, a small JSON API, and the guards every request passes.

:class:`PlayServer` is the standard library's threading HTTP server, each request in a thread of its own. The
guards, in the order a request meets them:

- the address: 127.0.0.1 unless ``allow_remote`` (a warning line is logged then);
- a connection silent for :data:`SOCKET_TIMEOUT_SECONDS` is dropped, so slow clients cannot pile up;
- the token (the printed URL's ``?token=``, or the ``X-Play-Token`` header the page sends), compared in constant
  time: without it every answer is 403 (a given token must pass :func:`checked_token`);
- the path: one document, the page, built in memory from ``page.html`` and ``page.js``; no path maps to a file;
- the body: at most :attr:`Limits.body_bytes` of UTF-8 JSON, an object nested at most :data:`MAX_JSON_DEPTH`
  deep (counted before parsing), each field checked;
- the games: at most :attr:`Limits.games` at once; one nobody asks about for :attr:`Limits.idle_seconds` (or
  :data:`LEAVE_GRACE_SECONDS` after its page left) is freed, and its session closed, as at DELETE and ``close()``.

A refusal is a 4xx with a JSON ``{"error": ...}`` and one log line without the query (which may hold the
token); a bug of ours is a 500 and one line; never a traceback.

Routes (all need the token):

- ``GET /``: the page.
- ``POST /api/games`` ``{"opponent": NAME, "side": "first" | "second" | "both"}``: starts a game against one of
  the offered opponents (``"both"``: a person on both sides); 201 and its state.
- ``GET /api/games/ID?since=VERSION&wait=SECONDS``: the game's state once its version (a counter bumped at each
  change) passes ``since``, or after ``wait`` seconds (at most :data:`MAX_WAIT_SECONDS`). While the agent thinks
  the state says for how long so far; the page counts on from there by itself.
- ``POST /api/games/ID`` ``{"click": [x, y]}`` or ``{"command": NAME}`` (a name of
  :data:`~gym_boardgames.human.session.COMMANDS`): a click on the board's picture (in its pixels) or a command;
  the new state. ``{"leaving": true}`` (the page's beacon as
  its tab hides): the game is freed unless asked about within :data:`LEAVE_GRACE_SECONDS` (a reload asks).
- ``DELETE /api/games/ID``: frees the game; 204.
"""

from __future__ import annotations

import base64
import hmac
import html
import ipaddress
import json
import re
import secrets
import socket
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from importlib import resources
from typing import TYPE_CHECKING, Any, TextIO
from urllib.parse import SplitResult, parse_qs, urlsplit

from gym_boardgames.checks import check_bool, check_int, check_number
from gym_boardgames.human.session import COMMANDS, SIDES, THINKING, PlaySession, check_click

if TYPE_CHECKING:
    from gym_boardgames.human.table import Table

#: The largest request body accepted by default, in bytes (413 beyond).
MAX_BODY_BYTES = 4096
#: The deepest nesting of lists and objects a body may have (400 beyond): the parser recurses per level.
MAX_JSON_DEPTH = 8
#: Games open at once by default (429 beyond).
MAX_GAMES = 8
#: Seconds after which a game nobody asks about is freed, by default.
IDLE_TIMEOUT_SECONDS = 120.0
#: The longest a state request may wait for a change, in seconds.
MAX_WAIT_SECONDS = 10.0
#: A connection that sends nothing for this long is dropped, so idle sockets cannot pile up.
SOCKET_TIMEOUT_SECONDS = 30.0
#: The shortest token accepted: as long as the one the server makes (``secrets.token_urlsafe(32)``, 43 characters).
MIN_TOKEN_CHARS = len(secrets.token_urlsafe(32))
#: The largest TCP port (0 asks the system for a free one).
MAX_PORT = 65535
#: Seconds a game lives on after its page said it was leaving: a reload's new page comes back to it within them.
LEAVE_GRACE_SECONDS = 20.0

_GAME_PATH = re.compile(r"/api/games/([A-Za-z0-9_-]{1,32})")
_JSON_STRING = re.compile(r'"(?:[^"\\]|\\.)*"')  # a bracket inside a string does not nest
_TOKEN = re.compile(rf"[A-Za-z0-9_-]{{{MIN_TOKEN_CHARS},256}}")  # URL-safe: a URL or a header carries it as it is


@dataclass(frozen=True)
class Limits:
    """The bounds a :class:`PlayServer` keeps: the games open at once, a body's size and an idle game's life.

    Raises:
        ValueError: on a bound out of its range, naming it.
    """

    games: int = MAX_GAMES
    body_bytes: int = MAX_BODY_BYTES
    idle_seconds: float = IDLE_TIMEOUT_SECONDS

    def __post_init__(self) -> None:
        check_int("games", self.games, 1, 1000)
        check_int("body_bytes", self.body_bytes, 64, 1 << 20)
        check_number("idle_seconds", self.idle_seconds, 1e-3, 1e6)


class HttpError(Exception):
    """A request the server refuses: ``HttpError(status code, the one-line reason the client gets)``."""


def checked_token(token: str) -> str:
    """Return ``token`` if a server takes it (one restarted with it serves the pages it served), else a ValueError."""
    if isinstance(token, str) and _TOKEN.fullmatch(token):
        return token
    raise ValueError(
        f"a token must be {MIN_TOKEN_CHARS} to 256 characters of A-Z a-z 0-9 - _, as secrets.token_urlsafe(32) makes"
    )


def is_loopback(host: str) -> bool:
    """Whether ``host`` names this machine only (``localhost``, ``127.0.0.0/8``, ``::1``)."""
    try:
        return host == "localhost" or ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


class _Game:
    """A session with its id, its opponent's name and the time it was last asked about."""

    def __init__(self, game_id: str, session: PlaySession, opponent: str, now: float) -> None:
        self.id, self.session, self.opponent, self.last_seen = game_id, session, opponent, now
        self._frame_key: tuple[int, str] | None = None
        self._frame = ""

    def state(self) -> dict[str, Any]:
        """The game as the page shows it; the PNG is encoded again only when the version or status changed."""
        session = self.session
        with session.lock:
            status = session.status()
            if (session.version, status) != self._frame_key:
                self._frame = "data:image/png;base64," + base64.b64encode(session.png()).decode("ascii")
                self._frame_key = (session.version, status)
            return {
                "id": self.id,
                "opponent": self.opponent,  # the page's menus follow the game it shows
                "version": session.version,
                "status": status,
                "over": session.over,
                "thinking": session.thinking,
                "thinking_seconds": session.thinking_seconds,  # so far: the page counts on by itself
                "side": "both" if session.both_sides else ("first", "second")[session.side],
                "hints": session.show_hints,
                # How the labels shown were found ("exact", "search estimate", "network estimate"), or "".
                "hint_source": session.hint_source if session.show_hints and session.human_to_move else "",
                "moves": len(session.env.moves),
                "agent_moves": session.agent_moves,
                "reply_seconds": session.last_think_seconds,  # the agent's last reply: the page's round trip less it
                "frame": self._frame,
            }


class PlayServer(ThreadingHTTPServer):
    """A web server for one board game, played in a browser page against any of a list of agents.

    Args:
        table: the game, the opponents the page offers (the first is the default), the side it offers first,
            the hints and the seed, resolved by :func:`gym_boardgames.human.table.resolve`.
        host: the address to listen on (default ``127.0.0.1``: this machine only).
        port: the port (0: a free one, see :attr:`url`).
        token: the secret every request must carry (default: 32 random bytes, URL-safe; see :func:`checked_token`).
        allow_remote: needed for a ``host`` that is not loopback, which lets other machines reach the page;
            a warning line is logged then.
        limits: the games open at once, the largest body and an idle game's life (:class:`Limits`).
        log: where one line per refused request goes (default ``sys.stderr``).
        clock: the monotonic clock of the idle timeout (tests pass their own).

    Raises:
        ValueError: on a bad setting: no ``host``, a bad token, a remote host without ``allow_remote``.
        TypeError: on ``limits`` that is not a :class:`Limits`.
        OSError: if the address cannot be bound (the port is taken).
    """

    daemon_threads = True

    def __init__(
        self,
        table: Table,
        *,
        host: str = "127.0.0.1",
        port: int = 0,
        token: str | None = None,
        allow_remote: bool = False,
        limits: Limits = Limits(),
        log: TextIO | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        check_int("port", port, 0, MAX_PORT)  # the socket's own refusal of 70000 is an OverflowError
        if not host:
            raise ValueError("host must be an address: 127.0.0.1 (this machine), or 0.0.0.0 or :: (every interface)")
        if not is_loopback(host) and not allow_remote:
            raise ValueError(
                f"host {host!r} would let other machines reach the page: pass allow_remote=True "
                "(--allow-remote) to mean it, or use 127.0.0.1 and forward the port over SSH"
            )
        if not isinstance(limits, Limits):  # a dict here was taken, and every new game then failed with a 500
            raise TypeError(
                f"limits must be a gym_boardgames.human.server.Limits(games=, body_bytes=, idle_seconds=), "
                f"got {type(limits).__name__} {limits!r:.60}"
            )
        self.token = secrets.token_urlsafe(32) if token is None else checked_token(token)
        self.table, self.opponents = table, list(table.opponents)
        self.limits, self.log, self.clock = limits, (log if log is not None else sys.stderr), clock
        self.games: dict[str, _Game] = {}
        self._starting = 0  # games whose agent is being built
        self._lock = threading.Lock()
        self.page = _build_page(f"{table.title} - gym-boardgames", self.opponents, table.side)
        self._thread: threading.Thread | None = None
        self._serving = self._closed = False
        self.address_family = socket.AF_INET6 if ":" in host else socket.AF_INET
        super().__init__((host, port), _Handler)
        if not is_loopback(host):
            self.log.write(f"play server: warning: on {host}, any machine that reaches it with the token can play\n")

    # ---- running -----------------------------------------------------------------------------

    @property
    def port(self) -> int:
        """The port the server listens on."""
        return int(self.server_address[1])

    @property
    def url(self) -> str:
        """The page's address, token included: open it in a browser."""
        host = self.server_address[0]
        # A wildcard address (every interface) is not one a browser can open: show this machine's loopback.
        shown = ("::1" if ":" in host else "127.0.0.1") if ipaddress.ip_address(host).is_unspecified else host
        shown = f"[{shown}]" if ":" in shown else shown
        return f"http://{shown}:{self.port}/?token={self.token}"

    def start(self) -> PlayServer:
        """Serve in a background thread (for notebooks and tests) and return self; a second call does nothing."""
        if self._thread is None:  # a second loop (``with serve(...)``) would outlive close() and spin
            self._serving = True  # before the thread runs, so an immediate close() still stops its loop
            self._thread = threading.Thread(target=self.serve_forever, daemon=True, name="play-server")
            self._thread.start()
        return self

    def serve_forever(self, poll_interval: float = 0.2) -> None:
        """Serve until :meth:`close` (or Ctrl-C in the calling thread)."""
        self._serving = True
        super().serve_forever(poll_interval)

    def close(self) -> None:
        """Stop serving, end every game (its long polls answer 503: the server has stopped) and release the port."""
        self._closed = True
        if self._serving:  # shutdown() waits for serve_forever's loop, so only when it runs
            self.shutdown()
        self.server_close()
        self._free(lambda game: True)
        if self._thread is not None:
            self._thread.join(timeout=5)

    def __enter__(self) -> PlayServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        """The REPL's view: where the page is (its URL, the token included) and how to stop it, or that it stopped."""
        if self._closed:
            return f"<PlayServer of {self.table.title}: stopped>"
        return f"<PlayServer of {self.table.title} at {self.url} (server.close() stops it)>"

    def _repr_html_(self) -> str:
        """Jupyter shows the page inline, in an iframe, with its URL and how to stop it under it."""
        if self._closed:
            return f"<p>{html.escape(repr(self))}</p>"
        url = html.escape(self.url)
        return (
            f'<iframe src="{url}" width="100%" height="640" style="border:0" '
            f'title="{html.escape(self.table.title)}"></iframe>'
            f'<p>The page: <a href="{url}" target="_blank">{url}</a> (<code>server.close()</code> stops it)</p>'
        )

    def service_actions(self) -> None:
        """Called by ``serve_forever`` at least every 0.2 s: games expire without a request too."""
        self.reap_idle()

    def reap_idle(self) -> int:
        """Free every game not asked about for ``limits.idle_seconds``; return how many were freed."""
        now = self.clock()
        return self._free(lambda game: now - game.last_seen > self.limits.idle_seconds)

    def _free(self, which: Callable[[_Game], bool]) -> int:
        """Drop the games ``which`` picks and end their sessions (outside the lock); return how many."""
        with self._lock:
            gone = [game for game in self.games.values() if which(game)]
            for game in gone:
                del self.games[game.id]
        for game in gone:
            game.session.close()
        return len(gone)

    def handle_error(self, request: Any, client_address: Any) -> None:
        """One line, never a traceback (a client that hung up mid-answer, say)."""
        self.log.write(f"play server: connection from {client_address[0]} failed: {sys.exc_info()[1]!r}\n")

    # ---- the API: each method answers one route, or raises HttpError -------------------------

    def check_token(self, offered: str | None) -> None:
        """Raise 403 unless ``offered`` is the token (compared in constant time)."""
        if offered is None or not hmac.compare_digest(offered.encode(), self.token.encode()):
            raise HttpError(403, "missing or wrong token: open the URL the server printed")

    def new_game(self, body: dict[str, Any]) -> dict[str, Any]:
        """``POST /api/games``: start a game and return its state."""
        opponent, side = body.get("opponent", self.opponents[0]), body.get("side", self.table.side)
        if opponent not in self.opponents or side not in SIDES:
            raise HttpError(
                400,
                f'a game is {{"opponent": one of {", ".join(self.opponents)}, "side": one of '
                f"{', '.join(SIDES)}}}, got {opponent!r:.60} and {side!r:.60}",
            )
        with self._lock:
            if len(self.games) + self._starting >= self.limits.games:
                raise HttpError(
                    429,
                    f"{self.limits.games} games are open (the most this server plays at once): close a page, or "
                    f"wait {self.limits.idle_seconds:.0f} s for an idle one to be freed",
                )
            self._starting += 1  # the slot is held while the agent is built, outside the lock
        try:
            session = self.table.session(opponent, side)
        except Exception as error:
            raise HttpError(400, f"cannot start a game against {opponent!r}: {error}") from None
        finally:
            with self._lock:
                self._starting -= 1
        game = _Game(secrets.token_urlsafe(12), session, opponent, self.clock())
        with self._lock:
            self.games[game.id] = game
        if self._closed:  # close() may have freed the games before this one came: it ends here too
            self._free(lambda other: other is game)
            raise HttpError(503, "the server has stopped")
        return game.state()

    def game(self, game_id: str, seen: bool = True) -> _Game:
        """The open game ``game_id``, its last-seen time refreshed if ``seen``; else 404 (503 once stopped)."""
        with self._lock:
            game = self.games.get(game_id)
            if game is None:
                raise HttpError(503, "the server has stopped") if self._closed else HttpError(404, "no such game")
            game.last_seen = self.clock() if seen else game.last_seen
            return game

    def game_state(self, game_id: str, query: dict[str, list[str]]) -> dict[str, Any]:
        """``GET /api/games/ID``: the state once its version passes ``since``, waiting at most ``wait`` seconds."""
        game = self.game(game_id)
        since = _query_number(query, "since", -1, int)
        wait = _query_number(query, "wait", 0.0, float)
        if not 0 <= wait <= MAX_WAIT_SECONDS:
            raise HttpError(400, f"wait must be in [0, {MAX_WAIT_SECONDS:g}] seconds, got {wait}")
        game.session.wait_for_change(since, wait)  # close() ends the session, which wakes it
        return self.game(game_id, seen=False).state()  # seen at its start: a poll left behind keeps no game alive

    def act(self, game_id: str, body: dict[str, Any]) -> dict[str, Any]:
        """``POST /api/games/ID``: a click or a command; the new state."""
        game = self.game(game_id)
        try:  # the session refuses a bad click or command (ValueError): the page's request is bad, a 400
            if "click" in body:
                game.session.click(check_click(body["click"]))
            elif "command" in body:
                game.session.command(body["command"])
            elif body.get("leaving") is True:  # freed in LEAVE_GRACE_SECONDS (or sooner if idle) unless asked about
                game.last_seen = min(game.last_seen, game.last_seen + LEAVE_GRACE_SECONDS - self.limits.idle_seconds)
            else:
                raise HttpError(400, 'give {"click": [x, y]}, {"command": NAME} or {"leaving": true}')
        except ValueError as error:
            raise HttpError(400, str(error)) from None
        return game.state()

    def end_game(self, game_id: str) -> None:
        """``DELETE /api/games/ID``: free the game."""
        self.game(game_id)  # 404 if there is none
        self._free(lambda game: game.id == game_id)


class _Handler(BaseHTTPRequestHandler):
    """One request: the token first, then the route; a refusal is a 4xx with one log line."""

    server: PlayServer
    timeout = SOCKET_TIMEOUT_SECONDS
    server_version = "gym-boardgames"
    sys_version = ""

    def _dispatch(self) -> None:
        """GET the page or a game's state, POST a new game or a click or command in one, DELETE (free) a game."""
        play, method = self.server, self.command
        try:
            parts = _split_path(self.path)
            query = parse_qs(parts.query, keep_blank_values=True)
            play.check_token(self._header("X-Play-Token") or (query.get("token") or [None])[-1])
            play.reap_idle()  # at every request, so an idle game is gone before anyone can ask for it
            path, match = parts.path, _GAME_PATH.fullmatch(parts.path)
            if method == "GET" and path == "/":
                self._send(200, play.page, "text/html; charset=utf-8")
            elif method == "POST" and path == "/api/games":
                self._send(201, play.new_game(self._json_body()))
            elif match and method == "GET":
                self._send(200, play.game_state(match[1], query))
            elif match and method == "POST":
                self._send(200, play.act(match[1], self._json_body()))
            elif match and method == "DELETE":
                play.end_game(match[1])
                self._send(204, b"", "text/plain")
            elif path in ("/", "/api/games") or match:
                raise HttpError(405, f"{method} is not allowed on {path}")
            else:
                raise HttpError(404, "not found: the server has one page, at /")
        except HttpError as error:
            status, reason = error.args
            play.log.write(f"play server: {method} {self._logged_path()!r} -> {status}: {reason}\n")
            self._send(status, {"error": reason})
        except Exception as error:  # a bug of ours: one line in the log, a 500 to the client, no traceback
            play.log.write(f"play server: {method} {self._logged_path()!r} failed: {error!r}\n")
            self._send(500, {"error": "internal error (see the server's log)"})

    # http.server calls do_METHOD for a request: the three methods the routes take share the one router.
    do_GET = do_POST = do_DELETE = _dispatch

    def _json_body(self) -> dict[str, Any]:
        """The body: a JSON object within the size and depth bounds, else a 4xx."""
        length_text, most = self._header("Content-Length"), self.server.limits.body_bytes
        if length_text is None:
            raise HttpError(411, "a body needs a Content-Length")
        digits = length_text.strip().lstrip("0") or "0"
        if not digits.isdecimal():  # isdecimal: what int() reads, with no sign, space or underscore
            raise HttpError(400, f"bad Content-Length {length_text[:40]!r}")
        # Digits counted before int(): past 4,300 int() raises (Python's integer-string limit), a 500 it was.
        length = int(digits) if len(digits) <= len(str(most)) else most + 1
        if length > most:
            self.close_connection = True  # the body is not read: the connection cannot be reused
            raise HttpError(413, f"body over {most} bytes")
        try:
            text = self.rfile.read(length).decode("utf-8")
            if _json_depth(text) > MAX_JSON_DEPTH:  # before parsing: json recurses once per level
                raise HttpError(400, f"the body nests deeper than {MAX_JSON_DEPTH} levels")
            body = json.loads(text) if text else {}
        except ValueError:  # UnicodeDecodeError and JSONDecodeError are ValueErrors
            raise HttpError(400, "the body is not JSON") from None
        if not isinstance(body, dict):
            raise HttpError(400, "the body must be a JSON object")
        return body

    def _header(self, name: str) -> str | None:
        """The one value of header ``name`` (None if absent); a 400 if it comes twice with different values.

        Two different Content-Lengths are how a request is smuggled past a proxy, and two tokens leave open
        which one was checked: neither is guessed at.
        """
        values = set(self.headers.get_all(name) or ())
        if len(values) > 1:
            raise HttpError(
                400, f"the {name} header comes {len(self.headers.get_all(name))} times, with different values"
            )
        return values.pop() if values else None

    def _logged_path(self) -> str:
        """The request's path without its query, which may hold the token."""
        try:
            return _split_path(self.path).path[:200]
        except HttpError:
            return self.path.split("?", 1)[0][:200]

    def _send(self, status: int, body: bytes | dict[str, Any], content_type: str = "application/json") -> None:
        if isinstance(body, dict):
            body = json.dumps(body).encode("utf-8")
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Cache-Control", "no-store")
        self.send_header("X-Content-Type-Options", "nosniff")
        self.send_header("Referrer-Policy", "no-referrer")  # the URL holds the token: never send it elsewhere
        self.end_headers()
        self.wfile.write(body)

    def log_request(self, code: int | str = "-", size: int | str = "-") -> None:
        """Successful requests are not logged; refusals are, once, by :meth:`_dispatch`."""

    def log_error(self, format: str, *args: Any) -> None:  # noqa: A002  (http.server's signature)
        """A request http.server itself refuses (a malformed line, say): one line."""
        self.server.log.write("play server: " + (format % args) + "\n")


def _split_path(path: str) -> SplitResult:
    """``urlsplit(path)``, a 400 for a path it cannot split (``http://[::1``, an unclosed IPv6 address)."""
    try:
        return urlsplit(path)
    except ValueError:
        raise HttpError(400, f"bad request path {path[:40]!r}") from None


def _json_depth(text: str) -> int:
    """The deepest nesting of lists and objects in ``text``, strings left out."""
    depth = deepest = 0
    for char in _JSON_STRING.sub("", text):
        if char in "[{":
            depth += 1
            deepest = max(deepest, depth)
        elif char in "]}":
            depth -= 1
    return deepest


def _query_number(query: dict[str, list[str]], name: str, default: Any, kind: type) -> Any:
    values = query.get(name)
    if not values:
        return default
    try:
        return kind(values[-1])
    except ValueError:
        raise HttpError(400, f"{name} must be a number, got {values[-1][:40]!r}") from None


def _build_page(title: str, opponents: list[str], side: str) -> bytes:
    """The page: page.html with the script and the settings (the thinking line, say) inlined: one document."""
    folder = resources.files("gym_boardgames.human")
    template = folder.joinpath("page.html").read_text(encoding="utf-8")
    script = folder.joinpath("page.js").read_text(encoding="utf-8")
    # "<" escaped, so no name can close the script element that holds the settings.
    commands = [command._asdict() for command in COMMANDS]
    config = {"title": title, "opponents": opponents, "side": side, "sides": SIDES, "thinking": THINKING}
    config = json.dumps({**config, "commands": commands})
    config = config.replace("<", "\\u003c")
    page = template.replace("{{title}}", html.escape(title)).replace("{{config}}", config).replace("{{script}}", script)
    return page.encode("utf-8")


def serve(table: Table, *, wait: bool | None = None, start: bool = True, **options: Any) -> PlayServer:
    """Serve ``table``'s game as a browser page (``gym_boardgames.play(ui="page")``) and return the server.

    From a script (``python file.py``) it serves until Ctrl-C, having printed the page's URL (its token included)
    first, then returns the closed server. In a REPL or a notebook (:func:`interactive`) it serves in a
    background thread and returns at once: the server's value shows the URL (a notebook cell shows the page
    inline, where the browser runs on the kernel's machine), and ``server.close()`` stops it.

    Args:
        table: the game, opponents, side, hints and seed, resolved by :func:`gym_boardgames.human.table.resolve`.
        wait: serve here until Ctrl-C (True) or in a background thread (False); None chooses as above.
        start: False returns the server without serving (the caller serves: ``serve_forever()``, ``start()``).
        **options: :class:`PlayServer`'s keywords: ``host``, ``port``, ``token``, ``allow_remote``, ``limits``, ``log``.

    Raises:
        ValueError: a bad server option.
        OSError: if the port cannot be bound.
    """
    wait = not interactive() if wait is None else check_bool("wait", wait)
    start = check_bool("start", start)
    server = PlayServer(table, **options)
    if not start:
        return server
    if not wait:
        return server.start()
    where = (
        "this machine only"
        if is_loopback(server.server_address[0])
        else f"{server.server_address[0]}, other machines too"
    )
    print(f"Serving {table.title} against {table.opponent} on {where}. Open this URL (it holds the access token):")
    print(f"  {server.url}", flush=True)
    print("Press Ctrl-C to stop.", flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        print("stopped", flush=True)
    finally:
        server.close()
    return server


def interactive() -> bool:
    """Whether a person types into this Python: a REPL (``python``, ``python -i``), IPython or a notebook's kernel.

    Then a door that would serve until Ctrl-C returns at once instead, and its value does the showing.
    """
    return hasattr(sys, "ps1") or bool(sys.flags.interactive) or _ipython_shell() is not None


def in_kernel() -> bool:
    """Whether this Python is a Jupyter kernel (JupyterLab, VS Code, Colab), where a widget can show."""
    return getattr(_ipython_shell(), "kernel", None) is not None


def _ipython_shell() -> Any:
    """The running IPython shell (a terminal's or a kernel's), or None; IPython is never imported here."""
    ipython = sys.modules.get("IPython")
    return getattr(ipython, "get_ipython", lambda: None)() if ipython is not None else None
