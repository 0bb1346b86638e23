"""Play any board game in a browser page served by the package: from a remote machine or a container.

``python scripts/play.py GAME --web`` prints a URL to open; from Python, :func:`serve` starts the same server
in the background and, as the last value of a notebook cell, shows the page inline. That iframe is loaded by
the browser's machine, so it works only where the notebook's kernel runs there too (a local notebook, or a
tunnel to the same port); :func:`gym_boardgames.notebook.play` needs no port and works everywhere::

    from agents.factory import suggested_opponents
    from agents.hints import hint_labels
    from gym_boardgames.rules.registry import make_game
    from gym_boardgames.web import serve

    game = make_game("connectfour")
    server = serve(game, suggested_opponents(game), hints=hint_labels)
    server  # the page, in the notebook; server.url to open it in a tab; server.close() to stop

The rules, the agents and the drawing stay in Python: each game is a
:class:`~gym_boardgames.play_session.PlaySession`, the page shows the PNG its views draw and sends the person's
clicks back (:mod:`gym_boardgames.web.server` says how requests are guarded). The server is the standard
library's ``http.server``: docs/install.md gives the measurements behind that choice. :func:`serve`, here, is
where a game and agent names become the server's sessions; the server itself knows sessions only.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from gym_boardgames.play_session import HintProvider, PlaySession, session_for
from gym_boardgames.web.server import Limits, PlayServer, is_loopback

__all__ = ["Limits", "PlayServer", "is_loopback", "serve"]


def serve(
    game: Any,
    opponents: str | Sequence[str],
    *,
    hints: HintProvider | None = None,
    seed: int | None = 0,
    start: bool = True,
    **server_options: Any,
) -> PlayServer:
    """Serve ``game`` in a browser page against the named agents ``opponents`` (the first is the default).

    Args:
        game: a board game's rules object (``gym_boardgames.rules.registry.make_game("dotsandboxes")``, say).
        opponents: an agent name or a list of them, as the envs' ``opponent=`` takes them (``"alphabeta"``,
            ``"mcts:200"``...), built when a game starts; the page offers exactly these, and "both sides" for
            two people.
        hints: the hint provider of the Hints button (``agents.hints.hint_labels``), or None for ``"?"``.
        seed: seeds each game's agent.
        start: serve in a background thread at once (a script calls ``serve_forever()`` itself instead).
        **server_options: :class:`PlayServer`'s keywords: ``host``, ``port``, ``token``, ``allow_remote``,
            ``limits``...

    Raises:
        ValueError: on a game with no board env, or a bad server option. A name that cannot be built is
            refused when a page asks for it (400, the reason).
        OSError: if the port cannot be bound.
    """
    from gym_boardgames.envs import env_for_game

    # A game without a board env is refused now, not at the first page; the env also gives the page's title.
    title = env_for_game(game, opponent=None).window_title

    def new_session(opponent: str | None, human: int) -> PlaySession:
        return session_for(game, opponent, human, hints, seed)

    server_options.setdefault("title", f"{title} - gym-boardgames")
    server = PlayServer(new_session, opponents, **server_options)
    return server.start() if start else server
