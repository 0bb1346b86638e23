"""The HTTP side of the play server: routing, the body's bounds, and answers that are never a traceback.

:class:`PlayHTTPServer` is the standard library's threading server; its ``play`` attribute is the
:class:`~gym_boardgames.web.server.PlayServer` whose checks and API each request reaches. Every request's token
and rate are checked first. A refusal (:class:`HttpError`) becomes a 4xx with a JSON ``{"error": ...}`` and one log
line without the query (which may hold the token); anything else becomes a 500 and one line.
"""

from __future__ import annotations

import json
import re
import sys
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlsplit

#: A connection that sends nothing for this long is dropped, so idle sockets cannot pile up.
SOCKET_TIMEOUT_SECONDS = 30.0
_GAME_PATH = re.compile(r"/api/games/([A-Za-z0-9_-]{1,32})")


class HttpError(Exception):
    """A request the server refuses: its status code and the one-line reason the client gets."""

    def __init__(self, status: int, reason: str) -> None:
        super().__init__(reason)
        self.status, self.reason = status, reason


class PlayHTTPServer(ThreadingHTTPServer):
    """The standard library's threading server, each request in a thread of its own, bound to a :class:`PlayServer`."""

    daemon_threads = True
    play: Any  # the PlayServer whose API the requests reach

    def handle_error(self, request: Any, client_address: Any) -> None:
        """One line, never a traceback (a client that hung up mid-answer, say)."""
        error = sys.exc_info()[1]
        self.play.log.write(f"play server: connection from {client_address[0]} failed: {error!r}\n")


class PlayRequestHandler(BaseHTTPRequestHandler):
    """One request: the token and the rate first, then the route; a refusal is a 4xx with one log line."""

    server: PlayHTTPServer
    timeout = SOCKET_TIMEOUT_SECONDS
    server_version = "gym-boardgames"
    sys_version = ""

    # ---- routing -----------------------------------------------------------------------------

    def _dispatch(self) -> None:
        """GET the page or a game's state, POST a new game or a click or command in one, DELETE (free) a game."""
        play, method = self.server.play, self.command
        try:
            parts = urlsplit(self.path)
            query = parse_qs(parts.query, keep_blank_values=True)
            play.check_token(self.headers.get("X-Play-Token") or (query.get("token") or [None])[-1])
            play.check_rate()
            path = parts.path
            match = _GAME_PATH.fullmatch(path)
            if method == "GET" and path == "/":
                self._send(HTTPStatus.OK, play.page(), "text/html; charset=utf-8")
            elif method == "POST" and path == "/api/games":
                self._send_json(HTTPStatus.CREATED, play.new_game(self._json_body()))
            elif match and method == "GET":
                self._send_json(HTTPStatus.OK, play.game_state(match[1], query))
            elif match and method == "POST":
                self._send_json(HTTPStatus.OK, play.act(match[1], self._json_body()))
            elif match and method == "DELETE":
                play.end_game(match[1])
                self._send(HTTPStatus.NO_CONTENT, b"", "text/plain")
            elif path == "/" or path == "/api/games" or match:
                raise HttpError(HTTPStatus.METHOD_NOT_ALLOWED, f"{method} is not allowed on {path}")
            else:
                raise HttpError(HTTPStatus.NOT_FOUND, "not found: the server has one page, at /")
        except HttpError as error:
            self._refuse(error.status, error.reason)
        except Exception as error:  # a bug of ours: one line in the log, a 500 to the client, no traceback
            play.log.write(f"play server: {method} {self._logged_path()!r} failed: {error!r}\n")
            self._send_json(HTTPStatus.INTERNAL_SERVER_ERROR, {"error": "internal error (see the server's log)"})

    # http.server calls do_METHOD for a request: the three methods the routes take share the one router.
    do_GET = do_POST = do_DELETE = _dispatch

    def _json_body(self) -> dict[str, Any]:
        play = self.server.play
        length_text = self.headers.get("Content-Length")
        if length_text is None:
            raise HttpError(HTTPStatus.LENGTH_REQUIRED, "a body needs a Content-Length")
        try:
            length = int(length_text)
        except ValueError:
            raise HttpError(HTTPStatus.BAD_REQUEST, f"bad Content-Length {length_text[:40]!r}") from None
        if length < 0:
            raise HttpError(HTTPStatus.BAD_REQUEST, "bad Content-Length")
        if length > play.max_body_bytes:
            self.close_connection = True  # the body is not read: the connection cannot be reused
            raise HttpError(HTTPStatus.REQUEST_ENTITY_TOO_LARGE, f"body over {play.max_body_bytes} bytes")
        raw = self.rfile.read(length)
        try:
            body = json.loads(raw) if raw else {}
        except (ValueError, UnicodeDecodeError):
            raise HttpError(HTTPStatus.BAD_REQUEST, "the body is not JSON") from None
        if not isinstance(body, dict):
            raise HttpError(HTTPStatus.BAD_REQUEST, "the body must be a JSON object")
        return body

    # ---- answers -----------------------------------------------------------------------------

    def _refuse(self, status: int, reason: str) -> None:
        self.server.play.log.write(f"play server: {self.command} {self._logged_path()!r} -> {int(status)}: {reason}\n")
        self._send_json(status, {"error": reason})

    def _logged_path(self) -> str:
        """The request's path without its query, which may hold the token."""
        return urlsplit(self.path).path[:200]

    def _send_json(self, status: int, payload: dict[str, Any]) -> None:
        self._send(status, json.dumps(payload).encode("utf-8"), "application/json")

    def _send(self, status: int, body: bytes, content_type: str) -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Cache-Control", "no-store")
        self.send_header("X-Content-Type-Options", "nosniff")
        self.send_header("Referrer-Policy", "no-referrer")  # the URL holds the token: never send it elsewhere
        if status == HTTPStatus.TOO_MANY_REQUESTS:
            self.send_header("Retry-After", "1")
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def log_request(self, code: int | str = "-", size: int | str = "-") -> None:
        """Successful requests are not logged; refusals are, once, by :meth:`_refuse`."""

    def log_error(self, format: str, *args: Any) -> None:  # noqa: A002  (http.server's signature)
        """A request http.server itself refuses (a malformed line, say): one line."""
        self.server.play.log.write("play server: " + (format % args) + "\n")
