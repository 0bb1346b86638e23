"""Gumbel AlphaZero's policy improvement: sequential halving at the root, completed Q-values below it.

Danihelka, Guez, Schrittwieser and Silver, "Policy improvement by planning with Gumbel" (ICLR 2022); the
design follows DeepMind's mctx (``gumbel_muzero_policy``). With few simulations, AlphaZero's visit counts
are a poor training target (with 16 simulations over 7 moves most counts are 0 or 1) and Dirichlet noise
at the root may even make the searched policy worse than the prior. Gumbel AlphaZero instead:

1. **At the root**, draws ``g(a) ~ Gumbel(0, 1)`` per legal move and considers the ``k`` moves with the
   largest ``g(a) + logits(a)`` (Gumbel-top-k: a sample without replacement from the prior). *Sequential
   halving* then spreads the ``n`` simulations over them in ``ceil(log2 k)`` rounds: every survivor gets the
   same visits in a round, and after it only the better half by ``g(a) + logits(a) + sigma(q(a))``
   survives. The move played is the last survivor, so self-play needs no other noise or temperature: the
   Gumbel draw *is* the exploration, and the choice provably improves on the prior in expectation.
2. **The training target** is the *improved policy* ``softmax(logits + sigma(completed_q))`` over all legal
   moves, not the visit counts: every move gets credit by its value, visited or not.
3. **Below the root** selection is deterministic: the child maximising
   ``pi'(a) - N(a) / (1 + sum_b N(b))``, with ``pi' = softmax(logits + sigma(completed_q))``, which makes the
   visit counts track the improved policy.

*Completed Q*: a visited move's mean value, and for an unvisited one the node's *mixed value*
``(v + sum_b N(b) * sum_{b visited} pi(b) q(b) / sum_{b visited} pi(b)) / (1 + sum_b N(b))``, ``v`` the
network's value of the node. Values are rescaled to ``[0, 1]`` by the min and max of the node's completed
Q-values, and ``sigma(q) = (c_visit + max_b N(b)) * c_scale * q`` (mctx's defaults: 50 and 0.1).

The functions here read a node of the search tree (:class:`agents.search.node.Node`) through its fields
(``priors``, ``children``, ``n``, ``q``, ``v``, ``proven``, ``player``) and return plain lists;
:class:`agents.search.tree.SearchTree` calls them when built with ``gumbel=True``.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

#: mctx's ``maxvisit_init``: sigma's scale starts there and grows with the most visited move.
C_VISIT = 50.0
#: mctx's ``value_scale``.
C_SCALE = 0.1
# A proven loss for the chooser is never selected; its completed Q is the loss itself.
_LOSS = -1.0


def halving_schedule(num_considered: int, n_simulations: int) -> list[int]:
    """Return, per simulation, the visit count a root move must have to be chosen (sequential halving).

    In each round every surviving move gets one more visit, in order of preference, so a simulation picks
    the best move that has exactly the scheduled visits; rounds repeat within a phase so that each phase
    spends about ``n / ceil(log2 k)`` simulations, and each phase halves the survivors (down to two).

    Args:
        num_considered: moves considered at the root (``k >= 1``).
        n_simulations: the simulation budget.
    """
    if num_considered <= 1:
        return list(range(n_simulations))
    phases = math.ceil(math.log2(num_considered))
    schedule: list[int] = []
    visits, survivors = 0, num_considered
    while len(schedule) < n_simulations:
        rounds = max(1, n_simulations // (phases * survivors))
        for _ in range(rounds):
            schedule.extend([visits] * survivors)
            visits += 1
        survivors = max(2, survivors // 2)
    return schedule[:n_simulations]


def completed_q(node: Any) -> list[float]:
    """Return the completed Q-value of each of ``node``'s moves (aligned with ``node.actions``), for its mover."""
    children, priors, p = node.children, node.priors, node.player
    visits = weighted = prior_mass = 0.0
    for child, prior in zip(children, priors, strict=True):
        if child is not None and child.n:
            visits += child.n
            weighted += prior * _child_q(child, p)
            prior_mass += prior
    mixed = (node.v + visits * weighted / prior_mass) / (1.0 + visits) if visits and prior_mass > 0 else node.v
    return [_child_q(child, p) if child is not None and child.n else mixed for child in children]


