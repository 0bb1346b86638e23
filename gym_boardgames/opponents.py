"""Turn an agent into a policy, once: the rule every opponent slot of this project follows.

An agent is either an object with ``act(game, state) -> int`` (it plays with ``act``) or a plain callable
``(game, state) -> int`` (it is its own policy). An agent may also have ``reset()``, called when a game
starts, so that it can drop per-game memory (MCTS reuses its search tree within a game).

The envs (through :mod:`gym_boardgames.envs.contract`) and the game loops of ``agents.arena`` take their
opponents through these two functions.

Agent *names* (``opponent="alphabeta:4"``) are built by a provider that another package registers, the way
Gymnasium finds env plugins: an entry point in the group :data:`PROVIDER_GROUP` naming a function
``(name, game=..., seed=...) -> agent``, which raises :class:`UnknownAgentError` on a name it does not know,
``ValueError`` on a bad parameter, and may list its name forms in a ``names`` attribute. An env builds its named
opponent once and, at each seeded reset, calls its ``reseed(seed)`` if it has one (else builds it again).
This project's ``agents`` package registers ``agents.provider:make_opponent`` in its ``pyproject.toml``.
:func:`opponent_provider` finds it on the first use of a name, so this module never imports ``agents``: it
needs only the standard library, imports in no time and sits below every layer that takes an agent.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

__all__ = [
    "OWN_PROVIDER",
    "PROVIDER_GROUP",
    "Policy",
    "UnknownAgentError",
    "as_policy",
    "opponent_provider",
    "reset_hook",
]

#: The entry-point group of the function that builds an agent from its name, for the envs' ``opponent=``.
PROVIDER_GROUP = "gym_boardgames.opponents"

#: This package's own provider: preferred over any other package's entry point in the group.
OWN_PROVIDER = "agents.provider:make_opponent"

#: A move function: ``(game, state) -> action``.
Policy = Callable[[Any, Any], int]


class UnknownAgentError(ValueError):
    """An agent name that no provider knows; the message lists the valid names.

    The provider raises it and the envs catch it by type, so a bad parameter of a known name (another
    ``ValueError``) is told apart without reading any message.
    """


def as_policy(agent: Any) -> Policy:
    """Return the move function of ``agent``: its ``act`` method, or ``agent`` itself if it is a callable.

    Args:
        agent: an object with ``act(game, state) -> int``, or a callable ``(game, state) -> int``.

    Returns:
        a callable ``(game, state) -> int``.

    Raises:
        ValueError: if ``agent`` has no callable ``act`` and is not callable itself.
    """
    act = getattr(agent, "act", None)
    if callable(act):
        return act
    if callable(agent):
        return agent
    raise ValueError(f"{agent!r} is not an agent: it needs act(game, state) -> int or to be callable")


def reset_hook(agent: Any) -> Callable[[], Any] | None:
    """Return ``agent.reset`` if it has a callable one (to call when a game starts), else None."""
    reset = getattr(agent, "reset", None)
    return reset if callable(reset) else None


@functools.cache
def opponent_provider() -> Callable[..., Any] | None:
    """Return the function that builds an agent from its name, registered in :data:`PROVIDER_GROUP`, or None.

    The entry points are read and the provider imported on the first call only (the result is cached), so
    importing an env costs nothing until an opponent is named. This package's own provider
    (:data:`OWN_PROVIDER`) is used whenever it is installed, so another package that registers the group
    cannot take over ``opponent="alphabeta"``; without it, the entry point whose name sorts first is used,
    and :func:`gym_boardgames.envs.contract.make_named_opponent` contains what it does.

    Raises:
        ImportError: if the registered provider cannot be imported (e.g. another top-level package named
            ``agents``, such as the OpenAI Agents SDK, shadows this project's).
    """
    from importlib.metadata import entry_points

    found = sorted(entry_points(group=PROVIDER_GROUP), key=lambda point: (point.value != OWN_PROVIDER, point.name))
    if not found:
        return None
    point = found[0]
    try:
        return point.load()
    except (ImportError, AttributeError) as error:
        raise ImportError(
            f"the agent-name provider {point.value!r} (entry point {point.name!r} in group {PROVIDER_GROUP!r}) could "
            f"not be imported ({error}); another top-level package named `agents` (such as the OpenAI Agents SDK) "
            "can shadow the one installed with gym-boardgames"
        ) from error
