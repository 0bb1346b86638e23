"""Elo ratings from game results: the Bradley-Terry maximum-likelihood fit, with 95% intervals.

The model (Bradley & Terry 1952; Elo's logistic form): agent ``i`` scores against ``j`` with probability
``p_ij = 1 / (1 + exp(theta_j - theta_i))``; a draw counts as half a win. ``theta`` is in natural-log odds,
shown on the Elo scale, ``400 / ln 10`` points per unit (400 points: odds of 10 to 1). Only differences are
identified, so one agent, the anchor (``random``), is fixed at 0.

The fit maximises the log-likelihood ``sum_ij S_ij log p_ij`` (``S_ij``: i's score against j) by Newton's
method with step halving: the gradient is ``S_i - sum_j N_ij p_ij`` and the information matrix (the negative
Hessian, equal to the Fisher information for this logistic model) is ``diag(sum_j W_ij) - W`` with
``W_ij = N_ij p_ij (1 - p_ij)``. The 95% intervals are ``theta_i +- 1.96 sqrt(C_ii)``, ``C`` the inverse
information with the anchor's row and column removed: each is the uncertainty of the agent's difference
from the anchor. They treat every game as a win or a loss, so where draws are common (a draw varies less
than a coin flip) they are wider than they need be: conservative.

An agent that won (or lost) every game has no finite maximum-likelihood rating. A weak prior keeps every
rating finite: each agent is also credited with ``prior_draws`` virtual draws against the anchor (one by
default, as BayesElo's prior is virtual draws). Its pull towards 0 on a rating fitted from ``n`` games
shrinks as ``1/n``; an agent with no games gets 0 with an interval of +-681 Elo.

Why numpy and not SciPy or a rating package, by measurement (10 agents, 45 pairs of 200 games, one agent
with 50 straight wins; ``docs/agents/ladder.md``): this Newton fit took 0.7 ms; ``scipy.optimize.minimize`` on
the same likelihood and gradient took 2.6 ms (L-BFGS-B) to 4.6 ms (BFGS), plus 0.4 s to import, and agreed
to within 0.0001 Elo. SciPy is a 35 MB wheel, 143 MB installed, needed nowhere else in the project. The
rating packages on PyPI either depend on SciPy (``choix``, which has no draws) or rate online, game by game
(``elote``, ``openskill``, ``trueskill``): not the maximum-likelihood fit over a set of results.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np

from gym_boardgames.checks import check_number

#: Elo points per unit of natural-log odds.
ELO_PER_NAT = 400 / math.log(10)
#: The two-sided 95% point of the normal distribution.
Z95 = 1.959963984540054
#: The most games one result may claim: counts are exact in float64 up to 2**53.
MAX_GAMES = 2**53


@dataclass(frozen=True)
class Ratings:
    """Fitted ratings, on the Elo scale with the anchor at 0.

    Attributes:
        names: the agents, in the order given to :func:`fit_ratings`.
        elo: ``[K]`` each agent's rating.
        low: ``[K]`` the lower end of its 95% interval.
        high: ``[K]`` the upper end.
        games: ``[K]`` the real games it played (virtual draws not counted).
    """

    names: tuple[str, ...]
    elo: np.ndarray
    low: np.ndarray
    high: np.ndarray
    games: np.ndarray

    @property
    def width(self) -> np.ndarray:
        """``[K]`` each interval's width in Elo (0 for the anchor)."""
        return self.high - self.low

    def as_dict(self) -> dict[str, dict[str, float]]:
        """A JSON-ready ``{name: {"elo", "low", "high", "games"}}``, ratings rounded to 0.1 Elo."""
        return {
            name: {"elo": round(float(e), 1), "low": round(float(lo), 1), "high": round(float(hi), 1), "games": int(n)}
            for name, e, lo, hi, n in zip(self.names, self.elo, self.low, self.high, self.games, strict=True)
        }


def fit_ratings(
    names: Sequence[str],
    results: Iterable[tuple[str, str, float, int]],
    anchor: str = "random",
    prior_draws: float = 1.0,
) -> Ratings:
    """Fit the Bradley-Terry ratings of ``names`` to ``results`` (see the module's docstring).

    Args:
        names: the agents, ``anchor`` among them.
        results: ``(a, b, score, games)`` items: ``a`` scored ``score`` (wins + draws / 2) in ``games`` games
            against ``b``. Items naming an agent outside ``names`` are skipped; several items of one pair add up.
        anchor: the agent fixed at 0 Elo.
        prior_draws: virtual draws of each agent against the anchor, > 0 (a tiny value gives the plain
            maximum likelihood where it is finite).

    Returns:
        The ratings and their 95% intervals.

    Raises:
        ValueError: if ``anchor`` is not in ``names``, a name repeats, ``prior_draws <= 0``, or a result is
            impossible (a pair of one agent, NaN, a score outside ``[0, games]``, games above ``MAX_GAMES``).
    """
    index = {name: i for i, name in enumerate(names)}
    if len(index) != len(names) or anchor not in index:
        raise ValueError(f"names must be distinct and include the anchor {anchor!r}, got {list(names)}")
    check_number("prior_draws", prior_draws, 0, math.inf, low_open=True)
    k, a0 = len(names), index[anchor]
    # score[i, j]: i's score against j, so i and j played score[i, j] + score[j, i] games
    score, games = np.zeros((k, k)), np.zeros(k)
    for a, b, s, n in results:
        if a in index and b in index:
            if a == b or not 0 <= s <= n <= MAX_GAMES:  # NaN fails every comparison
                raise ValueError(
                    f"impossible result: {a} scored {s} in {n} games against {b}, wanted 0 <= score <= games <= 2**53"
                )
            i, j = index[a], index[b]
            score[[i, j], [j, i]] += (s, n - s)
            games[[i, j]] += n
    score[:, a0] += prior_draws / 2  # the prior's draws with the anchor
    score[a0, :] += prior_draws / 2
    np.fill_diagonal(score, 0)
    free, theta = np.arange(k) != a0, np.zeros(k)

    def log_likelihood(t: np.ndarray) -> float:
        return float(-(score * np.logaddexp(0, t[None, :] - t[:, None])).sum())

    def information(t: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        p = 1 / (1 + np.exp(t[None, :] - t[:, None]))  # p.T = 1 - p, without its rounding near p = 1
        w = (score + score.T) * p * p.T
        return (score * p.T - score.T * p).sum(1)[free], (np.diag(w.sum(1)) - w)[np.ix_(free, free)]

    current = log_likelihood(theta)
    for _ in range(100):
        gradient, info = information(theta)
        step = np.linalg.solve(info, gradient)  # the prior makes info positive definite
        for _ in range(50):  # halve the step until the likelihood does not fall: Newton may overshoot far out
            trial = theta.copy()
            trial[free] += step
            if (value := log_likelihood(trial)) >= current:
                break
            step /= 2
        theta, current = trial, value
        if np.abs(step).max() < 1e-9:
            break
    se = np.zeros(k)
    se[free] = np.sqrt(np.diag(np.linalg.inv(information(theta)[1])))
    elo, half = theta * ELO_PER_NAT, Z95 * se * ELO_PER_NAT
    return Ratings(tuple(names), elo, elo - half, elo + half, games)
