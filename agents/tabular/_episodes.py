"""The episode loop shared by the learners that train for a number of episodes (TD, Monte Carlo).

Both report progress in about 100 chunks and call a callback every ``callback_every`` episodes; the chunks
end at every callback point, so a callback sees the tables after exactly that many episodes.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from typing import Any

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


def run_episodes(
    episodes: int,
    run: Callable[[int, int], None],
    progress: Callable[[int], None] | None,
    callback: Callable[..., None] | None = None,
    callback_every: int = 0,
    tables: Callable[[], Sequence[Any]] = tuple,
) -> None:
    """Play ``episodes`` as ``run(first, n)`` calls, ``n`` episodes numbered from ``first``, one per chunk.

    After a chunk, ``callback(episodes done, *tables())`` runs at every callback point (``callback_every`` as
    :func:`check_callback` returns it), then ``progress(n)``: a bar reaches 100% only once the last
    callback is done too, so its time is the whole run's.
    """
    done = 0
    for n in episode_chunks(episodes, callback_every):
        run(done, n)
        done += n
        if callback is not None and done % callback_every == 0:
            callback(done, *tables())
        if progress is not None:
            progress(n)
