"""Exact solving of small games: the value of every position reachable from the start.

:func:`solve` counts every position reachable from the start (play stops at a win) and returns the
game's value. For ConnectN boards of up to 39 cells it works layer by layer over integer keys with
numpy (the key is ``sum(board[i] * 3**i)``, see :mod:`gym_boardgames.rules.connect`), which is how
4x4 boards with millions of positions solve in seconds; other games use a memoised depth-first search
with an explicit stack (no recursion, so no ``RecursionError`` however long the game).
:func:`estimate_solve` bounds the positions, time and memory of a solve before it starts, so callers
(``scripts/solve.py``) can refuse what would not finish. :func:`position_values` gives every reachable
position's value by its key, e.g. to grade a learned policy's moves (:mod:`agents.matches.grading`).

Values are for the player to move, and a child's value is negated only when the child has the other
player to move (:func:`~gym_boardgames.rules.common.value_for`), so Dots and Boxes' extra turns are
solved correctly; searching a single position to a depth is :mod:`agents.search.minimax`'s alpha-beta.
"""

from __future__ import annotations

import math
from typing import Any, NamedTuple

import numpy as np

from gym_boardgames.rules.common import value_for
from gym_boardgames.rules.connect import EMPTY, PIECE
from gym_boardgames.rules.registry import family_of
from gym_boardgames.utils import progress_bar


def _solve_generic(game: Any, progress: bool = False) -> dict[Any, float]:
    """Return {state: value for the player to move} for every reachable state (memoised search).

    The depth-first search keeps its path in a list rather than on Python's stack, so a game of any
    length solves (or runs out of time) without ``RecursionError``. With ``progress`` a bar counts the
    start position's moves whose subtrees are done.
    """
    root = game.initial_state()
    if game.is_terminal(root):
        return {root: game.returns(root)[game.current_player(root)]}
    values: dict[Any, float] = {}
    root_actions = game.legal_actions(root)
    # A frame is [state, mover, legal actions, next action index, best value so far].
    stack: list[list[Any]] = [[root, game.current_player(root), root_actions, 0, -math.inf]]
    with progress_bar(len(root_actions), "solving", enabled=progress) as bar:
        while stack:
            frame = stack[-1]
            state, mover, actions, index, best = frame
            if index < len(actions):
                frame[3] = index + 1
                child = game.apply(state, actions[index])
                child_mover = game.current_player(child)
                child_value = values.get(child)
                if child_value is None:
                    if not game.is_terminal(child):
                        stack.append([child, child_mover, game.legal_actions(child), 0, -math.inf])
                        continue
                    child_value = values[child] = game.returns(child)[child_mover]
                frame[4] = max(best, value_for(mover, child_value, child_mover))
            else:
                values[state] = best
                stack.pop()
                if not stack:
                    break
                parent = stack[-1]
                parent[4] = max(parent[4], value_for(parent[1], best, mover))
            if len(stack) == 1:
                bar.update(1)  # one more of the start position's moves is solved
    return values


def _is_small_connectn(game: Any) -> bool:
    return family_of(game) == "connect" and game.num_cells <= 39


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
    # A line of the player who just moved (none on the empty board).
    won = game.has_line(boards, PIECE[1 - ply % 2]) if ply else np.zeros(len(keys), dtype=bool)
    terminal = won | (ply == game.num_cells)
    mark = PIECE[ply % 2]
    if game.gravity:
        heights = (boards.reshape(-1, game.rows, game.cols) != EMPTY).sum(axis=1)
        landing = game.landing_cells(heights, np.arange(game.cols))
        children = np.where(heights < game.rows, keys[:, None] + mark * powers[landing], -1)
    else:
        children = np.where(boards == EMPTY, keys[:, None] + mark * powers[None, :], -1)
    children[terminal] = -1
    return np.where(won, -1, 0).astype(np.int8), children


