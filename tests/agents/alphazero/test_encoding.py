"""AlphaZero encodings: symmetries mapped as the rules map them, the boards' own groups, the mover's side."""

import sys
from pathlib import Path

import numpy as np
import pytest

from agents.alphazero.encoding import encoder_for
from gym_boardgames.rules import ConnectN, DotsAndBoxes, TicTacToe

sys.path.insert(0, str(Path(__file__).parent))  # importlib import mode: put the sibling helper on the path
from alphazero_helpers import GAMES, IDS, play, random_line  # noqa: E402


@pytest.mark.parametrize("game", GAMES, ids=IDS)
def test_symmetries_map_positions_legal_moves_and_policies_as_the_rules_do(game):
    """Play a random line and its image under each symmetry through the rules: the encodings and legal moves
    of the two end positions must be each other's images."""
    encoder = encoder_for(game)
    rng = np.random.default_rng(0)
    for _ in range(25):
        moves = random_line(game, rng)
        state = play(game, moves)
        if game.is_terminal(state):
            continue
        planes = encoder.encode([state])
        for sym in encoder.symmetries:
            new_of = np.empty_like(sym.action_perm)
            new_of[sym.action_perm] = np.arange(len(sym.action_perm))  # old action -> new action
            image = play(game, [int(new_of[m]) for m in moves])
            expected_planes, _ = encoder.augment(
                planes, np.zeros((1, encoder.num_actions)), np.array([sym_index(encoder, sym)])
            )
            np.testing.assert_array_equal(encoder.encode([image]), expected_planes, err_msg=sym.name)
            legal = np.zeros(encoder.num_actions)
            legal[game.legal_actions(state)] = 1.0
            _, legal_image = encoder.augment(planes, legal[None, :], np.array([sym_index(encoder, sym)]))
            assert sorted(np.flatnonzero(legal_image[0])) == sorted(game.legal_actions(image)), sym.name
            policy = rng.random(encoder.num_actions)
            _, moved = encoder.augment(planes, policy[None, :], np.array([sym_index(encoder, sym)]))
            for old in range(encoder.num_actions):
                assert moved[0, new_of[old]] == policy[old]


def sym_index(encoder, sym):
    return next(i for i, s in enumerate(encoder.symmetries) if s.name == sym.name)


def test_symmetry_groups_are_the_boards_own():
    names = {repr(g): [s.name for s in encoder_for(g).symmetries] for g in GAMES}
    assert len(names["TicTacToe()"]) == 8
    assert names[repr(ConnectN(6, 7, 4, True))] == ["identity", "mirror"]
    assert len(names[repr(ConnectN(4, 6, 3, False))]) == 4
    assert len(names[repr(DotsAndBoxes(3, 3))]) == 8 and len(names[repr(DotsAndBoxes(2, 3))]) == 4


def test_encoding_is_from_the_movers_side():
    game = TicTacToe()
    encoder = encoder_for(game)
    x_moved = game.apply(game.initial_state(), 4)  # O to move: X's piece is the opponent's
    planes = encoder.encode([game.initial_state(), x_moved])
    assert planes[0, 0].sum() == 0 and planes[0, 2].all()  # empty board, player 0 (X) to move
    assert planes[1, 1, 1, 1] == 1 and planes[1, 0].sum() == 0 and not planes[1, 2].any()
