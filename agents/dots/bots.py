"""The study's four bots (each ``act(game, state) -> int``, seeded) and their names.

* :class:`RandomBot`: a uniformly random free edge.
* :class:`FirstAvailableBot`: the first free edge in the order of :func:`first_available_order`: by the
  distance of the edge's midpoint from dot ``(0, 0)`` (the top-left dot), ties by edge number.
* :class:`Always4Never3Bot`: completes a box whenever it can; otherwise avoids drawing the third edge of
  any box (which would offer it to the opponent); otherwise plays at random. Random among equals.
* :class:`EndgameBot`: ``EndgameBot(k)`` (the study's bot2(k)) plays optimally, from the exact ``V`` of
  :func:`~agents.dots.layer_table.solve_layers`, once ``k`` or fewer edges are left, and like
  :class:`Always4Never3Bot` before. ``EndgameBot(24)`` on 3x3 boxes is the exact agent.

:func:`make_bot` builds one by name (``random``, ``first_available``, ``always4never3``, ``endgame:K``);
:func:`agents.factory.make_agent` is the public way to build any agent by name.
"""

from __future__ import annotations

import functools
from typing import Any

from agents._rng import Seeded, SeedLike
from agents.dots.layer_table import LayerTable, solved_table
from agents.dots.value import check_dots, playable_key
from agents.random_agent import RandomAgent
from gym_boardgames.checks import check_int
from gym_boardgames.rules.dots import DotsAndBoxes, DotsState

#: Bot names (also accepted by :func:`agents.factory.make_agent`).
BOT_NAMES = ("random", "first_available", "always4never3", "endgame:K")


class RandomBot(RandomAgent):
    """The study's ``random_move``: a uniformly random free edge.

    Args:
        seed: an int, a ``numpy.random.Generator`` or None.
    """


def first_available_order(game: DotsAndBoxes) -> list[int]:
    """Return every edge in :class:`FirstAvailableBot`'s fixed order.

    Edges are sorted by the distance of their midpoint from dot ``(0, 0)`` (the top-left dot), ties by
    edge number. On 3x3 boxes the order starts 0 (top edge of box 0), 12 (its left edge), 3, 13, 1, 16.

    Raises:
        ValueError: if ``game`` is not a Dots and Boxes game.
    """
    check_dots(game)

    def squared_distance_times_4(edge: int) -> int:
        (r0, c0), (r1, c1) = game.edge_endpoints(edge)
        return (r0 + r1) ** 2 + (c0 + c1) ** 2  # (2 * midpoint)^2, kept in integers

    return sorted(range(game.num_edges), key=lambda e: (squared_distance_times_4(e), e))


@functools.cache
def _board_order(rows: int, cols: int) -> list[int]:
    """:func:`first_available_order` of a board, computed once per board size (the bots only read it)."""
    return first_available_order(DotsAndBoxes(rows, cols))


class FirstAvailableBot(Seeded):
    """The study's ``first_available_move``: the first free edge of :func:`first_available_order`.

    It is deterministic; ``seed`` is accepted so that every bot is built (and reseeded) the same way, and its
    generator is never drawn from.

    Args:
        seed: ignored (an int, a ``numpy.random.Generator`` or None).
    """

    def act(self, game: DotsAndBoxes, state: DotsState) -> int:
        """Return the first free edge in the fixed order.

        Raises:
            ValueError: at the end of the game, or if ``game`` is not Dots and Boxes.
        """
        key = playable_key(game, state)
        return next(edge for edge in _board_order(game.rows, game.cols) if not key >> edge & 1)


