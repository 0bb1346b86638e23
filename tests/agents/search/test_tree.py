"""The search core: PUCT as documented on known positions, batched search, root noise, tree reuse."""

import numpy as np
import pytest

import gym_boardgames  # noqa: F401  (registers the ids)
from agents._rng import uniform_stream
from agents.search.evaluators import CallbackEvaluator, uniform_priors
from agents.search.mcts import MCTSAgent
from agents.search.tree import SearchTree, expand_roots, search_batch
from gym_boardgames.rules import ConnectN, DotsAndBoxes, TicTacToe

TTT = TicTacToe()


class ZeroEvaluator:
    """Uniform priors and value 0 for every state; counts its calls and batch sizes."""

    def __init__(self):
        self.batches = []

    def evaluate(self, game, states):
        self.batches.append(len(states))
        return uniform_priors(game, states), np.zeros(len(states))


class TableEvaluator:
    """Deterministic, state-dependent priors and values (from a hash of the state), to compare searches."""

    def evaluate(self, game, states):
        priors = np.zeros((len(states), game.num_actions))
        values = np.zeros(len(states))
        for i, state in enumerate(states):
            rng = np.random.default_rng(abs(hash(state)) % 2**32)
            legal = list(game.legal_actions(state))
            p = rng.random(len(legal)) + 0.1
            priors[i, legal] = p / p.sum()
            values[i] = rng.uniform(-0.5, 0.5)
        return priors, values


def puct_tree(game, state, c=1.5, seed=0):
    return SearchTree(game, state, c, True, uniform_stream(np.random.default_rng(seed)))


def test_puct_with_uniform_prior_and_zero_value_tries_every_move_once_first():
    # With equal priors and Q = 0, an untried move scores c*P*sqrt(N) and a tried one c*P*sqrt(N)/2:
    # so the first 9 simulations at the empty board visit the 9 moves once each.
    tree = puct_tree(TTT, TTT.initial_state())
    tree.run(ZeroEvaluator(), 9)
    assert tree.visit_counts().tolist() == [1.0] * 9


def test_puct_follows_the_prior_when_values_are_equal():
    prior = np.array([0.02] * 9)
    prior[4] = 0.84
    evaluator = CallbackEvaluator(prior=lambda g, s: prior, value=lambda g, s: 0.0)
    tree = puct_tree(TTT, TTT.initial_state())
    tree.run(evaluator, 200)
    counts = tree.visit_counts()
    assert counts.argmax() == 4 and counts[4] > 0.5 * counts.sum()


@pytest.mark.parametrize(
    ("moves", "win"),
    [((0, 3, 1, 4), 2), ((4, 0, 8, 2, 5), 1)],  # X completes the top row / O completes it, ignoring X
)
def test_puct_with_a_blind_evaluator_still_takes_a_win_in_one(moves, win):
    state = TTT.initial_state()
    for move in moves:
        state = TTT.apply(state, move)
    tree = puct_tree(TTT, state)
    tree.run(ZeroEvaluator(), 100)
    assert tree.best_action() == win
    assert tree.proven_action() == win


def test_search_batch_makes_one_evaluator_call_per_step_for_all_trees():
    evaluator = ZeroEvaluator()
    game = ConnectN(6, 7, 4, True)
    trees = [puct_tree(game, game.initial_state(), seed=i) for i in range(16)]
    search_batch(trees, evaluator, 30)
    # one call for the 16 roots, then one per simulation step with one leaf per tree
    assert evaluator.batches == [16] + [16] * 30
    assert all(t.root.n == 30 for t in trees)


@pytest.mark.parametrize("game", [TicTacToe(), ConnectN(5, 5, 4, True), DotsAndBoxes(2, 2)])
def test_batched_trees_search_exactly_as_each_tree_alone(game):
    evaluator = TableEvaluator()
    rng = np.random.default_rng(3)
    starts = []
    for _ in range(6):
        state = game.initial_state()
        for _ in range(int(rng.integers(0, 4))):
            legal = game.legal_actions(state)
            state = game.apply(state, legal[int(rng.integers(len(legal)))])
        starts.append(state)
    batched = [puct_tree(game, s, seed=i) for i, s in enumerate(starts)]
    search_batch(batched, evaluator, 60)
    for i, state in enumerate(starts):
        alone = puct_tree(game, state, seed=i)
        alone.run(evaluator, 60)
        assert alone.visit_counts().tolist() == batched[i].visit_counts().tolist()
        assert alone.best_action() == batched[i].best_action()


