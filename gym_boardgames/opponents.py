"""Turn an agent into a policy, once: the rule every opponent slot of this project follows.

An agent is either an object with ``act(game, state) -> int`` (it plays with ``act``) or a plain callable
``(game, state) -> int`` (it is its own policy). An agent may also have ``reset()``, called when a game
starts, so that it can drop per-game memory (MCTS reuses its search tree within a game).

The envs (through :mod:`gym_boardgames.envs.contract`) and the game loops of ``agents.arena`` take their
opponents through these two functions. Agent *names* (``"alphabeta:4"``...) are not resolved here: that
needs the ``agents`` package, which this module never imports. It needs only the standard library, so it
imports in no time and sits below every layer that takes an agent.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

__all__ = ["Policy", "as_policy", "reset_hook"]

#: A move function: ``(game, state) -> action``.
Policy = Callable[[Any, Any], int]


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