def _solve_connectn_layers(game: Any, progress: bool = False) -> tuple[list[np.ndarray], list[np.ndarray]]:
    """Solve a ConnectN board layer by layer over base-3 keys; return per ply (keys, values).

    Layer ``d`` holds the sorted keys of the reachable positions with ``d`` pieces; values are for the
    player to move there. Children of a live position add ``(mover + 1) * 3**cell`` to its key. The
    forward pass finds the layers; the backward pass recomputes each layer's children (cheaper in
    memory than keeping them) and takes the best child value. With ``progress`` a bar counts the
    layers of both passes (``2 * (cells + 1)`` steps at most; the middle layers are the big ones).
    """
    steps = 2 * (game.num_cells + 1)
    with progress_bar(steps, "solving layers", enabled=progress) as bar:
        layer_keys = [np.zeros(1, dtype=np.int64)]
        bar.update(1)
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
            bar.update(1)
        bar.update(game.num_cells + 1 - len(layer_keys))  # layers that play never reaches

        layer_values: list[np.ndarray] = [np.empty(0, dtype=np.int8)] * len(layer_keys)
        for ply in range(len(layer_keys) - 1, -1, -1):
            keys = layer_keys[ply]
            values = np.empty(len(keys), dtype=np.int8)
            for i in range(0, len(keys), _CHUNK):
                # The terminal values, replaced by the best child's where there are children.
                chunk_values, children = _expand_layer(game, keys[i : i + _CHUNK], ply)
                live = (children >= 0).any(axis=1)
                if live.any():
                    next_keys, next_values = layer_keys[ply + 1], layer_values[ply + 1]
                    kids = children[live]
                    # Every child key is in the next layer (it was found from these very positions).
                    found_at = np.minimum(np.searchsorted(next_keys, np.maximum(kids, 0)), len(next_keys) - 1)
                    negated = np.where(kids >= 0, -next_values[found_at].astype(np.int8), np.int8(-2))
                    chunk_values[live] = negated.max(axis=1)
                values[i : i + _CHUNK] = chunk_values
            layer_values[ply] = values
            bar.update(1)
        bar.update(game.num_cells + 1 - len(layer_keys))
    return layer_keys, layer_values


def solve(game: Any, *, progress: bool = False) -> tuple[float, int]:
    """Return the exact value of the start position for player 0 and the number of reachable positions.

    Positions are counted once however they are reached, the empty board and terminal positions
    included; play stops at a win. Tic-tac-toe gives ``(0.0, 5478)``. Nothing here limits the size:
    call :func:`estimate_solve` first to see whether a solve can finish.

    Args:
        game: a two-player zero-sum rules object.
        progress: show a progress bar on stderr (tqdm when installed, see
            :func:`gym_boardgames.utils.progress_bar`).

    Returns:
        ``(value for player 0 from the start: +1 win, 0 draw, -1 loss, n_states)``.
    """
    if _is_small_connectn(game):
        keys, values = _solve_connectn_layers(game, progress)
        return float(values[0][0]) + 0.0, int(sum(len(layer) for layer in keys))
    values = _solve_generic(game, progress)
    start = game.initial_state()
    # + 0.0 turns a negated draw (-0.0) into 0.0.
    return float(value_for(0, values[start], game.current_player(start))) + 0.0, len(values)


class SolveEstimate(NamedTuple):
    """What a :func:`solve` would cost, from the board's size alone (before any work).

    Attributes:
        method: ``"layered"`` (numpy layers over base-3 keys) or ``"memoised"`` (the generic search).
        positions: an upper bound on the positions the solve visits (None when unknown for this game).
        bytes: the memory that many positions take at the method's measured cost per position.
        seconds: the time they take at the method's measured speed on a quiet machine (twice that
            under load).
        limit: the most positions :func:`solve` is expected to finish in a few minutes and a couple of
            gigabytes with this method (:data:`MAX_LAYERED_POSITIONS` or :data:`MAX_MEMOISED_POSITIONS`).
    """

    method: str
    positions: int | None
    bytes: int | None
    seconds: float | None
    limit: int

    @property
    def feasible(self) -> bool:
        """Whether the bound is known and within :attr:`limit`."""
        return self.positions is not None and self.positions <= self.limit


#: Largest upper bound of positions the layered solver is allowed by default: 30 million, about two
#: minutes and 1.3 GB (4x4 k=4 has a bound of 10.2 million and 9.7 million positions: 40 s, 427 MB).
MAX_LAYERED_POSITIONS = 30_000_000
#: Largest upper bound for the memoised search: 5 million, about a minute and 2 GB (a dict entry per
#: position; Dots and Boxes 2x3 has a bound of 387,194 and 211,397 positions: 3.7 s, 110 MB).
MAX_MEMOISED_POSITIONS = 5_000_000
# Measured costs per position (the solve table of docs/agents/minimax.md, 2 cores): layered 4 us and ~40 bytes;
# memoised about 12 us and ~350 bytes plus the board's own bytes.
_LAYERED_COST = (4e-6, 40)
_MEMOISED_COST = (12e-6, 350)
_BASE_BYTES = 60 * 2**20  # the interpreter, numpy and the package


