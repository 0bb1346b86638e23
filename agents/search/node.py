"""One node of the search tree of :mod:`agents.search.tree`: what the tree records about a state.

A tree is its nodes, each linked to its children. A node's fields are the search's whole memory, read by
the selection rules (UCT, PUCT, and Gumbel's in :mod:`agents.search.gumbel`), written by expansion and backup:

==============  =======================================================================================
field           meaning
==============  =======================================================================================
``state``       the position (a hashable value of the rules)
``player``      the player to move in ``state``
``mover``       the player who moved into this node (a parent compares its children from their side)
``n``           the simulations that went through the node
``w``           the sum of their results for ``mover``
``q``           ``w / n``, the mean result for ``mover`` (0 while ``n`` is 0)
``inv_sqrt_n``  ``1 / sqrt(n)`` (infinite while ``n`` is 0), cached for UCT's exploration term
``proven``      the payoff tuple (one entry per player) of a terminal or solved node, else None
``terminal``    whether the state ends the game (proven from the start)
``actions``     the legal moves, listed the first time a simulation passes through (None before); in
                UCT the first ``n_expanded`` are the tried moves, in PUCT their order is shuffled
``children``    the child node of each move in ``actions``, None for a move not tried yet
``n_expanded``  how many children exist (UCT tries every move once, in order, before any twice)
``priors``      PUCT: the evaluator's probabilities aligned with ``actions`` (None before evaluation)
``v``           the evaluator's value of the state for ``player`` (Gumbel's completed Q reads it)
==============  =======================================================================================
"""

from __future__ import annotations

import math
from typing import Any, NamedTuple


class ChildStats(NamedTuple):
    """Search statistics of one move at the root, from the side of the player to move there.

    Attributes:
        action: the move.
        visits: simulations that went through the move.
        value: their mean result in ``[-1, 1]``.
        proven: the exact game value of the move (+1 win, 0 draw, -1 loss) once the solver has proven it,
            else None.
    """

    action: int
    visits: int
    value: float
    proven: float | None


class Node:
    """One state of the search tree, with the fields of the module docstring.

    Args:
        state: the position.
        player: the player to move in ``state``.
        mover: the player who moved into it.
        proven: the payoffs of a terminal state, else None.
    """

    __slots__ = "state player mover n w q inv_sqrt_n proven terminal actions children n_expanded priors v".split()

    def __init__(self, state: Any, player: int, mover: int, proven: tuple[float, ...] | None) -> None:
        self.state = state
        self.player = player
        self.mover = mover
        self.n = 0
        self.w = 0.0
        self.q = 0.0
        self.inv_sqrt_n = math.inf
        self.proven = proven
        self.terminal = proven is not None
        self.actions: list[int] | None = None
        self.children: list[Node | None] = []
        self.n_expanded = 0
        self.priors: list[float] | None = None
        self.v = 0.0

    def tried(self) -> list[tuple[int, Node]]:
        """Return the moves tried so far, each with its child, in the node's order."""
        return [(a, child) for a, child in zip(self.actions or [], self.children, strict=False) if child is not None]

    def statistics(self) -> list[ChildStats]:
        """Return the statistics of every tried move, from the side of the player to move here, in action order."""
        p = self.player
        return sorted(
            ChildStats(int(a), child.n, child.q, None if child.proven is None else child.proven[p])
            for a, child in self.tried()
        )
