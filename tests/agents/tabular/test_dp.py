"""agents.tabular.dp against the book's known answers, against each other, and on other toy_text models."""

import gymnasium as gym
import numpy as np
import pytest

import gym_boardgames  # noqa: F401
from agents.tabular import dp
from gym_boardgames.tabular import build_model

# Figure 4.1 of Sutton & Barto: v_pi of the equiprobable random policy on the 4x4 gridworld.
FIGURE_4_1 = [0, -14, -20, -22, -14, -18, -20, -20, -20, -20, -18, -14, -22, -20, -14, 0]
# The optimal values: minus the number of steps to the nearer terminal corner.
OPTIMAL_4X4 = [0, -1, -2, -3, -1, -2, -3, -2, -2, -3, -2, -1, -3, -2, -1, 0]
UP, DOWN, LEFT, RIGHT = 0, 1, 2, 3


@pytest.fixture(scope="module")
def P():
    return gym.make("GridWorld-v0").unwrapped.P


@pytest.mark.parametrize("in_place", [True, False])
def test_random_policy_values_are_figure_4_1(P, in_place):
    V = dp.policy_evaluation(P, dp.uniform_policy(P), gamma=1.0, theta=1e-10, in_place=in_place)
    np.testing.assert_allclose(V, FIGURE_4_1, atol=1e-6)


def test_in_place_sweeps_converge_in_fewer_sweeps_than_two_arrays(P):
    in_place, two_arrays = {}, {}
    dp.policy_evaluation(P, dp.uniform_policy(P), info=in_place)
    dp.policy_evaluation(P, dp.uniform_policy(P), in_place=False, info=two_arrays)
    assert in_place["sweeps"] < two_arrays["sweeps"]
    assert in_place["updates"] == in_place["sweeps"] * 16 and in_place["delta"] < 1e-10


def test_greedy_policy_of_the_random_values_matches_figure_4_1(P):
    V = dp.policy_evaluation(P, dp.uniform_policy(P))
    greedy = dp.greedy_policy(P, V, split_ties=True)
    np.testing.assert_allclose(greedy[1], [0, 0, 1, 0])  # state 1: left, into the terminal
    np.testing.assert_allclose(greedy[5], [0.5, 0, 0.5, 0])  # state 5: up or left
    np.testing.assert_allclose(greedy[3], [0, 0.5, 0.5, 0])  # state 3: down or left
    np.testing.assert_allclose(greedy[14], [0, 0, 0, 1])
    one_hot = dp.greedy_policy(P, V)
    np.testing.assert_allclose(one_hot[5], [1, 0, 0, 0])  # ties go to the lowest action


def test_policy_iteration_and_value_iteration_find_the_optimal_values(P):
    pi_info, vi_info = {}, {}
    pi_policy, pi_V = dp.policy_iteration(P, gamma=1.0, info=pi_info)
    vi_policy, vi_V = dp.value_iteration(P, gamma=1.0, theta=1e-10, info=vi_info)
    np.testing.assert_allclose(pi_V, OPTIMAL_4X4, atol=1e-6)
    np.testing.assert_allclose(vi_V, OPTIMAL_4X4, atol=1e-6)
    for policy in (pi_policy, vi_policy):
        assert set(np.unique(policy)) == {0.0, 1.0} and np.all(policy.sum(axis=1) == 1)
        # Each returned policy is optimal: its own values are the optimal values.
        np.testing.assert_allclose(dp.policy_evaluation(P, policy), OPTIMAL_4X4, atol=1e-6)
    # From the random policy, one improvement reaches an optimal policy; a second evaluation confirms it.
    assert pi_info["iterations"] == 2 and pi_info["evaluation_sweeps"][0] > pi_info["evaluation_sweeps"][1]
    assert pi_info["sweeps"] == sum(pi_info["evaluation_sweeps"])
    assert vi_info["sweeps"] == 4 and vi_info["updates"] == 64


