"""agents.search.connect_four refuses a state no game reaches, at every public entry, instead of scoring it.

A forged state (a player of 9, a cell byte of 3, two more stones of one side, a stone in mid-air, a four in a
row the state does not record) once came back with scores as if it were a position. Each entry that takes a
state or a board is tried: the module's ``score_moves``, :func:`agents.search.solver.score_moves`, the solver's
``score_moves`` and ``solve``, the compiled ``solve_board`` and ``score_board`` themselves, and the ``perfect``
agent as the factory and the opponent door build it. Most states are on a 4x5 board, which the solver (fixed or
not) searches in milliseconds.
"""

import numpy as np
import pytest

from agents.factory import make_agent
from agents.search import connect_four
from agents.search.connect_four import ConnectFourSolver, score_board, scratch_array, solve_board
from agents.search.solver import score_moves as solver_score_moves
from gym_boardgames.opponents import make_opponent
from gym_boardgames.rules import ConnectN
from gym_boardgames.rules.connect import BoardState

SMALL = ConnectN(4, 5, 4, True)
BOTTOM = 15  # the bottom row's first cell on 4x5 (row 0 is the top)


def board(stones, cells=20):
    """A board of ``cells`` cells with ``{cell: value}`` set and every other cell empty."""
    values = bytearray(cells)
    for cell, value in stones.items():
        values[cell] = value
    return bytes(values)


def replay(game, moves):
    state = game.initial_state()
    for column in moves:
        state = game.apply(state, column)
    return state


# After the columns 2, 2, 1: player 0 on cells 17 and 16, player 1 on 12; player 1 to move.
PLAYED = replay(SMALL, [2, 2, 1]).board
WHERE = r"^not a position of a 4x5 gravity board: "
COUNTS = r"player 0 has {} stones and player 1 has {} with player {} to move: player 0 moves at equal counts"
FORGED = {
    "player 9": (BoardState(PLAYED, 9), WHERE + r"the player to move must be 0 or 1, got 9$"),
    "player -1": (BoardState(PLAYED, -1), WHERE + r"the player to move must be 0 or 1, got -1$"),
    "the wrong player": (BoardState(PLAYED, 0), WHERE + COUNTS.format(2, 1, 0)),
    "two more stones of player 0": (BoardState(board({BOTTOM: 1, BOTTOM + 1: 1}), 1), WHERE + COUNTS.format(2, 0, 1)),
    "two more stones of player 1": (BoardState(board({BOTTOM: 2, BOTTOM + 1: 2}), 1), WHERE + COUNTS.format(0, 2, 1)),
    "a cell byte of 3": (BoardState(board({BOTTOM: 3}), 1), WHERE + r"cell 15 is 3, not 0 \(empty\), 1, 2$"),
    "a cell byte of 255": (BoardState(board({BOTTOM: 255}), 1), WHERE + r"cell 15 is 255, not 0 \(empty\), 1, 2$"),
    "a stone in mid-air": (BoardState(board({0: 1}), 1), WHERE + r"cell 0 floats above an empty cell$"),
    "a stone over a gap": (BoardState(board({BOTTOM: 1, 5: 2}), 0), WHERE + r"cell 5 floats above an empty cell$"),
    "four in a row, not recorded": (
        replay(SMALL, [1, 1, 2, 2, 3, 4, 0])._replace(winner=None),
        WHERE + r"the game is over \(four in a row or a full board\)$",
    ),
    # The solver's own calls refused a board of another length before; the compiled kernels now do too.
    "a board of 19 bytes": (BoardState(PLAYED[:-1], 1), r"a board has 20 cells, got 19$|with a board of 19 cells$"),
    "a board of 21 bytes": (
        BoardState(PLAYED + b"\x01", 1),
        r"a board has 20 cells, got 21$|with a board of 21 cells$",
    ),
}
# What only the Python entries see: the kernels take bytes and an int, and numba would compile them anew for others.
WRONG_TYPES = {
    "a bool player": (
        BoardState(PLAYED, True),
        r"board must be bytes and its player an int \(0 or 1\), not bytes and bool$",
    ),
    "a float player": (BoardState(PLAYED, 1.0), r"not bytes and float$"),
    "a list board": (BoardState(list(PLAYED), 1), r"not list and int$"),
    "a bytearray board": (BoardState(bytearray(PLAYED), 1), r"not bytearray and int$"),
}


def kernel_entries(solver, game):
    """The compiled entry points, called as the solver calls them, on ``solver``'s table (no book)."""
    rows, cols = game.rows, game.cols
    scratch, codes, scores = scratch_array(rows, cols), np.zeros(0, dtype=np.int32), np.zeros(0, dtype=np.int8)

    def solve(state):
        return solve_board(state.board, state.player, rows, cols, solver.table, scratch, codes, scores)

    def score(state):
        columns = np.zeros(cols, dtype=np.int64)
        return score_board(state.board, state.player, rows, cols, solver.table, scratch, codes, scores, columns)

    return {"solve_board": solve, "score_board": score}


