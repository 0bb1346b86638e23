"""The algorithms that search a game.

In this room: alpha-beta (``minimax``), Monte Carlo tree search (``mcts``) on the shared search
core (``tree``, ``node``, ``evaluators``, ``gumbel``), exact solving of small games (``solver``) and the exact
Connect Four solver with its opening book (``connect_four``, ``opening_book``).
"""

__all__: list[str] = []
