"""Blackjack's state index layout, its exact model P, and P solved against an independent expectimax."""

from collections import Counter
from fractions import Fraction
from functools import cache

import numpy as np
import pytest

from agents.tabular.dp import policy_evaluation, policy_iteration, value_iteration
from gym_boardgames.rules.blackjack import (
    HIT,
    N_STATES,
    NATURAL_OFFSET,
    STICK,
    TERMINAL,
    blackjack_model,
    decode,
    encode,
    is_natural_state,
)


@pytest.fixture(scope="module")
def model():
    return blackjack_model()


@pytest.fixture(scope="module")
def optimum(model):
    P, _ = model
    return value_iteration(P, gamma=1.0, theta=1e-12)


# ---------------------------------------------------------------- an independent exact solution
# A recursive expectimax over the infinite deck written from the game's description, not from the
# module under test: hands are (sum counting aces as 1, holds an ace, number of cards), exact fractions.

CARDS = [(card, Fraction(4 if card == 10 else 1, 13)) for card in range(1, 11)]


def best_total(hard, has_ace):
    return hard + 10 if has_ace and hard + 10 <= 21 else hard


@cache
def dealer_finals(hard, has_ace, n_cards):
    """Dealer's {final total (0 = bust, 'nat' = two-card 21): probability}, hitting below 17."""
    total = best_total(hard, has_ace)
    if total > 21:
        return {0: Fraction(1)}
    if total >= 17:
        return {"nat" if n_cards == 2 and total == 21 else total: Fraction(1)}
    out = Counter()
    for card, p in CARDS:
        for final, q in dealer_finals(hard + card, has_ace or card == 1, n_cards + 1).items():
            out[final] += p * q
    return dict(out)


def stick_value(hard, has_ace, n_cards, dealer):
    player = best_total(hard, has_ace)
    natural = n_cards == 2 and player == 21
    value = Fraction(0)
    for final, p in dealer_finals(dealer, dealer == 1, 1).items():
        if natural:
            value += p * (0 if final == "nat" else 1)
        else:
            dealer_total = 21 if final == "nat" else final
            value += p * ((player > dealer_total) - (player < dealer_total))
    return value


@cache
def expectimax(hard, has_ace, n_cards, dealer):
    """(value of the better action, value of sticking, value of hitting) under optimal play afterwards."""
    stick = stick_value(hard, has_ace, n_cards, dealer)
    hit = Fraction(0)
    for card, p in CARDS:
        new_hard, new_ace = hard + card, has_ace or card == 1
        hit += p * (-1 if best_total(new_hard, new_ace) > 21 else expectimax(new_hard, new_ace, n_cards + 1, dealer)[0])
    return max(stick, hit), stick, hit


def reference_for_state(state):
    """expectimax() of a hand that Gymnasium observes as ``decode(state)``."""
    total, dealer, soft = decode(state)
    if is_natural_state(state):
        return expectimax(11, True, 2, dealer)
    if soft:
        return expectimax(total - 10, True, 3, dealer)  # 3 cards: any soft total, never a natural
    return expectimax(total, False, 3, dealer)


def reference_deal_value():
    value = Fraction(0)
    for dealer, pd in CARDS:
        for first, p1 in CARDS:
            for second, p2 in CARDS:
                value += pd * p1 * p2 * expectimax(first + second, 1 in (first, second), 2, dealer)[0]
    return value


# ---------------------------------------------------------------- index layout


def test_encode_and_decode_round_trip_every_live_state():
    for state in range(TERMINAL):
        total, dealer, ace = decode(state)
        assert encode(total, dealer, ace, natural=is_natural_state(state)) == state
    assert len({decode(s) for s in range(TERMINAL)}) == TERMINAL - 10  # naturals share (21, d, 1)


def test_the_natural_has_its_own_index_that_decodes_to_soft_21():
    for dealer in range(1, 11):
        natural, soft21 = encode(21, dealer, 1, natural=True), encode(21, dealer, 1)
        assert natural == NATURAL_OFFSET + dealer - 1 != soft21
        assert decode(natural) == decode(soft21) == (21, dealer, 1)
        assert is_natural_state(natural) and not is_natural_state(soft21)


def test_the_layout_is_the_documented_one():
    assert (N_STATES, TERMINAL) == (291, 290)
    assert encode(4, 1, 0) == 0 and encode(21, 10, 0) == 179
    assert encode(12, 1, 1) == 180 and encode(21, 10, 1) == 279
    assert encode(15, 7, 0) == (15 - 4) * 10 + 6


@pytest.mark.parametrize(
    ("observation", "natural"),
    [
        ((3, 5, 0), False),
        ((22, 5, 0), False),
        ((11, 5, 1), False),
        ((15, 0, 0), False),
        ((15, 11, 0), False),
        ((20, 5, 1), True),
        ((21, 5, 0), True),
        ((15, 5, 2), False),
    ],
)
def test_encode_rejects_observations_no_live_episode_shows(observation, natural):
    with pytest.raises(ValueError):
        encode(*observation, natural=natural)


@pytest.mark.parametrize("state", [TERMINAL, -1, N_STATES, True, 1.0])
def test_decode_rejects_the_terminal_state_and_non_indices(state):
    with pytest.raises(ValueError):
        decode(state)


