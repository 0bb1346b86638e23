"""The episode loop's bookkeeping shared by the learners that train for a number of episodes (TD, Monte Carlo).

Both report progress in about 100 chunks and call a callback every ``callback_every`` episodes; the chunks
end at every callback point, so a callback sees the tables after exactly that many episodes.
"""

from __future__ import annotations

from collections.abc import Iterator

from gym_boardgames.checks import check_int


def check_callback(callback: object, callback_every: object) -> int:
    """Return how often to call ``callback``: ``callback_every`` (an integer >= 1) with one, else 0.

    Raises:
        ValueError: if ``callback_every`` is not an integer >= 0, or is 0 while a callback is given.
    """
    every = check_int("callback_every", callback_every, 0)
    if callback is not None and every == 0:
        raise ValueError("callback_every must be >= 1 when a callback is given, got 0")
    return every if callback is not None else 0


def episode_chunks(episodes: int, callback_every: int) -> Iterator[int]:
    """Split ``episodes`` into about 100 chunks (for progress), also ending at every callback point."""
    size = max(1, -(-episodes // 100))  # ceil: at most 100 chunks
    done = 0
    while done < episodes:
        n = min(size, episodes - done)
        if callback_every:
            n = min(n, callback_every - done % callback_every)
        done += n
        yield n
