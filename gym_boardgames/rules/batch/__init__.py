"""Batched rules: ``N`` games of one configuration in numpy arrays, all advanced by one call.

These are the rules of :mod:`gym_boardgames.rules.connect` and :mod:`gym_boardgames.rules.dots` with a
batch axis, for :mod:`gym_boardgames.vector`. They read the same geometry the scalar rules read
(:func:`~gym_boardgames.rules.connect.board_geometry` win lines, :func:`~gym_boardgames.rules.dots.dots_geometry`
edge/box maps) and use the same action numbering; ``tests/rules/test_batch.py`` replays random games
through both and compares every position.

Unlike the scalar rules' immutable states, a batch is mutated in place: a new set of arrays per move
would cost more than the move. :meth:`ConnectNBatch.state` and :meth:`DotsAndBoxesBatch.state` give the
immutable scalar state of one game, so search agents and value tables see the usual values.

Conventions shared by both classes:

* ``indices`` arguments select games: an integer index array, or ``None`` for all of them.
* ``play(actions, moving)`` takes one action per game (in range, and legal in the games that move) and a
  boolean ``moving`` mask of the games that move. Games outside ``moving`` are left exactly as they were,
  whatever their action. ``moving=None`` moves every game, which is cheaper: a finished game given an
  illegal action that way is garbage until :meth:`reset`, and no other game is touched (the vector envs
  use this for the games they restart anyway).
* Every array returned is new, never a view of the batch's state.

One module per family (:mod:`.connect`, :mod:`.dots`) on what they share (:mod:`.base`); the names are
re-exported here.
"""

from gym_boardgames.rules.batch.base import MAX_BATCH_BYTES, random_legal_actions
from gym_boardgames.rules.batch.connect import ConnectNBatch, connect_tables
from gym_boardgames.rules.batch.dots import DotsAndBoxesBatch, dots_tables

__all__ = [
    "MAX_BATCH_BYTES",
    "ConnectNBatch",
    "DotsAndBoxesBatch",
    "connect_tables",
    "dots_tables",
    "random_legal_actions",
]