def _child_q(child: Any, player: int) -> float:
    """A child's value for ``player``: exact once proven, else its mean result."""
    proven = child.proven
    return proven[player] if proven is not None else child.q


def sigma(node: Any, q: Sequence[float]) -> list[float]:
    """Return ``sigma(q)``: Q rescaled to ``[0, 1]`` over the node's moves, times ``(c_visit + max N) * c_scale``."""
    low = min(q)
    span = max(q) - low
    if span <= 1e-12:
        return [0.0] * len(q)
    scale = (C_VISIT + max((child.n for child in node.children if child is not None), default=0)) * C_SCALE
    return [scale * (x - low) / span for x in q]


def improved_logits(node: Any) -> list[float]:
    """Return ``log prior + sigma(completed Q)`` per move of ``node`` (aligned with ``node.actions``)."""
    q = completed_q(node)
    return [(math.log(p) if p > 0 else -1e9) + s for p, s in zip(node.priors, sigma(node, q), strict=True)]


def _softmax(logits: Sequence[float]) -> list[float]:
    top = max(logits)
    exps = [math.exp(x - top) for x in logits]
    total = sum(exps)
    return [e / total for e in exps]


def improved_policy(node: Any) -> list[float]:
    """Return the improved policy ``softmax(logits + sigma(completed Q))`` over ``node``'s moves.

    Moves proven lost for the mover get 0 unless every move is (a learner copying them would copy a known
    mistake): the softmax runs over the other moves only. Renormalising after the softmax instead would
    divide by zero once those moves' probabilities underflow (priors of 0 beside a lost move holding all the
    mass, as a large learning rate makes them).
    """
    logits = improved_logits(node)
    lost = [_is_lost(child, node.player) for child in node.children]
    if not all(lost):
        logits = [-math.inf if dead else x for x, dead in zip(logits, lost, strict=True)]
    return _softmax(logits)


def _is_lost(child: Any, player: int) -> bool:
    return child is not None and child.proven is not None and child.proven[player] <= _LOSS


def select_child(node: Any) -> int:
    """Return the index of the move to follow below the root: ``argmax pi'(a) - N(a) / (1 + sum N)``."""
    policy = _softmax(improved_logits(node))
    total = sum(child.n for child in node.children if child is not None)
    scores = [
        -math.inf if _is_lost(child, node.player) else prob - (child.n if child is not None else 0) / (1.0 + total)
        for child, prob in zip(node.children, policy, strict=True)
    ]
    return max(range(len(scores)), key=scores.__getitem__)  # the first of equal scores


def root_scores(node: Any, gumbel: Sequence[float]) -> list[float]:
    """Return ``g(a) + logits(a) + sigma(q(a))`` per root move (proven losses get ``-inf``)."""
    return [
        -math.inf if _is_lost(child, node.player) else g + x
        for g, x, child in zip(gumbel, improved_logits(node), node.children, strict=True)
    ]


def _alive_moves(node: Any, gumbel: Sequence[float]) -> tuple[list[float], list[int], list[int]]:
    """The root's scores and visits per move, and the moves not proven lost (all of them if every one is)."""
    scores = root_scores(node, gumbel)
    visits = [child.n if child is not None else 0 for child in node.children]
    alive = [j for j in range(len(visits)) if scores[j] > -math.inf] or list(range(len(visits)))
    return scores, visits, alive


def root_choice(node: Any, gumbel: Sequence[float], considered_visits: int) -> int:
    """Return the root move for a simulation: the best-scored move with exactly ``considered_visits`` visits.

    If no move qualifies (a move got proven lost mid-round), the best of the least visited ones is taken.
    """
    scores, visits, alive = _alive_moves(node, gumbel)
    wanted = considered_visits if any(visits[j] == considered_visits for j in alive) else min(visits[j] for j in alive)
    return max((j for j in alive if visits[j] == wanted), key=lambda j: scores[j])


def final_choice(node: Any, gumbel: Sequence[float]) -> int:
    """Return the move to play: among the most visited moves, the best by ``g + logits + sigma(q)``."""
    scores, visits, alive = _alive_moves(node, gumbel)
    most = max(visits[j] for j in alive)
    return max((j for j in alive if visits[j] == most), key=lambda j: scores[j])
