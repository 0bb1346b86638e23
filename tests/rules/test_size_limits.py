"""Board sizes: every size up to the documented limit builds at once, every larger one is refused.

The limits are ``MAX_BOARD_SIDE`` (64) for ConnectN rows and columns, ``MAX_DOTS_SIDE`` (32) boxes for Dots
and Boxes, and ``MAX_BATCH_BYTES`` for the state of a batch of games.
"""

import re
import time

import gymnasium as gym
import numpy as np
import pytest

import gym_boardgames
from gym_boardgames.rules import ConnectN, DotsAndBoxes, board_geometry
from gym_boardgames.rules.batch import MAX_BATCH_BYTES, ConnectNBatch, DotsAndBoxesBatch, connect_tables
from gym_boardgames.rules.common import MAX_BOARD_SIDE, MAX_DOTS_SIDE

gym.register_envs(gym_boardgames)

#: Generous for a loaded 2-core machine; before the fix the 64x64 geometry alone took 1.8 s on a quiet one.
FAST = 1.0


def _timed(build):
    start = time.perf_counter()
    result = build()
    return result, time.perf_counter() - start


@pytest.mark.parametrize(
    "kwargs",
    [
        {"rows": 10**6, "cols": 10**6},
        {"rows": 1000, "cols": 1000},
        {"rows": 1, "cols": 10**6, "n": 2},
        {"rows": 65, "cols": 7},
        {"rows": 6, "cols": MAX_BOARD_SIDE + 1, "gravity": False},
    ],
)
def test_connectn_over_the_limit_is_refused_at_once_naming_it(kwargs):
    start = time.perf_counter()
    with pytest.raises(ValueError, match=f"at most {MAX_BOARD_SIDE} \\(the documented limit\\)"):
        ConnectN(**kwargs)
    assert time.perf_counter() - start < FAST


@pytest.mark.parametrize("kwargs", [{"rows": 10**6, "cols": 10**6}, {"rows": 33, "cols": 1}, {"rows": 1, "cols": 33}])
def test_dots_over_the_limit_is_refused_at_once_naming_it(kwargs):
    start = time.perf_counter()
    with pytest.raises(ValueError, match=f"at most {MAX_DOTS_SIDE} \\(the documented limit\\)"):
        DotsAndBoxes(**kwargs)
    assert time.perf_counter() - start < FAST


@pytest.mark.parametrize(
    ("n", "gravity"), [(5, True), (5, False), (MAX_BOARD_SIDE, True), (MAX_BOARD_SIDE, False), (1, False), (2, True)]
)
def test_the_largest_connectn_boards_build_and_batch_quickly(n, gravity):
    side = MAX_BOARD_SIDE
    board_geometry.cache_clear()
    connect_tables.cache_clear()
    game, seconds = _timed(lambda: ConnectN(side, side, n, gravity))
    assert seconds < FAST
    batch, seconds = _timed(lambda: ConnectNBatch(game, 2))
    assert seconds < FAST
    assert batch.board.shape == (2, side * side)


@pytest.mark.parametrize(("rows", "cols", "n"), [(3, 3, 3), (6, 7, 4), (5, 4, 2), (4, 6, 1), (1, 9, 3), (7, 1, 7)])
def test_win_lines_are_every_line_once(rows, cols, n):
    """The linear construction finds the same lines as a brute-force scan over cells and directions."""
    expected = set()
    for r in range(rows):
        for c in range(cols):
            for dr, dc in ((0, 1), (1, 0), (1, 1), (1, -1)):
                cells = [(r + dr * i, c + dc * i) for i in range(n)]
                if all(0 <= rr < rows and 0 <= cc < cols for rr, cc in cells):
                    expected.add(tuple(rr * cols + cc for rr, cc in cells))
    lines = board_geometry(rows, cols, n).lines
    assert len(lines) == len(set(lines)) == len(expected)
    assert set(lines) == expected


def test_line_counts_of_the_largest_board():
    # Per direction (64 - n + 1) lines per row or column, times 64 (rows/cols) or (64 - n + 1) (diagonals).
    k = MAX_BOARD_SIDE - 5 + 1
    assert len(board_geometry(MAX_BOARD_SIDE, MAX_BOARD_SIDE, 5).lines) == 2 * k * MAX_BOARD_SIDE + 2 * k * k
    assert len(board_geometry(MAX_BOARD_SIDE, MAX_BOARD_SIDE, 1).lines) == MAX_BOARD_SIDE**2


