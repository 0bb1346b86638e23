"""The play server: the games, one page, a small JSON API, and the guards every request passes.

Every request carries the server's token (the printed URL's ``?token=``, or the ``X-Play-Token`` header the
page sends); without it the answer is 403. The server serves exactly one document, the page, built in memory
from this package's own ``page.html`` and ``page.js``: no path is ever mapped to a file, so nothing outside
the page can be served. Each request is bounded: its body (``max_body_bytes``), the games open at once
(``max_games``), the request rate (a token bucket of ``requests_per_second`` and ``burst``), and how long a
poll may wait. A bad request gets a 4xx answer with a JSON ``{"error": ...}`` and one log line, never a
traceback (:mod:`gym_boardgames.web.http` routes the requests and words the answers). A game nobody has polled
for ``idle_timeout`` seconds is freed.

Routes (all need the token):

``GET /``
    the page.
``POST /api/games`` ``{"opponent": NAME or null, "human": 0 or 1}``
    starts a game against one of the offered opponents (null: a person on both sides); 201 and its state.
``GET /api/games/ID?since=VERSION&wait=SECONDS``
    the game's state, once its version passes ``since`` or after ``wait`` seconds (at most
    :data:`MAX_WAIT_SECONDS`).
``POST /api/games/ID`` ``{"click": [x, y]}`` or ``{"command": "hints" | "undo" | "restart" | "swap"}``
    a click on the board's picture (in its pixels) or a command; the new state.
``DELETE /api/games/ID``
    frees the game; 204.
"""

from __future__ import annotations

import base64
import hmac
import html
import ipaddress
import json
import secrets
import socket
import sys
import threading
import time
import warnings
from collections.abc import Callable, Sequence
from http import HTTPStatus
from importlib import resources
from typing import Any, TextIO

from gym_boardgames.checks import check_int, check_number
from gym_boardgames.play_session import COMMANDS, HintProvider, PlaySession
from gym_boardgames.web.http import HttpError, PlayHTTPServer, PlayRequestHandler

#: The longest a state request may wait for a change, in seconds.
MAX_WAIT_SECONDS = 10.0

#: Builds the session of a new game: ``(opponent name or None, the person's side) -> PlaySession``.
SessionFactory = Callable[[str | None, int], PlaySession]


