"""Batched self-play: random openings start games elsewhere and are not recorded."""

import sys
from pathlib import Path

import numpy as np

from agents.alphazero.config import SelfPlayConfig
from agents.alphazero.encoding import encoder_for
from agents.alphazero.selfplay import play_games
from gym_boardgames.rules import TicTacToe

sys.path.insert(0, str(Path(__file__).parent))  # importlib import mode: put the sibling helper on the path


class _ZeroEvaluator:
    def evaluate(self, game, states):
        from agents.search.evaluators import uniform_priors

        return uniform_priors(game, states), np.zeros(len(states))


def test_random_openings_start_games_elsewhere_and_are_not_recorded():
    config = SelfPlayConfig(simulations=4, parallel_games=8, random_opening_moves=4)
    encoder = encoder_for(TicTacToe())
    samples, summaries = play_games(TicTacToe(), encoder, _ZeroEvaluator(), 16, config, np.random.default_rng(0))
    first_planes = []
    start = 0
    for summary in summaries:
        first_planes.append(samples.planes[start].tobytes())
        start += summary.moves
    # Games of tic-tac-toe start from the empty board without openings; with them, from several positions.
    assert len(set(first_planes)) > 3
    assert min(s.moves for s in summaries) < 5 <= max(s.moves for s in summaries)
