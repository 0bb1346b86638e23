"""TD tables and their file: a saved agent plays the same; a file for another board, with bad tables or naming a
huge board is refused (the huge ones at once)."""

import functools
import sys
from pathlib import Path

import numpy as np
import pytest

from agents.factory import make_agent
from agents.persistence import save_npz
from agents.tabular.td import TDAgent, train_self_play
from agents.tabular.td_file import FORMAT, VERSION, table_size
from gym_boardgames.rules import ConnectN, DotsAndBoxes, TicTacToe

sys.path.insert(0, str(Path(__file__).parents[1]))  # importlib import mode: put tests/agents/ (its helper) on the path
from saved_file_helpers import expect_refused, header_npy, npy_bytes, only_the_header_is_read, write_zip  # noqa: E402

GAME = TicTacToe()


def td_meta(config, cls="ConnectN"):
    return {"game": {"class": cls, "config": config, "repr": f"{cls}{config}", "n_keys": 19683}}


def save_td(path, config):
    """A TD file of a small table whose header names the ConnectN board ``config``."""
    save_npz(path, {"values": np.full((2, 9), 0.5)}, format=FORMAT, version=VERSION, meta=td_meta(config))


@pytest.fixture
def refused(work_budget):
    """``refused(call, path, pattern, max_lines=...)``: saved_file_helpers.expect_refused on this test's budget."""
    return functools.partial(expect_refused, work_budget)


@pytest.fixture(scope="module")
def trained():
    agent, _ = train_self_play(GAME, 500, seed=11)
    return agent


def test_save_and_load_round_trip_plays_the_same(tmp_path, trained):
    path = tmp_path / "td.npz"
    trained.save(path)
    loaded = TDAgent.load(path, seed=1)
    np.testing.assert_array_equal(loaded.values, trained.values)
    assert loaded.game == GAME and loaded.training["episodes"] == 500
    corner = GAME.apply(GAME.initial_state(), 0)
    for state in (GAME.initial_state(), GAME.apply(corner, 4), corner):
        assert loaded.greedy_actions(GAME, state) == trained.greedy_actions(GAME, state)
    # Same rules under another class name are accepted; another board is a clear error.
    assert TDAgent.load(path, ConnectN(3, 3, 3, gravity=False)).values.shape == (2, 3**9)
    with pytest.raises(ValueError, match=r"td.npz: holds tables for TicTacToe\(\), not for ConnectN\(rows=4"):
        TDAgent.load(path, ConnectN(4, 4, 3, gravity=False))


def test_loading_a_file_for_another_board_or_with_bad_tables_names_the_problem(tmp_path):
    meta = {"game": {"class": "TicTacToe", "config": [3, 3, 3, False], "repr": "TicTacToe()", "n_keys": 3**9}}
    short = tmp_path / "short.npz"
    save_npz(short, {"values": np.full((2, 10), 0.5)}, format=FORMAT, version=VERSION, meta=meta)
    with pytest.raises(ValueError, match=r"short.npz: array 'values' has shape \(2, 10\), expected \(2, 19683\)"):
        TDAgent.load(short)
    wild = tmp_path / "wild.npz"
    save_npz(wild, {"values": np.full((2, 3**9), 7.0)}, format=FORMAT, version=VERSION, meta=meta)
    with pytest.raises(ValueError, match="wild.npz: .*outside \\[0, 1\\]"):
        TDAgent.load(wild)
    future = tmp_path / "future.npz"
    save_npz(future, {"values": np.full((2, 3**9), 0.5)}, format=FORMAT, version=VERSION + 1, meta=meta)
    with pytest.raises(ValueError, match="future.npz: format 'gym_boardgames.td' version 2 is not supported"):
        TDAgent.load(future)
    other = tmp_path / "other.npz"
    save_npz(other, {"values": np.full((2, 3**9), 0.5)}, format="gym_boardgames.mcts", version=1, meta=meta)
    with pytest.raises(ValueError, match="other.npz: holds format 'gym_boardgames.mcts'"):
        TDAgent.load(other)
    broken = tmp_path / "broken.npz"
    bad_meta = {"game": {"class": "ConnectN", "config": [0, 3, 3, False], "repr": "ConnectN(rows=0, ...)"}}
    save_npz(broken, {"values": np.full((2, 3**9), 0.5)}, format=FORMAT, version=VERSION, meta=bad_meta)
    with pytest.raises(ValueError, match="broken.npz: its game description .* is invalid"):
        TDAgent.load(broken)
    anonymous = tmp_path / "anonymous.npz"
    save_npz(anonymous, {"values": np.full((2, 3**9), 0.5)}, format=FORMAT, version=VERSION)
    with pytest.raises(ValueError, match="anonymous.npz: .*which game"):
        TDAgent.load(anonymous)


