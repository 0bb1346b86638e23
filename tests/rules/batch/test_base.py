"""gym_boardgames.rules.batch.base: ``random_legal_actions`` reads each row's own mask, on each of its three
paths (one 12-action chunk, two chunks, a running count past 24 actions).

Its uniformity over one repeated mask, and the batches' payoffs and memory limit, are tested with the batches
(tests/rules/test_batch.py, tests/rules/test_common.py).
"""

import numpy as np
import pytest

from gym_boardgames.rules.batch import random_legal_actions

#: Mask widths on each path: one chunk (up to 12), two chunks (13 to 24), the running count (over 24).
WIDTHS = [1, 9, 12, 13, 20, 24, 25, 42, 225]


@pytest.mark.parametrize("num_actions", WIDTHS)
@pytest.mark.parametrize("dtype", [np.int8, bool, np.float32])
def test_every_row_gets_a_move_legal_in_its_own_row(num_actions, dtype):
    rng = np.random.default_rng(num_actions)
    mask = rng.random((5000, num_actions)) < rng.random((5000, 1))  # from nearly empty to nearly full rows
    actions = random_legal_actions(mask.astype(dtype), rng)
    assert actions.shape == (5000,) and np.issubdtype(actions.dtype, np.integer)
    some = mask.any(axis=1)
    assert mask[np.flatnonzero(some), actions[some]].all()
    assert (actions[~some] == 0).all()  # a row with no legal move gets action 0


@pytest.mark.parametrize("num_actions", WIDTHS)
def test_a_row_with_one_legal_move_always_gets_it(num_actions):
    only = np.arange(2000) % num_actions
    mask = np.zeros((2000, num_actions), dtype=np.int8)
    mask[np.arange(2000), only] = 1
    np.testing.assert_array_equal(random_legal_actions(mask, np.random.default_rng(0)), only)


def test_rows_legal_only_in_the_second_chunk_or_across_both_draw_from_all_their_moves():
    mask = np.zeros((30_000, 20), dtype=np.int8)
    mask[:10_000, 15:18] = 1  # the second 12-action chunk only
    mask[10_000:20_000, [2, 19]] = 1  # one move in each chunk
    mask[20_000:, 11:13] = 1  # the last of the first chunk and the first of the second
    actions = random_legal_actions(mask, np.random.default_rng(4))
    for rows, moves in (
        (slice(0, 10_000), [15, 16, 17]),
        (slice(10_000, 20_000), [2, 19]),
        (slice(20_000, None), [11, 12]),
    ):
        counts = np.bincount(actions[rows], minlength=20)
        assert set(np.flatnonzero(counts)) == set(moves)
        expected = 10_000 / len(moves)
        assert np.all(np.abs(counts[moves] - expected) < 5 * np.sqrt(expected))  # 5 sigma: only a real bias fails


def test_one_float_per_row_is_drawn_so_a_seed_replays_the_moves():
    mask = np.ones((100, 30), dtype=np.int8)
    rng = np.random.default_rng(9)
    first = random_legal_actions(mask, rng)
    after = rng.random()
    again = np.random.default_rng(9)
    np.testing.assert_array_equal(random_legal_actions(mask, again), first)
    assert again.random() == after