class Always4Never3Bot(Seeded):
    """The study's ``always4never3``: always takes a box, never draws a box's third edge if it can help it.

    Completes a box whenever it can; otherwise draws an edge that leaves no box with three edges
    (which the opponent could take); otherwise a random edge. Each choice is uniform among its
    candidates.

    Args:
        seed: an int, a ``numpy.random.Generator`` or None.
    """

    def act(self, game: DotsAndBoxes, state: DotsState) -> int:
        """Return one of the bot's candidate moves (as the class docstring says), uniformly at random.

        Raises:
            ValueError: at the end of the game, or if ``game`` is not Dots and Boxes.
        """
        moves = self._moves(game, playable_key(game, state))
        return moves[self.rng.integers(len(moves))] if len(moves) > 1 else moves[0]

    def _moves(self, game: DotsAndBoxes, key: int) -> list[int]:
        """The candidates, in a position with a move left: box-completing edges, else safe edges, else all."""
        moves = game.edge_key_successors(key)
        if completing := [e for e, _, reward in moves if reward]:
            return completing
        # An edge is unsafe when a box it borders already has two edges: drawing it makes a three-sided box.
        free = [e for e, _, _ in moves]
        safe = [e for e in free if 2 not in game.box_sides(key, e)]
        return safe or free


class EndgameBot(Always4Never3Bot):
    """The study's bot2(k): optimal for the last ``k`` moves, Always4Never3 before.

    Once ``k`` or fewer edges are left it plays a move that maximises ``f(s, a)`` under the exact ``V``
    (uniformly among the best); with more edges left it plays as :class:`Always4Never3Bot`. With ``k``
    at least the number of edges it is the exact agent.

    Args:
        k: how many of the last moves are played exactly (>= 0).
        table: a :class:`LayerTable` of the same board with ``last_k >= min(k, edges)``; when None the
            bot takes :func:`~agents.dots.layer_table.solved_table`'s on its first move (the shipped table of
            3x3 boxes, read in about 0.06 s; other boards solved once per process).
        seed: an int, a ``numpy.random.Generator`` or None.

    Raises:
        ValueError: on a negative or non-integer ``k``.
    """

    def __init__(self, k: int = 10, table: LayerTable | None = None, seed: SeedLike = None) -> None:
        self.k, self.table = check_int("k", k, 0), table
        super().__init__(seed)

    def _table_for(self, game: DotsAndBoxes) -> LayerTable:
        depth = min(self.k, game.num_edges)
        table = self.table
        if table is None:
            table = self.table = solved_table(game.rows, game.cols, depth)
        if (table.rows, table.cols) != (game.rows, game.cols) or table.last_k < depth:
            wanted = f"a table of {game.rows}x{game.cols} boxes solved for the last {depth} moves"
            raise ValueError(f"{self!r} needs {wanted}, got {table!r}")
        return table

    def _moves(self, game: DotsAndBoxes, key: int) -> list[int]:
        """The best moves under the exact ``V`` once at most ``k`` edges are left, else Always4Never3's."""
        if 0 < game.num_edges - key.bit_count() <= self.k:
            return self._table_for(game).best_moves(key)
        return super()._moves(game, key)

    def __repr__(self) -> str:
        return f"EndgameBot({self.k})"


def make_bot(spec: str, seed: SeedLike = None, table: LayerTable | None = None) -> Any:
    """Return the bot named ``spec``: ``random``, ``first_available``, ``always4never3`` or ``endgame:K``.

    :func:`agents.factory.make_agent` is the public way to build an agent by name; it calls this for
    the bots.

    Args:
        spec: the bot's name; ``endgame:10`` is the study's bot2(10).
        seed: seeds the bot.
        table: for ``endgame:K``, a solved :class:`LayerTable` to share.

    Raises:
        ValueError: on an unknown name or a bad ``K``.
    """
    kind, _, arg = spec.partition(":")
    plain = {"random": RandomBot, "first_available": FirstAvailableBot, "always4never3": Always4Never3Bot}
    if kind in plain and not arg:
        return plain[kind](seed)
    if kind == "endgame" and arg.isdigit():
        return EndgameBot(int(arg), table=table, seed=seed)
    raise ValueError(f"unknown bot {spec!r}: use one of {', '.join(BOT_NAMES)}")
