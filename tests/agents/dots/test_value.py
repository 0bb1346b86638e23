"""The move value f(s, a): a completed box keeps the turn, else the opponent gets the rest."""

import numpy as np
import pytest

from agents.dots.value import check_dots, move_value
from gym_boardgames.rules import DotsAndBoxes, TicTacToe


def test_a_completed_box_keeps_the_turn_else_the_opponent_takes_the_child_value_of_what_is_left():
    # 5 boxes left; the child is worth 2 to whoever moves there.
    assert move_value(2, 1, 5) == 3  # one box taken, and the mover moves again: 1 + V(child)
    assert move_value(2, 2, 5) == 4
    assert move_value(2, 0, 5) == 3  # the opponent moves: it takes 2 of the 5, the mover the rest
    assert move_value(0.5, 0, 2) == 1.5


def test_the_array_shape_agrees_with_the_number_shape_elementwise():
    rng = np.random.default_rng(0)
    boxes_left = rng.integers(0, 10, 200).astype(np.int8)
    reward = np.minimum(rng.integers(0, 3, 200), boxes_left).astype(np.int8)
    child_value = (rng.integers(0, 10, 200) % (boxes_left - reward + 1)).astype(np.int8)
    layer = move_value(child_value, reward, boxes_left)
    assert layer.dtype == np.int8
    assert layer.tolist() == [
        move_value(*numbers) for numbers in zip(child_value.tolist(), reward.tolist(), boxes_left.tolist(), strict=True)
    ]


def test_the_agents_refuse_other_games():
    assert check_dots(game := DotsAndBoxes(1, 1)) is game
    with pytest.raises(ValueError, match="play Dots and Boxes"):
        check_dots(TicTacToe())
