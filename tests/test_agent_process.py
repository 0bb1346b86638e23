"""gym_boardgames.agent_process: what crosses to a user's agent's child process is JSON that rebuilds it exactly."""

import json

import numpy as np

from gym_boardgames.agent_process import decode_position, decode_seed, encode_position, encode_seed, plays_in_child
from gym_boardgames.rules import ConnectN, DotsAndBoxes, TicTacToe
from gym_boardgames.rules.registry import game_to_config


def test_positions_of_every_board_game_cross_as_json_and_come_back_equal():
    for game, moves in ((TicTacToe(), [4, 0]), (ConnectN(6, 7, 4, True), [3, 3, 2]), (DotsAndBoxes(2, 3), [0, 5])):
        state = game.initial_state()
        for move in moves:
            state = game.apply(state, move)
        again_game, again_state = decode_position(json.loads(json.dumps(encode_position(game, state))))
        assert game_to_config(again_game) == game_to_config(game)
        assert again_state == state and type(again_state) is type(state)
        assert plays_in_child(game)


def test_a_generator_crosses_in_its_state_and_draws_the_same_numbers():
    generator = np.random.default_rng(7)
    generator.integers(100, size=3)  # not at its start: the state, not the seed, must cross
    again = decode_seed(json.loads(json.dumps(encode_seed(generator))))
    assert again.integers(1 << 30, size=5).tolist() == generator.integers(1 << 30, size=5).tolist()
    assert decode_seed(encode_seed(3)) == 3 and decode_seed(encode_seed(None)) is None


def test_a_game_the_registry_cannot_rebuild_does_not_play_in_a_child():
    class OwnGame(TicTacToe):
        pass

    assert not plays_in_child(OwnGame())
