"""Minimax search with alpha-beta pruning, and exact solving of small games.

Everything here speaks only the rules surface of DESIGN.md (``initial_state``, ``current_player``,
``legal_actions``, ``apply``, ``is_terminal``, ``returns``), so it runs on every board game.

Values are zero-sum and taken from the point of view of the player to move. Because Dots and Boxes
gives extra turns, the search asks ``current_player`` at every node instead of flipping the sign each
ply: a child's value is negated only when the child has the other player to move.

:func:`solve` counts every position reachable from the start (play stops at a win) and returns the
game's value. For ConnectN boards of up to 39 cells it works layer by layer over integer keys with
numpy (the key is ``sum(board[i] * 3**i)``, see :mod:`gym_boardgames.rules.connect`), which is how
4x4 boards with millions of positions solve in seconds; other games use a memoised depth-first search.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np

from agents._rng import SeedLike, make_rng

Evaluate = Callable[[Any, Any], float]

# Transposition-table bound kinds.
_EXACT, _LOWER, _UPPER = 0, 1, 2


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

    def value(self, state: Any, depth: float, alpha: float, beta: float) -> tuple[float, int | None]:
        """Return (value for the player to move, best action) of a live ``state`` within ``(alpha, beta)``.

        Terminal children are scored on the spot (so a win in one is seen before any deeper search
        and, payoffs being at most +1, ends the node); live children are searched with the table's
        best move first.
        """
        self.nodes += 1
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
                if action == tt_action:
                    live.insert(0, (action, child))
                else:
                    live.append((action, child))
                continue
            child_value = game.returns(child)[mover]
            if child_value > best_value:
                best_value, best_action = child_value, action
                if child_value >= beta:
                    self.table[state] = (depth, best_value, _LOWER, best_action)
                    return best_value, best_action
        alpha = max(alpha, best_value)
        for action, child in live:
            if game.current_player(child) == mover:  # an extra turn: same point of view
                child_value = self.value(child, depth - 1, alpha, beta)[0]
            else:
                child_value = -self.value(child, depth - 1, -beta, -alpha)[0]
            if child_value > best_value:
                best_value, best_action = child_value, action
                if child_value > alpha:
                    alpha = child_value
                    if alpha >= beta:
                        break

        if best_value <= original_alpha:
            kind = _UPPER
        elif best_value >= beta:
            kind = _LOWER
        else:
            kind = _EXACT
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
        ValueError: on a negative depth.
    """
    if depth is not None and depth < 0:
        raise ValueError(f"depth must be None or >= 0, got {depth}")
    search = _Search(game, evaluate, table)
    limit = math.inf if depth is None else depth
    # Payoffs and heuristic values lie in [-1, 1], so the full window is (-1, 1): a found win is a cutoff.
    if game.is_terminal(state):
        return game.returns(state)[game.current_player(state)] + 0.0, None
    if limit == 0:
        return search.value(state, limit, -1.0, 1.0)
    rng = make_rng(seed)
    mover = game.current_player(state)
    actions = list(game.legal_actions(state))
    rng.shuffle(actions)
    best_value, best_action = -math.inf, None
    alpha, beta = -1.0, 1.0
    for action in actions:
        child = game.apply(state, action)
        if game.is_terminal(child):
            child_value = game.returns(child)[mover]
        elif game.current_player(child) == mover:
            child_value = search.value(child, limit - 1, alpha, beta)[0]
        else:
            child_value = -search.value(child, limit - 1, -beta, -alpha)[0]
        if child_value > best_value:
            best_value, best_action = child_value, action
            alpha = max(alpha, child_value)
            if best_value >= beta:
                break  # a win cannot be bettered
    return best_value + 0.0, best_action  # + 0.0: a negated draw is 0.0, not -0.0


class AlphaBetaAgent:
    """Plays the move alpha-beta finds best; exact (perfect play) when ``depth`` is None.

    Args:
        depth: plies to look ahead, or None for exact search.
        evaluate: heuristic for the depth limit, ``(game, state) -> float`` for the player to move.
        seed: int, Generator or None; breaks ties between equally good moves.

    The transposition table is kept between moves of the same game (exact values stay true) and
    dropped when the agent is asked about another game object or on :meth:`reset`.
    """

    def __init__(self, depth: int | None = None, evaluate: Evaluate | None = None, seed: SeedLike = None) -> None:
        if depth is not None and (not isinstance(depth, int) or depth < 1):
            raise ValueError(f"depth must be None (exact) or an integer >= 1, got {depth!r}")
        self.depth = depth
        self.evaluate = evaluate
        self.rng = make_rng(seed)
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

    def __repr__(self) -> str:
        return f"AlphaBetaAgent(depth={self.depth})"


# ---- exact solving ----------------------------------------------------------------------------


def _solve_generic(game: Any) -> dict[Any, float]:
    """Return {state: value for the player to move} for every reachable state (memoised search)."""
    values: dict[Any, float] = {}

    def visit(state: Any) -> float:
        known = values.get(state)
        if known is not None:
            return known
        mover = game.current_player(state)
        if game.is_terminal(state):
            value = game.returns(state)[mover]
        else:
            value = -math.inf
            for action in game.legal_actions(state):
                child = game.apply(state, action)
                child_value = visit(child)
                value = max(value, child_value if game.current_player(child) == mover else -child_value)
        values[state] = value
        return value

    visit(game.initial_state())
    return values


