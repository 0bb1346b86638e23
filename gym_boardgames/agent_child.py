"""The child process of :mod:`gym_boardgames.agent_process`: it builds a user's agent and answers its calls.

Started as ``python -m gym_boardgames.agent_child``; a module of its own so that the parent's side
(:mod:`gym_boardgames.agent_process`, which :mod:`gym_boardgames.opponents` uses) never imports the opponents.
"""

from __future__ import annotations

import json
import numbers
import os
import signal
import sys

from gym_boardgames.agent_process import decode_position, decode_seed
from gym_boardgames.errors import AgentError, describe_error
from gym_boardgames.opponents import make_opponent


def _serve() -> None:
    """The child's loop: build the agent, then answer each message with ``(ok, value or one-line error)``."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent reports Ctrl-C and kills this process
    replies = os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)  # the agent's prints go to stderr, not into the replies
    requests = sys.stdin.buffer
    opponent, spec = None, "?"
    for line in requests:  # one JSON object a line; the loop ends when the parent closes the pipe
        message = json.loads(line)
        kind = message["call"]
        try:
            if kind == "build":
                spec, path = message["spec"], message["path"]
                sys.path[:] = path  # ``module:Class`` resolves as in the parent
                game, _ = decode_position(message)
                opponent = make_opponent(spec, game, decode_seed(message["seed"]))
                value = None
            elif kind == "reseed":
                value = opponent.reseed_with(decode_seed(message["seed"]))  # type: ignore[union-attr]
            elif kind == "act":
                value = _as_json_move(opponent.act(*decode_position(message)))  # type: ignore[union-attr]
            elif kind == "check":
                value = opponent.check(decode_position(message)[0])  # type: ignore[union-attr]
            else:
                value = opponent.reset()  # type: ignore[union-attr]
            reply = [True, value]
        except AgentError as error:
            reply = [False, str(error)]
        except BaseException as error:  # the package's own checks (a bad parameter, an unreadable file): one line
            reply = [False, f"agent {spec}: its {kind}() raised {describe_error(error)}"]
        try:
            replies.write(json.dumps(reply).encode() + b"\n")
            replies.flush()
        except BrokenPipeError:
            return  # the parent is gone (killed, or it killed this child's worker): nobody to answer


def _as_json_move(move: object) -> object:
    """The move as JSON carries it to the parent, whose move check then refuses what is not a move.

    A numpy integer becomes an int; a value JSON has (a bool, a float, a string) goes as it is; anything else
    would not survive the trip, so it goes as its ``repr``, which the parent refuses as not a move.
    """
    if isinstance(move, numbers.Integral) and not isinstance(move, bool):
        return int(move)
    return move if isinstance(move, (bool, float, str, type(None))) else repr(move)[:80]


if __name__ == "__main__":
    _serve()
