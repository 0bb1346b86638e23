"""Board sizes: every size up to the documented limit builds at once, every larger one is refused.

The limits are ``MAX_BOARD_SIDE`` (64) for ConnectN rows and columns, ``MAX_DOTS_SIDE`` (32) boxes for Dots
and Boxes, and ``MAX_BATCH_BYTES`` for the state of a batch of games.
"""

import re

import gymnasium as gym
import numpy as np
import pytest

import gym_boardgames
import gym_boardgames.rules.connect as connect_rules
import gym_boardgames.rules.dots as dots_rules
from gym_boardgames.checks import check_action
from gym_boardgames.rules import ConnectN, DotsAndBoxes, TicTacToe, board_geometry
from gym_boardgames.rules.batch import (
    MAX_BATCH_BYTES,
    ConnectNBatch,
    DotsAndBoxesBatch,
    connect_tables,
    random_legal_actions,
)
from gym_boardgames.rules.common import MAX_BOARD_SIDE, MAX_DOTS_SIDE

gym.register_envs(gym_boardgames)

# Work is counted in Python lines run and bytes allocated (tests/work_budget.py), never timed: the counts are
# the same on a busy machine as on a quiet one.
#: A refusal runs some hundred lines (the first gym.make_vec of an id a few thousand, for gymnasium's lookups)
#: and allocates some KB. The sizes refused would run millions of lines (a 1000x1000 board has 4 million win
#: lines) or allocate terabytes (10**12 games), so a refusal over these bounds is one that started the work.
REFUSAL_LINES = 50_000
REFUSAL_BYTES = 16 * 2**20
#: The largest board's geometry takes about 280,000 lines and its batch tables 420,000 (linear in the
#: board's win lines times n); the pass of every cell over every win line that the fix replaced took 60 million.
LARGEST_BUILD_LINES = 1_000_000
STEPS_LINES = 400_000


def _never_called(what):
    def fail(*args, **kwargs):
        pytest.fail(f"{what} was built for {args} before the size was refused")

    return fail


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
def test_connectn_over_the_limit_is_refused_naming_it_before_building_anything(kwargs, work_budget, monkeypatch):
    monkeypatch.setattr(connect_rules, "board_geometry", _never_called("the board geometry"))
    with work_budget.bounded(max_lines=REFUSAL_LINES, max_bytes=REFUSAL_BYTES):
        with pytest.raises(ValueError, match=f"at most {MAX_BOARD_SIDE} \\(the documented limit\\)"):
            ConnectN(**kwargs)


@pytest.mark.parametrize("kwargs", [{"rows": 10**6, "cols": 10**6}, {"rows": 33, "cols": 1}, {"rows": 1, "cols": 33}])
def test_dots_over_the_limit_is_refused_naming_it_before_building_anything(kwargs, work_budget, monkeypatch):
    monkeypatch.setattr(dots_rules, "dots_geometry", _never_called("the board geometry"))
    with work_budget.bounded(max_lines=REFUSAL_LINES, max_bytes=REFUSAL_BYTES):
        with pytest.raises(ValueError, match=f"at most {MAX_DOTS_SIDE} \\(the documented limit\\)"):
            DotsAndBoxes(**kwargs)


@pytest.mark.parametrize(
    ("n", "gravity"),
    [
        # The boards with the most win lines take a second or more with every line counted.
        pytest.param(5, True, marks=pytest.mark.slow),
        pytest.param(5, False, marks=pytest.mark.slow),
        (MAX_BOARD_SIDE, True),
        (MAX_BOARD_SIDE, False),
        (1, False),
        pytest.param(2, True, marks=pytest.mark.slow),
    ],
)
def test_the_largest_connectn_boards_build_and_batch_in_linear_work(n, gravity, work_budget):
    side = MAX_BOARD_SIDE
    board_geometry.cache_clear()  # count the whole build, not a cached one
    connect_tables.cache_clear()
    with work_budget.bounded(max_lines=LARGEST_BUILD_LINES, max_bytes=MAX_BATCH_BYTES):
        game = ConnectN(side, side, n, gravity)
    with work_budget.bounded(max_lines=LARGEST_BUILD_LINES, max_bytes=MAX_BATCH_BYTES):
        batch = ConnectNBatch(game, 2)
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


def test_the_largest_dots_board_builds_in_bounded_work(work_budget):
    # About 42,000 lines and 2 MB; the board has 2,112 edges and 1,024 boxes.
    with work_budget.bounded(max_lines=LARGEST_BUILD_LINES, max_bytes=MAX_BATCH_BYTES):
        game = DotsAndBoxes(MAX_DOTS_SIDE, MAX_DOTS_SIDE)
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
def test_vector_envs_inherit_the_size_limits(env_id, work_budget):
    with work_budget.bounded(max_lines=REFUSAL_LINES, max_bytes=REFUSAL_BYTES):
        with pytest.raises(ValueError, match="the documented limit"):
            gym.make_vec(env_id, num_envs=2, vectorization_mode="vector_entry_point", rows=1000, cols=1000)


