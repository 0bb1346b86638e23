"""Opponents: one object that plays, whatever the agent was given as, and the one boundary around user code.

An *agent* is an object with ``act(game, state) -> int`` or a plain callable ``(game, state) -> int``; it may
also have ``reset()`` (called when a game starts), ``reseed(generator)`` and ``check(game)``. It is given as:

* a name of the agent table (``"alphabeta:4"``, ``"mcts:200"``, ``"perfect"``...), built by
  :data:`FACTORY`, imported by its name on first use, so this module never imports
  ``agents`` (it needs the standard library only);
* a user's class or function: ``"module:Class"`` or ``"path/to/file.py:Class"`` (a class is called with
  ``seed=`` if it takes one; anything else callable is the agent itself);
* an object or a callable.

:func:`make_opponent` turns any of them into an :class:`Opponent` (act, reset, reseed), the one thing the
single env, the vector env, the play server, the arena and the ladder play against. User code is called
through :class:`Opponent`'s guard: anything it raises, ``SystemExit``, ``GeneratorExit`` and its own
``BaseException`` kinds included, becomes one :class:`AgentError` line naming the agent and what it was
doing, and with ``move_time`` a move that takes longer becomes that line too. Ctrl-C (``KeyboardInterrupt``)
is never caught. A user's agent given by its spec with a ``move_time`` plays in a child process
(:mod:`gym_boardgames.agent_process`) that is killed at the limit, since a thread cannot stop code that holds
the GIL; the package's own agents play in this process.
"""

from __future__ import annotations

import functools
import importlib
import importlib.util
import inspect
import os
import threading
import zlib
from collections.abc import Callable
from typing import Any

from gym_boardgames.agent_process import ChildAgent, plays_in_child
from gym_boardgames.errors import MAX_MESSAGE_CHARS, AgentError, describe_error, shorten, shown

__all__ = [
    "FACTORY",
    "AgentError",
    "Opponent",
    "Policy",
    "UnknownAgentError",
    "as_policy",
    "load_user_agent",
    "make_opponent",
    "opponent_error",
    "opponent_seed",
    "reset_hook",
]

#: The module of the agent table: ``make_agent(spec, seed=, game=) -> agent``, ``AGENT_KINDS``, ``agent_forms()``.
FACTORY = "agents.factory"
#: The forms a user's agent takes, for help texts and errors.
USER_FORMS = ("module:Class", "file.py:Class")

#: The longest move time that may be asked for (a day): a thread waits at most ``threading.TIMEOUT_MAX``.
MAX_MOVE_TIME = 86_400.0
#: A move function: ``(game, state) -> action``.
Policy = Callable[[Any, Any], int]
# The spawn key that separates an opponent's random stream from the env's own np_random stream.
_OPPONENT_STREAM = 0x6F7070


class UnknownAgentError(ValueError):
    """An agent name that the agent table does not know; the message lists the valid forms."""


def as_policy(agent: Any, name: str = "") -> Policy:
    """Return the move function of ``agent``: its ``act`` method, or ``agent`` itself if it is a callable.

    ``name`` (a spec such as ``my_agents:Bot``) is named in the refusal.

    Raises:
        UnknownAgentError: (a ``ValueError``) if ``agent`` has no callable ``act`` and is not callable itself;
            :class:`AgentError` with a ``name``.
    """
    act = getattr(agent, "act", None)
    if callable(act):
        return act
    if callable(agent):
        return agent
    needs = "it needs act(game, state) -> int or to be callable"
    if name:  # a user's spec built into a non-agent: the user's error, named
        raise AgentError(f"agent {name} is {shown(agent)}: {needs}")
    raise UnknownAgentError(f"{shown(agent)} is not an agent: {needs}")


def reset_hook(agent: Any) -> Callable[[], Any] | None:
    """Return ``agent.reset`` if it has a callable one (to call when a game starts), else None."""
    reset = getattr(agent, "reset", None)
    return reset if callable(reset) else None


