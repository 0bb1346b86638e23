"""Classic RL and search agents for gym-boardgames.

Agents see only the rules surface of :mod:`gym_boardgames.rules` (or a tabular model ``P``), never
env internals, so any of them can be passed to an env as its ``opponent``. The algorithms arrive one
module each: ``agents.minimax``, ``agents.solver``, ``agents.mcts``, ``agents.td``, ``agents.dp``, ``agents.mc`` and
``agents.dots``. ``agents.factory`` builds them by name for every surface (the envs' ``opponent="..."`` loads it
on first use, by the string ``gym_boardgames.opponents.FACTORY``, so ``gym_boardgames`` never imports ``agents``).
"""

__all__: list[str] = []
