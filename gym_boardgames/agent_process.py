"""A user's agent in a child process, killed when a move passes its time: ``--move-time`` that always holds.

A thread cannot stop Python code that holds the GIL (a backtracking regex, a huge integer operation,
compiled code without ``nogil``), so a watchdog thread in the same interpreter hangs with it. A user's agent
given by its spec (``module:Class``, ``file.py:Class``) with a move time therefore plays here: a plain
``python -m gym_boardgames.agent_child`` child, fed JSON lines over a private copy of its stdin and answering
over a private copy of its stdout (the agent's own prints go to stderr, and its stdin is ``/dev/null``, so an
agent that prints, reads or closes its standard streams leaves the pipes alone). The child rebuilds the agent
from its spec with the seed it was given (an in-process :class:`~gym_boardgames.opponents.Opponent`, so its
guard and its reseed are the same code), so nothing of the user's state travels: only the game's record
(:func:`~gym_boardgames.rules.registry.game_to_config`), the position's fields and a generator's state, as
JSON (never pickle: nothing the child sends is executed). So a child plays the package's own games
(:func:`plays_in_child`); a user's own game keeps the in-process watchdog. A plain subprocess rather than
``multiprocessing``: spawn would import the parent's ``__main__`` (a script) again in the child. The child
ignores Ctrl-C (the parent reports it and kills the child) and is killed and reaped on every path: a move
past the limit, a failure, Ctrl-C, garbage collection of its proxy and the parent's exit. It runs in a process
group of its own, and is killed with every process it started (:func:`~gym_boardgames.utils.kill_process_tree`)
and every one left in its group, so an agent's forks die with it.

What crosses back is bounded: a move is an int, or, for anything else (a string, a bool, a huge integer, a
generator, an object whose ``repr`` raises), its :func:`~gym_boardgames.errors.shown` text, which the parent's
move check refuses in the words it would use in this process (:class:`~gym_boardgames.errors.ShownValue`); a
failure is a line of at most :data:`~gym_boardgames.errors.MAX_MESSAGE_CHARS` characters. The parent reads a
reply of at most :data:`MAX_REPLY_BYTES` bytes, within the move time, and refuses anything else as one line.
"""

from __future__ import annotations

import contextlib
import json
import os
import select
import signal
import subprocess
import sys
import time
import weakref
from typing import Any

import numpy as np

from gym_boardgames.errors import MAX_MESSAGE_CHARS, AgentError, ShownValue, shorten
from gym_boardgames.rules.registry import game_from_config, game_to_config
from gym_boardgames.utils import kill_process_tree

__all__ = ["MAX_REPLY_BYTES", "ChildAgent", "plays_in_child"]

