"""The hints of every play door: what each legal move leads to, for the player to move.

:func:`hint_labels` is the hint provider ``(game, state, player) -> {action: label}`` that
:func:`gym_boardgames.play` hands the session of every door (window, page, notebook, terminal) by default. It
returns a :class:`HintLabels`, which also says how the labels were found (``source``): :data:`EXACT` or
:data:`SEARCH_ESTIMATE`. The doors show it beside the labels.

Exact labels on Connect Four
----------------------------
On Connect Four, and on every board :func:`agents.search.connect_four.check_solvable` accepts, each column is
labelled with its exact outcome under best play on both sides (the winner wins as fast as it can, the loser
holds out as long as it can), counted in the mover's own moves, this one included (:func:`exact_label`):

* ``"win in N"``: the mover's N-th stone from now (this move's is the first) completes four, whatever the
  opponent does; ``"win in 1"`` is a win with this very stone.
* ``"loss in N"``: the opponent's N-th stone from now completes four, however the mover defends; the mover
  makes N moves first, this one included. ``"loss in 1"``: the opponent wins with its very next stone.
* ``"draw"``: the board fills up.

With ``ply`` stones on a board of ``cells`` cells, the solver's score ``s`` of a column (Pons' convention: a
win with the next stone scores ``(cells + 1 - ply) // 2``, one less for each further stone of the winner's;
a loss is minus the opponent's win score, counted from the position after the move) gives

* ``s > 0``: ``N = (cells + 1 - ply) // 2 - s + 1``;
* ``s < 0``: ``N = (cells - ply) // 2 + s + 1``.

On the empty 6x7 board: column 3 is ``"win in 21"`` (the 41st stone of the game), columns 2 and 4 ``"draw"``,
1 and 5 ``"loss in 21"`` (the 42nd stone), 0 and 6 ``"loss in 20"`` (the 40th).

The search is bounded by :func:`hint_node_budget` positions, about two seconds. A position it cannot solve in
that budget (rare: the hardest ones, 12 to 17 stones, take about a second here) gets the searched labels of
the other boards instead, with the source ``"search estimate"`` (and, against a network opponent, the network's
priors: :class:`~gym_boardgames.human.session.PlaySession` then names the source ``"network estimate"``).

Other games
-----------
Dots and Boxes up to 26 edges (3x3 boxes included) reads the exact solved table
(:func:`agents.dots.layer_table.solved_table`: the shipped one on 3x3). Other small games (at most 16 cells,
or 12 edges) are searched to the end, so the labels are the game-theoretic results ``"win"``, ``"draw"`` and
``"loss"`` (source ``"exact"``). Larger ones are searched :data:`SHALLOW_DEPTH` plies deep: a forced win or loss
within that horizon is labelled, anything else is ``"?"`` (source ``"search estimate"``).

The budget
----------
A search is stopped after :data:`HINT_SECONDS` (2 s) by the clock (:func:`gym_boardgames.cancel.time_limit`),
and the moves it did not reach are ``"?"``. Larger boards are searched one ply deeper at a time, so a cut
search still labels every move it can at a shallower depth. On the solver's boards the solver has the budget
first; if it does not finish, the searched estimate (milliseconds there) has a budget of its own. The one
thing the clock cannot cut is numba's compile of the solver the first time it runs after an install (2.1 s for
the whole first answer here, with an empty ``NUMBA_CACHE_DIR``): a first answer can come late, and as an
estimate if the compile outlasts the budget.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from agents.factory import solver_plays
from agents.search.minimax import alphabeta
from gym_boardgames.cancel import Cancelled, check_cancelled, time_limit
from gym_boardgames.checks import check_int
from gym_boardgames.rules.common import value_for
from gym_boardgames.rules.dots import DotsAndBoxes
from gym_boardgames.rules.registry import family_of

#: How a hint provider found its labels (:attr:`HintLabels.source`): every label the game-theoretic result...
EXACT = "exact"
#: ...or a depth-limited search's, ``"?"`` beyond its horizon.
SEARCH_ESTIMATE = "search estimate"


class HintLabels(dict[int, str]):
    """A hint provider's ``{legal action: label}``, and how the labels were found (:attr:`source`).

    A plain ``dict`` in every other respect, so a provider that returns a plain one still works (its source
    is then unknown, ``""``, and the doors name none).

    Args:
        labels: ``{legal action: label}``.
        source: :data:`EXACT` or :data:`SEARCH_ESTIMATE`.
    """

    def __init__(self, labels: Mapping[int, str], source: str) -> None:
        super().__init__(labels)
        self.source = source


#: A hint provider: ``(game, state, player) -> {legal action: label}`` for the mover's result after each
#: action: ``"win"``, ``"draw"``, ``"loss"`` or ``"?"`` (unknown), which may be followed by more words
#: (``"win in 3"``; the first word picks the colour). Returning :class:`HintLabels` also says how they were found.
HintProvider = Callable[[Any, Any, int], Mapping[int, str]]

#: Boards up to this many cells (or edges + 4) are searched to the end; larger ones :data:`SHALLOW_DEPTH` plies.
EXACT_SEARCH_SIZE = 16
SHALLOW_DEPTH = 4
#: The hints' time budget in seconds, in every front end: what is not found by then is ``"?"``.
HINT_SECONDS = 2.0
#: The exact Connect Four hints' node budget, compiled (numba): about 2 s at the 2.0-3.3 million positions a
#: second measured on a quiet 2-core machine (a fresh transposition table, positions of 12 to 17 stones).
SOLVER_HINT_NODES = 5_000_000
#: The same budget without numba, where the solver searches about 33,000 positions a second.
SOLVER_HINT_NODES_PURE_PYTHON = 60_000
_LABELS = {1.0: "win", 0.0: "draw", -1.0: "loss"}


def hint_labels(
    game: Any, state: Any, player: int, *, max_nodes: int | None = None, seconds: float = HINT_SECONDS
) -> HintLabels:
    """Return the label of each legal move of ``player`` in ``state``, and how the labels were found.

    Connect Four and the boards the exact solver plays get ``"win in N"``, ``"draw"`` or ``"loss in N"``
    (see the module for N) when the solver finishes within ``max_nodes`` positions; other games, and a
    position the solver does not finish, get ``"win"``, ``"draw"``, ``"loss"`` or ``"?"`` (see the module).
    Everything stops after ``seconds``: the moves not searched by then are ``"?"``.

    Args:
        game: the rules object.
        state: a position that is not over.
        player: the player to move in ``state``: the labels are that player's results.
        max_nodes: the solver's budget of positions (default :func:`hint_node_budget`).
        seconds: the time budget of the whole answer (default :data:`HINT_SECONDS`).

    Returns:
        ``{action: label}`` with ``source`` ``"exact"`` (every label is the game-theoretic result) or
        ``"search estimate"`` (a depth-limited or cut search; ``"?"`` where it found no forced result).

    Raises:
        ValueError: if ``max_nodes`` is below 1, ``seconds`` is not positive, or the solver is asked for
            another player than the mover.
        gym_boardgames.cancel.Cancelled: if the caller's search was cancelled (the position was left).
    """
    if max_nodes is not None:
        check_int("max_nodes", max_nodes, 1)
    if not (isinstance(seconds, (int, float)) and seconds > 0):
        raise ValueError(f"seconds must be a positive number, got {seconds!r:.60}")
    if family_of(game) == "dots" and game.num_edges <= 26:
        return HintLabels(_dots_hint_labels(game, state, player), EXACT)
    if solver_plays(game):
        from agents.search.connect_four import SearchBudgetExceeded, shared_solver

        # Made once a process (its 67 MB table, the book), outside the budget, which is the search's.
        shared_solver(game)
        try:
            with time_limit(seconds):
                return HintLabels(exact_connect_labels(game, state, player, max_nodes), EXACT)
        except (SearchBudgetExceeded, Cancelled):
            check_cancelled()  # cut by the caller, not by the clock or the budget: nobody wants these labels
            # Too hard for the budget: the searched labels below (milliseconds on these boards), as an estimate.
    with time_limit(seconds):
        labels = _searched_labels(game, state, player)
    check_cancelled()  # cut by the caller, not by the clock: nobody wants these labels
    return labels


def _searched_labels(game: Any, state: Any, player: int) -> HintLabels:
    """The searched labels of :func:`hint_labels`, found until this thread's signal (the time limit) stops them."""
    size = getattr(game, "num_cells", None) or getattr(game, "num_edges", 0) + 4
    # Small games are searched to the end; larger ones one ply deeper at a time up to SHALLOW_DEPTH, so that a
    # search cut by the clock still has every move's shallower answer (a win on the next move at least).
    depths: list[int | None] = [None] if size <= EXACT_SEARCH_SIZE else list(range(1, SHALLOW_DEPTH + 1))
    actions = game.legal_actions(state)
    labels = dict.fromkeys(actions, "?")
    table: dict = {}
    finished = False
    try:
        for depth in depths:
            for action in actions:
                child = game.apply(state, action)
                if game.is_terminal(child):
                    value = game.returns(child)[player]
                else:
                    search_table = table if depth is None else None
                    child_value = alphabeta(game, child, depth=depth, seed=0, table=search_table)[0]
                    value = value_for(player, child_value, game.current_player(child))
                labels[action] = "win" if value >= 1 else "loss" if value <= -1 else "draw" if depth is None else "?"
        finished = True
    except Cancelled:
        pass  # out of time: the labels found so far, the rest "?"
    return HintLabels(labels, EXACT if finished and depths == [None] else SEARCH_ESTIMATE)