def test_async_value_iteration_equals_value_iteration_with_fewer_updates(P):
    vi_info, async_info = {}, {}
    vi_policy, vi_V = dp.value_iteration(P, info=vi_info)
    async_policy, async_V = dp.async_value_iteration(P, info=async_info)
    np.testing.assert_allclose(async_V, vi_V, atol=1e-9)
    np.testing.assert_array_equal(async_policy, vi_policy)
    assert async_info["updates"] < vi_info["updates"]
    assert async_info["rounds"] >= 1


@pytest.mark.parametrize(
    "kwargs, gamma",
    [
        ({"slip": 0.2}, 1.0),
        ({"desc": ["T..#....", ".#...#..", "...#..S.", "S.....#T"], "slip": 0.1}, 1.0),
        ({"shape": (5, 6), "terminals": [17]}, 0.9),
    ],
)
def test_all_three_solvers_agree_on_slippery_walled_and_discounted_grids(kwargs, gamma):
    model = build_model(gym.make("GridWorld-v0", **kwargs))
    _, pi_V = dp.policy_iteration(model, gamma)
    _, vi_V = dp.value_iteration(model, gamma, 1e-12)
    async_policy, async_V = dp.async_value_iteration(model, gamma, 1e-12)
    np.testing.assert_allclose(pi_V, vi_V, atol=1e-6)
    np.testing.assert_allclose(async_V, vi_V, atol=1e-6)
    np.testing.assert_allclose(dp.policy_evaluation(model, async_policy, gamma), vi_V, atol=1e-6)
    # Optimal values satisfy the Bellman optimality equation.
    np.testing.assert_allclose(dp.q_values(model, vi_V, gamma).max(axis=1), vi_V, atol=1e-6)


#: Python lines a sweep (or an asynchronous round) may run. A sweep is a few whole-array backups, one per in-place
#: group (two on a grid): about 60 lines for value iteration, 180 for an asynchronous round, 100 for a policy
#: evaluation sweep. A loop over the 10,000 states in Python would run at least 10,000 per sweep.
LINES_PER_SWEEP = 500


def test_a_100x100_grid_solves_in_whole_array_sweeps(work_budget):
    model = build_model(gym.make("GridWorld-v0", shape=(100, 100)))
    vi_info, async_info = {}, {}
    # The farthest cells are 99 steps from a corner: 99 sweeps settle every value, one more changes nothing. An
    # in-place sweep (or round) settles at least what a two-array one does, so neither takes more than 100.
    with work_budget.bounded(max_lines=100 * LINES_PER_SWEEP):
        _, vi_V = dp.value_iteration(model, gamma=1.0, info=vi_info)
    with work_budget.bounded(max_lines=100 * LINES_PER_SWEEP):
        async_policy, async_V = dp.async_value_iteration(model, gamma=1.0, info=async_info)
    cells = np.arange(10_000)
    rows, cols = cells // 100, cells % 100
    steps_to_nearer_corner = np.minimum(rows + cols, (99 - rows) + (99 - cols))
    np.testing.assert_allclose(vi_V, -steps_to_nearer_corner)
    np.testing.assert_allclose(async_V, vi_V)
    assert vi_info["sweeps"] <= 100 and async_info["rounds"] <= 100
    assert async_info["updates"] < vi_info["updates"]


def test_policy_iteration_on_a_discounted_100x100_grid_agrees_with_value_iteration(work_budget):
    model = build_model(gym.make("GridWorld-v0", shape=(100, 100)))
    info = {}
    # About 330 sweeps in 72 evaluations, each started from the previous policy's values (section 4.3); an
    # evaluation from zeros takes over a hundred sweeps (the first one, 124), so 72 of them would take thousands.
    with work_budget.bounded(max_lines=1000 * LINES_PER_SWEEP):
        _, pi_V = dp.policy_iteration(model, gamma=0.9, info=info)
    _, vi_V = dp.value_iteration(model, gamma=0.9)
    np.testing.assert_allclose(pi_V, vi_V, atol=1e-6)
    assert info["sweeps"] <= 1000