#: The longest reply line read from a child, in bytes; the child's own replies are far shorter (a move, or a
#: line of at most MAX_MESSAGE_CHARS characters), so a longer one is refused without reading more.
MAX_REPLY_BYTES = 64 * 1024
# How often a wait for a reply looks whether the child has ended: one of its forks may hold the pipe open.
_EXIT_POLL_S = 0.25


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
            start_new_session=True,  # its own process group: the agent's forks can be killed with it
        )
        self._pending = bytearray()  # what was read of the child's next reply
        self._finalizer = weakref.finalize(self, _kill, self._child)
        # Building loads the user's module: no move limit on it, as in this process.
        build = {
            "spec": spec,
            "seed": encode_seed(seed),
            "path": list(sys.path),
            **encode_position(game, game.initial_state()),
        }
        self._ask("build", build, None)

    def act(self, game: Any, state: Any) -> int | ShownValue:
        """The agent's move in ``state``: an int, or, for anything else, the child's shown text of it.

        That :class:`~gym_boardgames.errors.ShownValue` is refused by the move check in the words it uses for
        the value itself in this process (``agent bot.py:Bot played 'aaa...' (5,000,002 characters), which is
        not an integer in 0..8``).
        """
        move = self._ask("act", encode_position(game, state), self.limit)
        if isinstance(move, dict) and isinstance(move.get("shown"), str):
            return ShownValue(move["shown"])
        if type(move) is not int:
            self.close()
            raise AgentError(f"agent {self.spec}: its process sent a reply that is no move")
        return move

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
            line = self._read_line(limit)
        except BaseException as error:  # the limit, a dead child, Ctrl-C: no child is left behind
            self.close()
            if isinstance(error, BrokenPipeError):
                raise AgentError(f"agent {self.spec}: its process is gone (exit status {child.returncode})") from None
            raise
        problem = None
        if line is None:
            problem = f"its {what}() did not answer within {limit:g} s (--move-time)"
        elif line is _TOO_LONG:
            problem = f"its process sent a reply of more than {MAX_REPLY_BYTES:,} bytes during its {what}()"
        elif not line:  # the child ended (it exited, or was killed) before it answered
            self.close()
            problem = f"its process ended during its {what}() (exit status {child.returncode})"
        else:
            try:
                ok, value = json.loads(line)
            except (ValueError, TypeError, RecursionError):  # not JSON, or not a pair
                ok, value = None, None
            if ok is True:
                return value
            if ok is False and isinstance(value, str):
                raise AgentError(shorten(value, MAX_MESSAGE_CHARS))
            problem = f"its process sent a reply that is not one during its {what}()"
        self.close()
        raise AgentError(f"agent {self.spec}: {problem}")

    def _read_line(self, limit: float | None) -> bytes | None:
        """The child's next reply line (without its newline), within ``limit`` seconds.

        Returns None if none came in time, ``b""`` if the child ended first, and ``_TOO_LONG`` for a line of
        more than :data:`MAX_REPLY_BYTES` bytes (no more of it is read). The pipe is read directly, in chunks,
        so a partial line cannot block the wait past the limit.
        """
        deadline = None if limit is None else time.monotonic() + limit
        pending, fd = self._pending, self._child.stdout.fileno()  # type: ignore[union-attr]
        while (end := pending.find(b"\n")) < 0:
            if len(pending) > MAX_REPLY_BYTES:
                return _TOO_LONG
            left = _EXIT_POLL_S if deadline is None else min(_EXIT_POLL_S, deadline - time.monotonic())
            if left <= 0:
                return None
            ready, _, _ = select.select([fd], [], [], left)
            if not ready:
                if _has_ended(self._child):  # its forks may hold the pipe open: no end of file would come
                    return b""
                continue
            chunk = os.read(fd, MAX_REPLY_BYTES + 1 - len(pending))
            if not chunk:
                return b""
            pending += chunk
        if end > MAX_REPLY_BYTES:
            return _TOO_LONG
        line = bytes(pending[:end])
        del pending[: end + 1]
        return line


# _read_line's answer for a reply line longer than MAX_REPLY_BYTES.
_TOO_LONG = b"<too long>"


def _has_ended(child: subprocess.Popen) -> bool:
    """Whether ``child`` has exited, without reaping it (so its id, and its group's, cannot be reused yet)."""
    if child.returncode is not None:
        return True
    try:
        return os.waitid(os.P_PID, child.pid, os.WEXITED | os.WNOHANG | os.WNOWAIT) is not None
    except (AttributeError, ChildProcessError):  # no waitid here; or reaped already
        return child.poll() is not None


def _kill(child: subprocess.Popen) -> None:
    """Kill ``child``, every process it started and every one left in its process group, and reap it.

    Killed before it is reaped, so neither its id nor its group's can have gone to another process meanwhile.
    """
    if child.returncode is None:
        kill_process_tree(child.pid)  # the child and its descendants, also those that left its group
        with contextlib.suppress(ProcessLookupError, PermissionError, AttributeError):
            os.killpg(child.pid, signal.SIGKILL)  # the orphans of forks that ended before it, still in its group
    child.wait()
    for pipe in (child.stdin, child.stdout):
        try:
            pipe.close()  # type: ignore[union-attr]
        except OSError:
            pass  # a closed pipe to a killed child: nothing to flush
