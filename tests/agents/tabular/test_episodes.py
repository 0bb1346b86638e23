"""Tests of agents.tabular._episodes: the progress chunks and the callback check TD and Monte Carlo share."""

from __future__ import annotations

import pytest

from agents.tabular._episodes import check_callback, episode_chunks


@pytest.mark.parametrize("episodes", [1, 7, 99, 100, 101, 1000, 12345])
def test_chunks_cover_the_run_in_at_most_100_parts(episodes: int) -> None:
    chunks = list(episode_chunks(episodes, 0))
    assert sum(chunks) == episodes and len(chunks) <= 100 and min(chunks) >= 1


def test_chunks_end_at_every_callback_point() -> None:
    ends, done = set(), 0
    for n in episode_chunks(1000, 30):
        done += n
        ends.add(done)
    assert {30 * k for k in range(1, 34)} <= ends and done == 1000


def test_callback_every_is_checked_and_ignored_without_a_callback() -> None:
    assert check_callback(print, 5) == 5 and check_callback(None, 5) == 0
    with pytest.raises(ValueError, match="callback_every must be >= 1 when a callback is given, got 0"):
        check_callback(print, 0)
    with pytest.raises(ValueError, match=r"callback_every must be an integer >= 0, got -1"):
        check_callback(None, -1)
