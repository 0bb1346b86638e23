"""Dots and Boxes agents: four bots, the exact layered solver and the layered online value learner.

These reproduce a student study of Dots and Boxes on 3x3 boxes (4x4 dots, 24 edges). Edge numbering is
that of :mod:`gym_boardgames.rules.dots`; a position is keyed by its drawn-edge bitmask
(:meth:`DotsAndBoxes.edge_key <gym_boardgames.rules.dots.DotsAndBoxes.edge_key>`, bit ``e`` = edge ``e``).
One idea a module:

* :mod:`agents.dots.value`: the value function ``V`` (boxes still to take) and the move value ``f(s, a)``.
* :mod:`agents.dots.layer_table`: :func:`solve_layers`, the exact ``V`` by retrograde analysis, and the
  :class:`LayerTable` it fills (saved as ``.npz``).
* :mod:`agents.dots.layered_value`: :class:`LayeredValueAgent`, the study's online learner of ``V``.
* :mod:`agents.dots.bots`: :class:`RandomBot`, :class:`FirstAvailableBot`, :class:`Always4Never3Bot`,
  :class:`EndgameBot` and their names.
* :mod:`agents.dots.study`: the study's experiments as tasks, which ``scripts/train_dots_boxes_q.py`` runs.
"""

from agents.dots.bots import (
    BOT_NAMES,
    Always4Never3Bot,
    EndgameBot,
    FirstAvailableBot,
    RandomBot,
    first_available_order,
)
from agents.dots.layer_table import MAX_SOLVE_EDGES, LayerTable, solve_layers
from agents.dots.layered_value import LayeredValueAgent

__all__ = [
    "BOT_NAMES",
    "MAX_SOLVE_EDGES",
    "Always4Never3Bot",
    "EndgameBot",
    "FirstAvailableBot",
    "LayerTable",
    "LayeredValueAgent",
    "RandomBot",
    "first_available_order",
    "solve_layers",
]
