"""Minimax search with alpha-beta pruning, and the agent that plays its move.

Everything here speaks only the rules surface (docs/design.md, "Rules surface") (``initial_state``, ``current_player``,
``legal_actions``, ``apply``, ``is_terminal``, ``returns``), so it runs on every board game.

Values are zero-sum and taken from the point of view of the player to move. Because Dots and Boxes
gives extra turns, the search asks ``current_player`` at every node instead of flipping the sign each
ply: a child's value is negated only when the child has the other player to move.

Alpha-beta recurses once per ply; a search that would go deeper than :data:`MAX_SEARCH_PLIES` plies stops
with a ``ValueError`` asking for a depth limit, instead of overflowing Python's stack.
:meth:`AlphaBetaAgent.check` tells before the first move whether a game is that long (a 64x64 board), from
:func:`longest_game`, so a match can refuse the agent before it starts. Solving a whole game, every
reachable position at once, is :mod:`agents.search.solver`'s.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

from agents._rng import Seeded, SeedLike, make_rng
from gym_boardgames.cancel import CHECK_EVERY, check_cancelled
from gym_boardgames.checks import check_int

Evaluate = Callable[[Any, Any], float]

# Transposition-table bound kinds.
_EXACT, _LOWER, _UPPER = 0, 1, 2

#: Deepest alpha-beta search, in plies. Each ply is one Python frame, and Python's default stack holds
#: about 1000; no search this deep would finish anyway (exact search of a board with 400 empty cells).
MAX_SEARCH_PLIES = 400
#: Exact alpha-beta is refused on a game whose positions :func:`agents.search.solver.estimate_solve` bounds above this.
#: Its table keeps every position searched, so a board far beyond it (Connect Four 6x7: a bound of 7e13) grows
#: the table by 15-18 MB/s until memory runs out. Dots and Boxes 3x3 (a bound of 6.1e7) passes; its first move
#: takes about 34 s of CPU.
MAX_EXACT_POSITIONS = 10**8


class _Search:
    """One alpha-beta search context: the rules, the depth limit, the heuristic and a transposition table."""

    def __init__(self, game: Any, evaluate: Evaluate | None, table: dict | None) -> None:
        self.game = game
        self.evaluate = evaluate
        # state -> (remaining depth, value, bound kind, best action). States are hashable values, so
        # they key the table directly (for these boards the state hash is cheaper than game.key).
        self.table: dict = {} if table is None else table
        # A game may rank its actions for move ordering (``action_rank[a]``, lower first), e.g. the
        # centre of a board before its edges; without one, actions are tried in ascending order.
        self.rank = getattr(game, "action_rank", None)
        self.nodes = 0
        self.height = 0  # plies below the root on the current path (the recursion depth)

    def child_value(self, mover: int, child: Any, depth: float, alpha: float, beta: float) -> float:
        """Return the value for ``mover`` of a live ``child`` searched within ``(alpha, beta)`` (from ``mover``'s side).

        :func:`~gym_boardgames.rules.common.value_for`'s rule with the window: an extra turn keeps the point
        of view; otherwise the child's value and the window are negated.
        """
        if self.game.current_player(child) == mover:
            return self.value(child, depth, alpha, beta)[0]
        return -self.value(child, depth, -beta, -alpha)[0]

    def value(self, state: Any, depth: float, alpha: float, beta: float) -> tuple[float, int | None]:
        """Return (value for the player to move, best action) of a live ``state`` within ``(alpha, beta)``.

        Terminal children are scored on the spot (so a win in one is seen before any deeper search
        and, payoffs being at most +1, ends the node); live children are searched with the table's
        best move first.
        """
        self.nodes += 1
        if not self.nodes & (CHECK_EVERY - 1):
            check_cancelled()
        game = self.game
        if depth <= 0:
            return (0.0 if self.evaluate is None else float(self.evaluate(game, state))), None

        entry = self.table.get(state)
        tt_action = None
        if entry is not None:
            entry_depth, entry_value, kind, tt_action = entry
            if entry_depth >= depth and (
                kind == _EXACT or (kind == _LOWER and entry_value >= beta) or (kind == _UPPER and entry_value <= alpha)
            ):
                return entry_value, tt_action

        original_alpha = alpha
        mover = game.current_player(state)
        best_value, best_action = -math.inf, None
        live: list[tuple[int, Any]] = []
        actions = game.legal_actions(state)
        if self.rank is not None:
            actions.sort(key=self.rank.__getitem__)
        for action in actions:
            child = game.apply(state, action)
            if not game.is_terminal(child):
                live.insert(0 if action == tt_action else len(live), (action, child))  # the table's move first
                continue
            child_value = game.returns(child)[mover]
            if child_value > best_value:
                best_value, best_action = child_value, action
                if child_value >= beta:
                    self.table[state] = (depth, best_value, _LOWER, best_action)
                    return best_value, best_action
        alpha = max(alpha, best_value)
        if live and self.height >= MAX_SEARCH_PLIES:
            raise ValueError(
                f"alpha-beta would search deeper than MAX_SEARCH_PLIES={MAX_SEARCH_PLIES} plies on {game!r}: "
                f"give a depth limit (depth <= {MAX_SEARCH_PLIES})"
            )
        self.height += 1
        try:
            for action, child in live:
                child_value = self.child_value(mover, child, depth - 1, alpha, beta)
                if child_value > best_value:
                    best_value, best_action = child_value, action
                    if child_value > alpha:
                        alpha = child_value
                        if alpha >= beta:
                            break
        finally:
            self.height -= 1

        kind = _UPPER if best_value <= original_alpha else _LOWER if best_value >= beta else _EXACT
        self.table[state] = (depth, best_value, kind, best_action)
        return best_value, best_action


def alphabeta(
    game: Any,
    state: Any,
    depth: int | None = None,
    evaluate: Evaluate | None = None,
    *,
    seed: SeedLike = None,
    table: dict | None = None,
) -> tuple[float, int | None]:
    """Search ``state`` with alpha-beta pruning and return ``(value, best action)``.

    Args:
        game: a two-player zero-sum rules object.
        state: the position to search.
        depth: plies to look ahead (None: to the end of the game, an exact value).
        evaluate: ``(game, state) -> float`` in [-1, 1] for the player to move, used at the depth limit
            (0 when None).
        seed: shuffles the root moves, so among equally good moves the one returned varies with the
            seed (and is reproducible for a given seed).
        table: a transposition table to reuse across calls on the same game (exact entries stay valid).

    Returns:
        The value from the point of view of the player to move in ``state`` (+1 win, 0 draw, -1 loss
        with exact search), and a best action (None at a terminal state).

    Raises:
        ValueError: on a negative depth, or if the search would go deeper than :data:`MAX_SEARCH_PLIES`
            (exact search of a long game: give a depth).
    """
    if depth is not None:
        check_int("depth (or None for exact search)", depth, 0)
    search = _Search(game, evaluate, table)
    limit = math.inf if depth is None else depth
    # Payoffs and heuristic values lie in [-1, 1], so the full window is (-1, 1): a found win is a cutoff.
    if game.is_terminal(state):
        return game.returns(state)[game.current_player(state)] + 0.0, None
    if limit == 0:
        return search.value(state, limit, -1.0, 1.0)
    mover = game.current_player(state)
    actions = list(game.legal_actions(state))
    make_rng(seed).shuffle(actions)
    best_value, best_action = -math.inf, None
    alpha, beta = -1.0, 1.0
    for action in actions:
        child = game.apply(state, action)
        if game.is_terminal(child):
            child_value = game.returns(child)[mover]
        else:
            child_value = search.child_value(mover, child, limit - 1, alpha, beta)
        if child_value > best_value:
            best_value, best_action = child_value, action
            alpha = max(alpha, child_value)
            if best_value >= beta:
                break  # a win cannot be bettered
    return best_value + 0.0, best_action  # + 0.0: a negated draw is 0.0, not -0.0


def longest_game(game: Any) -> int | None:
    """Return the most moves a game of ``game`` can last, or None when unknown for this rules object.

    Every move of these games fills a cell (ConnectN, tic-tac-toe) or draws an edge (Dots and Boxes), so a
    game lasts at most ``num_cells`` or ``num_edges`` moves.
    """
    from gym_boardgames.rules.registry import family_of

    moves = {"connect": "num_cells", "dots": "num_edges"}.get(family_of(game))
    return getattr(game, moves) if moves is not None else None


class AlphaBetaAgent(Seeded):
    """Plays the move alpha-beta finds best; exact (perfect play) when ``depth`` is None.

    Args:
        depth: plies to look ahead, or None for exact search.
        evaluate: heuristic for the depth limit, ``(game, state) -> float`` for the player to move.
        seed: int, Generator or None; breaks ties between equally good moves.

    The transposition table is kept between moves of the same game (exact values stay true) and
    dropped when the agent is asked about another game object or on :meth:`reset`.
    """

    def __init__(self, depth: int | None = None, evaluate: Evaluate | None = None, seed: SeedLike = None) -> None:
        if depth is not None:
            check_int("depth (or None for exact search)", depth, 1)
        self.depth = depth
        self.evaluate = evaluate
        super().__init__(seed)
        self._table: dict = {}
        self._game: Any = None

    def act(self, game: Any, state: Any) -> int:
        """Return a best action for the player to move in ``state``.

        Raises:
            ValueError: if ``state`` is terminal.
        """
        if game.is_terminal(state):
            raise ValueError("the game is over: there is no move to choose")
        if game is not self._game:
            self._table, self._game = {}, game
        # Depth-limited entries depend on the root's depth budget, so only exact searches share a table.
        table = self._table if self.depth is None else None
        return alphabeta(game, state, self.depth, self.evaluate, seed=self.rng, table=table)[1]

    def reset(self) -> None:
        """Forget the transposition table."""
        self._table, self._game = {}, None

    def check(self, game: Any) -> None:
        """Refuse, before any move, a ``game`` whose search could pass :data:`MAX_SEARCH_PLIES` plies.

        The search would otherwise raise at its first move, in the middle of a match; a depth limit (at most
        the limit) or a game of at most that many moves passes. A game of unknown length passes too.

        Exact search (no depth) is refused too on a game whose positions
        :func:`~agents.search.solver.estimate_solve` bounds above :data:`MAX_EXACT_POSITIONS`: it would not answer
        before memory runs out.

        Raises:
            ValueError: naming the game, the plies or positions and the limit, and asking for a depth.
        """
        longest = longest_game(game)
        if longest is None:
            return
        plies = longest if self.depth is None else min(self.depth, longest)
        if plies > MAX_SEARCH_PLIES:
            search = "exact alpha-beta" if self.depth is None else f"alpha-beta to depth {self.depth}"
            raise ValueError(
                f"{search} could search {plies} plies deep on {game!r}, more than MAX_SEARCH_PLIES="
                f"{MAX_SEARCH_PLIES}: give a depth of at most {MAX_SEARCH_PLIES} (alphabeta:DEPTH)"
            )
        if self.depth is None:
            from agents.search.solver import estimate_solve

            positions = estimate_solve(game).positions
            if positions is not None and positions > MAX_EXACT_POSITIONS:
                raise ValueError(
                    f"exact alpha-beta cannot solve {game!r}: up to 10^{len(str(positions)) - 1} positions, more "
                    f"than MAX_EXACT_POSITIONS=10^{len(str(MAX_EXACT_POSITIONS)) - 1}: give a depth (alphabeta:4), "
                    "or use mcts or alphazero"
                )

    def __repr__(self) -> str:
        return f"AlphaBetaAgent(depth={self.depth})"
