"""Checks shared by the tabular tasks (GridWorld-v0, TabularBlackjack-v0) and the agents that read them.

A policy over a tabular env is a ``(nS, nA)`` array of action probabilities. The envs (GridWorld's overlay and
``format_policy``), dynamic programming (:mod:`agents.dp`) and Monte Carlo (:mod:`agents.mc`) all take one, so
its check lives here, below both layers: the envs may not import ``agents``.
"""

from __future__ import annotations

from typing import Any

import numpy as np

__all__ = ["MAX_SHOWN", "PROBABILITY_TOLERANCE", "check_policy"]

#: How far a row of probabilities may sum from 1 (float rounding of models and policies).
PROBABILITY_TOLERANCE = 1e-6
#: How many offending states an error message lists.
MAX_SHOWN = 10


def check_policy(policy: Any, num_states: int, num_actions: int) -> np.ndarray:
    """Return ``policy`` as a new float64 array after checking it is ``(num_states, num_actions)`` probability rows.

    The one check of a tabular policy: :mod:`agents.dp`, :mod:`agents.mc` and GridWorld's overlay use it.

    Raises:
        ValueError: on a non-numeric or wrongly shaped array, NaN or infinite entries, negative entries, or a
            row not summing to 1 (within 1e-6); the message names the offending states.
    """
    shape = (num_states, num_actions)
    try:
        array = np.array(policy, dtype=np.float64)
    except (TypeError, ValueError):
        raise ValueError(f"policy must be a {shape} array of action probabilities, got {policy!r:.80}") from None
    if array.shape != shape:
        raise ValueError(f"policy must have shape (nS, nA) = {shape}, got {array.shape}")
    if not np.isfinite(array).all():
        raise ValueError("policy holds NaN or infinite entries")
    negative = np.flatnonzero((array < 0).any(axis=1))
    if negative.size:
        raise ValueError(f"policy has negative probabilities in states {negative[:MAX_SHOWN].tolist()}")
    sums = array.sum(axis=1)
    bad = np.flatnonzero(np.abs(sums - 1.0) > PROBABILITY_TOLERANCE)
    if bad.size:
        shown = bad[:MAX_SHOWN]
        sums_shown = sums[shown].round(9).tolist()
        raise ValueError(
            f"policy rows must sum to 1 (action probabilities): states {shown.tolist()} sum to {sums_shown}"
        )
    return array
