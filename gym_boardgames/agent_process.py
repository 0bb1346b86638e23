"""A user's agent in a child process, killed when a move passes its time: ``--move-time`` that always holds.

A thread cannot stop Python code that holds the GIL (a backtracking regex, a huge integer operation,
compiled code without ``nogil``), so a watchdog thread in the same interpreter hangs with it. A user's agent
given by its spec (``module:Class``, ``file.py:Class``) with a move time therefore plays here: a plain
``python -m gym_boardgames.agent_child`` child, fed pickles over its stdin and answering over a private
copy of its stdout (the agent's own prints go to stderr). The child rebuilds the agent from its spec with the
seed it was given (an in-process :class:`~gym_boardgames.opponents.Opponent`, so its guard and its reseed
are the same code), so nothing of the user's state is pickled; the rules objects and states that travel
are frozen, hashable values, cheap to pickle. A plain subprocess rather than ``multiprocessing``: spawn
would import the parent's ``__main__`` (a script) again in the child. The child ignores Ctrl-C (the parent
reports it and kills the child) and is killed and reaped on every path: a move past the limit, a failure,
Ctrl-C, garbage collection of its proxy and the parent's exit.
"""

from __future__ import annotations

import pickle
import select
import subprocess
import sys
import weakref
from typing import Any

from gym_boardgames.errors import AgentError

__all__ = ["ChildAgent"]


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
        self._ask(("build", spec, game, seed, list(sys.path)), None, "construction")

    def act(self, game: Any, state: Any) -> int:
        """The agent's move in ``state``."""
        return self._ask(("act", game, state), self.limit, "act")

    def reset(self) -> None:
        """Its ``reset()``."""
        self._ask(("reset",), self.limit, "reset")

    def reseed(self, generator: Any) -> None:
        """Its reseed with ``generator`` (its own ``reseed``, or built again from its spec)."""
        self._ask(("reseed", generator), self.limit, "reseed")

    def check(self, game: Any) -> None:
        """Its ``check(game)``."""
        self._ask(("check", game), self.limit, "check")

    def close(self) -> None:
        """Kill the child and reap it (also done when this object is collected or the process exits)."""
        self._finalizer()

    def _ask(self, message: tuple[Any, ...], limit: float | None, what: str) -> Any:
        try:
            child = self._child
            if child.poll() is not None:
                raise AgentError(f"agent {self.spec}: its process is gone (exit status {child.returncode})")
            pickle.dump(message, child.stdin)
            child.stdin.flush()
            ready, _, _ = select.select([child.stdout], [], [], limit)
            if not ready:
                self.close()
                raise AgentError(f"agent {self.spec}: its {what}() did not answer within {limit:g} s (--move-time)")
            try:
                ok, value = pickle.load(child.stdout)
            except (EOFError, pickle.UnpicklingError):
                self.close()
                raise AgentError(
                    f"agent {self.spec}: its process ended during its {what}() (exit status {child.returncode})"
                ) from None
        except BrokenPipeError:
            self.close()
            raise AgentError(f"agent {self.spec}: its process is gone (exit status {self._child.returncode})") from None
        except BaseException:
            self.close()  # Ctrl-C or any other way out: no child is left behind
            raise
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
