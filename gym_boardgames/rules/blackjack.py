"""Blackjack's states and exact model under Sutton and Barto's rules (Gymnasium ``Blackjack-v1``, ``sab=True``).

Pure Python and numpy: no Gymnasium, no dealing. :class:`gym_boardgames.envs.blackjack.TabularBlackjackEnv` plays
Gymnasium's game and names each observation ``(player_sum, dealer_card, usable_ace)`` by one state index with
:func:`encode` (:func:`decode` goes back); :func:`blackjack_model` gives the exact infinite-deck model
``P[s][a] = [(prob, next_s, reward, terminated), ...]`` in the format of Gymnasium's toy_text environments and the
initial-state distribution of the deal, so dynamic programming solves the game exactly and Monte Carlo estimates
can be checked against the truth; :func:`dealer_outcomes` is the dealer's play it rests on.

State index layout (``N_STATES = 291``; ``d`` is the dealer's showing card, 1 = ace ... 10; ``t`` the
player's total):

* ``0..179``: hard total ``t`` = 4..21 at ``(t - 4) * 10 + d - 1``, decoding to ``(t, d, 0)``;
* ``180..279``: soft total ``t`` = 12..21 (a drawn soft 21, not a natural) at
  ``180 + (t - 12) * 10 + d - 1``, decoding to ``(t, d, 1)``;
* ``280..289``: a natural (ace + ten on the deal) at ``280 + d - 1``, also decoding to ``(21, d, 1)``;
* ``290``: ``TERMINAL``, absorbing; ``decode`` raises for it.

Why these states: the deal can show any hard total from 4 (2 + 2) to 20 and any soft total from 12
(ace + ace) to 21; hitting adds hard 21 and soft 21 without a natural. A hand below 12 never holds an
ace (an ace would count 11 and make the total soft), so hard totals 4..11 are ace-free and the table
above is every observation a live episode can show.

Why a separate natural: with ``sab=True`` a natural that sticks wins +1 unless the dealer also has a
natural (then 0), while any other soft 21 that sticks draws against every dealer 21, the dealer's
three-card 21s included. Both are observed as ``(21, d, 1)``, so one index for both would not be Markov
for the reward. The env tells them apart without looking at the cards: the only two-card soft 21
is ace + ten, so ``(21, d, 1)`` from ``reset`` is always a natural, and after a hit the hand has three
or more cards, so ``(21, d, 1)`` from ``step`` never is. Hitting a natural leads where hitting any soft
21 does (hard 12..21).

Why one terminal index: every ending (stick or bust) moves to ``TERMINAL``, which is absorbing with
reward 0, as holes and goals are in toy_text. Dynamic programming is then right whether or not it
honours the ``terminated`` flag. Gymnasium's final observation (e.g. a bust total of 26) stays
available in the env's ``info["raw_obs"]``.

Value iteration on ``P`` gives the book's optimal policy (Figure 5.2) and an expected return from the
deal of ``initial_state_distrib @ V* = -0.0431131`` (tests check it to 1e-9 against an independent
expectimax).
"""

from __future__ import annotations

from fractions import Fraction
from functools import cache

import numpy as np

from gym_boardgames.checks import check_int

__all__ = [
    "CARD_PROBS",
    "HIT",
    "N_ACTIONS",
    "N_STATES",
    "NATURAL_OFFSET",
    "STICK",
    "TERMINAL",
    "blackjack_model",
    "card_label",
    "dealer_outcomes",
    "decode",
    "encode",
    "is_natural_state",
]

#: The actions, as ``Blackjack-v1`` numbers them.
STICK = 0
HIT = 1
N_ACTIONS = 2
N_DEALER_CARDS = 10
HARD_SUMS = range(4, 22)
SOFT_SUMS = range(12, 22)
HARD_OFFSET = 0
SOFT_OFFSET = HARD_OFFSET + len(HARD_SUMS) * N_DEALER_CARDS  # 180
NATURAL_OFFSET = SOFT_OFFSET + len(SOFT_SUMS) * N_DEALER_CARDS  # 280
TERMINAL = NATURAL_OFFSET + N_DEALER_CARDS  # 290
N_STATES = TERMINAL + 1  # 291

# The infinite deck: ace (1) to nine once each in 13, ten and the three faces (all worth 10) 4 in 13.
CARD_PROBS: tuple[tuple[int, Fraction], ...] = tuple(
    (card, Fraction(4 if card == 10 else 1, 13)) for card in range(1, 11)
)

