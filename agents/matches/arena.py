"""Matches between agents on a rules object, alternating who moves first.

An agent is anything with ``act(game, state) -> int`` (or a plain callable ``(game, state) -> int``).
If it has a ``reset()`` method, it is called before each game (MCTS uses this to drop a reused tree).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import astuple, dataclass, field
from typing import Any

from agents._rng import SeedLike, make_rng
from agents.random_agent import RandomAgent
from gym_boardgames.checks import check_int, check_move
from gym_boardgames.opponents import as_policy as policy_of
from gym_boardgames.opponents import reset_hook

AgentLike = Any  # an object with act(game, state) -> int, a callable (game, state) -> int, or "random"


@dataclass
class SideRecord:
    """Results of one agent from one seat: wins, draws and losses."""

    win: int = 0
    draw: int = 0
    loss: int = 0

    @property
    def games(self) -> int:
        """Games played from this seat."""
        return self.win + self.draw + self.loss

    def as_dict(self) -> dict[str, int]:
        """``{"win": ..., "draw": ..., "loss": ...}``."""
        return {"win": self.win, "draw": self.draw, "loss": self.loss}

    def add(self, payoff: float) -> None:
        """Count one game by its payoff for this agent: > 0 a win, < 0 a loss, 0 a draw."""
        name = "win" if payoff > 0 else "loss" if payoff < 0 else "draw"
        setattr(self, name, getattr(self, name) + 1)


@dataclass
class MatchResult:
    """The record of agent A against agent B, by A's seat.

    Attributes:
        first: A's results when A moved first (player 0).
        second: A's results when A moved second (player 1).
    """

    first: SideRecord = field(default_factory=SideRecord)
    second: SideRecord = field(default_factory=SideRecord)

    @property
    def total(self) -> SideRecord:
        """A's results over both seats."""
        return SideRecord(*(a + b for a, b in zip(astuple(self.first), astuple(self.second), strict=True)))

    def as_dict(self) -> dict[str, dict[str, int]]:
        """A JSON-ready summary: A's win/draw/loss as first, as second, and in total."""
        return {"first": self.first.as_dict(), "second": self.second.as_dict(), "total": self.total.as_dict()}


def as_policy(agent: AgentLike, rng: SeedLike = None) -> Callable[[Any, Any], int]:
    """Return ``agent`` as a callable ``(game, state) -> int``; ``"random"`` becomes a :class:`RandomAgent`.

    Objects with ``act`` and plain callables follow :func:`gym_boardgames.opponents.as_policy`, the rule
    the envs' ``opponent=`` follows too.

    Raises:
        ValueError: if ``agent`` is none of the accepted forms.
    """
    if isinstance(agent, str):
        if agent == "random":
            return RandomAgent(make_rng(rng)).act
        raise ValueError(f"unknown agent name {agent!r}: pass 'random' or an object with act(game, state)")
    return policy_of(agent)


def play_game(
    game: Any, first: AgentLike, second: AgentLike, on_move: Callable[[Any, int, Any], None] | None = None
) -> tuple[float, float]:
    """Play one game, ``first`` as player 0 and ``second`` as player 1; return ``game.returns``.

    This is the one two-player game loop: matches, training games and audited games all run through it,
    and a caller that needs to see the moves passes ``on_move``.

    Args:
        game: the rules object.
        first: the agent of player 0 (an object with ``act``, a callable, or ``"random"``).
        second: the agent of player 1.
        on_move: called as ``on_move(state, action, next_state)`` after every move (e.g. to record the
            positions a learner met, or to audit a player at each of its moves).

    Raises:
        ValueError: if an agent returns a move that is not an action of the game (``ActionTypeError`` for one
            that is no integer) or an illegal one: one line naming the agent and the move
            (:func:`~gym_boardgames.checks.check_action`, :func:`~gym_boardgames.checks.check_legal`).
    """
    players = (first, second)
    policies = (as_policy(first), as_policy(second))
    names = tuple(map(agent_name, players))
    for reset in filter(None, map(reset_hook, players)):
        reset()
    state = game.initial_state()
    while not game.is_terminal(state):
        mover = game.current_player(state)
        # An agent's move enters here: the one move check, naming the agent (a bool is no move, an array neither).
        action = check_move(game, state, policies[mover](game, state), names[mover])
        child = game.apply(state, action)
        if on_move is not None:
            on_move(state, action, child)
        state = child
    return game.returns(state)


def agent_name(agent: AgentLike) -> str:
    """How messages name an agent: a name given as one (``"random"``, an ``Opponent``'s spec), else its repr.

    A function is named by its qualified name.
    """
    name = agent if isinstance(agent, str) else getattr(agent, "name", None)
    return name if isinstance(name, str) else getattr(agent, "__qualname__", None) or repr(agent)


def play_match(
    game: Any,
    agent_a: AgentLike,
    agent_b: AgentLike,
    games: int,
    seed: SeedLike = None,
    progress: Callable[[int], None] | None = None,
) -> MatchResult:
    """Play ``games`` games between A and B, alternating seats (A first in even games).

    Args:
        game: the rules object.
        agent_a: an agent, a callable, or ``"random"``.
        agent_b: an agent, a callable, or ``"random"``.
        games: how many games (>= 1); with an odd number A has one more game as first player.
        seed: seeds the ``"random"`` agents (agents given as objects keep their own seeds).
        progress: called with 1 after each game (e.g. a tqdm ``update``).

    Returns:
        A's record by seat.

    Raises:
        ValueError: on ``games < 1`` or an agent's illegal move.
    """
    check_int("games", games, 1)
    rng = make_rng(seed)
    a, b = (as_policy(agent, rng) if isinstance(agent, str) else agent for agent in (agent_a, agent_b))
    result = MatchResult()
    for i in range(games):
        a_first = i % 2 == 0
        payoff = play_game(game, a, b) if a_first else play_game(game, b, a)
        (result.first if a_first else result.second).add(payoff[0] if a_first else payoff[1])
        if progress is not None:
            progress(1)
    return result
