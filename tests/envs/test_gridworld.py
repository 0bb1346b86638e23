"""GridWorld-v0: the book's example 4.1, its exact model P, sampling from P, maps, slip and rendering."""

import subprocess
import sys
import warnings

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

import gym_boardgames  # noqa: F401
from gym_boardgames.envs.gridworld import DOWN, LEFT, RIGHT, UP, GridWorldEnv
from gym_boardgames.rules.gridworld import MAX_CELLS

MAZE = ["T..#", ".#..", "S..#", "...T"]

# Chi-square critical value for 3 degrees of freedom at p = 0.001: a correct sampler exceeds it once in a
# thousand seeds, and the seeds here are fixed.
CHI2_3DOF_P001 = 16.27


def outcomes(env, s, a):
    return {s_next: (p, r, done) for p, s_next, r, done in env.unwrapped.P[s][a]}


def test_default_is_example_4_1():
    env = gym.make("GridWorld-v0")
    base = env.unwrapped
    assert isinstance(base, GridWorldEnv)
    assert env.observation_space == gym.spaces.Discrete(16) and env.action_space == gym.spaces.Discrete(4)
    assert base.shape == (4, 4) and base.terminals == (0, 15) and base.walls == ()
    assert base.starts == tuple(range(1, 15))
    assert (UP, DOWN, LEFT, RIGHT) == (0, 1, 2, 3)
    assert env.spec.max_episode_steps == 100


@pytest.mark.parametrize(
    "kwargs",
    [
        {},
        {"slip": 0.2},
        {"slip": 1.0},
        {"desc": MAZE, "slip": 0.3},
        {"shape": (3, 7), "terminals": [10], "walls": [3, 4]},
    ],
)
def test_every_row_of_P_sums_to_one_and_has_distinct_next_states(kwargs):
    base = gym.make("GridWorld-v0", **kwargs).unwrapped
    assert sorted(base.P) == list(range(base.nS))
    for s in range(base.nS):
        assert sorted(base.P[s]) == [0, 1, 2, 3]
        for a in range(4):
            row = base.P[s][a]
            assert abs(sum(p for p, *_ in row) - 1.0) < 1e-12
            next_states = [s_next for _, s_next, _, _ in row]
            assert next_states == sorted(set(next_states))  # merged, in increasing order
            assert all(p > 0 for p, *_ in row)


def test_moves_follow_the_book_and_the_edge_leaves_the_agent_in_place():
    env = gym.make("GridWorld-v0")
    assert outcomes(env, 5, UP) == {1: (1.0, -1.0, False)}
    assert outcomes(env, 5, DOWN) == {9: (1.0, -1.0, False)}
    assert outcomes(env, 5, LEFT) == {4: (1.0, -1.0, False)}
    assert outcomes(env, 5, RIGHT) == {6: (1.0, -1.0, False)}
    assert outcomes(env, 4, LEFT) == {4: (1.0, -1.0, False)}  # off the grid: stay, still -1
    assert outcomes(env, 3, UP) == {3: (1.0, -1.0, False)}
    assert outcomes(env, 1, LEFT) == {0: (1.0, -1.0, True)}  # entering a terminal ends the episode
    assert outcomes(env, 14, RIGHT) == {15: (1.0, -1.0, True)}


def test_terminal_states_loop_with_reward_zero_and_terminated():
    base = gym.make("GridWorld-v0", slip=0.5).unwrapped
    for t in (0, 15):
        for a in range(4):
            assert base.P[t][a] == [(1.0, t, 0.0, True)]


def test_slip_moves_in_each_other_direction_with_a_third_of_the_slip():
    env = gym.make("GridWorld-v0", slip=0.3)
    got = {s: round(p, 12) for s, (p, _, _) in outcomes(env, 5, UP).items()}
    assert got == {1: 0.7, 9: 0.1, 4: 0.1, 6: 0.1}
    # In corner-adjacent state 1, UP bumps (stay) and LEFT enters terminal 0.
    got = {s: (round(p, 12), done) for s, (p, _, done) in outcomes(env, 1, UP).items()}
    assert got == {1: (0.7, False), 0: (0.1, True), 2: (0.1, False), 5: (0.1, False)}


def test_slip_one_never_moves_in_the_chosen_direction():
    env = gym.make("GridWorld-v0", slip=1.0)
    assert 1 not in outcomes(env, 5, UP)
    assert sorted(outcomes(env, 5, UP)) == [4, 6, 9]


def test_step_samples_match_the_probabilities_of_P():
    env = gym.make("GridWorld-v0", slip=0.4)
    expected = {s_next: p for p, s_next, _, _ in env.unwrapped.P[5][UP]}
    counts = dict.fromkeys(expected, 0)
    n = 20_000
    env.reset(seed=123)
    for _ in range(n):
        env.reset(options={"start_state": 5})
        s_next, reward, terminated, truncated, info = env.step(UP)
        counts[s_next] += 1
        assert reward == -1.0 and not terminated and not truncated and info["prob"] == expected[s_next]
    chi2 = sum((counts[s] - n * p) ** 2 / (n * p) for s, p in expected.items())
    assert chi2 < CHI2_3DOF_P001, (counts, chi2)


