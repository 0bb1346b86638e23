"""The hints of the play window and the browser page: what each legal move leads to, for the player to move.

:func:`hint_labels` is the hint provider ``(game, state, player) -> {action: label}`` that
:class:`gym_boardgames.play_session.PlaySession` takes; ``scripts/play.py`` hands it to both front ends.
"""

from __future__ import annotations

from typing import Any

from agents.minimax import alphabeta
from gym_boardgames.rules.common import value_for
from gym_boardgames.rules.dots import DotsAndBoxes
from gym_boardgames.rules.registry import family_of

#: Boards up to this many cells (or edges + 4) are searched to the end; larger ones :data:`SHALLOW_DEPTH` plies.
EXACT_SEARCH_SIZE = 16
SHALLOW_DEPTH = 4
_LABELS = {1.0: "win", 0.0: "draw", -1.0: "loss"}


def hint_labels(game: Any, state: Any, player: int) -> dict[int, str]:
    """Return, for each legal move of ``player`` in ``state``, ``"win"``, ``"draw"``, ``"loss"`` or ``"?"``.

    Dots and Boxes up to 26 edges (3x3 boxes included) uses the exact solved table
    (:func:`agents.dots.layer_table.solved_table`: the shipped one on 3x3). Other small games (at most 16
    cells, or 12 edges) are searched to the end, so the labels are the game-theoretic results. Larger ones
    are searched a few plies deep: a forced win or loss within that horizon is labelled, anything else is
    ``"?"``.
    """
    if family_of(game) == "dots" and game.num_edges <= 26:
        return _dots_hint_labels(game, state, player)

    size = getattr(game, "num_cells", None) or getattr(game, "num_edges", 0) + 4
    depth = None if size <= EXACT_SEARCH_SIZE else SHALLOW_DEPTH
    table: dict = {}
    labels = {}
    for action in game.legal_actions(state):
        child = game.apply(state, action)
        if game.is_terminal(child):
            value = game.returns(child)[player]
        else:
            child_value = alphabeta(game, child, depth=depth, seed=0, table=table if depth is None else None)[0]
            value = value_for(player, child_value, game.current_player(child))
        labels[action] = "win" if value >= 1 else "loss" if value <= -1 else "draw" if depth is None else "?"
    return labels


def _dots_hint_labels(game: DotsAndBoxes, state: Any, player: int) -> dict[int, str]:
    """Exact hints for Dots and Boxes from the solved layer table."""
    from agents.dots.layer_table import solved_table

    table = solved_table(game.rows, game.cols)
    scores = game.scores(state)
    lead, left = scores[player] - scores[1 - player], game.boxes_left(state)
    # Playing `action` the mover ends with `boxes` of the boxes left, the other player with the rest.
    return {
        action: _LABELS[game.payoff_of_margin(lead + boxes - (left - boxes), player)]
        for action, boxes in table.move_values(state).items()
    }