Transition = tuple[float, int, float, bool]
Model = dict[int, dict[int, list[Transition]]]


def encode(player_sum: int, dealer_card: int, usable_ace: int | bool, natural: bool = False) -> int:
    """Return the state index of a Gymnasium observation (see the module docstring for the layout).

    Args:
        player_sum: the player's total, 4..21 (12..21 with a usable ace).
        dealer_card: the dealer's showing card, 1 (ace) .. 10.
        usable_ace: 1 (or True) if the player counts an ace as 11.
        natural: True for a dealt ace + ten; only valid with ``(21, d, 1)``.

    Returns:
        The index in ``range(N_STATES - 1)`` (never ``TERMINAL``).

    Raises:
        ValueError: if the observation is not one a live episode can show.
    """
    index = _observation_index().get((player_sum, dealer_card, usable_ace, bool(natural)))
    if index is None:
        raise ValueError(
            f"no state for observation {(player_sum, dealer_card, usable_ace)}{' as a natural' if natural else ''}: "
            "player sums are 4..21 without a usable ace and 12..21 with one (a natural is 21 with one), dealer "
            "cards 1..10"
        )
    return index


def decode(state: int) -> tuple[int, int, int]:
    """Return Gymnasium's ``(player_sum, dealer_card, usable_ace)`` for a non-terminal state index.

    A natural decodes to ``(21, d, 1)``, like any other soft 21; use :func:`is_natural_state` to tell.

    Raises:
        ValueError: for ``TERMINAL`` (it has no observation) or an index out of range.
    """
    return _all_observations()[check_int("decode's state (a non-terminal index)", state, 0, TERMINAL - 1)][:3]


def is_natural_state(state: int) -> bool:
    """True for the ten natural indices (``NATURAL_OFFSET .. NATURAL_OFFSET + 9``)."""
    return NATURAL_OFFSET <= state < TERMINAL


@cache
def _observation_index() -> dict[tuple[int, int, int, bool], int]:
    """Every observation with a state (:func:`_all_observations`), by its index."""
    return {observation: index for index, observation in enumerate(_all_observations())}


@cache
def _all_observations() -> tuple[tuple[int, int, int, bool], ...]:
    """Every ``(player_sum, dealer_card, usable_ace, natural)`` with a state, in index order."""
    out = [(t, d, 0, False) for t in HARD_SUMS for d in range(1, 11)]
    out += [(t, d, 1, False) for t in SOFT_SUMS for d in range(1, 11)]
    return tuple(out + [(21, d, 1, True) for d in range(1, 11)])


def _add_card(total: int, soft: bool, card: int) -> tuple[int, bool]:
    """Return ``(total, soft)`` after adding ``card``; a total above 21 is a bust.

    A hard total below 12 holds no ace, so a new ace there counts 11; a soft total falls back to hard
    (the ace counting 1) when the card would take it over 21.
    """
    if soft:
        total += card
        return (total, True) if total <= 21 else (total - 10, False)
    if card == 1 and total <= 10:
        return total + 11, True
    return total + card, False


@cache
def _dealer_from(total: int, soft: bool) -> tuple[tuple[int, Fraction], ...]:
    """Distribution of the dealer's final total (17..21, or 22 for any bust) from ``(total, soft)``.

    The dealer hits below 17 and stands on every 17, soft 17 included, as ``Blackjack-v1`` does.
    """
    if total >= 17:
        return ((min(total, 22), Fraction(1)),)
    dist: dict[int, Fraction] = {}
    for card, p in CARD_PROBS:
        for final, q in _dealer_from(*_add_card(total, soft, card)):
            dist[final] = dist.get(final, Fraction(0)) + p * q
    return tuple(sorted(dist.items()))


@cache
def dealer_outcomes(dealer_card: int) -> dict[str, Fraction]:
    """Exact distribution of the dealer's result given the showing card.

    Args:
        dealer_card: 1 (ace) .. 10.

    Returns:
        Probabilities (exact fractions) keyed ``"natural"`` (ace + ten as the first two cards),
        ``"17"`` .. ``"21"`` (final totals, a natural excluded) and ``"bust"``; they sum to 1.
    """
    out = {key: Fraction(0) for key in ("natural", "17", "18", "19", "20", "21", "bust")}
    up_total, up_soft = _add_card(0, False, dealer_card)
    for hole, p in CARD_PROBS:
        if {dealer_card, hole} == {1, 10}:
            out["natural"] += p
            continue
        for final, q in _dealer_from(*_add_card(up_total, up_soft, hole)):
            out["bust" if final > 21 else str(final)] += p * q
    return out