def test_reset_starts_uniformly_on_the_non_terminal_cells():
    env = gym.make("GridWorld-v0")
    counts = np.zeros(16)
    env.reset(seed=7)
    n = 14_000
    for _ in range(n):
        s, info = env.reset()
        counts[s] += 1
        assert info["prob"] == 1 / 14
    assert counts[0] == counts[15] == 0
    chi2 = float((((counts[1:15] - n / 14) ** 2) / (n / 14)).sum())
    assert chi2 < 36.1  # chi-square, 13 degrees of freedom, p = 0.001


def test_seeded_episodes_are_reproducible():
    def episode(seed):
        env = gym.make("GridWorld-v0", slip=0.25)
        s, _ = env.reset(seed=seed)
        trace = [s]
        actions = np.random.default_rng(0).integers(4, size=100)
        for a in actions:
            s, r, terminated, truncated, _ = env.step(int(a))
            trace.append(s)
            if terminated or truncated:
                break
        return trace

    assert episode(5) == episode(5)
    assert episode(5) != episode(6)


def test_an_episode_that_never_ends_is_truncated_at_the_registered_100_steps():
    env = gym.make("GridWorld-v0")
    env.reset(seed=0, options={"start_state": 13})
    ends = []
    for _ in range(150):  # always UP: up the column to state 1, then bumps into the top edge forever
        _, _, terminated, truncated, _ = env.step(UP)
        ends.append((terminated, truncated))
        if terminated or truncated:
            break
    assert len(ends) == 100 and ends[-1] == (False, True)


def test_a_map_sets_walls_terminals_and_start_cells():
    base = gym.make("GridWorld-v0", desc=MAZE).unwrapped
    assert base.shape == (4, 4) and base.desc == tuple(MAZE)
    assert base.terminals == (0, 15) and base.walls == (3, 5, 11) and base.starts == (8,)
    for _ in range(5):
        assert base.reset()[0] == 8
    assert outcomes(base, 4, RIGHT) == {4: (1.0, -1.0, False)}  # state 5 is a wall
    assert outcomes(base, 2, RIGHT) == {2: (1.0, -1.0, False)}  # state 3 is a wall
    assert outcomes(base, 6, RIGHT) == {7: (1.0, -1.0, False)}
    assert base.P[5][UP] == [(1.0, 5, 0.0, True)]  # a wall cell is never entered and absorbs


def test_a_map_can_be_one_string_with_a_row_per_line():
    text = "\n    T..\n    ...\n    ..T\n"
    base = gym.make("GridWorld-v0", desc=text).unwrapped
    assert base.desc == ("T..", "...", "..T") and base.starts == tuple(range(1, 8))


def test_shape_terminals_and_walls_keywords():
    base = gym.make("GridWorld-v0", shape=(2, 5), terminals=[4], walls=[2]).unwrapped
    assert base.desc == ("..#.T", ".....")
    assert base.nS == 10 and base.to_state(1, 3) == 8 and base.to_cell(8) == (1, 3)


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"desc": ["T..", "..", "..T"]}, "same length: row 0 has 3 cells, row 1 has 2"),
        ({"desc": ["T.x", "...", "..T"]}, "unknown map character 'x' at row 0, column 2"),
        ({"desc": ["...", "...", "..."]}, "no terminal"),
        ({"desc": ["T#", "#T"]}, "no start cell"),
        ({"desc": ["T.#.", "..#.", "###."]}, r"no terminal can be reached from cells \(row, col\) \[\(0, 3\)"),
        ({"desc": []}, "empty"),
        ({"desc": "\n  \n"}, "empty"),
        ({"desc": 42}, "sequence of strings"),
        ({"terminals": [16]}, r"a terminal state must be an integer in \[0, 15\], got 16"),
        ({"terminals": [-1]}, r"a terminal state must be an integer in \[0, 15\], got -1"),
        ({"terminals": []}, "at least one terminal"),
        ({"walls": [0]}, "both terminals and walls"),
        ({"walls": [99]}, r"a wall state must be an integer in \[0, 15\], got 99"),
        ({"slip": -0.1}, r"slip must be a number in \[0, 1\], got -0.1"),
        ({"slip": 1.5}, r"slip must be a number in \[0, 1\], got 1.5"),
        ({"slip": float("nan")}, r"slip must be a number in \[0, 1\], got nan"),
        ({"slip": "0.1"}, r"slip must be a number in \[0, 1\], got '0.1'"),
        ({"shape": (0, 4)}, r"shape\[0\] \(rows\) must be an integer >= 1, got 0"),
        ({"shape": (4,)}, "two positive ints"),
        ({"shape": (4, 4), "desc": ["T.", ".T"]}, "do not also pass shape"),
        ({"render_mode": "rgb"}, "render_mode must be"),
    ],
)
def test_bad_configurations_raise_value_error_naming_the_problem(kwargs, message):
    with pytest.raises(ValueError, match=message):
        GridWorldEnv(**kwargs)