def test_proven_roots_stop_their_search_and_free_the_batch():
    evaluator = ZeroEvaluator()
    won = TTT.initial_state()
    for move in (0, 3, 1, 4):
        won = TTT.apply(won, move)
    trees = [puct_tree(TTT, won), puct_tree(TTT, TTT.initial_state(), seed=1)]
    search_batch(trees, evaluator, 200)
    assert trees[0].root.proven is not None and trees[0].root.n < 200
    assert trees[1].root.n == 200


def test_dirichlet_noise_keeps_a_distribution_and_changes_the_root_priors():
    tree = puct_tree(TTT, TTT.initial_state())
    expand_roots([tree], ZeroEvaluator())
    before = list(tree.root.priors)
    tree.add_dirichlet_noise(0.5, 0.25, np.random.default_rng(0))
    after = tree.root.priors
    assert sum(after) == pytest.approx(1.0)
    assert min(after) > 0 and after != before
    assert all(a >= 0.75 * b - 1e-12 for a, b in zip(after, before, strict=True))


def test_advance_keeps_the_subtree_of_the_move_played():
    tree = puct_tree(TTT, TTT.initial_state())
    tree.run(ZeroEvaluator(), 300)
    action = tree.best_action()
    child_visits = tree.visit_counts()[action]
    tree.advance(action)
    assert tree.root.state == TTT.apply(TTT.initial_state(), action)
    assert tree.root.n == child_visits
    tree.advance(next(iter(TTT.legal_actions(tree.root.state))))  # maybe untried: a fresh node is fine
    assert tree.root.state.board.count(0) == 7


def test_search_policy_drops_moves_proven_lost_and_is_exact_at_a_proven_root():
    # X (0, 8) and O (4, 2), X to move: only 6 blocks O, and it forks, so the root is proven won.
    state = TTT.initial_state()
    for move in (0, 4, 8, 2):
        state = TTT.apply(state, move)
    tree = puct_tree(TTT, state)
    tree.run(ZeroEvaluator(), 48)
    policy, exact = tree.search_policy()
    assert exact and policy.tolist() == [0, 0, 0, 0, 0, 0, 1, 0, 0]
    # Before the proof is complete, the visits spent on moves since proven lost are not part of the policy.
    early = puct_tree(TTT, state)
    early.run(ZeroEvaluator(), 12)
    policy, exact = early.search_policy()
    lost = [s.action for s in early.root_statistics() if s.proven == -1.0]
    assert not exact and lost and all(policy[a] == 0 for a in lost)
    assert policy.sum() == pytest.approx(1.0)


# ---- a proven root stops the search --------------------------------------------------------------
# A proven root ends the search: work is counted in evaluator calls and simulations, never in seconds.


def play(game, *actions):
    state = game.initial_state()
    for action in actions:
        state = game.apply(state, action)
    return state


class CountingValue:
    """A leaf value function that counts its calls: one call per simulation that reaches a new leaf."""

    def __init__(self) -> None:
        self.calls = 0

    def __call__(self, game, state) -> float:
        self.calls += 1
        return 0.0


def test_a_root_with_a_win_in_one_stops_the_search_at_once():
    game = TicTacToe()
    state = play(game, 0, 3, 1, 4)  # X to move: 2 completes the top row
    value = CountingValue()
    agent = MCTSAgent(n_simulations=10**6, seed=0, value=value)
    tree = agent.search(game, state)
    legal = len(game.legal_actions(state))
    assert tree.root.proven is not None and tree.root.proven[game.current_player(state)] == 1.0
    assert agent.last_simulations <= legal and tree.root.n <= legal
    assert value.calls < legal  # at most the other moves' leaves were valued before the win was found
    assert tree.best_action() == 2


def test_a_root_proven_lost_stops_long_before_the_budget():
    game = TicTacToe()
    state = play(game, 0, 1, 4, 8, 3)  # X threatens 6 (column) and 5 (row): O to move has lost
    value = CountingValue()
    agent = MCTSAgent(n_simulations=10**6, seed=0, value=value)
    tree = agent.search(game, state)
    assert tree.root.proven is not None and tree.root.proven[game.current_player(state)] == -1.0
    # Four O moves, each refuted by one of at most three X replies: a few dozen simulations, not 10^6.
    assert agent.last_simulations < 100 and tree.root.n == agent.last_simulations
    assert value.calls <= agent.last_simulations


def test_a_kept_proven_root_runs_no_simulation_at_the_next_move():
    game = TicTacToe()
    state = play(game, 0, 3, 1, 4)
    value = CountingValue()
    agent = MCTSAgent(n_simulations=10**6, seed=0, value=value, reuse_tree=True)
    agent.search(game, state)
    calls = value.calls
    agent.search(game, state)
    assert agent.last_simulations == 0 and value.calls == calls
