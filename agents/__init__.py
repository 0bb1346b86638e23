"""Classic RL and search agents for gym-boardgames, in rooms a newcomer can find.

Agents see only the rules surface of :mod:`gym_boardgames.rules` (or a tabular model ``P``), never env
internals, so any of them can be an env's ``opponent``. The rooms:

* ``agents.search``: the algorithms that search a game (``agents.search.minimax``, ``agents.search.mcts`` on
  the shared core ``agents.search.tree``, the exact solvers ``agents.search.solver`` and
  ``agents.search.connect_four``);
* ``agents.tabular``: the textbook learners on tables (``agents.tabular.td``, ``agents.tabular.dp``,
  ``agents.tabular.mc``);
* ``agents.alphazero`` and ``agents.dots``: AlphaZero, and the Dots and Boxes bots and learners;
* ``agents.matches``: matches and ratings (``agents.matches.arena``, ``agents.matches.ladder``,
  ``agents.matches.rating``, the grading against perfect play);
* the files and names, here at the top: ``agents.factory`` (the one table of agent names, which builds them for
  every surface; the envs' ``opponent="..."`` imports it on first use by the string
  ``gym_boardgames.opponents.FACTORY``, so ``gym_boardgames`` never imports ``agents``), ``agents.persistence``
  (saved files), ``agents.random_agent`` and ``agents.hints`` (the play surfaces' hints).
"""

__all__: list[str] = []
