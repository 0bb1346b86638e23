"""Grading a player against a solved game: does its move keep what the position is worth?

A *solved game* knows, for a position, the final result the player to move can force from there under
perfect play, from that player's side (:class:`SolvedGame`): the payoff (+1, 0, -1) for tic-tac-toe and
small Connect Four boards (:class:`ExactValues`, from :func:`agents.search.solver.position_values`), the final box
margin for Dots and Boxes (the study's adapter of the layered solver's table). A move is *optimal* when the
position it leads to is worth as much to the mover as the position itself (:func:`move_value`).

Three ways to grade, each a question the project asks:

* **On given positions** (:func:`grade_moves`, :func:`optimal_move_rate`): the share of positions where
  every move the player may choose is optimal, e.g. "the raw network's greedy move is optimal in at least
  99% of the 4,520 non-terminal positions of tic-tac-toe".
* **On every position it can meet** (:func:`audit_all_positions`, :func:`audit_seat`): a walk of the
  reachable positions; a seat's walk follows every opponent move but only the player's own choices, so no
  losing move there proves the player never loses from that seat.
* **In played games** (:func:`play_graded`): the best result the player could force at any of its moves,
  against the result it got.

Connect Four 6x7 is too big to solve here: :mod:`agents.matches.perfect_play` grades against a label file's move
scores instead.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from typing import Any, NamedTuple, Protocol

from agents.matches.arena import agent_name, play_game
from gym_boardgames.checks import check_int, check_move
from gym_boardgames.opponents import Opponent, as_policy
from gym_boardgames.rules.common import value_for


class SolvedGame(Protocol):
    """A game with a perfect-play value for every position a grader asks about.

    ``value(state)`` is the final result the player to move at ``state`` can force from there, from that
    player's side (at a terminal position: the result itself); results compare with ``<``, higher better.
    """

    game: Any

    def value(self, state: Any) -> float:
        """Return the final result the player to move can force from ``state``, from its side."""
        ...


def outcome_for(solved: SolvedGame, state: Any, seat: int) -> float:
    """Return the final result ``seat`` can force from ``state`` (``solved.value`` from ``seat``'s side)."""
    return value_for(seat, solved.value(state), solved.game.current_player(state))


def move_value(solved: SolvedGame, state: Any, action: int) -> float:
    """Return what ``action`` is worth to the player to move at ``state`` under perfect play after it."""
    game = solved.game
    return outcome_for(solved, game.apply(state, action), game.current_player(state))


def is_optimal(solved: SolvedGame, state: Any, action: int) -> bool:
    """Return whether ``action`` keeps the value of ``state``."""
    return move_value(solved, state, action) == solved.value(state)


class ExactValues:
    """Every reachable position's game value of a solvable two-player game, for the player to move.

    Args:
        game: a rules object with ``key`` whose positions the solver can enumerate
            (:func:`agents.search.solver.position_values`).
        values: ``{game.key(state): value for the player to move}`` if already solved (as
            :func:`agents.search.solver.position_values` returns it); solved here if None.
    """

    def __init__(self, game: Any, values: Mapping[int, int] | None = None) -> None:
        if values is None:
            from agents.search.solver import position_values

            values = position_values(game)
        self.game, self.values = game, values
        self._non_terminal: list[Any] | None = None

    def value(self, state: Any) -> int:
        """Return the value of ``state`` for the player to move (+1, 0, -1); terminal ones from ``returns``."""
        game = self.game
        if game.is_terminal(state):
            return int(game.returns(state)[game.current_player(state)])
        return self.values[game.key(state)]

    def move_value(self, state: Any, action: int) -> int:
        """Return what ``action`` is worth to the player to move at ``state`` under perfect play after it."""
        return int(move_value(self, state, action))

    def is_optimal(self, state: Any, action: int) -> bool:
        """Return whether ``action`` keeps the game value of ``state``."""
        return is_optimal(self, state, action)

    def non_terminal_states(self) -> list[Any]:
        """Return every reachable non-terminal position (built once, then the same list)."""
        if self._non_terminal is None:
            game = self.game
            states = (game.from_key(key) for key in self.values)
            self._non_terminal = [s for s in states if not game.is_terminal(s)]
        return self._non_terminal


class GreedyAudit(NamedTuple):
    """How a player's moves compare with perfect play.

    Attributes:
        positions: non-terminal positions examined (where the graded player is to move).
        optimal: positions where every move the player may choose keeps the game-theoretic value.
        losing: positions that are not lost but where some move the player may choose loses (against
            perfect play). Zero over :func:`audit_seat`'s positions means the player can never lose.
    """

    positions: int
    optimal: int
    losing: int

    @property
    def optimal_share(self) -> float:
        """``optimal / positions`` (1.0 when no position was examined)."""
        return self.optimal / self.positions if self.positions else 1.0


def player_moves(agent: Any, game: Any, state: Any, name: str | None = None) -> list[int]:
    """The moves ``agent`` may play in ``state``: all its tied greedy moves if it lists them, else its choice.

    An agent with ``greedy_actions(game, state)`` (a TD agent) is graded on every move it might pick; any
    other agent on the one ``act`` returns. An :class:`~gym_boardgames.opponents.Opponent` of the project's own
    agent is looked through for ``greedy_actions``; a user's agent is graded on its ``act``, which the
    Opponent guards. Every move is checked (:func:`~gym_boardgames.checks.check_move`, naming ``name``, by default
    :func:`~agents.matches.arena.agent_name`).

    Raises:
        ValueError: a move that is not a legal action (:func:`~gym_boardgames.checks.check_move`); an
            ``AgentError`` from a user's agent.
    """
    name = agent_name(agent) if name is None else name
    own = agent.agent if isinstance(agent, Opponent) and not agent.user else agent
    greedy = getattr(own, "greedy_actions", None)
    moves = greedy(game, state) if callable(greedy) else [as_policy(agent)(game, state)]
    return [check_move(game, state, move, name) for move in moves]


def grade_moves(solved: SolvedGame, states: Sequence[Any], moves: Sequence[Sequence[int]]) -> GreedyAudit:
    """Grade the moves a player may choose in each of ``states`` (one list of moves per state).

    Args:
        solved: the solved game.
        states: non-terminal positions.
        moves: per state, the moves the player may choose there (one, or all its tied best moves).
    """
    optimal = losing = 0
    for state, chosen in zip(states, moves, strict=True):
        value = solved.value(state)
        worst = min(move_value(solved, state, a) for a in chosen)
        optimal += worst == value
        losing += value >= 0 and worst < 0  # a position not lost, lost by some chosen move
    return GreedyAudit(len(states), optimal, losing)


def optimal_move_rate(
    exact: SolvedGame, choose: Callable[[Sequence[Any]], Sequence[int]], states: Sequence[Any] | None = None
) -> float:
    """Return the share of ``states`` (default: every non-terminal position) where ``choose`` plays optimally.

    Args:
        exact: the solved game (``states`` may be omitted for an :class:`ExactValues`).
        choose: maps a batch of states to one move each (e.g. the raw network's argmax,
            :func:`agents.alphazero.evaluation.greedy_moves`).
        states: the positions to test.
    """
    states = exact.non_terminal_states() if states is None else list(states)  # type: ignore[attr-defined]
    return grade_moves(exact, states, [[int(a)] for a in choose(states)]).optimal / len(states)


def _walk(agent: Any, solved: SolvedGame, seat: int | None) -> GreedyAudit:
    """Walk the reachable positions (all of them if ``seat`` is None, else those ``seat`` can meet)."""
    game, name = solved.game, agent_name(agent)
    start = game.initial_state()
    seen = {game.key(start)}
    stack = [start]
    graded: list[Any] = []
    chosen_moves: list[list[int]] = []
    while stack:
        state = stack.pop()
        if game.is_terminal(state):
            continue
        mover = game.current_player(state)
        if seat is None or mover == seat:
            graded.append(state)
            chosen_moves.append(chosen := player_moves(agent, game, state, name))
        # Everything stays reachable for the full audit; a seat's audit follows only its own choices.
        for action in chosen if mover == seat else game.legal_actions(state):
            child = game.apply(state, action)
            key = game.key(child)
            if key not in seen:
                seen.add(key)
                stack.append(child)
    return grade_moves(solved, graded, chosen_moves)


def audit_all_positions(agent: Any, game: Any, solved: Mapping[int, int]) -> GreedyAudit:
    """Compare the player's moves with perfect play in every reachable non-terminal position.

    Args:
        agent: an agent with ``act``, or one with ``greedy_actions`` (a TD agent: all its tied greedy moves
            are checked).
        game: the rules object (with ``key``).
        solved: ``{game.key(state): value for the player to move}`` for every reachable position, as
            returned by :func:`agents.search.solver.position_values`.

    Returns:
        The audit; ``optimal_share`` is the share of positions where the player's move is optimal.
    """
    return _walk(agent, ExactValues(game, solved), None)


def audit_seat(agent: Any, game: Any, solved: Mapping[int, int], seat: int) -> GreedyAudit:
    """Check the moves of ``seat`` in every position it can meet, whatever the opponent plays.

    The walk follows every opponent move but only the player's own (tied) moves, so ``losing == 0``
    proves the player never loses from that seat, against any opponent.

    Args:
        agent: as for :func:`audit_all_positions` (an agent with only ``act`` has its single choice followed).
        game: the rules object.
        solved: game-theoretic values as for :func:`audit_all_positions`.
        seat: the player's seat, 0 or 1.

    Returns:
        The audit over the positions where ``seat`` is to move.

    Raises:
        ValueError: if ``seat`` is not the integer 0 or 1.
    """
    return _walk(agent, ExactValues(game, solved), check_int("seat", seat, 0, 1))


class GradedGame(NamedTuple):
    """One game graded from one seat's side.

    Attributes:
        returns: the game's payoffs, one per player (``game.returns`` at the end).
        forced: the best final result the seat could force at any of its moves (-inf if it never moved).
        final: the final result it got (:meth:`SolvedGame.value` of the last position, from its side).
    """

    returns: tuple[float, ...]
    forced: float
    final: float


def play_graded(solved: SolvedGame, first: Any, second: Any, seat: int) -> GradedGame:
    """Play one game of ``solved.game`` (``first`` as player 0) and grade ``seat``'s play against the solver.

    At every position where ``seat`` is to move, the result it can force is ``solved.value(state)``; a
    player that never gives anything away ends with at least the best of those (:attr:`GradedGame.forced`).
    """
    game = solved.game
    forced = -math.inf
    last = game.initial_state()

    def grade(state: Any, action: int, child: Any) -> None:
        nonlocal forced, last
        if game.current_player(state) == seat:
            forced = max(forced, solved.value(state))
        last = child

    returns = play_game(game, first, second, on_move=grade)
    return GradedGame(tuple(returns), forced, outcome_for(solved, last, seat))
