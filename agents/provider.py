"""The agent names of the envs' ``opponent=``: the provider ``gym_boardgames`` finds by its entry point.

``pyproject.toml`` registers :func:`make_opponent` in the entry-point group ``gym_boardgames.opponents``, the way
Gymnasium finds env plugins, so ``gymnasium.make("TicTacToe-v0", opponent="alphabeta")`` builds the
agent of :func:`agents.factory.make_agent` while no module of ``gym_boardgames`` imports ``agents``: the env
layer reads the entry point on the first use of a name (:func:`gym_boardgames.opponents.opponent_provider`).
"""

from __future__ import annotations

from typing import Any

from agents._rng import SeedLike
from agents.factory import AGENT_NAMES, DOTS_AGENT_NAMES, make_agent

__all__ = ["make_opponent"]


def make_opponent(name: str, game: Any, seed: SeedLike = None) -> Any:
    """Return the agent ``name`` for ``game``: :func:`agents.factory.make_agent`, checked against the game.

    Its ``names`` attribute lists the name forms, for the envs' error messages.

    Raises:
        UnknownAgentError: (a ``ValueError``) on a name it does not know, as :func:`agents.factory.make_agent`.
        ValueError: on a bad parameter, as :func:`agents.factory.make_agent`.
        OSError: if a saved agent's file cannot be read.
    """
    return make_agent(name, seed=seed, game=game)


#: The forms of the names :func:`make_opponent` takes (the Dots and Boxes bots last).
make_opponent.names = AGENT_NAMES + DOTS_AGENT_NAMES  # type: ignore[attr-defined]