def _is_small_connectn(game: Any) -> bool:
    from gym_boardgames.rules.connect import ConnectN

    return isinstance(game, ConnectN) and game.num_cells <= 39


# Rows handled at once by the layered solver: bounds the temporary (rows, cells) arrays to ~100 MB.
_CHUNK = 1 << 18


def _expand_layer(game: Any, keys: np.ndarray, ply: int) -> tuple[np.ndarray, np.ndarray]:
    """For positions with ``ply`` pieces, return (terminal value for the mover, child keys).

    The terminal value is -1 where the previous mover completed a line, 0 elsewhere (a draw when the
    board is full, meaningless for live positions). Child keys are ``(N, num_actions)`` with -1 where
    there is no child (an illegal move, or any move from a terminal position).
    """
    powers = 3 ** np.arange(game.num_cells, dtype=np.int64)
    boards = ((keys[:, None] // powers) % 3).astype(np.int8)
    if ply == 0:
        won = np.zeros(len(keys), dtype=bool)
    else:
        last_mark = 2 - ply % 2  # the piece of the player who just moved (1 for player 0)
        won = (boards[:, game.geometry.win_lines] == last_mark).all(axis=2).any(axis=1)
    terminal = won | (ply == game.num_cells)
    mark = 1 + ply % 2
    if game.gravity:
        # A column's pieces fill from the bottom, so its empty cells are the top `empty` rows.
        empty = (boards.reshape(-1, game.rows, game.cols) == 0).sum(axis=1)
        landing = np.clip((empty - 1) * game.cols + np.arange(game.cols), 0, None)
        children = np.where(empty > 0, keys[:, None] + mark * powers[landing], -1)
    else:
        children = np.where(boards == 0, keys[:, None] + mark * powers[None, :], -1)
    children[terminal] = -1
    return np.where(won, -1, 0).astype(np.int8), children


def _solve_connectn_layers(game: Any) -> tuple[list[np.ndarray], list[np.ndarray]]:
    """Solve a ConnectN board layer by layer over base-3 keys; return per ply (keys, values).

    Layer ``d`` holds the sorted keys of the reachable positions with ``d`` pieces; values are for the
    player to move there. Children of a live position add ``(mover + 1) * 3**cell`` to its key. The
    forward pass finds the layers; the backward pass recomputes each layer's children (cheaper in
    memory than keeping them) and takes the best child value.
    """
    layer_keys = [np.zeros(1, dtype=np.int64)]
    for ply in range(game.num_cells):
        keys = layer_keys[-1]
        found = [
            np.unique(children[children >= 0])
            for children in (_expand_layer(game, keys[i : i + _CHUNK], ply)[1] for i in range(0, len(keys), _CHUNK))
        ]
        next_keys = np.unique(np.concatenate(found))
        if len(next_keys) == 0:
            break
        layer_keys.append(next_keys)

    layer_values: list[np.ndarray] = [np.empty(0, dtype=np.int8)] * len(layer_keys)
    for ply in range(len(layer_keys) - 1, -1, -1):
        keys = layer_keys[ply]
        values = np.empty(len(keys), dtype=np.int8)
        for i in range(0, len(keys), _CHUNK):
            terminal_value, children = _expand_layer(game, keys[i : i + _CHUNK], ply)
            live = (children >= 0).any(axis=1)
            chunk_values = terminal_value
            if live.any():
                next_keys, next_values = layer_keys[ply + 1], layer_values[ply + 1]
                kids = children[live]
                # Every child key is in the next layer (it was found from these very positions).
                found_at = np.searchsorted(next_keys, np.maximum(kids, 0))
                found_at = np.minimum(found_at, len(next_keys) - 1)
                negated = np.where(kids >= 0, -next_values[found_at].astype(np.int8), np.int8(-2))
                chunk_values[live] = negated.max(axis=1)
            values[i : i + _CHUNK] = chunk_values
        layer_values[ply] = values
    return layer_keys, layer_values


def solve(game: Any) -> tuple[float, int]:
    """Return the exact value of the start position for player 0 and the number of reachable positions.

    Positions are counted once however they are reached, the empty board and terminal positions
    included; play stops at a win. Tic-tac-toe gives ``(0.0, 5478)``.

    Args:
        game: a two-player zero-sum rules object.

    Returns:
        ``(value for player 0 from the start: +1 win, 0 draw, -1 loss, n_states)``.
    """
    if _is_small_connectn(game):
        keys, values = _solve_connectn_layers(game)
        return float(values[0][0]) + 0.0, int(sum(len(layer) for layer in keys))
    values = _solve_generic(game)
    start = game.initial_state()
    value = values[start]
    # + 0.0 turns a negated draw (-0.0) into 0.0.
    return float(value if game.current_player(start) == 0 else -value) + 0.0, len(values)


def position_values(game: Any) -> dict[int, int]:
    """Return ``{game.key(state): value}`` for every reachable position.

    The value is the game-theoretic result (+1, 0, -1) for the player to move in that position. Meant
    for small games (tic-tac-toe: 5478 entries), e.g. to check a learned policy's moves.
    """
    if _is_small_connectn(game):
        keys, values = _solve_connectn_layers(game)
        return {
            int(k): int(v)
            for layer_k, layer_v in zip(keys, values, strict=True)
            for k, v in zip(layer_k.tolist(), layer_v.tolist(), strict=True)
        }
    return {game.key(state): int(value) for state, value in _solve_generic(game).items()}
