"""agents.matches.rating: the Bradley-Terry fit gives the textbook answer, recovers known ratings, and stays finite."""

import math
import re

import numpy as np
import pytest

from agents.matches.rating import ELO_PER_NAT, MAX_GAMES, Z95, fit_ratings


def test_two_agents_get_the_elo_difference_of_their_score_and_its_binomial_interval():
    ratings = fit_ratings(["random", "x"], [("x", "random", 30, 40)], prior_draws=1e-9)
    assert ratings.elo[0] == 0 and ratings.width[0] == 0  # the anchor
    assert ratings.elo[1] == pytest.approx(400 * math.log10(30 / 10), abs=1e-4)
    half = Z95 * ELO_PER_NAT / math.sqrt(40 * 0.75 * 0.25)  # 1.96 standard errors of the log-odds
    assert ratings.high[1] - ratings.elo[1] == pytest.approx(half, rel=1e-6)
    assert list(ratings.games) == [40, 40]


def test_a_draw_counts_as_half_a_win_and_pairs_add_up():
    draws = fit_ratings(["random", "x"], [("x", "random", 10, 20)], prior_draws=1e-9)
    assert draws.elo[1] == pytest.approx(0, abs=1e-6)
    split = fit_ratings(["random", "x"], [("random", "x", 1, 4), ("x", "random", 6, 8)], prior_draws=1e-9)
    assert split.elo[1] == pytest.approx(400 * math.log10(9 / 3), abs=1e-4)  # x scored 3 + 6 of 12


def test_known_ratings_are_recovered_within_their_intervals():
    rng = np.random.default_rng(0)
    names = ["random", "a", "b", "c", "d"]
    true = np.array([0.0, -150.0, 200.0, 450.0, 800.0])
    results = []
    for i in range(5):
        for j in range(i + 1, 5):
            p = 1 / (1 + 10 ** ((true[j] - true[i]) / 400))
            u = rng.random(1000)
            delta = 0.2 * min(p, 1 - p)  # draws taken evenly around p, so the expected score stays p
            score = (u < p - delta).sum() + 0.5 * (abs(u - p) < delta).sum()
            results.append((names[i], names[j], score, 1000))
    ratings = fit_ratings(names, results)
    assert np.all((ratings.low <= true) & (true <= ratings.high)), (ratings.elo, ratings.width)
    # The 95% intervals' widths are Elo points of seeded games (no clock): 1,000 games a pair pin each rating to tens.
    elo_interval_widths = ratings.width[1:]
    assert np.all(elo_interval_widths < 100) and np.all(elo_interval_widths > 20)
    assert list(np.argsort(ratings.elo)) == [1, 0, 2, 3, 4]


def test_straight_wins_give_a_finite_rating_that_more_wins_raise():
    few = fit_ratings(["random", "x", "y"], [("x", "random", 20, 20), ("y", "random", 10, 20)])
    many = fit_ratings(["random", "x", "y"], [("x", "random", 200, 200), ("y", "random", 10, 20)])
    assert np.all(np.isfinite(many.high)) and few.elo[1] < many.elo[1] < 1500
    assert many.elo[1] > many.elo[2] and many.low[1] > many.high[2]
    lost = fit_ratings(["random", "x"], [("x", "random", 0, 50)])
    assert -1500 < lost.elo[1] < -400


@pytest.mark.parametrize("n", [10, 10**12, 10**15, MAX_GAMES])
def test_straight_wins_or_losses_get_the_exact_rating_of_n_games_and_one_virtual_draw(n):
    # With the prior, x scored n + 1/2 of n + 1 against the anchor: p = (n + 1/2) / (n + 1), log-odds ln(2n + 1).
    # Fitted with 1 - p rounded near p = 1, 10**12 wins came out 0.006 Elo off, 10**15 16 Elo, 2**53 singular.
    half = Z95 * ELO_PER_NAT / math.sqrt((n + 0.5) * 0.5 / (n + 1))  # the information is (n + 1) p (1 - p)
    for score, sign in ((n, 1), (0, -1)):
        ratings = fit_ratings(["random", "x"], [("x", "random", score, n)])
        assert ratings.elo[1] == pytest.approx(sign * ELO_PER_NAT * math.log(2 * n + 1), abs=1e-6)
        assert ratings.high[1] - ratings.elo[1] == pytest.approx(half, rel=1e-9)


def test_an_agent_without_games_sits_at_zero_with_the_priors_wide_interval():
    ratings = fit_ratings(["random", "x", "new"], [("x", "random", 30, 40)])
    assert ratings.elo[2] == pytest.approx(0, abs=1e-9)
    assert ratings.high[2] == pytest.approx(Z95 * ELO_PER_NAT * 2, rel=1e-6)  # one virtual draw: info 1/4
    assert ratings.as_dict()["new"] == {"elo": 0.0, "low": -681.0, "high": 681.0, "games": 0}


@pytest.mark.parametrize(
    ("names", "results", "prior", "message"),
    [
        (["a", "b"], [], 1.0, "include the anchor 'random'"),
        (["random", "a", "a"], [], 1.0, "distinct"),
        (["random", "a"], [], 0.0, "prior_draws"),
        (["random", "a"], [("a", "random", 5, 4)], 1.0, "impossible result: a scored 5 in 4 games"),
        (["random", "a"], [("a", "a", 1, 2)], 1.0, "impossible result: a scored 1 in 2 games against a"),
    ],
)
def test_bad_input_is_refused(names, results, prior, message):
    with pytest.raises(ValueError, match=message):
        fit_ratings(names, results, prior_draws=prior)


@pytest.mark.parametrize(
    ("score", "games"),
    [
        (5, math.inf),  # was fitted to NaN ratings
        (math.inf, math.inf),
        (5, MAX_GAMES + 2),  # counts past 2**53 are not exact in float64
        (math.nan, 10),
        (5, math.nan),
        (-1, 10),
        (0, -1),
    ],
)
def test_a_result_that_is_not_finite_or_outside_zero_to_games_is_refused_naming_its_pair(score, games):
    results = [("a", "random", 3, 4), ("b", "a", score, games), ("c", "random", 1, 2)]
    claimed = f"b scored {score} in {games} games against a, wanted 0 <= score <= games <= 2**53"
    with pytest.raises(ValueError, match=re.escape(f"impossible result: {claimed}")):
        fit_ratings(["random", "a", "b", "c"], results)
