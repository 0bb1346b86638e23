"""TD tables and their file: a saved agent plays the same; a file for another board or bad tables is refused."""

import numpy as np
import pytest

from agents.persistence import save_npz
from agents.td import TDAgent, train_self_play
from agents.td_file import FORMAT, VERSION, table_size
from gym_boardgames.rules import ConnectN, DotsAndBoxes, TicTacToe

GAME = TicTacToe()


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
