"""The tic-tac-toe agents' first move, timed: ours (alpha-beta, MCTS) beside OpenSpiel's Python algorithms.

scripts/bench.py's docstring names the pairs; building an agent is never timed, only its move from the
empty board.
"""

from __future__ import annotations

import statistics
from collections.abc import Callable
from typing import Any

import numpy as np


def agent_moves(compare: bool) -> dict[str, Callable[[int], Callable[[], Any]]]:
    """Return the agent workloads, ours and with ``compare`` OpenSpiel's: repeat index -> the move to time.

    Building the agent (and OpenSpiel's state) is not timed; only the move from the empty board is.
    """
    from agents.search.mcts import MCTSAgent
    from agents.search.minimax import alphabeta
    from gym_boardgames.rules import TicTacToe

    game = TicTacToe()

    def ours_mcts(i: int) -> Callable[[], Any]:
        agent = MCTSAgent(n_simulations=1000, seed=i)
        return lambda: agent.act(game, game.initial_state())

    moves = {"alphabeta": lambda i: lambda: alphabeta(game, game.initial_state(), seed=i), "mcts_1000": ours_mcts}
    if compare:
        import pyspiel
        from open_spiel.python.algorithms import mcts, minimax

        spiel_game = pyspiel.load_game("tic_tac_toe")

        def spiel_mcts(i: int) -> Callable[[], Any]:
            rng = np.random.RandomState(i)
            bot = mcts.MCTSBot(spiel_game, 2, 1000, mcts.RandomRolloutEvaluator(1, rng), random_state=rng)
            state = spiel_game.new_initial_state()
            return lambda: bot.step(state)

        moves["openspiel_alphabeta"] = lambda i: lambda: minimax.alpha_beta_search(spiel_game)
        moves["openspiel_mcts_1000"] = spiel_mcts
    return moves


def time_agents(compare: bool, repeats: int) -> dict[str, float]:
    """Return the median milliseconds of each agent's move, timed in turn (after a warm-up: imports, caches).

    Args:
        compare: also time OpenSpiel's agents (see :func:`agent_moves`).
        repeats: timed moves per agent (5 if fewer); the median is returned.
    """
    from plumbing.cli import timed

    moves = agent_moves(compare)
    runs: dict[str, list[float]] = {name: [] for name in moves}
    for i in [0, *range(max(repeats, 5))]:
        for name, prepare in moves.items():
            runs[name].append(timed(prepare(i))[1])  # prepare (build the agent) untimed, then the move, timed
    return {name: statistics.median(values[1:]) * 1000 for name, values in runs.items()}
