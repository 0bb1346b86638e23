"""rules.registry: one row per board game, found by its one name (any case) or by its rules object."""

import pytest

from gym_boardgames.rules import ConnectN, DotsAndBoxes, TicTacToe
from gym_boardgames.rules.registry import (
    GAME_NAMES,
    GAMES,
    family_of,
    game_from_config,
    game_row,
    game_to_config,
    make_game,
    row_of,
)


def test_make_game_fills_defaults_and_takes_each_games_options():
    assert GAME_NAMES == ("tictactoe", "connectn", "connectfour", "dotsandboxes")
    assert make_game("tictactoe") == TicTacToe()
    assert make_game("connectfour").config == (6, 7, 4, True)
    assert make_game("connectn").config == (6, 7, 4, True)
    assert make_game("connectn", rows=4, cols=5, n=3, gravity=False).config == (4, 5, 3, False)
    assert make_game("dotsandboxes").config == (3, 3, "draw")
    assert make_game("dotsandboxes", rows=2, cols=2, tie_break="second").config == (2, 2, "second")
    assert make_game("dotsandboxes", rows=2, cols=2).num_edges == 12


def test_make_game_errors_name_the_choices_and_the_refused_option():
    with pytest.raises(ValueError, match="tictactoe, connectn, connectfour, dotsandboxes"):
        make_game("chess")
    with pytest.raises(ValueError, match="tictactoe does not take rows"):
        make_game("tictactoe", rows=4)
    with pytest.raises(ValueError, match="dotsandboxes does not take gravity, n"):
        make_game("dotsandboxes", n=3, gravity=True)
    with pytest.raises(ValueError, match="at most 32"):
        make_game("dotsandboxes", rows=33)


def test_rows_by_env_id_name_build_the_envs_games():
    assert sorted(GAMES) == ["ConnectFour", "ConnectN", "DotsAndBoxes", "TicTacToe"]
    assert GAMES["ConnectFour"].make() == ConnectN(6, 7, 4, True)
    assert GAMES["ConnectN"].make(rows=5, cols=5, n=4, gravity=False).config == (5, 5, 4, False)
    assert GAMES["DotsAndBoxes"].make(rows=2, cols=3).config == (2, 3, "draw")
    assert game_row("DotsAndBoxes") is game_row("dotsandboxes") is GAMES["DotsAndBoxes"]


def test_a_rules_object_finds_its_row_subclass_first():
    assert row_of(TicTacToe()).name == "TicTacToe"  # a ConnectN, but its own row comes first
    assert row_of(ConnectN(6, 7, 4, True)).name == "ConnectN"  # ConnectFour's rules are ConnectN's row
    assert row_of(DotsAndBoxes(2, 2)).name == "DotsAndBoxes"
    assert [family_of(g) for g in (TicTacToe(), ConnectN(), DotsAndBoxes(2, 2))] == ["connect", "connect", "dots"]
    assert row_of(object()) is None and family_of(object()) is None


SAMPLES = [TicTacToe(), ConnectN(5, 6, 4, False), ConnectN(), DotsAndBoxes(2, 3, "second")]


@pytest.mark.parametrize("game", SAMPLES)
def test_game_from_config_rebuilds_any_game_from_its_record(game):
    record = game_to_config(game)
    assert record == {"class": type(game).__name__, "config": list(game.config)}
    assert game_from_config(record) == game
    assert game_to_config(game_from_config(record)) == record


def test_the_record_is_the_one_a_td_file_has_always_written():
    assert game_to_config(TicTacToe()) == {"class": "TicTacToe", "config": [3, 3, 3, False]}
    assert game_from_config({"class": "TicTacToe", "config": [3, 3, 3, False], "repr": "TicTacToe()", "n_keys": 3**9})


def test_a_game_without_config_is_recorded_by_its_class_alone():
    class Nim:
        pass

    assert game_to_config(Nim()) == {"class": "Nim", "config": None}
    assert game_from_config(game_to_config(Nim())) is None


def test_game_from_config_refuses_bad_records_and_knows_no_other_class():
    assert game_from_config({"class": "Chess", "config": []}) is None
    with pytest.raises(ValueError, match=r"\[rows, cols, n, gravity\]"):
        game_from_config({"class": "ConnectN", "config": [6, 7]})
    with pytest.raises(ValueError, match="gravity must be True or False, got 1"):
        game_from_config({"class": "ConnectN", "config": [6, 7, 4, 1]})
    with pytest.raises(ValueError, match="at most 64"):
        game_from_config({"class": "ConnectN", "config": [10**9, 7, 4, True]})
    with pytest.raises(ValueError, match=r"\[rows, cols, tie_break\]"):
        game_from_config({"class": "DotsAndBoxes", "config": "3x3"})
    for bad in (None, "TicTacToe", {"name": "tictactoe"}, {}):
        with pytest.raises(ValueError, match="'class' and 'config'"):
            game_from_config(bad)


def test_gravity_boards_are_titled_as_the_docs_spell_connect_four():
    import gymnasium as gym

    assert gym.make("ConnectFour-v0").unwrapped.window_title == "Connect Four"
    assert row_of(ConnectN(6, 7, 5, True)).style(ConnectN(6, 7, 5, True)).title == "Connect Five"
    assert row_of(ConnectN(9, 9, 5, True)).style(ConnectN(9, 9, 5, True)).title == "Connect Five 9x9"
    assert row_of(ConnectN(9, 9, 5, False)).style(ConnectN(9, 9, 5, False)).title == "9,9,5-game"
