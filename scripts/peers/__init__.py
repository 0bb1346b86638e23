"""The workloads behind scripts/bench.py, not a command: the games in each library, the agents, memory, the solver.

- :mod:`peers.workloads`: one random-move driver per library (ours through gymnasium and the vector envs,
  PettingZoo's, OpenSpiel's, pgx's) and the timer of one run;
- :mod:`peers.agents`: the tic-tac-toe agents' first move, ours beside OpenSpiel's;
- :mod:`peers.memory`: the peak memory of a fresh process running a vector env;
- :mod:`peers.solver`: the exact Connect Four solver beside BitBully (``--solver``);
- :mod:`peers.report`: the summary's results per game and the printed tables.

Nothing of gym_boardgames is imported at the top of any module: the memory probe imports this package in a
process that measures what a library's imports cost.
"""
