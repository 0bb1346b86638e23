"""rules.registry: the one table of the board games' rules, by script name, env-id name and class."""

import pytest

from gym_boardgames.rules import ConnectN, DotsAndBoxes, TicTacToe
from gym_boardgames.rules.registry import GAME_NAMES, RULES, game_from_config, game_to_config, make_game


def test_make_game_fills_defaults_and_takes_each_games_options():
    assert GAME_NAMES == ("tictactoe", "connectfour", "connectn", "dots")
    assert make_game("tictactoe") == TicTacToe()
    assert make_game("connectfour").config == (6, 7, 4, True)
    assert make_game("connectn").config == (6, 7, 4, True)
    assert make_game("connectn", rows=4, cols=5, n=3, gravity=False).config == (4, 5, 3, False)
    assert make_game("dots").config == (3, 3, "draw")
    assert make_game("dots", rows=2, cols=2, tie_break="second").config == (2, 2, "second")
    assert make_game("dots", rows=2, cols=2).num_edges == 12


def test_make_game_errors_name_the_choices_and_the_refused_option():
    with pytest.raises(ValueError, match="tictactoe, connectfour, connectn, dots"):
        make_game("chess")
    with pytest.raises(ValueError, match="tictactoe does not take rows"):
        make_game("tictactoe", rows=4)
    with pytest.raises(ValueError, match="dots does not take n, gravity"):
        make_game("dots", n=3, gravity=True)
    with pytest.raises(ValueError, match="at most 32"):
        make_game("dots", rows=33)


def test_rules_by_env_id_name_build_the_envs_games():
    assert sorted(RULES) == ["ConnectFour", "ConnectN", "DotsAndBoxes", "TicTacToe"]
    assert RULES["ConnectFour"]() == ConnectN(6, 7, 4, True)
    assert RULES["ConnectN"](rows=5, cols=5, n=4, gravity=False).config == (5, 5, 4, False)
    assert RULES["DotsAndBoxes"](rows=2, cols=3).config == (2, 3, "draw")


GAMES = [TicTacToe(), ConnectN(5, 6, 4, False), ConnectN(), DotsAndBoxes(2, 3, "second")]


@pytest.mark.parametrize("game", GAMES)
def test_game_from_config_rebuilds_any_game_from_its_record(game):
    record = game_to_config(game)
    assert record == {"class": type(game).__name__, "config": list(game.config)}
    assert game_from_config(record) == game
    assert game_to_config(game_from_config(record)) == record


def test_the_record_is_the_one_a_td_file_has_always_written():
    assert game_to_config(TicTacToe()) == {"class": "TicTacToe", "config": [3, 3, 3, False]}
    assert game_from_config({"class": "TicTacToe", "config": [3, 3, 3, False], "repr": "TicTacToe()", "n_keys": 3**9})


@pytest.mark.parametrize(
    ("old", "game"),
    [
        ({"name": "tictactoe"}, TicTacToe()),
        ({"name": "connectn", "rows": 6, "cols": 7, "n": 4, "gravity": True}, ConnectN(6, 7, 4, True)),
        ({"name": "dots", "rows": 2, "cols": 3, "tie_break": "second"}, DotsAndBoxes(2, 3, "second")),
    ],
)
def test_the_older_record_of_the_shipped_alphazero_models_is_still_read(old, game):
    assert game_from_config(old) == game


def test_a_game_without_config_is_recorded_by_its_class_alone():
    class Nim:
        pass

    assert game_to_config(Nim()) == {"class": "Nim", "config": None}
    assert game_from_config(game_to_config(Nim())) is None


def test_game_from_config_refuses_bad_records_and_knows_no_other_class():
    assert game_from_config({"class": "Chess", "config": []}) is None
    with pytest.raises(ValueError, match=r"\[rows, cols, n, gravity\]"):
        game_from_config({"class": "ConnectN", "config": [6, 7]})
    with pytest.raises(ValueError, match="gravity must be true or false"):
        game_from_config({"class": "ConnectN", "config": [6, 7, 4, 1]})
    with pytest.raises(ValueError, match="at most 64"):
        game_from_config({"class": "ConnectN", "config": [10**9, 7, 4, True]})
    with pytest.raises(ValueError, match=r"\[rows, cols, tie_break\]"):
        game_from_config({"class": "DotsAndBoxes", "config": "3x3"})
    with pytest.raises(ValueError, match="does not take"):
        game_from_config({"name": "tictactoe", "rows": 3})
    for bad in (None, "TicTacToe", {"name": "chess"}, {}):
        with pytest.raises(ValueError, match="'class' and 'config'"):
            game_from_config(bad)
