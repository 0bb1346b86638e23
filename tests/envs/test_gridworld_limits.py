"""GridWorld-v0 refuses hostile sizes at once (a documented cell limit), and bad maps are clear errors."""

import itertools
import os

import gymnasium as gym
import numpy as np
import pytest

import gym_boardgames  # noqa: F401  (registers the ids)
from gym_boardgames.envs.gridworld import MAX_CELLS, MAX_MAP_FILE_BYTES, GridWorldEnv, load_map, parse_map


def test_the_documented_limit_is_a_200_by_200_grid():
    assert MAX_CELLS == 40_000


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


@pytest.mark.parametrize(
    "desc",
    [
        ["T" + "." * MAX_CELLS],
        ["T"] + ["."] * MAX_CELLS,
        "\n".join(["T" + "." * 200] + ["." * 201] * 199),
    ],
)
def test_a_map_over_the_limit_is_refused_naming_the_limit(desc):
    with pytest.raises(ValueError, match=f"at most {MAX_CELLS}"):
        GridWorldEnv(desc=desc)


def test_an_endless_terminals_or_walls_iterable_is_refused():
    with pytest.raises(ValueError, match="more terminal states than the 16 cells"):
        GridWorldEnv(terminals=itertools.repeat(0))
    with pytest.raises(ValueError, match="more wall states than the 16 cells"):
        GridWorldEnv(walls=itertools.repeat(5))
    with pytest.raises(ValueError, match="more terminal states"):
        GridWorldEnv(terminals=itertools.count())


def test_a_binary_map_is_a_clear_value_error():
    with pytest.raises(ValueError, match=r"the map is not text \(invalid UTF-8 at byte 1\)"):
        parse_map(b"T\xff\xfe..T")
    with pytest.raises(ValueError, match="not text"):
        parse_map([b"T..", b"\x80.T"])


def test_load_map_reads_a_map_file(tmp_path):
    path = tmp_path / "maze.txt"
    path.write_text("  T..#\n  .#..\n\n  S..T\n")
    assert load_map(path) == ("T..#", ".#..", "S..T")
    assert gym.make("GridWorld-v0", desc=load_map(str(path))).unwrapped.starts == (8,)


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (bytes(range(256)), "not text"),
        (b"T.x\n..T\n", "unknown map character 'x'"),
        (b"", "empty"),
        (b"." * (MAX_MAP_FILE_BYTES + 1), f"more than the {MAX_MAP_FILE_BYTES}"),
        ((("T" + "." * 300 + "\n") * 200).encode(), f"at most {MAX_CELLS}"),
    ],
)
def test_load_map_refuses_bad_files_naming_the_file(tmp_path, content, message):
    path = tmp_path / "bad.map"
    path.write_bytes(content)
    with pytest.raises(ValueError, match=message) as error:
        load_map(path)
    assert str(error.value).startswith(f"map file {path}: ")


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")
def test_load_map_refuses_special_files_without_blocking(tmp_path):
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    for path, message in ((fifo, "not a regular file"), (tmp_path, "not a regular file")):
        with pytest.raises(ValueError, match=message):
            load_map(path)
    if os.path.exists("/dev/zero"):
        with pytest.raises(ValueError, match="not a regular file"):
            load_map("/dev/zero")
    with pytest.raises(ValueError, match=f"map file {tmp_path / 'missing'}: cannot read it"):
        load_map(tmp_path / "missing")
