"""A seeded reset against a named opponent, timed beside an unseeded one: ``scripts/bench.py --resets``.

An env builds its named opponent once, when it is made, and reseeds it at each ``reset(seed=...)``
(docs/design.md, "Named opponents"); before that, every seeded reset built the agent again from its name, and
``alphazero`` read and checked its model file each time (6 to 11 ms a reset). Timed, on ConnectFour-v0 against
``alphazero:0`` (the shipped model; the agent moves first, so the opponent plays no move inside the reset):

- **seeded**: ``reset(seed=i)``, a new seed each time;
- **unseeded**: ``reset()``;
- **selfplay_seeded**: ``reset(seed=i)`` of the same game with ``opponent=None``: Gymnasium's own seeding of
  ``np_random``, the floor under any seeded reset.

Each is the mean over ``resets`` calls; the three run in turn within each repeat, and the median of the repeats
is reported, with the ratios of the medians.
"""

from __future__ import annotations

import statistics
import time
from typing import Any

ENV_ID, OPPONENT = "ConnectFour-v0", "alphazero:0"


def reset_timings(repeats: int, resets: int) -> dict[str, Any]:
    """Return the median microseconds of a seeded, an unseeded and a self-play seeded reset, and their ratios."""
    import gymnasium as gym

    import gym_boardgames  # noqa: F401  (registers the ids)

    named = gym.make(ENV_ID, opponent=OPPONENT).unwrapped
    selfplay = gym.make(ENV_ID, opponent=None).unwrapped
    workloads = {
        "seeded": lambda i: named.reset(seed=i),
        "unseeded": lambda i: named.reset(),
        "selfplay_seeded": lambda i: selfplay.reset(seed=i),
    }
    runs: dict[str, list[float]] = {name: [] for name in workloads}
    for reset in workloads.values():  # warm-up: first imports and caches
        for i in range(min(resets, 100)):
            reset(i)
    for repeat in range(repeats):
        for name, reset in workloads.items():
            seeds = range(repeat * resets, (repeat + 1) * resets)  # new seeds every time
            start = time.perf_counter()
            for i in seeds:
                reset(i)
            runs[name].append((time.perf_counter() - start) / resets * 1e6)
    us = {name: statistics.median(times) for name, times in runs.items()}
    return {
        "env": ENV_ID,
        "opponent": OPPONENT,
        "resets_per_run": resets,
        "repeats": repeats,
        **{f"{name}_reset_us": round(value, 2) for name, value in us.items()},
        "seeded_over_unseeded": round(us["seeded"] / us["unseeded"], 2),
        "seeded_over_selfplay_seeded": round(us["seeded"] / us["selfplay_seeded"], 2),
    }