def _stick_outcomes(player_sum: int, natural: bool, dealer_card: int) -> dict[float, Fraction]:
    """Reward distribution for sticking, keyed by reward (+1, 0, -1).

    With ``sab=True`` a natural wins unless the dealer has one too (a draw). Any other hand compares
    totals, a dealer bust counting 0, so a dealer natural is simply a dealer 21.
    """
    dealer = dealer_outcomes(dealer_card)
    if natural:
        return {1.0: 1 - dealer["natural"], 0.0: dealer["natural"]}
    finals = {int(key): p for key, p in dealer.items() if key.isdigit()}
    finals[21] += dealer["natural"]
    win = dealer["bust"] + sum(p for total, p in finals.items() if total < player_sum)
    draw = finals.get(player_sum, Fraction(0))
    return {1.0: win, 0.0: draw, -1.0: 1 - win - draw}


def _merge(outcomes: dict[tuple[int, float, bool], Fraction]) -> list[Transition]:
    """Toy_text rows, one entry per distinct ``(next_s, reward, terminated)``, zero probabilities dropped."""
    return [(float(p), s, r, t) for (s, r, t), p in outcomes.items() if p > 0]


def _hit_row(player_sum: int, soft: bool, dealer_card: int) -> list[Transition]:
    outcomes: dict[tuple[int, float, bool], Fraction] = {}
    for card, p in CARD_PROBS:
        total, new_soft = _add_card(player_sum, soft, card)
        key = (TERMINAL, -1.0, True) if total > 21 else (encode(total, dealer_card, int(new_soft)), 0.0, False)
        outcomes[key] = outcomes.get(key, Fraction(0)) + p
    return _merge(outcomes)


def _stick_row(player_sum: int, natural: bool, dealer_card: int) -> list[Transition]:
    rewards = _stick_outcomes(player_sum, natural, dealer_card)
    return _merge({(TERMINAL, reward, True): p for reward, p in rewards.items()})


def blackjack_model() -> tuple[Model, np.ndarray]:
    """Build the exact infinite-deck model of ``Blackjack-v1`` with ``sab=True``.

    Probabilities are computed as exact fractions (the dealer's play resolved by recursion over its
    total) and only then rounded to float, so every row sums to 1 within float rounding.

    Returns:
        ``(P, initial_state_distrib)``. ``P[s][a]`` is a list of ``(prob, next_s, reward, terminated)``
        for ``a`` in ``STICK = 0``, ``HIT = 1``; ``P[TERMINAL][a] = [(1.0, TERMINAL, 0.0, True)]``.
        ``initial_state_distrib`` is a float array of length ``N_STATES``: the probability that the deal
        (two player cards and the dealer's showing card) starts in each state. The expected return of a
        policy from the deal is ``initial_state_distrib @ V``.
    """
    rows, mu = _exact_model()
    # Fresh lists for every caller: P is a plain mutable dict, as toy_text's is.
    P: Model = {s: {a: list(outcomes) for a, outcomes in enumerate(actions)} for s, actions in enumerate(rows)}
    return P, np.array(mu)


@cache
def _exact_model() -> tuple[tuple[tuple[tuple[Transition, ...], ...], ...], tuple[float, ...]]:
    """The model once per process, as immutable tuples (the fractions take tens of milliseconds)."""
    rows = [
        (tuple(_stick_row(total, natural, dealer_card)), tuple(_hit_row(total, bool(soft), dealer_card)))
        for total, dealer_card, soft, natural in _all_observations()
    ]
    absorbing = ((1.0, TERMINAL, 0.0, True),)
    rows.append((absorbing,) * N_ACTIONS)
    mu = [Fraction(0)] * N_STATES
    for dealer_card, p_dealer in CARD_PROBS:
        for first, p1 in CARD_PROBS:
            for second, p2 in CARD_PROBS:
                total, soft = _add_card(*_add_card(0, False, first), second)
                natural = {first, second} == {1, 10}
                mu[encode(total, dealer_card, int(soft), natural=natural)] += p_dealer * p1 * p2
    return tuple(rows), tuple(float(p) for p in mu)


def card_label(card: int) -> str:
    """The label of a card value as Gymnasium deals it: ``"A"`` for 1, else the number (a ten or a face is 10)."""
    return "A" if card == 1 else str(card)
