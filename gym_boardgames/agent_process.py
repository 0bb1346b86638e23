"""A user's agent in a child process, killed when a move passes its time: ``--move-time`` that always holds.

A thread cannot stop Python code that holds the GIL (a backtracking regex, a huge integer operation,
compiled code without ``nogil``), so a watchdog thread in the same interpreter hangs with it. A user's agent
given by its spec (``module:Class``, ``file.py:Class``) with a move time therefore plays here: a plain
``python -m gym_boardgames.agent_child`` child, fed JSON lines over its stdin and answering over a private
copy of its stdout (the agent's own prints go to stderr). The child rebuilds the agent from its spec with the
seed it was given (an in-process :class:`~gym_boardgames.opponents.Opponent`, so its guard and its reseed
are the same code), so nothing of the user's state travels: only the game's record
(:func:`~gym_boardgames.rules.registry.game_to_config`), the position's fields and a generator's state, as
JSON (never pickle: nothing the child sends is executed). So a child plays the package's own games
(:func:`plays_in_child`); a user's own game keeps the in-process watchdog. A plain subprocess rather than
``multiprocessing``: spawn would import the parent's ``__main__`` (a script) again in the child. The child
ignores Ctrl-C (the parent reports it and kills the child) and is killed and reaped on every path: a move
past the limit, a failure, Ctrl-C, garbage collection of its proxy and the parent's exit.
"""

from __future__ import annotations

import json
import select
import subprocess
import sys
import weakref
from typing import Any

import numpy as np

from gym_boardgames.errors import AgentError
from gym_boardgames.rules.registry import game_from_config, game_to_config

__all__ = ["ChildAgent", "plays_in_child"]


def plays_in_child(game: Any) -> bool:
    """Whether a child process can rebuild ``game`` from its record: the package's own games."""
    return game_from_config(game_to_config(game)) is not None


def encode_position(game: Any, state: Any) -> dict[str, Any]:
    """``game`` and ``state`` as JSON values: the game's record, the state's fields (bytes as hex)."""
    fields = [{"hex": value.hex()} if isinstance(value, bytes) else value for value in state]
    return {"game": game_to_config(game), "state": fields}


def decode_position(message: dict[str, Any]) -> tuple[Any, Any]:
    """The ``(game, state)`` of :func:`encode_position`'s values; the state is of the game's own type."""
    game = game_from_config(message["game"])
    fields = [bytes.fromhex(value["hex"]) if isinstance(value, dict) else value for value in message["state"]]
    return game, type(game.initial_state())(*fields)


def encode_seed(seed: Any) -> Any:
    """An int or None as it is; a ``numpy.random.Generator`` as its bit generator's state."""
    return {"generator": seed.bit_generator.state} if isinstance(seed, np.random.Generator) else seed


def decode_seed(value: Any) -> Any:
    """The seed :func:`encode_seed` encoded: a generator in the same state, or the int or None."""
    if not isinstance(value, dict):
        return value
    state = value["generator"]
    bits = getattr(np.random, state["bit_generator"])()
    bits.state = state
    return np.random.Generator(bits)


class ChildAgent:
    """The agent ``spec`` built with ``seed`` for ``game`` in a child process; each call waits ``limit`` s.

    It has ``act``, ``reset``, ``reseed`` and ``check``, as the agent in the child has them, so an
    :class:`~gym_boardgames.opponents.Opponent` plays it as any agent.

    Raises:
        AgentError: (from the constructor and every call) the agent could not be built, raised, or did not
            answer within ``limit`` seconds (the child is then killed).
    """

    def __init__(self, spec: str, game: Any, seed: Any, limit: float) -> None:
        self.spec, self.limit = spec, limit
        self._child = subprocess.Popen(
            [sys.executable, "-m", "gym_boardgames.agent_child"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
        )
        self._finalizer = weakref.finalize(self, _kill, self._child)
        # Building loads the user's module: no move limit on it, as in this process.
        build = {
            "spec": spec,
            "seed": encode_seed(seed),
            "path": list(sys.path),
            **encode_position(game, game.initial_state()),
        }
        self._ask("build", build, None)

    def act(self, game: Any, state: Any) -> int:
        """The agent's move in ``state``."""
        return self._ask("act", encode_position(game, state), self.limit)

    def reset(self) -> None:
        """Its ``reset()``."""
        self._ask("reset", {}, self.limit)

    def reseed(self, generator: Any) -> None:
        """Its reseed with ``generator`` (its own ``reseed``, or built again from its spec)."""
        self._ask("reseed", {"seed": encode_seed(generator)}, self.limit)

    def check(self, game: Any) -> None:
        """Its ``check(game)``."""
        self._ask("check", encode_position(game, game.initial_state()), self.limit)

    def close(self) -> None:
        """Kill the child and reap it (also done when this object is collected or the process exits)."""
        self._finalizer()

    def _ask(self, call: str, message: dict[str, Any], limit: float | None) -> Any:
        what, child = "construction" if call == "build" else call, self._child
        try:
            child.stdin.write(json.dumps({"call": call, **message}).encode() + b"\n")  # type: ignore[union-attr]
            child.stdin.flush()  # type: ignore[union-attr]
            ready, _, _ = select.select([child.stdout], [], [], limit)
            if not ready:
                raise AgentError(f"agent {self.spec}: its {what}() did not answer within {limit:g} s (--move-time)")
            line = child.stdout.readline()  # type: ignore[union-attr]
        except BaseException as error:  # the limit, a dead child, Ctrl-C: no child is left behind
            self.close()
            if isinstance(error, BrokenPipeError):
                raise AgentError(f"agent {self.spec}: its process is gone (exit status {child.returncode})") from None
            raise
        if not line:  # the child ended (it exited, or was killed) before it answered
            self.close()
            raise AgentError(
                f"agent {self.spec}: its process ended during its {what}() (exit status {child.returncode})"
            )
        ok, value = json.loads(line)
        if not ok:
            raise AgentError(value)
        return value


def _kill(child: subprocess.Popen) -> None:
    """Kill ``child`` and reap it."""
    if child.poll() is None:
        child.kill()
    child.wait()
    for pipe in (child.stdin, child.stdout):
        try:
            pipe.close()  # type: ignore[union-attr]
        except OSError:
            pass  # a closed pipe to a killed child: nothing to flush