def is_loopback(host: str) -> bool:
    """Whether ``host`` names this machine only (``localhost``, ``127.0.0.0/8``, ``::1``)."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


class _Game:
    """A session with its id and the time it was last asked about."""

    def __init__(self, game_id: str, session: PlaySession, opponent: str | None, now: float) -> None:
        self.id, self.session, self.opponent, self.last_seen = game_id, session, opponent, now
        self._frame_key: tuple[int, str] | None = None
        self._frame = ""

    def state(self) -> dict[str, Any]:
        """The game as the page shows it; the PNG is encoded again only when the version or status changed."""
        session = self.session
        with session.lock:
            status = session.status()
            key = (session.version, status)
            if key != self._frame_key:
                self._frame = "data:image/png;base64," + base64.b64encode(session.png()).decode("ascii")
                self._frame_key = key
            width, height = session.view.size
            return {
                "id": self.id,
                "version": session.version,
                "status": status,
                "over": session.env.episode_over,
                "thinking": session.thinking,
                "human": session.human,
                "both_sides": session.both_sides,
                "opponent": self.opponent,
                "hints": session.show_hints,
                # How the labels shown were found ("exact", "search estimate", "network estimate"), or "".
                "hint_source": session.hint_source if session.show_hints and session.human_to_move else "",
                "moves": len(session.env.moves),
                "agent_moves": session.agent_moves,
                "think_seconds": session.last_think_seconds,
                "width": width,
                "height": height,
                "frame": self._frame,
            }


class PlayServer:
    """A web server for one board game, played in a browser page against any of a list of agents.

    Args:
        new_session: builds the session of a new game from the opponent's name (None: a person on both
            sides) and the person's side.
        opponents: the agent names the page offers (``new_session`` is only ever called with one of these);
            the first is the default.
        title: the page's title.
        default_human: the side the page offers the person first, 0 (moves first) or 1.
        host: the address to listen on (default ``127.0.0.1``: this machine only).
        port: the port (0: a free one, see :attr:`url`).
        token: the secret every request must carry (default: 32 random bytes, URL-safe).
        allow_remote: needed for a ``host`` that is not loopback, which lets other machines reach the page;
            a warning is printed then.
        max_games: games open at once; a new game beyond it gets 429.
        max_body_bytes: the largest request body accepted (413 beyond).
        requests_per_second: the sustained request rate accepted (429 beyond, once ``burst`` is spent).
        burst: requests accepted at once before the rate applies.
        idle_timeout: seconds after which a game nobody asks about is freed.
        log: where one line per refused request goes (default ``sys.stderr``).
        clock: the monotonic clock (tests pass their own).

    Raises:
        ValueError: on a bad setting, an empty ``opponents``, or a non-loopback ``host`` without
            ``allow_remote``.
        OSError: if the address cannot be bound (the port is taken).
    """

    def __init__(
        self,
        new_session: SessionFactory,
        opponents: Sequence[str],
        *,
        title: str = "gym-boardgames",
        default_human: int = 0,
        host: str = "127.0.0.1",
        port: int = 0,
        token: str | None = None,
        allow_remote: bool = False,
        max_games: int = 8,
        max_body_bytes: int = 4096,
        requests_per_second: float = 50.0,
        burst: int = 200,
        idle_timeout: float = 120.0,
        log: TextIO | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        if not opponents or not all(isinstance(name, str) and name for name in opponents):
            raise ValueError(f"opponents must be a non-empty list of agent names, got {opponents!r}")
        if not is_loopback(host) and not allow_remote:
            raise ValueError(
                f"host {host!r} would let other machines reach the page: pass allow_remote=True "
                "(--allow-remote) to mean it, or use 127.0.0.1 and forward the port over SSH"
            )
        self.new_session = new_session
        self.opponents = list(dict.fromkeys(opponents))
        self.title = title
        if default_human not in (0, 1):
            raise ValueError(f"default_human must be 0 or 1, got {default_human!r}")
        self.token = token if token is not None else secrets.token_urlsafe(32)
        if len(self.token) < 16:
            raise ValueError("token must have at least 16 characters")
        self.max_games = check_int("max_games", max_games, 1, 1000)
        self.max_body_bytes = check_int("max_body_bytes", max_body_bytes, 64, 1 << 20)
        self.requests_per_second = check_number("requests_per_second", requests_per_second, 1e-6, 1e6)
        self.burst = check_int("burst", burst, 1, 10**6)
        self.idle_timeout = check_number("idle_timeout", idle_timeout, 1e-3, 10**6)
        self.log = log if log is not None else sys.stderr
        self.clock = clock
        self.games: dict[str, _Game] = {}
        self._starting = 0  # games whose agent is being built
        self._lock = threading.Lock()
        self._allowance, self._last_refill = float(self.burst), clock()
        self._page = _build_page(title, self.opponents, default_human)
        family = socket.AF_INET6 if ":" in host else socket.AF_INET
        server_class = type("_Server", (PlayHTTPServer,), {"address_family": family})
        self.httpd = server_class((host, port), PlayRequestHandler)
        self.httpd.play = self  # type: ignore[attr-defined]
        self._thread: threading.Thread | None = None
        self._stop = threading.Event()
        self._serving = False
        if not is_loopback(host):
            warnings.warn(
                f"the play server listens on {host}: any machine that can reach it and has the token can play",
                stacklevel=2,
            )

    # ---- running -----------------------------------------------------------------------------

    @property
    def port(self) -> int:
        """The port the server listens on."""
        return int(self.httpd.server_address[1])

    @property
    def url(self) -> str:
        """The page's address, token included: open it in a browser."""
        host = self.httpd.server_address[0]
        # A wildcard address (every interface) is not one a browser can open: show this machine's loopback.
        shown = ("::1" if ":" in host else "127.0.0.1") if ipaddress.ip_address(host).is_unspecified else host
        shown = f"[{shown}]" if ":" in shown else shown
        return f"http://{shown}:{self.port}/?token={self.token}"

    def start(self) -> PlayServer:
        """Serve in a background thread (for notebooks and tests) and return self."""
        self._serving = True  # before the thread runs, so an immediate close() still stops its loop
        self._thread = threading.Thread(target=self.serve_forever, daemon=True, name="play-server")
        self._thread.start()
        return self

    def serve_forever(self) -> None:
        """Serve until :meth:`close` (or Ctrl-C in the calling thread), freeing idle games as it goes."""
        reaper = threading.Thread(target=self._reap_loop, daemon=True, name="play-server-reaper")
        reaper.start()
        self._serving = True
        self.httpd.serve_forever(poll_interval=0.2)

    def close(self) -> None:
        """Stop serving, end every game and release the port."""
        self._stop.set()
        if self._serving:  # shutdown() waits for serve_forever's loop, so only when it runs
            self.httpd.shutdown()
        self.httpd.server_close()
        with self._lock:
            games, self.games = list(self.games.values()), {}
        for game in games:
            game.session.close()
        if self._thread is not None:
            self._thread.join(timeout=5)

    def __enter__(self) -> PlayServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _repr_html_(self) -> str:
        """Jupyter shows the page inline, in an iframe."""
        return (
            f'<iframe src="{html.escape(self.url)}" width="100%" height="640" style="border:0" '
            f'title="{html.escape(self.title)}"></iframe>'
        )

    def _reap_loop(self) -> None:
        while not self._stop.wait(min(self.idle_timeout / 4, 5.0)):
            self.reap_idle()

    def reap_idle(self) -> int:
        """Free every game not asked about for ``idle_timeout`` seconds; return how many were freed."""
        now = self.clock()
        with self._lock:
            idle = [g for g in self.games.values() if now - g.last_seen > self.idle_timeout]
            for game in idle:
                del self.games[game.id]
        for game in idle:
            game.session.close()
        return len(idle)

    # ---- the guards --------------------------------------------------------------------------

    def check_token(self, offered: str | None) -> None:
        """Raise 403 unless ``offered`` is the token (compared in constant time)."""
        if offered is None or not hmac.compare_digest(offered.encode(), self.token.encode()):
            raise HttpError(HTTPStatus.FORBIDDEN, "missing or wrong token: open the URL the server printed")

    def check_rate(self) -> None:
        """Raise 429 once the request rate passes ``requests_per_second`` after a ``burst``."""
        with self._lock:
            now = self.clock()
            self._allowance = min(
                float(self.burst), self._allowance + (now - self._last_refill) * self.requests_per_second
            )
            self._last_refill = now
            if self._allowance < 1:
                raise HttpError(HTTPStatus.TOO_MANY_REQUESTS, "too many requests: slow down")
            self._allowance -= 1

    # ---- the API -----------------------------------------------------------------------------

    def page(self) -> bytes:
        """The page's HTML."""
        return self._page

    def new_game(self, body: dict[str, Any]) -> dict[str, Any]:
        """Start a game (``POST /api/games``) and return its state."""
        opponent = body.get("opponent", self.opponents[0])
        if opponent is not None and opponent not in self.opponents:
            raise HttpError(
                HTTPStatus.BAD_REQUEST,
                f"unknown opponent {opponent!r}: use one of {', '.join(self.opponents)}, or null to play both sides",
            )
        human = body.get("human", 0)
        if human not in (0, 1) or isinstance(human, bool):
            raise HttpError(HTTPStatus.BAD_REQUEST, f"human must be 0 or 1, got {human!r}")
        self.reap_idle()
        with self._lock:
            if len(self.games) + self._starting >= self.max_games:
                raise HttpError(
                    HTTPStatus.TOO_MANY_REQUESTS,
                    f"{self.max_games} games are open (the most this server plays at once): close a page, or wait "
                    f"{self.idle_timeout:.0f} s for an idle one to be freed",
                )
            self._starting += 1  # the slot is held while the agent is built, outside the lock
        try:
            session = self.new_session(opponent, human)
        except Exception as error:
            raise HttpError(HTTPStatus.BAD_REQUEST, f"cannot start a game against {opponent!r}: {error}") from None
        finally:
            with self._lock:
                self._starting -= 1
        game = _Game(secrets.token_urlsafe(12), session, opponent, self.clock())
        with self._lock:
            self.games[game.id] = game
        return game.state()

    def game(self, game_id: str) -> _Game:
        """The open game ``game_id``, its last-seen time refreshed, or 404."""
        with self._lock:
            game = self.games.get(game_id)
            if game is None:
                raise HttpError(HTTPStatus.NOT_FOUND, "no such game (it may have been freed after being idle)")
            game.last_seen = self.clock()
            return game

    def game_state(self, game_id: str, query: dict[str, list[str]]) -> dict[str, Any]:
        """``GET /api/games/ID``: the state once it is newer than ``since``, waiting at most ``wait`` seconds."""
        game = self.game(game_id)
        since = _query_number(query, "since", -1, int)
        wait = _query_number(query, "wait", 0.0, float)
        if not 0 <= wait <= MAX_WAIT_SECONDS:
            raise HttpError(HTTPStatus.BAD_REQUEST, f"wait must be in [0, {MAX_WAIT_SECONDS:g}] seconds, got {wait}")
        if wait > 0:
            # While the agent thinks the status counts the seconds, so answer at least once a second then.
            deadline = time.monotonic() + wait
            while not self._stop.is_set() and game.session.version <= since:
                left = deadline - time.monotonic()
                if left <= 0:
                    break
                game.session.wait_for_change(since, min(left, 1.0 if game.session.thinking else 0.25))
                if game.session.thinking and game.session.version <= since:
                    break
            self.game(game_id)  # refresh last_seen: a long poll is a sign of life
        return game.state()

    def act(self, game_id: str, body: dict[str, Any]) -> dict[str, Any]:
        """``POST /api/games/ID``: a click or a command; the new state."""
        game = self.game(game_id)
        if "click" in body:
            point = body["click"]
            if (
                not isinstance(point, list)
                or len(point) != 2
                or not all(isinstance(v, int | float) and not isinstance(v, bool) and -1e6 < v < 1e6 for v in point)
            ):
                raise HttpError(HTTPStatus.BAD_REQUEST, f"click must be [x, y] in the picture's pixels, got {point!r}")
            game.session.click((int(point[0]), int(point[1])))
        elif "command" in body:
            command = body["command"]
            if command not in COMMANDS:
                raise HttpError(
                    HTTPStatus.BAD_REQUEST, f"unknown command {command!r}: use one of {', '.join(COMMANDS)}"
                )
            game.session.command(command)
        else:
            raise HttpError(HTTPStatus.BAD_REQUEST, 'give {"click": [x, y]} or {"command": NAME}')
        return game.state()

    def end_game(self, game_id: str) -> None:
        """``DELETE /api/games/ID``: free the game."""
        game = self.game(game_id)
        with self._lock:
            self.games.pop(game_id, None)
        game.session.close()


