"""The value function of the Dots and Boxes study, and the move value every agent here maximises.

``V(s)`` is the number of boxes the player to move can still take from ``s`` to the end when both sides
play to maximise their own boxes. It depends on the drawn edges only: the score so far and the name of
the player to move do not change the best move, so one table serves both sides, keyed by the drawn-edge
bitmask (:meth:`DotsAndBoxes.edge_key <gym_boardgames.rules.dots.DotsAndBoxes.edge_key>`). With ``R(a)``
the boxes edge ``a`` completes (0, 1 or 2), ``s_a`` the position after it and ``pnb(s)`` the boxes not
yet taken::

    f(s, a) = V(s_a) + R(a)       if R(a) > 0   (the mover moves again)
    f(s, a) = pnb(s) - V(s_a)     if R(a) = 0   (the opponent takes V(s_a) of what is left)
    V(s)    = max_a f(s, a),      V(full board) = 0

The margin the player to move can force from ``s`` is ``2 V(s) - pnb(s)``; for the empty board it is the
game's value for the first player. Maximising boxes is also safe for winning: a player that maximises
its boxes keeps at least the margin it could force, so it never loses (or draws) a position it could
win (or draw), whatever the tie rule.

Layer ``m`` holds the positions with ``m`` edges left; ``V`` on layer ``m`` needs only layer ``m - 1``.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from gym_boardgames.rules.dots import DotsAndBoxes
from gym_boardgames.rules.registry import family_of


def move_value(child_value: Any, reward: Any, boxes_left: Any) -> Any:
    """Return ``f(s, a)``: the boxes the mover gets from ``s`` on by drawing edge ``a``.

    Two shapes of one rule: numbers, for the table and the learner (one call per move, in the learner's
    innermost loop), or numpy arrays elementwise, for the solver (a whole layer at once).

    Args:
        child_value: ``V(s_a)``, the value of the position after the move for whoever moves there.
        reward: ``R(a)``, the boxes the move completes.
        boxes_left: ``pnb(s)``, the boxes not yet taken before the move.

    Returns:
        A number, or an array of the arguments' broadcast shape and dtype when ``reward`` is an array.
    """
    if isinstance(reward, np.ndarray):
        return np.where(reward > 0, child_value + reward, boxes_left - child_value)
    return child_value + reward if reward else boxes_left - child_value


def check_dots(game: Any) -> DotsAndBoxes:
    """Return ``game`` if it is Dots and Boxes.

    Raises:
        ValueError: if ``game`` is not a Dots and Boxes game.
    """
    if family_of(game) != "dots":
        raise ValueError(f"these agents play Dots and Boxes (gym_boardgames.rules.DotsAndBoxes), got {game!r}")
    return game


def playable_key(game: Any, state: Any) -> int:
    """Return the drawn-edge bitmask of ``state``, a Dots and Boxes position with a move left to play.

    Raises:
        ValueError: if ``game`` is not Dots and Boxes, or the game is over.
    """
    key = check_dots(game).edge_key(state)
    if key == game.full_key:
        raise ValueError("no legal action: the game is over")
    return key