@pytest.mark.parametrize(
    "policy, message",
    [
        (np.full((16, 3), 1 / 3), r"shape \(nS, nA\) = \(16, 4\)"),
        (np.full(16, 0.25), "shape"),
        (np.tile([1.5, -0.5, 0.0, 0.0], (16, 1)), r"negative probabilities in states \[0, 1, 2"),
        (np.full((16, 4), 0.3), "rows must sum to 1"),
        (np.full((16, 4), np.nan), "NaN"),
        ("random", "array of action probabilities"),
    ],
)
def test_bad_policies_raise_value_error(P, policy, message):
    with pytest.raises(ValueError, match=message):
        dp.policy_evaluation(P, policy)
    if isinstance(policy, np.ndarray):
        with pytest.raises(ValueError, match=message):
            dp.policy_iteration(P, policy=policy)


@pytest.mark.parametrize("gamma", [-0.1, 1.01, float("nan"), "0.9", True, None])
def test_bad_gamma_raises_value_error(P, gamma):
    for solve in (dp.policy_iteration, dp.value_iteration, dp.async_value_iteration):
        with pytest.raises(ValueError, match="gamma"):
            solve(P, gamma)
    with pytest.raises(ValueError, match="gamma"):
        dp.policy_evaluation(P, dp.uniform_policy(P), gamma)


@pytest.mark.parametrize("theta", [0.0, -1e-3, float("inf"), float("nan"), "small"])
def test_bad_theta_raises_value_error(P, theta):
    for solve in (dp.policy_iteration, dp.value_iteration, dp.async_value_iteration):
        with pytest.raises(ValueError, match="theta"):
            solve(P, 1.0, theta)


def test_undiscounted_evaluation_of_a_policy_that_never_ends_raises_at_once(P, work_budget, monkeypatch):
    always_left = np.zeros((16, 4))
    always_left[:, LEFT] = 1.0  # from column 0 (states 4, 8, 12) the agent bumps into the edge forever
    # At once: from the policy's graph (about 1,200 lines), before any sweep; sweeping would go on to max_sweeps.
    with monkeypatch.context() as patch:
        patch.setattr(dp, "_sweep_until", lambda *args, **kwargs: pytest.fail("the values were swept"))
        with work_budget.bounded(max_lines=20_000):
            with pytest.raises(
                ValueError, match=r"never ends an episode from states \[4, 5, 6, 7, 8, 9, 10, 11, 12, 13\] \.\.\."
            ):
                dp.policy_evaluation(P, always_left, gamma=1.0)
    # The same policy has finite values once discounted: -(1 - 0.5**n) / (1 - 0.5) for a never-ending run.
    V = dp.policy_evaluation(P, always_left, gamma=0.5)
    assert V[4] == pytest.approx(-2.0) and V[1] == pytest.approx(-1.0) and V[2] == pytest.approx(-1.5)
    with pytest.raises(ValueError, match="never ends an episode"):
        dp.policy_iteration(P, policy=always_left)


def test_a_zero_reward_loop_without_termination_has_finite_undiscounted_values():
    # A goal modelled as a non-terminating, zero-reward loop (no `terminated` flag anywhere).
    P = {
        0: {0: [(1.0, 1, -1.0, False)], 1: [(1.0, 0, -1.0, False)]},
        1: {0: [(1.0, 2, 5.0, False)], 1: [(1.0, 2, 5.0, False)]},
        2: {0: [(1.0, 2, 0.0, False)], 1: [(1.0, 2, 0.0, False)]},
    }
    policy = np.array([[1.0, 0.0], [0.5, 0.5], [0.5, 0.5]])
    np.testing.assert_allclose(dp.policy_evaluation(P, policy, gamma=1.0), [4.0, 5.0, 0.0])
    # Switching state 0 to its self-loop (-1 each step, forever) makes its value unbounded.
    with pytest.raises(ValueError, match=r"never ends an episode from states \[0\]"):
        dp.policy_evaluation(P, np.array([[0.0, 1.0], [0.5, 0.5], [0.5, 0.5]]), gamma=1.0)