def test_games_without_a_key_table_are_refused():
    assert table_size(GAME) == 3**9
    with pytest.raises(ValueError, match="num_keys"):
        TDAgent(DotsAndBoxes(2, 2))


def test_a_board_the_td_rules_accept_still_loads(tmp_path):
    game = ConnectN(2, 3, 2, gravity=True)
    path = tmp_path / "td.npz"
    TDAgent(game).save(path)
    loaded = TDAgent.load(path)
    assert loaded.game == game and loaded.values.shape == (2, 3**6)


# ---- files naming huge boards: refused at once, as SavedFileError naming the file --------------------------------


@pytest.mark.parametrize("side", [1000, 10**6])
@pytest.mark.parametrize("game", [None, TicTacToe()])
def test_td_file_naming_a_huge_connect_n_board_is_refused_at_once(tmp_path, side, game, refused):
    path = tmp_path / "huge.npz"
    save_td(path, [side, side, 4, True])
    refused(lambda: TDAgent.load(path, game), path, r"game description .* is invalid: rows must be at most 64")


def test_td_file_naming_a_board_too_big_for_a_table_is_refused_before_building_it(tmp_path, refused):
    path = tmp_path / "big.npz"
    save_td(path, [64, 64, 5, False])
    # The 64x64 board is within the size limits: its geometry is built (about 280,000 lines), the table of 3**4096
    # values is not.
    refused(lambda: TDAgent.load(path), path, "4096 cells; a TD table covers at most 16", max_lines=1_000_000)


@pytest.mark.parametrize(
    ("config", "pattern"),
    [
        ([3, 3, 3], r"\[rows, cols, n, gravity\]"),
        ([3, True, 3, False], "cols must be an integer"),
        ([3, 3, 4, False], r"n \(on a 3x3 board\) must be an integer in \[1, 3\], got 4"),
        ([3, 3, 3, 1], "gravity must be True or False, got 1"),
        (["3", 3, 3, False], "rows must be an integer"),
    ],
)
def test_td_file_with_a_malformed_board_is_refused(tmp_path, config, pattern, refused):
    path = tmp_path / "bad.npz"
    save_td(path, config)
    refused(lambda: TDAgent.load(path), path, pattern)


def test_td_table_shape_is_checked_from_its_header_before_the_data_is_read(tmp_path, monkeypatch, refused):
    # A 4x4 board is allowed (3**16 keys), but the file's table header claims another shape: no data is read.
    path = tmp_path / "shape.npz"
    write_zip(
        path,
        {
            "__header__.npy": header_npy(td_meta([4, 4, 4, False]), FORMAT, VERSION),
            "values.npy": npy_bytes((2, 10**15), data=b"\x00" * 64),
        },
    )
    only_the_header_is_read(monkeypatch)
    refused(
        lambda: TDAgent.load(path), path, r"array 'values' has shape \(2, 1000000000000000\), expected \(2, 43046721\)"
    )


def test_arena_style_td_spec_with_a_huge_board_fails_at_once(tmp_path, refused):
    path = tmp_path / "huge.npz"
    save_td(path, [10**6, 10**6, 4, True])
    refused(lambda: make_agent(f"td:{path}"), path, "rows must be at most 64")


def test_td_load_passes_the_size_limits_through(tmp_path, refused):
    path = tmp_path / "td.npz"
    TDAgent(TicTacToe()).save(path)
    assert TDAgent.load(path).values.shape == (2, 3**9)
    refused(lambda: TDAgent.load(path, max_file_bytes=100), path, r"more than the limit of 100 \(max_file_bytes\)")
    refused(
        lambda: TDAgent.load(path, max_data_bytes=1000), path, r"more than the limit of 1000 bytes \(max_data_bytes\)"
    )
