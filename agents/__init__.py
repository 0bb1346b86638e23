"""Classic RL and search agents for gym-boardgames.

Agents see only the rules surface of :mod:`gym_boardgames.rules` (or a tabular model ``P``), never
env internals, so any of them can be passed to an env as its ``opponent``. The algorithms arrive one
module each: ``agents.minimax``, ``agents.solver``, ``agents.mcts``, ``agents.td``, ``agents.dp``, ``agents.mc`` and
``agents.dots``. ``agents.provider`` builds them by name for the envs' ``opponent="..."``: it is the entry point
``pyproject.toml`` registers in the group ``gym_boardgames.opponents``, so ``gym_boardgames`` never imports ``agents``.
"""

__all__: list[str] = []