def python_entries(solver, game):
    """Every entry that takes a game and a state."""
    return {
        "connect_four.score_moves": lambda state: connect_four.score_moves(game, state),
        "solver.score_moves": lambda state: solver_score_moves(game, state),
        "ConnectFourSolver.score_moves": lambda state: solver.score_moves(game, state),
        "ConnectFourSolver.solve": lambda state: solver.solve(game, state),
        "make_agent('perfect').act": lambda state: make_agent("perfect", seed=0, game=game).act(game, state),
        "make_opponent('perfect').act": lambda state: make_opponent("perfect", game, 0).act(game, state),
    }


@pytest.fixture(scope="module")
def small_solver():
    return ConnectFourSolver(4, 5, book=False)


def assert_refused_everywhere(solver, game, state, message):
    for name, entry in {**python_entries(solver, game), **kernel_entries(solver, game)}.items():
        with pytest.raises(ValueError, match=message):
            entry(state)
            pytest.fail(f"{name} scored the forged state")


@pytest.mark.parametrize("forged", list(FORGED))
def test_every_entry_refuses_a_forged_state_naming_the_problem(small_solver, forged):
    assert_refused_everywhere(small_solver, SMALL, *FORGED[forged])


@pytest.mark.parametrize("forged", list(WRONG_TYPES))
def test_the_python_entries_refuse_a_board_not_bytes_or_a_player_not_an_int(small_solver, forged):
    state, message = WRONG_TYPES[forged]
    for entry in python_entries(small_solver, SMALL).values():
        with pytest.raises(ValueError, match=message):
            entry(state)


def test_every_entry_refuses_a_forged_player_on_connect_four():
    game = ConnectN(6, 7, 4, True)
    late = replay(game, [3, 3, 2, 4, 4, 2, 5, 1, 1, 6, 0, 0, 6, 5, 5, 2, 2, 3, 3, 1, 0, 6])  # 22 stones, player 0
    where = r"^not a position of a 6x7 gravity board: "
    solver = ConnectFourSolver(6, 7, book=False)
    for player, message in ((9, r"the player to move must be 0 or 1, got 9$"), (1, "player 0 has 11 stones")):
        assert_refused_everywhere(solver, game, BoardState(late.board, player), where + message)
    assert len(solver.score_moves(game, late)) == 7  # the real position still scores


# Won games of every direction, the last stone making the line; the solver must refuse them with winner=None.
WON = {
    (4, 5): {
        "horizontal": [1, 1, 2, 2, 3, 4, 0],
        "vertical": [3, 0, 2, 2, 4, 0, 4, 0, 3, 2, 4, 1, 4],
        "down-right": [2, 1, 1, 4, 4, 0, 4, 4, 1, 1, 2, 2, 2, 0, 3, 3],
        "down-left": [1, 0, 0, 1, 3, 2, 1, 4, 3, 3, 4, 3, 0, 0, 4, 2, 1, 2],
    },
    (6, 7): {
        "horizontal": [1, 5, 4, 0, 2, 6, 3],
        "vertical": [0, 6, 5, 6, 2, 1, 3, 6, 2, 6],
        "down-left": [4, 3, 0, 5, 5, 3, 1, 5, 3, 6, 1, 2, 5, 1, 2, 2, 5, 5, 4, 2, 3, 3, 4, 0],
        "down-right": [2, 5, 1, 1, 6, 1, 6, 6, 1, 3, 2, 3, 4, 6, 6, 0, 1, 4, 1, 2, 4, 2, 6, 4, 2, 2, 4, 3],
    },
}


@pytest.mark.parametrize("shape", list(WON))
def test_a_four_in_a_row_the_state_does_not_record_is_refused_in_every_direction(shape):
    game, solver = ConnectN(*shape, 4, True), ConnectFourSolver(*shape, book=False)
    score = kernel_entries(solver, game)["score_board"]
    for direction, moves in WON[shape].items():
        won = replay(game, moves)
        assert won.winner is not None, direction
        with pytest.raises(ValueError, match=r"the game is over: there is no move to score"):  # as before
            solver.score_moves(game, won)
        for call in (lambda state: solver.score_moves(game, state), score):
            with pytest.raises(ValueError, match=r"gravity board: the game is over \(four in a row or a full board\)"):
                call(won._replace(winner=None))
        before = replay(game, moves[:-1])  # one stone short of the line: a position, scored
        assert sorted(solver.score_moves(game, before)) == game.legal_actions(before), direction


@pytest.mark.parametrize("shape", [(20, 3), (4, 4), (5, 4)])
def test_a_vertical_four_is_refused_on_tall_and_small_boards(shape):
    # From 15 rows only vertical lines fit, and the line check must not shift past 63 bits looking for others.
    rows, cols = shape
    cells = bytearray(rows * cols)
    for height in range(4):
        cells[(rows - 1 - height) * cols] = 1  # player 0 up column 0
    for height in range(3):
        cells[(rows - 1 - height) * cols + 1] = 2  # player 1 up column 1
    solver = ConnectFourSolver(rows, cols, book=False)
    score = kernel_entries(solver, ConnectN(rows, cols, 4, True))["score_board"]
    with pytest.raises(ValueError, match=rf"^not a position of a {rows}x{cols} gravity board: the game is over"):
        score(BoardState(bytes(cells), 1))
