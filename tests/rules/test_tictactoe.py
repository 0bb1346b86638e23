"""Tic-tac-toe rules: table-driven games, the state space, and the rules surface (docs/design.md)."""

from itertools import combinations

import pytest

from gym_boardgames.rules import BoardState, ConnectN, TicTacToe

LINES = [
    (0, 1, 2),
    (3, 4, 5),
    (6, 7, 8),  # rows
    (0, 3, 6),
    (1, 4, 7),
    (2, 5, 8),  # columns
    (0, 4, 8),
    (2, 4, 6),  # diagonals
]


def play(game, moves):
    state = game.initial_state()
    for move in moves:
        state = game.apply(state, move)
    return state


def harmless_cells(line, count):
    """The first ``count`` cells off ``line`` that hold no line of three among themselves."""
    free = [c for c in range(9) if c not in line]
    return next(cells for cells in combinations(free, count) if not any(set(o) <= set(cells) for o in LINES))


@pytest.mark.parametrize("line", LINES)
def test_each_of_the_eight_lines_wins_for_x(line):
    game = TicTacToe()
    o_moves = harmless_cells(line, 2)
    state = play(game, [line[0], o_moves[0], line[1], o_moves[1], line[2]])
    assert game.is_terminal(state)
    assert game.returns(state) == (1.0, -1.0)
    assert state.winner == 0
    assert game.winning_line(state) == line
    assert game.legal_actions(state) == []


@pytest.mark.parametrize("line", LINES)
def test_each_of_the_eight_lines_wins_for_o(line):
    game = TicTacToe()
    # X plays cells that never make a line of three; O completes `line` on its third move.
    x_safe = harmless_cells(line, 3)
    state = play(game, [x_safe[0], line[0], x_safe[1], line[1], x_safe[2], line[2]])
    assert game.returns(state) == (-1.0, 1.0)
    assert state.winner == 1
    assert game.current_player(state) == 0  # the player who would have moved next


def test_win_on_the_ninth_move_is_a_win_not_a_draw():
    game = TicTacToe()
    # X: 0 2 3 7 6 (column 0, 3, 6 completed by the last move, which also fills the board).
    state = play(game, [0, 1, 2, 4, 3, 5, 7, 8, 6])
    assert b"\x00" not in state.board
    assert game.is_terminal(state)
    assert game.returns(state) == (1.0, -1.0)


def test_full_board_without_a_line_is_a_draw():
    game = TicTacToe()
    state = play(game, [0, 1, 2, 4, 3, 5, 7, 6, 8])
    assert game.is_terminal(state)
    assert state.winner is None
    assert game.returns(state) == (0.0, 0.0)


def test_play_after_the_end_is_refused():
    game = TicTacToe()
    state = play(game, [0, 3, 1, 4, 2])
    with pytest.raises(ValueError, match="game is over"):
        game.apply(state, 8)
    assert not game.is_legal(state, 8)


def test_occupied_cell_and_out_of_range_are_refused_without_mutation():
    game = TicTacToe()
    state = play(game, [4])
    before = state
    with pytest.raises(
        ValueError, match=r"^action 4 is an illegal move here: legal actions are \[0, 1, 2, 3, 5, 6, 7, 8\]$"
    ):
        game.apply(state, 4)
    with pytest.raises(ValueError, match="0..8"):
        game.apply(state, 9)
    with pytest.raises(ValueError, match="0..8"):
        game.apply(state, -1)
    with pytest.raises(ValueError, match="integer"):
        game.apply(state, 1.5)
    assert state == before and state.board == before.board


def test_returns_before_the_end_raises():
    game = TicTacToe()
    with pytest.raises(ValueError, match="end of the game"):
        game.returns(play(game, [0, 1]))


def test_states_are_immutable_hashable_values_without_history():
    game = TicTacToe()
    a = play(game, [0, 4, 8])
    b = play(game, [8, 4, 0])  # another move order, same position
    assert a == b and hash(a) == hash(b)
    assert len({a, b}) == 1
    with pytest.raises(AttributeError):
        a.board = bytes(9)  # type: ignore[misc]
    assert game.apply(a, 1) != a  # apply returns a new state and leaves `a` alone
    assert a.board == bytes([1, 0, 0, 0, 2, 0, 0, 0, 1])


def test_legal_actions_are_ascending_and_mask_matches():
    game = TicTacToe()
    state = play(game, [4, 0, 8])
    assert game.legal_actions(state) == [1, 2, 3, 5, 6, 7]
    assert game.legal_mask(state).tolist() == [0, 1, 1, 1, 0, 1, 1, 1, 0]
    assert game.legal_mask(state).dtype.name == "int8"


def reachable(game):
    start = game.initial_state()
    seen = {start}
    stack = [start]
    while stack:
        state = stack.pop()
        for action in game.legal_actions(state):
            child = game.apply(state, action)
            if child not in seen:
                seen.add(child)
                stack.append(child)
    return seen


def test_rules_reach_exactly_5478_positions_958_terminal():
    game = TicTacToe()
    states = reachable(game)
    assert len(states) == 5478
    assert sum(game.is_terminal(s) for s in states) == 958


def test_compact_keys_are_unique_in_range_and_invertible():
    game = TicTacToe()
    states = reachable(game)
    keys = {game.key(s) for s in states}
    assert len(keys) == len(states)
    assert all(0 <= k < game.num_keys == 3**9 for k in keys)
    for state in list(states)[:500]:
        assert game.from_key(game.key(state)) == state
    assert game.key(game.initial_state()) == 0
    assert game.key(play(game, [0])) == 1 and game.key(play(game, [0, 1])) == 1 + 2 * 3


def test_from_key_rejects_impossible_boards():
    game = TicTacToe()
    with pytest.raises(ValueError, match=r"key must be an integer in \[0, 19682\], got 19683"):
        game.from_key(3**9)
    with pytest.raises(ValueError, match="piece counts"):
        game.from_key(1 + 1 * 3)  # two X, no O
    with pytest.raises(ValueError, match="moved after"):
        game.state_from_board([1, 1, 1, 2, 2, 0, 2, 0, 0])  # X won, yet O moved afterwards


def test_tictactoe_is_connectn_3_3_3_without_gravity():
    assert TicTacToe() == ConnectN(3, 3, 3, gravity=False)
    assert isinstance(TicTacToe().initial_state(), BoardState)
    assert TicTacToe().num_actions == 9