def opponent_seed(seed: int) -> Any:
    """Return the generator of an opponent for an env reset with ``seed``, apart from the env's ``np_random``.

    A child of ``seed`` (``numpy.random.SeedSequence`` with a spawn key), so seeding the opponent draws
    nothing from ``np_random``: a seeded episode replays exactly.
    """
    import numpy as np

    return np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(_OPPONENT_STREAM, 0)))


def is_user_spec(spec: str) -> bool:
    """Whether ``spec`` names a user's agent (``module:Class`` or ``file.py:Class``), not an agent of the table."""
    head, sep, _ = spec.partition(":")
    return bool(sep) and head not in _factory().AGENT_KINDS


class Opponent:
    """One built agent, as every surface plays it: :meth:`act`, :meth:`reset`, :meth:`reseed`, :meth:`check`.

    It also carries the agent's :attr:`evaluate` (a network's), so that every play door's hints show it.

    Args:
        agent: the agent (an object with ``act`` or a callable).
        name: how messages name it (the spec it was built from, or the object's name).
        user: call it through the guard (any exception becomes an :class:`AgentError`); the project's own
            agents are called directly.
        move_time: seconds a move may take (None: no limit), applied to any agent.
        rebuild: ``seed -> agent``, to build it again for :meth:`reseed` when it has no ``reseed`` itself.
    """

    def __init__(
        self,
        agent: Any,
        name: str,
        *,
        user: bool = False,
        move_time: float | None = None,
        rebuild: Callable[[Any], Any] | None = None,
    ) -> None:
        _check_move_time(move_time)
        self.name, self.user, self.move_time, self._rebuild = name, user, move_time, rebuild
        #: Built from a name: :meth:`reseed` gives it the whole random state of a seed.
        self.rebuildable = rebuild is not None
        self._set(agent)

    def _set(self, agent: Any) -> None:
        self.agent = agent
        # A user's spec built into a non-agent names the spec; an object that is none is an unknown opponent.
        self._act = as_policy(agent, self.name if self.user and self._rebuild is not None else "")
        self._reset = reset_hook(agent)
        evaluate = getattr(agent, "evaluate", None)
        #: The agent's own ``evaluate(game, states) -> (priors, values)`` (a network's), or None: the play doors'
        #: hints show its priors and value, whichever door built the opponent.
        self.evaluate = evaluate if callable(evaluate) else None

    def act(self, game: Any, state: Any) -> int:
        """Return the agent's move in ``state``.

        Raises:
            AgentError: a user's agent raised or exited, or any agent took longer than ``move_time``.
        """
        if self.move_time is None and not self.user:
            return self._act(game, state)
        return self._call("act", self._act, game, state, limit=self.move_time)

    def reset(self) -> None:
        """Tell the agent a game starts (its ``reset()``, if it has one)."""
        if self._reset is not None:
            self._call("reset", self._reset)

    def reseed(self, seed: int) -> None:
        """Make the agent play as one built with :func:`opponent_seed` of ``seed`` would (an env's seeded reset).

        Its own ``reseed(generator)`` if it has one; else it is built again if it was built from a name; a
        user's object without ``reseed`` is left as it is.
        """
        self.reseed_with(opponent_seed(seed))

    def reseed_with(self, generator: Any) -> None:
        """:meth:`reseed` with the generator itself (what a child process is sent)."""
        reseed = getattr(self.agent, "reseed", None)
        if callable(reseed):
            self._call("reseed", reseed, generator)
        elif self._rebuild is not None:
            self._set(self._rebuild(generator))

    def check(self, game: Any) -> None:
        """Ask the agent whether it can play ``game`` (its ``check(game)``, if it has one), before any match."""
        check = getattr(self.agent, "check", None)
        if callable(check):
            self._call("check", check, game)

    def _call(self, what: str, function: Callable[..., Any], *args: Any, limit: float | None = None) -> Any:
        """Call ``function(*args)``; a user's failure or a move past ``limit`` seconds becomes an AgentError."""
        if limit is not None:
            return self._call_limited(what, function, args, limit)
        if not self.user:
            return function(*args)
        with _UserCode(self.name, f"its {what}()"):
            return function(*args)

    def _call_limited(self, what: str, function: Callable[..., Any], args: tuple[Any, ...], limit: float) -> Any:
        """Run ``function`` in a daemon thread and wait ``limit`` seconds: a hang cannot hold the caller."""
        box: list[Any] = []

        def run() -> None:
            try:
                box.append((True, self._call(what, function, *args)))
            except BaseException as error:  # noqa: BLE001  (carried to the caller's thread, raised there)
                box.append((False, error))

        thread = threading.Thread(target=run, name=f"agent {self.name}", daemon=True)
        thread.start()
        thread.join(limit)
        if not box:
            raise AgentError(f"agent {self.name}: its {what}() did not answer within {limit:g} s (--move-time)")
        ok, value = box[0]
        if ok:
            return value
        raise value

    def __repr__(self) -> str:
        return f"Opponent({self.name})"