def hint_node_budget() -> int:
    """Return the default node budget of the exact hints: about two seconds, compiled or not (see the constants)."""
    from agents.search.connect_four import COMPILED

    return SOLVER_HINT_NODES if COMPILED else SOLVER_HINT_NODES_PURE_PYTHON


def exact_label(score: int, cells: int, ply: int) -> str:
    """Return the label of a move's exact solver score (see the module): ``"win in N"``, ``"draw"`` or ``"loss in N"``.

    Args:
        score: the move's score for the mover, in Pons' convention (:mod:`agents.search.connect_four`).
        cells: the board's cells.
        ply: the stones on the board before the move.
    """
    if score > 0:
        return f"win in {(cells + 1 - ply) // 2 - score + 1}"
    if score < 0:
        return f"loss in {(cells - ply) // 2 + score + 1}"
    return "draw"


def exact_connect_labels(game: Any, state: Any, player: int, max_nodes: int | None = None) -> dict[int, str]:
    """Return ``{column: exact label}`` for the mover of a position on a board the solver plays.

    Raises:
        ValueError: if ``player`` is not the mover, or the solver does not play ``game``.
        agents.search.connect_four.SearchBudgetExceeded: if ``max_nodes`` (default :func:`hint_node_budget`)
            positions were searched before every column was solved.
    """
    from agents.search.connect_four import score_moves

    if player != game.current_player(state):
        raise ValueError(f"the exact hints are the mover's: player {player} is not to move")
    scores = score_moves(game, state, hint_node_budget() if max_nodes is None else max_nodes)
    ply = sum(1 for cell in state.board if cell)
    return {column: exact_label(score, game.rows * game.cols, ply) for column, score in scores.items()}


def _dots_hint_labels(game: DotsAndBoxes, state: Any, player: int) -> dict[int, str]:
    """Exact hints for Dots and Boxes from the solved table."""
    from agents.dots.layer_table import solved_table

    table = solved_table(game.rows, game.cols)
    scores = game.scores(state)
    lead, left = scores[player] - scores[1 - player], game.boxes_left(state)
    # Playing `action` the mover ends with `boxes` of the boxes left, the other player with the rest.
    return {
        action: _LABELS[game.payoff_of_margin(lead + boxes - (left - boxes), player)]
        for action, boxes in table.move_values(state).items()
    }