# ---------------------------------------------------------------- the model


def test_every_row_of_P_sums_to_one_and_terminal_is_absorbing(model):
    P, mu = model
    assert sorted(P) == list(range(N_STATES))
    for s in P:
        assert sorted(P[s]) == [STICK, HIT]
        for a in P[s]:
            assert abs(sum(p for p, *_ in P[s][a]) - 1.0) < 1e-12
            assert all(p > 0 for p, *_ in P[s][a])
    assert P[TERMINAL] == {STICK: [(1.0, TERMINAL, 0.0, True)], HIT: [(1.0, TERMINAL, 0.0, True)]}
    assert abs(mu.sum() - 1.0) < 1e-12 and mu[TERMINAL] == 0


def test_every_ending_goes_to_the_terminal_state_and_nothing_else_terminates(model):
    P, _ = model
    for s in range(TERMINAL):
        for a in (STICK, HIT):
            for _, next_s, reward, terminated in P[s][a]:
                assert terminated == (next_s == TERMINAL)
                assert reward == 0.0 or terminated
    assert all(next_s == TERMINAL for s in range(TERMINAL) for _, next_s, *_ in P[s][STICK])


def test_the_deal_distribution_has_the_known_natural_and_hard_21_probabilities(model):
    _, mu = model
    naturals = mu[NATURAL_OFFSET:TERMINAL].sum()
    assert naturals == pytest.approx(2 * (1 / 13) * (4 / 13), abs=1e-15)
    assert mu[encode(21, 3, 0)] == 0 and mu[encode(21, 3, 1)] == 0  # hard 21, other soft 21: only by hitting
    assert mu[encode(4, 3, 0)] == pytest.approx((1 / 13) ** 3, abs=1e-15)  # 2 + 2 against a 3


def test_a_natural_sticking_wins_unless_the_dealer_has_one_too(model):
    P, _ = model
    ace, ten = encode(21, 1, 1, natural=True), encode(21, 10, 1, natural=True)
    assert {(next_s, r): p for p, next_s, r, _ in P[ace][STICK]} == pytest.approx(
        {(TERMINAL, 0.0): 4 / 13, (TERMINAL, 1.0): 9 / 13}
    )
    assert {(next_s, r): p for p, next_s, r, _ in P[ten][STICK]} == pytest.approx(
        {(TERMINAL, 0.0): 1 / 13, (TERMINAL, 1.0): 12 / 13}
    )
    assert P[encode(21, 5, 1, natural=True)][STICK] == [(1.0, TERMINAL, 1.0, True)]
    # Hitting a natural is hitting any soft 21.
    assert P[ace][HIT] == P[encode(21, 1, 1)][HIT]


# ---------------------------------------------------------------- exact solutions


def test_value_iteration_and_policy_iteration_agree_on_blackjack(model, optimum):
    P, _ = model
    vi_policy, vi_values = optimum
    pi_policy, pi_values = policy_iteration(P, gamma=1.0, theta=1e-12)
    np.testing.assert_allclose(vi_values, pi_values, atol=1e-10)
    np.testing.assert_array_equal(vi_policy, pi_policy)


def test_optimal_values_and_policy_match_an_independent_expectimax(optimum):
    policy, values = optimum
    for state in range(TERMINAL):
        best, stick, hit = reference_for_state(state)
        assert abs(values[state] - float(best)) < 1e-9, (decode(state), values[state], float(best))
        if abs(stick - hit) > 1e-9:
            assert policy[state].argmax() == (STICK if stick > hit else HIT), decode(state)
    assert values[TERMINAL] == 0


def test_the_optimal_expected_return_from_the_deal_matches_the_independent_solution(model, optimum):
    _, mu = model
    _, values = optimum
    exact = reference_deal_value()
    assert abs(mu @ values - float(exact)) < 1e-9
    assert round(float(exact), 4) == -0.0431


def test_the_optimal_policy_is_the_one_in_sutton_and_barto_figure_5_2(optimum):
    policy, _ = optimum
    hits = {
        (t, d, a)
        for t in range(12, 22)
        for d in range(1, 11)
        for a in (0, 1)
        if policy[encode(t, d, a)].argmax() == HIT
    }
    no_ace = {(t, d, 0) for t in range(12, 17) for d in (1, 7, 8, 9, 10)} | {(12, 2, 0), (12, 3, 0)}
    ace = {(t, d, 1) for t in range(12, 18) for d in range(1, 11)} | {(18, 1, 1), (18, 9, 1), (18, 10, 1)}
    assert hits == no_ace | ace


def test_the_stick_on_20_policy_is_evaluated_exactly(model):
    P, mu = model
    policy = np.zeros((N_STATES, 2))
    for s in range(N_STATES):
        policy[s, STICK if s == TERMINAL or decode(s)[0] >= 20 else HIT] = 1
    values = policy_evaluation(P, policy, gamma=1.0, theta=1e-12)
    # Sticking on 20 against a 10 is reference stick_value; hard 13 hits.
    assert values[encode(20, 10, 0)] == pytest.approx(float(stick_value(20, False, 3, 10)), abs=1e-12)
    assert mu @ values < -0.3  # a poor policy: much worse than the optimum's -0.043