class _UserCode:
    """The one guard around user code: what it raises becomes one :class:`AgentError` line naming the agent.

    ``SystemExit``, ``GeneratorExit`` and a user's own ``BaseException`` kinds included; Ctrl-C
    (``KeyboardInterrupt``) passes, and so does an :class:`AgentError`, which names the agent already (cut to
    :data:`~gym_boardgames.errors.MAX_MESSAGE_CHARS`: the user's code may raise one itself). The message of
    what it raised is cut too (:func:`~gym_boardgames.errors.describe_error`).
    """

    def __init__(self, name: str, doing: str) -> None:
        self.name, self.doing = name, doing

    def __enter__(self) -> None:
        return None

    def __exit__(self, kind: Any, error: BaseException | None, traceback: Any) -> bool:
        if error is None or isinstance(error, KeyboardInterrupt):
            return False
        if isinstance(error, AgentError):
            text = str(error)
            if len(text) <= MAX_MESSAGE_CHARS:
                return False
            raise AgentError(shorten(text, MAX_MESSAGE_CHARS)) from None
        raise AgentError(f"agent {self.name}: {self.doing} raised {describe_error(error)}") from None


def _check_move_time(move_time: float | None) -> None:
    """Refuse a ``move_time`` that is not seconds in (0, :data:`MAX_MOVE_TIME`] or None."""
    if move_time is not None and not 0 < move_time <= MAX_MOVE_TIME:
        raise ValueError(f"move_time must be seconds in (0, {MAX_MOVE_TIME:g}] or None, got {shown(move_time)}")


def make_opponent(agent: Any, game: Any, seed: Any = None, *, move_time: float | None = None) -> Opponent:
    """Return ``agent`` as an :class:`Opponent` for ``game``, checked against the game before any move.

    A name reaches the factory in one call from here (:data:`FACTORY`).

    Args:
        agent: a name of the agent table, ``"module:Class"``, ``"file.py:Class"``, an object with ``act``,
            a callable, or an :class:`Opponent` (returned as it is).
        game: the rules object it will play.
        seed: seeds an agent built here (an int, a ``numpy.random.Generator`` or None).
        move_time: seconds a move may take (None: no limit); a user's agent given by its spec then plays in a
            child process killed at the limit (:mod:`gym_boardgames.agent_process`).

    Raises:
        UnknownAgentError: a name the table does not know (the message lists the valid forms).
        ValueError: a bad parameter of a known name; an :class:`AgentError` for a user's agent that cannot be
            loaded, built or checked, or that is no agent.
        OSError: a saved agent's file cannot be read.
    """
    if isinstance(agent, Opponent):
        return agent
    if not isinstance(agent, str):
        name = getattr(agent, "__qualname__", None) or type(agent).__name__
        opponent = Opponent(agent, name, user=True, move_time=move_time)
    elif move_time is not None and is_user_spec(agent) and plays_in_child(game):
        # A thread cannot stop code that holds the GIL: the agent plays in a child process, killed at the limit.
        _check_move_time(move_time)
        opponent = Opponent(ChildAgent(agent, game, seed, move_time), agent, user=True)
        opponent.rebuildable = True  # the child builds it again from its spec on a reseed
    else:
        build = _factory().make_agent
        opponent = Opponent(
            build(agent, seed=seed, game=game),
            agent,
            user=is_user_spec(agent),
            move_time=move_time,
            rebuild=lambda generator: build(agent, seed=generator, game=game),
        )
    if opponent.user:  # the table's agents were checked by the factory
        opponent.check(game)
    return opponent


