"""Classic RL and search agents for gym-boardgames.

Agents see only the rules surface of :mod:`gym_boardgames.rules` (or a tabular model ``P``), never
env internals, so any of them can be passed to an env as its ``opponent``. The algorithms arrive one
module each: ``agents.minimax``, ``agents.mcts``, ``agents.td``, ``agents.dp``, ``agents.mc`` and
``agents.dots``.
"""

__all__: list[str] = []
