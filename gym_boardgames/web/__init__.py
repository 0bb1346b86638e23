"""Play any board game in a browser page served by the package: from a remote machine, a container or Jupyter.

``python scripts/play.py GAME --web`` prints a URL to open; from Python, :func:`serve` starts the same server
in the background and, as the last value of a notebook cell, shows the page inline::

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
library's ``http.server``: docs/install.md gives the measurements behind that choice.
"""

from gym_boardgames.web.server import Limits, PlayServer, is_loopback, serve

__all__ = ["Limits", "PlayServer", "is_loopback", "serve"]