@pytest.mark.parametrize(
    "shape", [(201, 200), (1, MAX_CELLS + 1), (3000, 3000), (10**9, 10**9), (np.int64(2**40),) * 2]
)
def test_a_grid_over_the_limit_is_refused_at_once_naming_the_limit(shape, work_budget, monkeypatch):
    # At once: about 20 lines and a few KB, with no model built; a 10**9 x 10**9 grid's map alone is 10**18 cells.
    monkeypatch.setattr(GridWorldEnv, "_build_model", lambda self: pytest.fail("the model was built"))
    with work_budget.bounded(max_lines=10_000, max_bytes=2**20):
        with pytest.raises(ValueError, match=f"at most {MAX_CELLS} .*the documented limit"):
            GridWorldEnv(shape=shape)


@pytest.mark.slow
def test_the_largest_grid_builds_with_slip_and_its_model_is_exact(work_budget):
    # The model is one entry per state and action: about 68 Python lines and 2 KB per cell (2.7 million lines,
    # 83 MB), the slip rows shared through a few dozen templates. The bounds leave room, not a second template
    # build per cell or the 700 MB of a 250,000-cell grid.
    with work_budget.bounded(max_lines=100 * MAX_CELLS, max_bytes=160 * 2**20):
        env = GridWorldEnv(shape=(200, 200), slip=0.3)
    assert env.nS == MAX_CELLS
    interior = env.to_state(100, 100)
    assert [(round(p, 12), s) for p, s, _, _ in env.P[interior][0]] == [
        (0.7, interior - 200),
        (0.1, interior - 1),
        (0.1, interior + 1),
        (0.1, interior + 200),
    ]
    corner = env.to_state(199, 0)  # DOWN and LEFT bump: both stay in place, merged into one entry
    assert [(round(p, 12), s) for p, s, _, _ in env.P[corner][1]] == [
        (0.1, corner - 200),
        (0.8, corner),
        (0.1, corner + 1),
    ]


def test_step_before_reset_and_bad_actions_raise():
    env = GridWorldEnv()
    with pytest.raises(gym.error.ResetNeeded, match=r"reset\(\)"):
        env.step(0)
    env.reset(seed=0)
    with pytest.raises(ValueError, match=r"^action 4 is not an integer in 0\.\.3 \(UP, DOWN, LEFT, RIGHT\)$"):
        env.step(4)
    with pytest.raises(ValueError, match="integer"):
        env.step(1.5)
    with pytest.raises(ValueError, match="free non-terminal"):
        env.reset(options={"start_state": 0})
    with pytest.raises(ValueError, match="unknown reset option"):
        env.reset(options={"start": 3})


def test_an_episode_reaches_the_terminal_and_counts_the_return():
    env = GridWorldEnv(render_mode="ansi")
    env.reset(seed=0, options={"start_state": 6})
    assert env.step(LEFT)[:3] == (5, -1.0, False)
    assert env.step(UP)[:3] == (1, -1.0, False)
    assert env.step(LEFT)[:3] == (0, -1.0, True)
    assert env.render().splitlines()[-1] == "done: return -3 in 3 steps"
    # Stepping on needs a reset (as in the board envs); P still loops the terminal with reward 0.
    with pytest.raises(gym.error.ResetNeeded, match=r"reset\(\)"):
        env.step(DOWN)
    assert env.P[0][DOWN] == [(1.0, 0, 0.0, True)]


@pytest.mark.parametrize("render_mode", [None, "ansi", "rgb_array", "human"])
@pytest.mark.parametrize("kwargs", [{}, {"desc": MAZE, "slip": 0.2}])
def test_check_env_passes_without_warnings_in_every_render_mode(render_mode, kwargs, monkeypatch):
    # check_env also builds the class anew for each render mode: a high frame rate keeps human mode quick.
    monkeypatch.setitem(GridWorldEnv.metadata, "render_fps", 1000)
    env = gym.make("GridWorld-v0", render_mode=render_mode, **kwargs)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        check_env(env.unwrapped)
    env.close()


def test_overlay_rejects_arrays_of_the_wrong_shape_or_content():
    base = GridWorldEnv()
    with pytest.raises(ValueError, match="values must have shape"):
        base.set_overlay(values=np.zeros(15))
    with pytest.raises(ValueError, match="NaN"):
        base.set_overlay(values=np.full(16, np.nan))
    with pytest.raises(ValueError, match="policy must have shape"):
        base.set_overlay(policy=np.ones((16, 3)) / 3)
    with pytest.raises(ValueError, match="probabilities"):
        base.set_overlay(policy=np.ones((16, 4)))
    base.set_overlay(values=np.zeros((4, 4)))  # the grid's own shape is accepted
    assert base.overlay[0].shape == (16,)


def test_ansi_rendering_and_construction_never_import_pygame():
    code = (
        "import sys, gymnasium as gym, gym_boardgames\n"
        "env = gym.make('GridWorld-v0', render_mode='ansi', shape=(5, 5)); env.reset(seed=0); env.step(1)\n"
        "env.render(); print('pygame' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.strip()
    assert out == "False"
