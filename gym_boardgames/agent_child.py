"""The child process of :mod:`gym_boardgames.agent_process`: it builds a user's agent and answers its calls.

Started as ``python -m gym_boardgames.agent_child``; a module of its own so that the parent's side
(:mod:`gym_boardgames.agent_process`, which :mod:`gym_boardgames.opponents` uses) never imports the opponents.
"""

from __future__ import annotations

import json
import os
import signal
import sys

from gym_boardgames.agent_process import decode_position, decode_seed
from gym_boardgames.checks import as_integer
from gym_boardgames.errors import MAX_MESSAGE_CHARS, AgentError, describe_error, shorten, shown
from gym_boardgames.opponents import make_opponent

# An integer move within this bound crosses as an int (JSON carries it exactly); a larger one as shown text.
_MOVE_BOUND = 2**63


def _serve() -> None:
    """The child's loop: build the agent, then answer each message with ``(ok, value or one-line error)``.

    The requests and the replies go over private copies of the pipes; the agent's stdin is ``/dev/null`` and
    its stdout is stderr, so an agent that reads, prints or closes its standard streams leaves them alone. A
    fork of this process that returns from the agent's code into this loop (``os.fork()`` in ``act``) ends
    at once, without a reply: the parent has one child to hear from, and kills the rest with it.
    """
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent reports Ctrl-C and kills this process
    requests, replies = os.fdopen(os.dup(0), "rb"), os.fdopen(os.dup(1), "wb")
    nothing = os.open(os.devnull, os.O_RDONLY)
    os.dup2(nothing, 0)  # the agent reads nothing
    os.close(nothing)
    os.dup2(2, 1)  # the agent's prints go to stderr, not into the replies
    me = os.getpid()
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
        except AgentError as error:  # the guard's line, bounded; or one the user's code raised itself
            reply = [False, shorten(str(error), MAX_MESSAGE_CHARS)]
        except BaseException as error:  # the package's own checks (a bad parameter, an unreadable file): one line
            reply = [False, f"agent {spec}: its {kind}() raised {describe_error(error)}"]
        if os.getpid() != me:  # a fork made by the agent's code, back here: not the process the parent hears
            os._exit(0)
        try:
            replies.write(json.dumps(reply).encode() + b"\n")
            replies.flush()
        except BrokenPipeError:
            return  # the parent is gone (killed, or it killed this child's worker): nobody to answer


def _as_json_move(move: object) -> object:
    """The move as JSON carries it to the parent, whose move check then refuses what is not a move.

    An integer (:func:`~gym_boardgames.checks.as_integer`: a numpy one, a 0-d array) goes as an int; anything
    else (a bool, a float, a string, a huge integer, a generator...) as ``{"shown": text}``, its
    :func:`~gym_boardgames.errors.shown` text, bounded and never raising, which the parent refuses with the
    words it would use for the value itself.
    """
    number = as_integer(move)
    if number is not None and -_MOVE_BOUND < number < _MOVE_BOUND:
        return number
    return {"shown": shown(move)}


if __name__ == "__main__":
    _serve()