def opponent_error(name: str, error: ValueError) -> ValueError:
    """Return the env's wording of a failure to build the opponent ``name``, listing every opponent form.

    An unknown name stays an :class:`UnknownAgentError`; a bad parameter becomes ``bad opponent NAME:
    REASON``; a saved file's or a user's own error (a subclass of ``ValueError``) names itself already.
    """
    try:
        names = f"an agent name ({', '.join(_factory().agent_forms())}), "
    except ImportError:
        names = ""
    forms = f"'random', None (self-play), {names}an object with act(game, state) -> int, or a callable"
    if isinstance(error, UnknownAgentError):
        return UnknownAgentError(f"unknown opponent {shown(name)}: use {forms}")
    if type(error) is ValueError:
        return ValueError(f"bad opponent {shown(name)}: {error}; valid opponents are {forms}")
    return error


@functools.cache
def _factory() -> Any:
    """Import :data:`FACTORY` (once, by its name, so ``gym_boardgames`` never imports ``agents`` itself)."""
    try:
        return importlib.import_module(FACTORY)
    except ImportError as error:
        raise ImportError(
            f"agent names need {FACTORY} ({error}); another top-level package named `agents` (such as the OpenAI "
            "Agents SDK) can shadow the one installed with gym-boardgames"
        ) from error


def load_user_agent(spec: str, seed: Any = None) -> Any:
    """Build the user's agent ``spec`` (``module:Class`` or ``path/to/file.py:Class``) with ``seed``.

    A class is called with ``seed=`` if its constructor takes one, else with no argument; anything else (an
    object with ``act``, a function ``(game, state) -> int``) is the agent itself.

    Raises:
        AgentError: one line: no such file, module or attribute, or the module or constructor raised or exited.
    """
    source, _, attribute = spec.rpartition(":")
    found = _user_attribute(source, attribute)
    if not inspect.isclass(found):
        return found
    try:
        takes_seed = "seed" in inspect.signature(found).parameters
    except (TypeError, ValueError):
        takes_seed = False
    with _UserCode(spec, "its constructor"):
        return found(seed=seed) if takes_seed else found()


@functools.cache  # a worker loads a user's module once, not once per game
def _user_attribute(source: str, attribute: str) -> Any:
    """The attribute ``attribute`` of the module ``source``: an importable module's name or a ``.py`` file."""
    spec = f"{source}:{attribute}"
    if source.endswith(".py") and not os.path.isfile(source):
        raise AgentError(f"agent {spec}: no file {source}")
    with _UserCode(spec, f"loading {source}"):
        if source.endswith(".py"):
            found = importlib.util.spec_from_file_location(f"user_agent_{zlib.crc32(source.encode())}", source)
            module = importlib.util.module_from_spec(found)  # type: ignore[arg-type]
            found.loader.exec_module(module)  # type: ignore[union-attr]
        else:
            module = importlib.import_module(source)
    found = getattr(module, attribute, None) if attribute.isidentifier() else None
    if not callable(found) and not callable(getattr(found, "act", None)):
        raise AgentError(f"agent {spec}: {source} has no class or function {shown(attribute)}")
    return found
