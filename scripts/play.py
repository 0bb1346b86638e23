"""Play a board game against an agent with the mouse, in a pygame window.

Examples:
  python scripts/play.py tictactoe --opponent alphabeta
  python scripts/play.py connectfour --opponent alphazero
  python scripts/play.py connectfour --opponent mcts:2000 --you second
  python scripts/play.py connectn --rows 9 --cols 9 --n 5 --no-gravity --opponent alphabeta:2
  python scripts/play.py dots --rows 3 --cols 3 --opponent exact

The window is :mod:`gym_boardgames.play`; this script hands it the agents (``agents.factory.make_agent``)
and the hints of the H key (:func:`hint_labels`), since the env package never imports ``agents``.
"""

from __future__ import annotations

from typing import Any

from agents.factory import AGENT_NAMES, DOTS_AGENT_NAMES, make_agent
from gym_boardgames.play import main as play_main
from gym_boardgames.rules.common import value_for
from gym_boardgames.rules.dots import DotsAndBoxes

# What --help lists for --opponent: every name agents.factory.make_agent takes.
OPPONENTS = f"{', '.join(AGENT_NAMES)}; for dots also {', '.join(DOTS_AGENT_NAMES)}"

# Solved Dots and Boxes tables, once per board size.
_DOTS_TABLES: dict[tuple[int, int], Any] = {}


def hint_labels(game: Any, state: Any, player: int) -> dict[int, str]:
    """Return, for each legal move of ``player`` in ``state``, ``"win"``, ``"draw"``, ``"loss"`` or ``"?"``.

    Dots and Boxes up to 26 edges (3x3 boxes included) uses the exact solved table of ``agents.dots``.
    Other small games (at most 16 cells, or 12 edges) are searched to the end, so the labels are the
    game-theoretic results. Larger ones are searched a few plies deep: a forced win or loss within that
    horizon is labelled, anything else is ``"?"``.
    """
    from agents.minimax import alphabeta

    if isinstance(game, DotsAndBoxes) and game.num_edges <= 26:
        return _dots_hint_labels(game, state, player)

    size = getattr(game, "num_cells", None) or getattr(game, "num_edges", 0) + 4
    depth = None if size <= 16 else 4
    table: dict = {}
    labels = {}
    for action in game.legal_actions(state):
        child = game.apply(state, action)
        if game.is_terminal(child):
            value = game.returns(child)[player]
        else:
            child_value = alphabeta(game, child, depth=depth, seed=0, table=table if depth is None else None)[0]
            value = value_for(player, child_value, game.current_player(child))
        if value >= 1:
            labels[action] = "win"
        elif value <= -1:
            labels[action] = "loss"
        else:
            labels[action] = "draw" if depth is None else "?"
    return labels


def _dots_hint_labels(game: DotsAndBoxes, state: Any, player: int) -> dict[int, str]:
    """Exact hints for Dots and Boxes from the solved layer table (solved once per board size)."""
    from agents.dots import solve_layers

    table = _DOTS_TABLES.get((game.rows, game.cols))
    if table is None:
        table = _DOTS_TABLES[game.rows, game.cols] = solve_layers(DotsAndBoxes(game.rows, game.cols))
    scores = game.scores(state)
    lead, left = scores[player] - scores[1 - player], game.boxes_left(state)
    names = {1.0: "win", 0.0: "draw", -1.0: "loss"}
    # Playing `action` the mover ends with `boxes` of the boxes left, the other player with the rest.
    return {
        action: names[game.payoff_of_margin(lead + boxes - (left - boxes), player)]
        for action, boxes in table.move_values(state).items()
    }


def main(argv: list[str] | None = None) -> None:
    """Open the window with the agent named by ``--opponent`` and this script's hints."""
    play_main(argv, make_agent=make_agent, hints=hint_labels, opponents=OPPONENTS)


if __name__ == "__main__":
    main()
