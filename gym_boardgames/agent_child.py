"""The child process of :mod:`gym_boardgames.agent_process`: it builds a user's agent and answers its calls.

Started as ``python -m gym_boardgames.agent_child``; a module of its own so that the parent's side
(:mod:`gym_boardgames.agent_process`, which :mod:`gym_boardgames.opponents` uses) never imports the opponents.
"""

from __future__ import annotations

import os
import pickle
import signal
import sys

from gym_boardgames.errors import AgentError, describe_error
from gym_boardgames.opponents import make_opponent


def _serve() -> None:
    """The child's loop: build the agent, then answer each message with ``(ok, value or one-line error)``."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent reports Ctrl-C and kills this process
    replies = os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)  # the agent's prints go to stderr, not into the replies
    requests = sys.stdin.buffer
    opponent, spec = None, "?"
    while True:
        try:
            message = pickle.load(requests)
        except EOFError:
            return  # the parent closed the pipe
        kind, *args = message
        try:
            if kind == "build":
                spec, game, seed, path = args
                sys.path[:] = path  # ``module:Class`` resolves as in the parent
                opponent = make_opponent(spec, game, seed)
                value = None
            elif kind == "reseed":
                value = opponent.reseed_with(args[0])  # type: ignore[union-attr]
            else:
                value = getattr(opponent, kind)(*args)
            reply = (True, value)
        except AgentError as error:
            reply = (False, str(error))
        except BaseException as error:  # the package's own checks (a bad parameter, an unreadable file): one line
            reply = (False, f"agent {spec}: its {kind}() raised {describe_error(error)}")
        try:
            pickle.dump(reply, replies)
            replies.flush()
        except BrokenPipeError:
            return  # the parent is gone (killed, or it killed this child's worker): nobody to answer


if __name__ == "__main__":
    _serve()
