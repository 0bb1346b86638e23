"""ConnectN parameters: the same code as tic-tac-toe covers m,n,k boards and gravity boards."""

import numpy as np
import pytest

from gym_boardgames.rules import ConnectN, board_geometry


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"rows": 0}, "rows must be an integer >= 1"),
        ({"cols": -2}, "cols must be an integer >= 1"),
        ({"n": 0}, r"n \(on a 6x7 board\) must be an integer in \[1, 7\], got 0"),
        ({"rows": 3, "cols": 3, "n": 4}, r"n \(on a 3x3 board\) must be an integer in \[1, 3\], got 4"),
        ({"rows": 2.5}, "rows must be an integer"),
        ({"gravity": "yes"}, "gravity must be True or False"),
    ],
)
def test_bad_parameters_raise_value_error_naming_the_problem(kwargs, message):
    with pytest.raises(ValueError, match=message):
        ConnectN(**kwargs)


def test_win_lines_are_counted_once_per_configuration():
    assert len(board_geometry(3, 3, 3).win_lines) == 8
    # Connect Four has 69 lines of four.
    assert board_geometry(6, 7, 4).win_lines.shape == (69, 4)
    assert board_geometry(6, 7, 4) is board_geometry(6, 7, 4)  # cached, not recomputed


def test_gravity_drops_pieces_to_the_lowest_empty_row_and_fills_columns():
    game = ConnectN(rows=3, cols=2, n=3, gravity=True)
    state = game.initial_state()
    for _ in range(3):
        state = game.apply(state, 0)
    assert state.board == bytes([1, 0, 2, 0, 1, 0])
    assert game.legal_actions(state) == [1]
    with pytest.raises(ValueError, match=r"^action 0 is an illegal move here: legal actions are \[1\]$"):
        game.apply(state, 0)


def test_connect_four_vertical_win():
    game = ConnectN()  # 6x7, n=4, gravity
    state = game.initial_state()
    for move in [3, 4, 3, 4, 3, 4, 3]:
        state = game.apply(state, move)
    assert state.winner == 0
    cells = game.winning_line(state)
    assert sorted(cells) == [2 * 7 + 3, 3 * 7 + 3, 4 * 7 + 3, 5 * 7 + 3]


def test_n_equal_one_means_the_first_move_wins():
    game = ConnectN(2, 2, 1, gravity=False)
    state = game.apply(game.initial_state(), 3)
    assert game.returns(state) == (1.0, -1.0)


def test_large_board_keys_fall_back_to_python_ints():
    game = ConnectN(15, 15, 5, gravity=False)
    state = game.apply(game.initial_state(), 224)
    assert game.key(state) == 3**224
    assert game.from_key(game.key(state)) == state


def test_legal_mask_of_gravity_board_reads_the_top_row():
    game = ConnectN(rows=2, cols=3, n=2, gravity=True)
    state = game.apply(game.apply(game.initial_state(), 1), 1)
    assert np.array_equal(game.legal_mask(state), np.array([1, 0, 1], dtype=np.int8))


def test_batched_landing_cells_and_lines_agree_with_the_scalar_rules():
    game = ConnectN(4, 5, 3, gravity=True)
    rng = np.random.default_rng(0)
    for _ in range(30):
        state = game.initial_state()
        while not game.is_terminal(state):
            board = np.frombuffer(state.board, dtype=np.uint8)
            heights = (board.reshape(game.rows, game.cols) != 0).sum(axis=0)
            landing = game.landing_cells(heights, np.arange(game.cols))
            for column in game.legal_actions(state):
                assert landing[column] == game.action_cell(state, column)
            state = game.apply(state, int(rng.choice(game.legal_actions(state))))
            board = np.frombuffer(state.board, dtype=np.uint8)
            assert [bool(game.has_line(board, piece)) for piece in (1, 2)] == [state.winner == p for p in (0, 1)]
    boards = np.array([[1, 1, 1, 0, 0, 0, 0, 0, 0], [2, 0, 0, 2, 0, 0, 2, 0, 0], [1, 2, 1, 0, 0, 0, 0, 0, 0]])
    assert ConnectN(3, 3, 3, gravity=False).has_line(boards, 1).tolist() == [True, False, False]
    assert ConnectN(3, 3, 3, gravity=False).has_line(boards, 2).tolist() == [False, True, False]
