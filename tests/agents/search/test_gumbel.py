"""Gumbel AlphaZero: the halving schedule, completed Q, the improved policy and Gumbel trees in self-play."""

import math
from types import SimpleNamespace

import numpy as np
import pytest

from agents._rng import uniform_stream
from agents.alphazero.config import SelfPlayConfig
from agents.alphazero.encoding import encoder_for
from agents.alphazero.selfplay import play_games
from agents.search import gumbel
from agents.search.evaluators import uniform_priors
from agents.search.tree import SearchTree, expand_roots, search_batch
from gym_boardgames.rules import ConnectN, TicTacToe

TTT = TicTacToe()


class ZeroEvaluator:
    def evaluate(self, game, states):
        return uniform_priors(game, states), np.zeros(len(states))


class SkewedEvaluator:
    """Priors favouring low action numbers, value 0: makes the Gumbel-top-k and halving order checkable."""

    def evaluate(self, game, states):
        priors = np.zeros((len(states), game.num_actions))
        for row, state in zip(priors, states, strict=True):
            legal = list(game.legal_actions(state))
            row[legal] = np.exp(-0.5 * np.arange(len(legal)))
            row /= row.sum()
        return priors, np.zeros(len(states))


def test_halving_schedule_spends_the_budget_in_halving_rounds():
    # 4 moves, 8 simulations: 2 phases; one round of 4 at 0 visits, then 2 survivors for 2 rounds.
    assert gumbel.halving_schedule(4, 8) == [0, 0, 0, 0, 1, 1, 2, 2]
    assert gumbel.halving_schedule(1, 5) == [0, 1, 2, 3, 4]
    for k in (2, 3, 7, 9, 16):
        for n in (1, 5, 16, 50, 200):
            schedule = gumbel.halving_schedule(k, n)
            assert len(schedule) == n
            assert schedule[: min(k, n)] == [0] * min(k, n)  # every considered move first gets one visit
            assert schedule == sorted(schedule)


def _node(priors, children, v=0.0, player=0):
    return SimpleNamespace(priors=priors, children=children, v=v, player=player)


def _child(n, q, proven=None):
    return SimpleNamespace(n=n, q=q, proven=proven)


def test_completed_q_fills_unvisited_moves_with_the_mixed_value():
    node = _node([0.5, 0.3, 0.2], [_child(3, 0.6), None, _child(1, -0.2)], v=0.1)
    # (v + sum N * sum_visited pi q / sum_visited pi) / (1 + sum N)
    weighted = (0.5 * 0.6 + 0.2 * -0.2) / 0.7
    mixed = (0.1 + 4 * weighted) / 5
    assert gumbel.completed_q(node) == pytest.approx([0.6, mixed, -0.2])
    fresh = _node([0.5, 0.5], [None, None], v=-0.3)
    assert gumbel.completed_q(fresh) == [-0.3, -0.3]


def test_sigma_rescales_to_the_visit_scale():
    node = _node([0.5, 0.5], [_child(10, 1.0), _child(2, -1.0)])
    assert gumbel.sigma(node, [1.0, -1.0]) == pytest.approx([(gumbel.C_VISIT + 10) * gumbel.C_SCALE, 0.0])
    assert gumbel.sigma(node, [0.2, 0.2]) == [0.0, 0.0]


def test_improved_policy_moves_mass_to_the_better_move_and_drops_proven_losses():
    node = _node([0.5, 0.5], [_child(5, 0.8), _child(5, -0.4)])
    policy = gumbel.improved_policy(node)
    assert sum(policy) == pytest.approx(1.0)
    assert policy[0] > 0.9
    lost = _node([0.9, 0.1], [_child(5, -1.0, proven=(-1.0, 1.0)), _child(1, 0.0)])
    assert gumbel.improved_policy(lost) == [0.0, 1.0]
    assert gumbel.select_child(lost) == 1  # a proven loss is never followed


def _gumbel_tree(state, evaluator, n, considered, seed=0):
    rng = np.random.default_rng(seed)
    tree = SearchTree(TTT, state, 1.5, True, uniform_stream(rng), gumbel=True)
    expand_roots([tree], evaluator)
    tree.plan_gumbel_root(n, rng, considered)
    search_batch([tree], evaluator, n)
    return tree


def test_sequential_halving_visits_only_the_considered_moves():
    tree = _gumbel_tree(TTT.initial_state(), SkewedEvaluator(), n=8, considered=4)
    visits = sorted(int(v) for v in tree.visit_counts() if v)
    assert visits == [1, 1, 3, 3]  # 4 considered: one visit each, then the best 2 get two more each
    assert sum(visits) == 8


def test_a_gumbel_tree_takes_a_win_in_one_and_targets_it():
    # X to move with 0 and 1 taken: 2 wins at once.
    state = TTT.initial_state()
    for action in (0, 3, 1, 4):
        state = TTT.apply(state, action)
    for seed in range(5):
        tree = _gumbel_tree(state, ZeroEvaluator(), n=16, considered=16, seed=seed)
        assert tree.gumbel_action() == 2
        policy, _ = tree.improved_policy()
        assert np.argmax(policy) == 2
        assert policy.sum() == pytest.approx(1.0)


def test_plan_gumbel_root_refuses_a_tree_it_cannot_schedule():
    rng = np.random.default_rng(0)
    puct = SearchTree(TTT, TTT.initial_state(), 1.5, True, uniform_stream(rng))
    with pytest.raises(ValueError, match="gumbel=True"):
        puct.plan_gumbel_root(8, rng, 4)
    tree = SearchTree(TTT, TTT.initial_state(), 1.5, True, uniform_stream(rng), gumbel=True)
    with pytest.raises(ValueError, match="evaluated root"):
        tree.plan_gumbel_root(8, rng, 4)
    with pytest.raises(ValueError, match="puct=True"):
        SearchTree(TTT, TTT.initial_state(), 1.5, False, uniform_stream(rng), gumbel=True)


@pytest.mark.parametrize("game", [TTT, ConnectN(4, 4, 3, gravity=True)], ids=repr)
def test_gumbel_self_play_targets_are_distributions_over_legal_moves(game):
    config = SelfPlayConfig(simulations=8, parallel_games=4, algorithm="gumbel", max_considered=4)
    encoder = encoder_for(game)
    samples, summaries = play_games(game, encoder, ZeroEvaluator(), 4, config, np.random.default_rng(1))
    assert len(summaries) == 4 and len(samples.values) == sum(s.moves for s in summaries)
    assert np.allclose(samples.policies.sum(axis=1), 1.0)
    again, _ = play_games(game, encoder, ZeroEvaluator(), 4, config, np.random.default_rng(1))
    assert np.array_equal(samples.policies, again.policies)  # a seed reproduces the games


def test_selfplay_config_names_the_algorithms():
    with pytest.raises(ValueError, match="puct, gumbel"):
        SelfPlayConfig(algorithm="muzero")
    assert math.isclose(SelfPlayConfig(algorithm="gumbel").c_puct, 1.5)


def test_improved_policy_survives_every_live_move_underflowing_beside_a_lost_one():
    # The network gives the proven loss all its prior: the live moves' softmax terms underflow to 0, and a
    # renormalisation after the softmax divided by zero (train_alphazero.py --algorithm gumbel --lr 0.2).
    node = _node([1.0, 0.0, 0.0], [_child(5, -1.0, proven=(-1.0, 1.0)), _child(1, 0.0), None])
    policy = gumbel.improved_policy(node)
    assert policy[0] == 0.0 and policy[1] + policy[2] == pytest.approx(1.0)
    assert all(p >= 0 for p in policy)
