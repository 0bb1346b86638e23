"""gym_boardgames.tabular: the checks of a model P and of a policy, and P as flat arrays, shared by envs and agents."""

import gymnasium as gym
import numpy as np
import pytest

import gym_boardgames  # noqa: F401  (registers the ids)
from agents.tabular import dp, mc
from gym_boardgames.render.text import format_policy
from gym_boardgames.tabular import best_actions, build_model, check_policy, check_values

# Figure 4.1 of Sutton & Barto: v_pi of the equiprobable random policy on the 4x4 gridworld.
FIGURE_4_1 = [0, -14, -20, -22, -14, -18, -20, -20, -20, -20, -18, -14, -22, -20, -14, 0]


@pytest.fixture(scope="module")
def P():
    return gym.make("GridWorld-v0").unwrapped.P


@pytest.mark.parametrize(
    "bad, message",
    [
        ({0: {0: [(0.5, 0, 0.0, True)]}}, r"P\[0\]\[0\] sum to 0.5, not 1"),
        ({0: {0: [(1.0, 3, 0.0, True)]}}, r"next_state must be an int in 0..0"),
        ({0: {0: [(1.0, 0, 0.0)]}}, r"expected \(prob, next_state, reward, terminated\)"),
        ({0: {0: [(1.0, 0, float("inf"), True)]}}, "reward must be finite"),
        ({0: {0: []}}, "no outcomes"),
        ({0: {0: [(1.0, 0, 0.0, True)]}, 2: {0: [(1.0, 0, 0.0, True)]}}, r"states of P must be 0..1"),
        ({0: {0: [(1.0, 0, 0.0, True)]}, 1: {}}, "every state must have the actions 0..0"),
        ({}, "non-empty"),
    ],
)
def test_malformed_models_raise_value_error(bad, message):
    with pytest.raises(ValueError, match=message):
        build_model(bad)


def test_a_model_held_by_a_wrapper_is_found_and_an_env_without_one_is_refused(P):
    class ModelWrapper(gym.Wrapper):  # like an env that wraps a core env and adds the model itself
        def __init__(self, env, model):
            super().__init__(env)
            self.P = model

    wrapped = ModelWrapper(gym.make("CartPole-v1"), P)
    np.testing.assert_allclose(dp.policy_evaluation(wrapped, dp.uniform_policy(P)), FIGURE_4_1, atol=1e-6)
    with pytest.raises(ValueError, match="has no tabular model P"):
        build_model(gym.make("CartPole-v1"))


def test_model_counts_are_num_states_and_num_actions():
    model = build_model(gym.make("GridWorld-v0"))
    assert (model.num_states, model.num_actions) == (16, 4)


def test_the_model_knows_predecessors_and_the_states_that_cannot_end_an_episode():
    model = build_model(gym.make("GridWorld-v0"))
    # State 5's backups read its four neighbours' values; a terminal corner is read by none (its loop ends).
    assert sorted(set(model.predecessors(np.array([5])).tolist())) == [1, 4, 6, 9]
    assert model.predecessors(np.array([0])).size == 0
    assert model.trapped_states().size == 0
    always_left = np.zeros((16, 4))
    always_left[:, 2] = 1.0  # column 0 bumps into the edge forever, and the cells to its right follow it there
    assert model.unbounded_states(always_left).tolist() == [4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14]
    loop = build_model({0: {0: [(1.0, 0, -1.0, False)]}})
    assert loop.trapped_states().tolist() == [0]


@pytest.mark.parametrize(
    "policy, message",
    [
        (np.full((16, 3), 1 / 3), r"shape \(nS, nA\) = \(16, 4\)"),
        (np.tile([1.5, -0.5, 0.0, 0.0], (16, 1)), r"negative probabilities in states \[0, 1, 2"),
        (np.full((16, 4), 0.3), "rows must sum to 1"),
        ("random", "array of action probabilities"),
    ],
)
def test_dp_and_mc_refuse_a_bad_policy_with_the_same_message(policy, message):
    env = gym.make("GridWorld-v0")
    with pytest.raises(ValueError, match=message):
        dp.policy_evaluation(env, policy)
    with pytest.raises(ValueError, match=message):
        mc.mc_prediction(env, policy, 1, seed=0)


def test_values_are_checked_for_shape_and_finiteness_and_copied():
    values = np.zeros(4)
    checked = check_values(values, 4, "V0")
    checked[0] = 1.0
    assert values[0] == 0.0
    with pytest.raises(ValueError, match=r"V0 must have shape \(nS,\) = \(4,\), got \(3,\)"):
        check_values(np.zeros(3), 4, "V0")
    with pytest.raises(ValueError, match="V holds NaN or infinite entries"):
        check_values([0.0, np.inf], 2)


def test_best_actions_are_every_action_tied_for_the_largest_probability():
    assert best_actions(np.array([0.5, 0.0, 0.5, 0.0])) == [0, 2]
    assert best_actions(np.array([0.1, 0.7, 0.1, 0.1])) == [1]
    assert check_policy([[0.25] * 4], 1, 4).tolist() == [[0.25] * 4]


def test_overlay_format_policy_and_dynamic_programming_share_one_policy_check():
    env = gym.make("GridWorld-v0")
    not_probabilities = np.full((16, 4), 0.3)
    messages = set()
    for call in (
        lambda: env.unwrapped.set_overlay(policy=not_probabilities),
        lambda: format_policy(env, not_probabilities),
        lambda: check_policy(not_probabilities, 16, 4),
    ):
        with pytest.raises(ValueError, match="rows must sum to 1") as error:
            call()
        messages.add(str(error.value))
    assert len(messages) == 1
