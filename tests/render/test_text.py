"""Plain-text rendering (render/text.py): GridWorld's ansi map, status line, value and policy tables; move labels."""

import time

import gymnasium as gym
import numpy as np
import pytest

import gym_boardgames  # noqa: F401  (registers the ids)
from gym_boardgames.envs.gridworld import DOWN, RIGHT
from gym_boardgames.render.text import format_policy, format_values

MAZE = ["T..#", ".#..", "S..#", "...T"]


def test_ansi_shows_the_agent_status_and_the_overlay(random_policy_overlay):
    env = gym.make("GridWorld-v0", render_mode="ansi")
    env.reset(seed=0, options={"start_state": 6})
    env.step(DOWN)
    text = env.render()
    assert text.splitlines()[:5] == [
        " T  .  .  .",
        " .  .  .  .",
        " .  . [.] .",
        " .  .  .  T",
        "state 10 after DOWN, return -1",
    ]
    V, policy = random_policy_overlay(env)
    env.unwrapped.set_overlay(values=V, policy=policy)
    lines = env.render().splitlines()
    assert lines[5] == "values:" and lines[6].split() == ["0.0", "-14.0", "-20.0", "-22.0"]
    assert lines[10] == "policy:" and lines[11].split() == ["T", "<", "<", "v<"]
    env.unwrapped.set_overlay()
    assert env.render() == text


def test_format_helpers_lay_out_the_grid():
    env = gym.make("GridWorld-v0", desc=MAZE)
    values = np.arange(16.0)
    assert format_values(env, values).splitlines()[1].split() == ["4.0", "5.0", "6.0", "7.0"]
    policy = np.zeros((16, 4))
    policy[:, RIGHT] = 1.0
    assert format_policy(env, policy).splitlines()[0].split() == ["T", ">", ">", "#"]


# ---- the labels a person types (the terminal game), both ways -------------------------------------------------


def board_games():
    from gym_boardgames.rules import ConnectN, DotsAndBoxes, TicTacToe

    # A board past column z names its columns aa, ab, ... as a spreadsheet does.
    return [TicTacToe(), ConnectN(), ConnectN(3, 30, 3, gravity=False), DotsAndBoxes(2, 3), DotsAndBoxes(10, 1)]


def test_every_moves_label_reads_back_as_that_move_in_any_case():
    from gym_boardgames.render.text import move_labels

    for game in board_games():
        labels, state = move_labels(game), game.initial_state()
        names = [labels.label(game, action) for action in game.legal_actions(state)]
        assert len(set(names)) == len(names), game
        for action, name in zip(game.legal_actions(state), names, strict=True):
            assert labels.parse(game, name, state) == action
            assert labels.parse(game, f"  {name.upper()} ", state) == action


def test_the_board_text_shows_the_labels():
    from gym_boardgames.render.text import connect_label, connect_text, dots_label, dots_text
    from gym_boardgames.rules import ConnectN, DotsAndBoxes, TicTacToe

    ttt, c4, dots = TicTacToe(), ConnectN(), DotsAndBoxes(2, 3)
    assert connect_label(ttt, 4) == "b2" and connect_label(ttt, 8) == "c3"
    lines = connect_text(ttt, ttt.initial_state(), None, "", ("X", "O")).splitlines()
    assert lines[0].split() == ["a", "b", "c"] and [line[0] for line in lines[1:6:2]] == ["1", "2", "3"]
    assert [connect_label(c4, column) for column in range(7)] == ["1", "2", "3", "4", "5", "6", "7"]
    assert connect_text(c4, c4.initial_state(), None, "", ("R", "Y")).splitlines()[0].split() == list("1234567")
    # The top-left box's edges: its top joins dots a1 and b1, its left a1 and a2.
    assert dots_label(dots, 0) == "a1b1" and dots_label(dots, dots.num_horizontal) == "a1a2"
    lines = dots_text(dots, dots.initial_state(), None, "", ("B", "R")).splitlines()
    assert lines[0] == "  a   b   c   d" and lines[1] == "1 +   +   +   +" and lines[5] == "3 +   +   +   +"


def test_an_edge_is_its_two_dots_in_either_order_with_or_without_a_separator():
    from gym_boardgames.render.text import dots_move
    from gym_boardgames.rules import DotsAndBoxes

    game = DotsAndBoxes(2, 3)
    state = game.initial_state()
    right_of_c2 = game.num_horizontal + 1 * 4 + 2
    assert {dots_move(game, typed, state) for typed in ("c2c3", "c3c2", "c2 c3", "C3-C2", "c2,c3")} == {right_of_c2}


@pytest.mark.parametrize(
    "game, moves, typed, problem",
    [
        ("ttt", [], "z9", "z9 is off the board"),
        ("ttt", [], "9", '"9" is not a cell'),
        ("ttt", [4], "B2", "b2 is taken"),
        ("c4", [], "z9", '"z9" is not a column'),
        ("c4", [], "8", "there is no column 8"),
        ("c4", [3] * 6, "4", "column 4 is full"),
        ("dots", [], "a1", '"a1" is not an edge'),
        ("dots", [], "a1c1", "a1 and c1 are not neighbouring dots"),
        ("dots", [], "a1b2", "a1 and b2 are not neighbouring dots"),
        ("dots", [], "a1a4", "a1a4 has a dot off the board"),
        ("dots", [0], "b1a1", "a1b1 is drawn"),
    ],
)
def test_a_bad_label_names_the_problem(game, moves, typed, problem):
    from gym_boardgames.render.text import move_labels
    from gym_boardgames.rules import ConnectN, DotsAndBoxes, TicTacToe

    game = {"ttt": TicTacToe(), "c4": ConnectN(), "dots": DotsAndBoxes(2, 3)}[game]
    state = game.initial_state()
    for move in moves:
        state = game.apply(state, move)
    with pytest.raises(ValueError) as raised:
        move_labels(game).parse(game, typed, state)
    assert str(raised.value) == problem


def test_what_to_type_is_named_per_game():
    from gym_boardgames.render.text import move_labels
    from gym_boardgames.rules import ConnectN, DotsAndBoxes, TicTacToe

    assert move_labels(ConnectN()).choices(ConnectN()) == "a column 1-7"
    assert move_labels(TicTacToe()).choices(TicTacToe()).startswith("a cell a1-c3")
    assert "a1-d3" in move_labels(DotsAndBoxes(2, 3)).choices(DotsAndBoxes(2, 3))
    with pytest.raises(NotImplementedError, match="no move labels"):
        move_labels(object())


def test_long_labels_are_refused_in_linear_time_as_off_the_board():
    from gym_boardgames.render.text import move_labels
    from gym_boardgames.rules import ConnectN, DotsAndBoxes

    # 250,000 letters once took over 12 s (a column number grown letter by letter); 5,000 digits made int() raise.
    for game, typed in ((ConnectN(9, 9, 5, False), "a" * 250_000 + "1"), (DotsAndBoxes(2, 3), "a" + "1" * 5_000)):
        start = time.perf_counter()
        with pytest.raises(ValueError, match="off the board|not an edge|not a cell"):
            move_labels(game).parse(game, typed, game.initial_state())
        assert time.perf_counter() - start < 3  # quadratic took seconds; linear takes milliseconds