def _connectn_position_bound(game: Any) -> int:
    """Boards with legal piece counts: per ``k`` pieces, the cell sets times the ways to colour them.

    ``k`` pieces fill ``C(cells, k)`` cell sets without gravity; with gravity only the column-height
    profiles summing to ``k`` (the coefficient of ``x**k`` in ``(1 + x + ... + x**rows) ** cols``). Player
    0 owns ``ceil(k / 2)`` of them: ``C(k, ceil(k / 2))`` colourings. Play stopping at a win only lowers
    the true count (4x4 k=4: bound 10,165,779, true 9,722,011). Boards of more than 64 cells get the
    base-3 key count ``3**cells`` instead: quick to compute, and either way far over any limit.
    """
    cells = game.num_cells
    if game.gravity and game.cols == 1:
        return cells + 1  # one column: the pieces alternate, one position per height
    if cells > 64:
        return 3**cells
    if game.gravity:
        profiles = [1]
        for _ in range(game.cols):
            grown = [0] * (len(profiles) + game.rows)
            for total, ways in enumerate(profiles):
                for height in range(game.rows + 1):
                    grown[total + height] += ways
            profiles = grown
    else:
        profiles = [math.comb(cells, k) for k in range(cells + 1)]
    return sum(profiles[k] * math.comb(k, (k + 1) // 2) for k in range(cells + 1))


def _dots_position_bound(game: Any) -> int:
    """Bound the states (drawn edges, owners of the completed boxes, player to move) of Dots and Boxes.

    There are at most ``2 * sum over edge sets S of 2**(boxes S completes)``. That sum is ``sum over box
    sets T of 2**(edges - edges bordering T)`` (count the edge sets completing every box of T), exact and
    quick for up to 16 boxes (2x2: bound 10,594, true 5,559). Larger boards get ``2**(edges + boxes + 1)``,
    already far over any limit (they have 40 edges or more).
    """
    boxes, edges = game.num_boxes, game.num_edges
    if boxes > 16:
        return 2 ** (edges + boxes + 1)
    masks = game.geometry.box_masks
    union = [0] * (1 << boxes)  # union[T]: the edges of the boxes in T, built from T without its low bit
    total = 1 << edges
    for subset in range(1, 1 << boxes):
        low = subset & -subset
        union[subset] = union[subset ^ low] | masks[low.bit_length() - 1]
        total += 1 << (edges - union[subset].bit_count())
    return 2 * total


def estimate_solve(game: Any) -> SolveEstimate:
    """Bound the positions, memory and time of ``solve(game)`` from the board's size, in milliseconds.

    ConnectN boards (tic-tac-toe included) and Dots and Boxes get an upper bound on the positions (see
    the helpers' docstrings); other games an unknown one (``positions`` None, not :attr:`feasible`).

    Args:
        game: the rules object :func:`solve` would get.

    Returns:
        A :class:`SolveEstimate`; ``feasible`` says whether the bound is within the method's default limit.
    """
    if _is_small_connectn(game):
        method, limit, (seconds, size) = "layered", MAX_LAYERED_POSITIONS, _LAYERED_COST
    else:
        method, limit, (seconds, size) = "memoised", MAX_MEMOISED_POSITIONS, _MEMOISED_COST
        size += getattr(game, "num_cells", 0) + getattr(game, "num_edges", 0) + getattr(game, "num_boxes", 0)
    bound = {"connect": _connectn_position_bound, "dots": _dots_position_bound}.get(family_of(game))
    if bound is None:
        return SolveEstimate(method, None, None, None, limit)
    positions = bound(game)
    try:
        duration = float(positions) * seconds
    except OverflowError:  # a bound past 1e308 (a 64x64 board): no float holds it
        duration = math.inf
    return SolveEstimate(method, positions, _BASE_BYTES + positions * size, duration, limit)


def position_values(game: Any) -> dict[int, int]:
    """Return ``{game.key(state): value}`` for every reachable position.

    The value is the game-theoretic result (+1, 0, -1) for the player to move in that position. Meant
    for small games (tic-tac-toe: 5478 entries), e.g. to check a learned policy's moves.
    """
    if _is_small_connectn(game):
        keys, values = _solve_connectn_layers(game)
        return dict(zip(np.concatenate(keys).tolist(), np.concatenate(values).tolist(), strict=True))
    return {game.key(state): int(value) for state, value in _solve_generic(game).items()}


def score_moves(game: Any, state: Any, max_nodes: int | None = None) -> dict[int, int]:
    """Return the exact score of every legal move of a Connect Four (or smaller gravity, four in a row) position.

    ``{column: score}``, for the player to move, in Pascal Pons' convention: a win with your next stone scores
    ``(cells + 1 - ply) // 2``, one less per further stone it needs; 0 a draw; a loss the negative of the
    opponent's win. The search is :mod:`agents.search.connect_four`'s (compiled with the ``solver`` extra).

    Raises:
        ValueError: if the solver cannot play ``game``, naming the boards it plays, ``state`` is no position of it
            (naming the problem), or the game is over.
        agents.search.connect_four.SearchBudgetExceeded: if ``max_nodes`` positions were searched first.
    """
    from agents.search.connect_four import score_moves as exact_scores

    return exact_scores(game, state, max_nodes)