@pytest.mark.parametrize("env_id", ["TicTacToe-v0", "ConnectFour-v0", "ConnectN-v0", "DotsAndBoxes-v0"])
def test_a_huge_num_envs_is_refused_before_allocating(env_id, work_budget):
    # 10**12 games would take terabytes: a refusal after the allocation would show in the peak (or fail in it).
    with work_budget.bounded(max_lines=REFUSAL_LINES, max_bytes=REFUSAL_BYTES):
        with pytest.raises(ValueError, match="MAX_BATCH_BYTES"):
            gym.make_vec(env_id, num_envs=10**12, vectorization_mode="vector_entry_point")


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
def test_envs_at_the_largest_sizes_reset_and_step(env_id, kwargs, work_budget):
    env = gym.make(env_id, **kwargs)
    _, info = env.reset(seed=0)
    rng = np.random.default_rng(0)
    # 20 steps take at most about 85,000 lines (64x64 with n=64); a step that scanned every cell's win lines
    # in Python would take millions.
    with work_budget.bounded(max_lines=STEPS_LINES):
        for _ in range(20):
            _, _, terminated, truncated, info = env.step(int(rng.choice(np.flatnonzero(info["action_mask"]))))
            if terminated or truncated:
                _, info = env.reset()
    env.close()
    # The vector env's batched rules at these sizes: the same legal moves in self-play give each sub-env the
    # observation, reward and position of a single env stepped one by one.
    vec = gym.make_vec(env_id, num_envs=3, vectorization_mode="vector_entry_point", opponent=None, **kwargs)
    singles = [gym.make(env_id, opponent=None, **kwargs) for _ in range(3)]
    obs, info = vec.reset(seed=0)
    for i, single in enumerate(singles):
        np.testing.assert_array_equal(obs[i], single.reset(seed=0)[0])
    for _ in range(20):
        actions = random_legal_actions(info["action_mask"], rng)
        obs, rewards, terminated, _, info = vec.step(actions)
        assert not terminated.any()  # 20 moves end no game this large, so no sub-env restarts
        for i, single in enumerate(singles):
            single_obs, single_reward, _, _, single_info = single.step(int(actions[i]))
            np.testing.assert_array_equal(obs[i], single_obs)
            np.testing.assert_array_equal(info["action_mask"][i], single_info["action_mask"])
            assert rewards[i] == single_reward and info["current_player"][i] == single_info["current_player"]
            assert vec.unwrapped.state(i) == single.unwrapped.state
    vec.close()


def test_rules_compare_by_family_and_config() -> None:
    from gym_boardgames.rules import ConnectN, DotsAndBoxes, TicTacToe

    assert TicTacToe() == ConnectN(3, 3, 3, False) and ConnectN(3, 3, 3, False) == TicTacToe()
    assert hash(TicTacToe()) == hash(ConnectN(3, 3, 3, False))
    assert ConnectN(3, 3, 3, True) != TicTacToe() and DotsAndBoxes(2, 2) != DotsAndBoxes(2, 2, "second")
    assert DotsAndBoxes(3, 4) != ConnectN(3, 4, 4, True)  # other rules, however the tuples compare
    assert repr(DotsAndBoxes(2, 3)) == "DotsAndBoxes(rows=2, cols=3, tie_break='draw')"
    assert repr(ConnectN()) == "ConnectN(rows=6, cols=7, n=4, gravity=True)" and repr(TicTacToe()) == "TicTacToe()"
    assert ConnectN(5, 5, 4, False).config == (5, 5, 4, False)


@pytest.mark.parametrize("game", [TicTacToe(), DotsAndBoxes(1, 2)], ids=repr)
@pytest.mark.parametrize("action", [-1, 99, 2.0, "1", None, True, np.array([0])], ids=repr)
def test_the_rules_refuse_what_is_not_an_action_with_the_one_move_check(game: object, action: object) -> None:
    n = game.num_actions
    with pytest.raises(ValueError, match=rf"^action .* is not an integer in 0\.\.{n - 1}$") as caught:
        game.apply(game.initial_state(), action)
    with pytest.raises(type(caught.value)) as shared:
        check_action(action, n)
    assert str(caught.value) == str(shared.value)


@pytest.mark.parametrize("game", [TicTacToe(), DotsAndBoxes(1, 2)], ids=repr)
def test_the_rules_take_any_integer_type_and_refuse_an_illegal_move_naming_the_legal_ones(game: object) -> None:
    state = game.apply(game.initial_state(), np.int16(1))
    assert state == game.apply(game.initial_state(), 1) == game.apply(game.initial_state(), np.array(1))
    legal = game.legal_actions(state)
    with pytest.raises(
        ValueError, match="^" + re.escape(f"action 1 is an illegal move here: legal actions are {legal}")
    ):
        game.apply(state, 1)
