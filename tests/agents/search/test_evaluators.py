"""The evaluators: rollouts from the mover's side, callbacks' priors and values checked, one state at a time."""

import numpy as np
import pytest

from agents.search.evaluators import CallbackEvaluator, RolloutEvaluator, check_value, evaluate_state, legal_priors
from gym_boardgames.rules import TicTacToe

TTT = TicTacToe()


def test_rollout_evaluator_values_from_the_movers_side():
    # O to move and lost: X (0, 2, 8) threatens both 1 and 5, and O (4, 6) has no threat of its own.
    state = TTT.initial_state()
    for move in (0, 4, 2, 6, 8):
        state = TTT.apply(state, move)
    evaluator = RolloutEvaluator(np.random.default_rng(0))
    priors, values = evaluator.evaluate(TTT, [state] * 200)
    assert np.allclose(priors.sum(axis=1), 1.0)
    assert np.all(priors[:, [0, 2, 4, 6, 8]] == 0)
    assert set(np.unique(values)) <= {-1.0, 0.0, 1.0}
    assert values.mean() < 0  # O is lost with best play by X, and loses most random games


@pytest.mark.parametrize(
    "raw",
    [{1: 3.0, 4: 1.0}, [0, 3.0, 0, 0, 1.0, 0, 0, 0, 0], [3.0, 1.0]],
    ids=["mapping", "by-action", "aligned"],
)
def test_legal_priors_reads_every_format_and_renormalises(raw):
    assert legal_priors(raw, [1, 4], 9) == pytest.approx([0.75, 0.25])


def test_legal_priors_refuses_negative_or_non_finite_entries_and_falls_back_to_uniform_at_zero():
    for bad in ([-1.0, 2.0], [float("nan"), 1.0], np.array([1.0, np.inf])):
        with pytest.raises(ValueError, match="finite and >= 0"):
            legal_priors(bad, [1, 4], 9)
    assert legal_priors({7: 1.0}, [1, 4], 9) == [0.5, 0.5]


@pytest.mark.parametrize("bad", [1.5, float("nan"), "x", None])
def test_check_value_refuses_anything_but_a_number_in_minus_one_to_one(bad):
    with pytest.raises(ValueError, match="my_value must return a float in"):
        check_value(bad, "my_value")


def test_callback_evaluator_and_its_one_state_answer_agree():
    state = TTT.apply(TTT.initial_state(), 4)
    evaluator = CallbackEvaluator(prior=lambda game, s: {0: 1.0, 8: 3.0}, value=lambda game, s: 0.25)
    priors, values = evaluator.evaluate(TTT, [state])
    one, value = evaluator.evaluate_one(TTT, state)
    legal = TTT.legal_actions(state)
    assert priors[0, legal].tolist() == one and value == values[0] == 0.25
    assert evaluate_state(evaluator, TTT, state) == (one, 0.25, legal)
    with pytest.raises(ValueError, match="give a value function or a rollout evaluator"):
        CallbackEvaluator(prior=lambda game, s: None)