def test_value_iteration_that_cannot_converge_stops_at_its_cap_and_says_why():
    # State 0 loops with reward -1 whatever it does: with gamma=1 its value falls without bound.
    P = {
        0: {0: [(1.0, 0, -1.0, False)], 1: [(1.0, 1, -1.0, False)]},
        1: {0: [(1.0, 0, -1.0, False)], 1: [(1.0, 0, -1.0, False)]},
    }
    with pytest.raises(dp.ConvergenceError, match=r"max_sweeps=50.*states \[0, 1\] can never end an episode"):
        dp.value_iteration(P, gamma=1.0, max_sweeps=50)
    with pytest.raises(dp.ConvergenceError, match=r"max_rounds=50.*states \[0, 1\] can never end"):
        dp.async_value_iteration(P, gamma=1.0, max_rounds=50)
    _, V = dp.value_iteration(P, gamma=0.5)
    np.testing.assert_allclose(V, [-2.0, -2.0])


def test_policy_evaluation_stops_at_its_sweep_cap(P):
    with pytest.raises(dp.ConvergenceError, match="max_sweeps=10"):
        dp.policy_evaluation(P, dp.uniform_policy(P), max_sweeps=10)


def test_accepts_a_model_an_env_or_a_prebuilt_model_without_changing_inputs(P):
    env = gym.make("GridWorld-v0")
    policy = dp.uniform_policy(P)
    policy_before = policy.copy()
    V0 = np.full(16, -5.0)
    results = [
        dp.policy_evaluation(source, policy, V0=V0)
        for source in (P, env, env.unwrapped, build_model(P), [P[s] for s in range(16)])
    ]
    for V in results:
        np.testing.assert_allclose(V, FIGURE_4_1, atol=1e-6)
    np.testing.assert_array_equal(policy, policy_before)
    np.testing.assert_array_equal(V0, np.full(16, -5.0))


def test_a_discounted_chain_has_its_closed_form_values():
    # 0 -> 1 -> 2 -> end, reward 1 per step: V = [1 + g + g^2, 1 + g, 1].
    P = {
        0: {0: [(1.0, 1, 1.0, False)]},
        1: {0: [(1.0, 2, 1.0, False)]},
        2: {0: [(1.0, 0, 1.0, True)]},  # the terminated step pays, and V[0] is not added
    }
    g = 0.5
    expected = [1 + g + g * g, 1 + g, 1.0]
    np.testing.assert_allclose(dp.policy_evaluation(P, np.ones((3, 1)), gamma=g), expected)
    np.testing.assert_allclose(dp.value_iteration(P, gamma=g)[1], expected)


def test_cliff_walking_from_gymnasium_has_the_known_optimal_return():
    # Gymnasium's own toy_text model: the shortest safe path from the start is 13 steps of -1.
    env = gym.make("CliffWalking-v1")
    _, V = dp.value_iteration(env)
    assert V[36] == pytest.approx(-13.0)
    _, pi_V = dp.policy_iteration(env, gamma=0.9)
    _, vi_V = dp.value_iteration(env, gamma=0.9)
    np.testing.assert_allclose(pi_V, vi_V, atol=1e-6)


def test_frozen_lake_solvers_agree():
    model = build_model(gym.make("FrozenLake-v1", is_slippery=True))
    _, pi_V = dp.policy_iteration(model, gamma=0.99)
    _, vi_V = dp.value_iteration(model, gamma=0.99, theta=1e-12)
    _, async_V = dp.async_value_iteration(model, gamma=0.99, theta=1e-12)
    np.testing.assert_allclose(pi_V, vi_V, atol=1e-6)
    np.testing.assert_allclose(async_V, vi_V, atol=1e-6)
    assert 0.5 < vi_V[0] < 0.6  # the best slippery policy reaches the goal a little more than half the time