def _query_number(query: dict[str, list[str]], name: str, default: Any, kind: type) -> Any:
    values = query.get(name)
    if not values:
        return default
    try:
        return kind(values[-1])
    except ValueError:
        raise HttpError(HTTPStatus.BAD_REQUEST, f"{name} must be a number, got {values[-1]!r}") from None


def _build_page(title: str, opponents: list[str], human: int) -> bytes:
    """The page: page.html with the script and the settings inlined (one document, no other file)."""
    folder = resources.files("gym_boardgames.web")
    template = folder.joinpath("page.html").read_text(encoding="utf-8")
    script = folder.joinpath("page.js").read_text(encoding="utf-8")
    # "<" escaped, so no name can close the script element that holds the settings.
    config = json.dumps({"title": title, "opponents": opponents, "human": human}).replace("<", "\\u003c")
    page = template.replace("{{title}}", html.escape(title)).replace("{{config}}", config).replace("{{script}}", script)
    return page.encode("utf-8")


def serve(
    game: Any,
    opponents: Sequence[str],
    *,
    hints: HintProvider | None = None,
    seed: int | None = 0,
    start: bool = True,
    **server_options: Any,
) -> PlayServer:
    """Serve ``game`` in a browser page against the named agents ``opponents`` (the first is the default).

    Args:
        game: a board game's rules object (``gym_boardgames.rules.registry.make_game("dotsandboxes")``, say).
        opponents: agent names, as the envs' ``opponent=`` takes them (``"alphabeta"``, ``"mcts:200"``...),
            built by the installed agent provider when a game starts; the page offers exactly these, and
            "both sides" for two people.
        hints: the hint provider of the Hints button (``agents.hints.hint_labels``), or None for ``"?"``.
        seed: seeds each game's agent.
        start: serve in a background thread at once (a script calls ``serve_forever()`` itself instead).
        **server_options: :class:`PlayServer`'s keywords: ``host``, ``port``, ``token``, ``allow_remote``,
            ``max_games``, ``idle_timeout``...

    Raises:
        ValueError: on a game with no board env, or a bad server option. A name the installed agent provider
            cannot build is refused when a page asks for it (400, the provider's reason).
        OSError: if the port cannot be bound.
    """
    from gym_boardgames.envs import env_for_game
    from gym_boardgames.envs.contract import make_named_opponent

    # A game without a board env is refused now, not at the first page; the env also gives the page's title.
    title = env_for_game(game, opponent=None).window_title

    def new_session(opponent: str | None, human: int) -> PlaySession:
        # The envs' own way from a name to an agent: the installed provider, its failures as one ValueError.
        agent = None if opponent is None else make_named_opponent(opponent, game, seed)
        return PlaySession(env_for_game(game, opponent=None), agent, human_player=human, hints=hints)

    server_options.setdefault("title", f"{title} - gym-boardgames")
    server = PlayServer(new_session, opponents, **server_options)
    return server.start() if start else server