def test_num_keys_is_computed_on_first_use():
    game = ConnectN(MAX_BOARD_SIDE, MAX_BOARD_SIDE, 5)
    assert "num_keys" not in vars(game)
    assert ConnectN(3, 3, 3, gravity=False).num_keys == 3**9
    assert game.num_keys == 3 ** (MAX_BOARD_SIDE**2)
    with pytest.warns(DeprecationWarning, match="use num_keys"):
        assert game.n_keys == game.num_keys


def test_the_largest_dots_board_builds_quickly():
    game, seconds = _timed(lambda: DotsAndBoxes(MAX_DOTS_SIDE, MAX_DOTS_SIDE))
    assert seconds < FAST
    assert game.num_edges == 2 * MAX_DOTS_SIDE * (MAX_DOTS_SIDE + 1)
    assert DotsAndBoxesBatch(game, 2).edges.shape == (2, game.num_edges)


def test_batch_bitboards_on_a_large_board_agree_with_the_scalar_rules():
    """Random games on 64x64 with n=3 end with the same winner in the batch and in the scalar rules."""
    game = ConnectN(MAX_BOARD_SIDE, MAX_BOARD_SIDE, 3, gravity=False)
    batch = ConnectNBatch(game, 4)
    rng = np.random.default_rng(1)
    states = [game.initial_state()] * 4
    for _ in range(400):
        live = [i for i, s in enumerate(states) if not game.is_terminal(s)]
        if not live:
            break
        actions = np.zeros(4, dtype=np.intp)
        for i in live:
            actions[i] = rng.choice(game.legal_actions(states[i]))
            states[i] = game.apply(states[i], int(actions[i]))
        moving = np.zeros(4, dtype=bool)
        moving[live] = True
        batch.play(actions, moving)
    for i, state in enumerate(states):
        assert batch.state(i) == state


@pytest.mark.parametrize("env_id", ["ConnectN-v0", "DotsAndBoxes-v0"])
def test_vector_envs_inherit_the_size_limits(env_id):
    start = time.perf_counter()
    with pytest.raises(ValueError, match="the documented limit"):
        gym.make_vec(env_id, num_envs=2, vectorization_mode="vector_entry_point", rows=1000, cols=1000)
    assert time.perf_counter() - start < FAST


@pytest.mark.parametrize("env_id", ["TicTacToe-v0", "ConnectFour-v0", "ConnectN-v0", "DotsAndBoxes-v0"])
def test_a_huge_num_envs_is_refused_before_allocating(env_id):
    start = time.perf_counter()
    with pytest.raises(ValueError, match="MAX_BATCH_BYTES"):
        gym.make_vec(env_id, num_envs=10**12, vectorization_mode="vector_entry_point")
    assert time.perf_counter() - start < FAST


def test_the_largest_batch_that_fits_is_accepted():
    game = ConnectN(MAX_BOARD_SIDE, MAX_BOARD_SIDE, 5, gravity=False)
    with pytest.raises(ValueError, match=r"at most (\d+) fit") as info:
        ConnectNBatch(game, 10**9)
    most = int(re.search(r"at most (\d+) fit", str(info.value)).group(1))
    assert 1000 < most < MAX_BATCH_BYTES
    ConnectNBatch(game, 64)  # zeroed arrays: cheap until touched


@pytest.mark.parametrize(
    ("env_id", "kwargs"),
    [
        ("ConnectN-v0", {"rows": MAX_BOARD_SIDE, "cols": MAX_BOARD_SIDE, "n": 5, "gravity": True}),
        ("ConnectN-v0", {"rows": MAX_BOARD_SIDE, "cols": MAX_BOARD_SIDE, "n": MAX_BOARD_SIDE, "gravity": False}),
        ("DotsAndBoxes-v0", {"rows": MAX_DOTS_SIDE, "cols": MAX_DOTS_SIDE}),
    ],
)
def test_envs_at_the_largest_sizes_reset_and_step(env_id, kwargs):
    env = gym.make(env_id, **kwargs)
    _, info = env.reset(seed=0)
    start = time.perf_counter()
    rng = np.random.default_rng(0)
    for _ in range(20):
        _, _, terminated, truncated, info = env.step(int(rng.choice(np.flatnonzero(info["action_mask"]))))
        if terminated or truncated:
            _, info = env.reset()
    assert time.perf_counter() - start < FAST
    vec = gym.make_vec(env_id, num_envs=3, vectorization_mode="vector_entry_point", **kwargs)
    vec.reset(seed=0)
    for _ in range(20):
        vec.step(vec.action_space.sample())
    vec.close()
    env.close()
