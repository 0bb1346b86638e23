"""Exact solving: the known values and position counts, one answer from both solvers, and estimates that bound them."""

import functools
from types import SimpleNamespace

import pytest

from agents.search import solver as solver_mod
from agents.search.solver import _solve_generic, estimate_solve, position_values, solve
from gym_boardgames.rules import ConnectN, DotsAndBoxes, TicTacToe


def play(game, moves):
    return functools.reduce(game.apply, moves, game.initial_state())


def corridor(length):
    """A one-move-per-turn game of ``length`` plies ending in a draw: deep, with one position per ply."""
    ended = {"legal_actions": lambda s: [] if s >= length else [0], "is_terminal": lambda s: s >= length}
    moves = {"initial_state": lambda: 0, "current_player": lambda s: s % 2, "apply": lambda s, a: s + 1}
    return SimpleNamespace(num_players=2, returns=lambda s: (0.0, 0.0), **ended, **moves)


def test_tictactoe_is_a_draw_of_5478_positions():
    assert solve(TicTacToe()) == (0.0, 5478)


@pytest.mark.slow
def test_layered_solver_matches_the_generic_search_and_counts():
    for game in (ConnectN(3, 3, 3, gravity=True), ConnectN(3, 4, 3, gravity=False), ConnectN(4, 4, 3, gravity=True)):
        values = _solve_generic(game)
        assert solve(game) == (values[game.initial_state()] + 0.0, len(values))
    assert solve(ConnectN(3, 4, 3, gravity=False)) == (1.0, 111973)
    assert solve(DotsAndBoxes(2, 2)) == (1.0, 5559)


def test_position_values_cover_every_reachable_tictactoe_position():
    game = TicTacToe()
    values = position_values(game)
    assert len(values) == 5478
    assert values[game.key(game.initial_state())] == 0
    assert values[game.key(play(game, [0, 3, 1, 4]))] == 1  # X wins next move
    assert values[game.key(play(game, [0, 3, 1, 4, 2]))] == -1  # O to move, X has won


def test_the_memoised_solver_handles_games_longer_than_the_python_stack():
    """It used to recurse once per ply: 50x50 boards died with RecursionError."""
    game = corridor(5000)
    assert solve(game) == (0.0, 5001)
    assert len(_solve_generic(game, progress=True)) == 5001


@pytest.mark.parametrize(
    ("game", "positions"),
    [
        (TicTacToe(), 5478),
        (ConnectN(3, 4, 3, gravity=False), 111973),
        (ConnectN(4, 4, 3, gravity=True), 41750),
        (ConnectN(5, 1, 3, gravity=True), 6),
        (DotsAndBoxes(2, 2), 5559),
        (DotsAndBoxes(1, 3), None),
        (DotsAndBoxes(1, 1), None),
    ],
    ids=["tictactoe", "mnk-3x4", "connect3-4x4", "one-column", "dots-2x2", "dots-1x3", "dots-1x1"],
)
def test_the_estimate_bounds_the_true_count_and_allows_small_games(game, positions):
    estimate = estimate_solve(game)
    true_count = solve(game)[1]
    if positions is not None:
        assert true_count == positions
    assert true_count <= estimate.positions <= 20 * true_count
    assert estimate.feasible and estimate.bytes > 0 and estimate.seconds >= 0


def _forbid_playing(game):
    """Make every rules call on ``game`` fail the test: an estimate from the board's size never plays a move."""

    def forbidden(*args, **kwargs):
        pytest.fail(f"the estimate of {game!r} played the game instead of bounding it from the size")

    for name in ("initial_state", "legal_actions", "apply", "is_terminal", "returns", "current_player", "key"):
        setattr(game, name, forbidden)  # instance attributes shadow the class's methods
    return game


def test_the_estimate_refuses_connect_four_and_huge_boards_at_once(work_budget, monkeypatch):
    for name in ("solve", "_solve_generic", "_solve_connectn_layers"):
        monkeypatch.setattr(solver_mod, name, lambda *args, name=name, **kwargs: pytest.fail(f"{name} was called"))
    for game in (ConnectN(6, 7, 4), ConnectN(64, 64, 5, gravity=False), ConnectN(30, 30, 30), DotsAndBoxes(32, 32)):
        # A bound from the sizes: Connect Four's column profiles take about 2,200 lines, the others about 20;
        # counting Connect Four's 4.5e12 positions would take forever.
        with work_budget.bounded(max_lines=20_000, max_bytes=2**20):
            estimate = estimate_solve(_forbid_playing(game))
        assert not estimate.feasible and estimate.positions > estimate.limit
    assert estimate_solve(ConnectN(4, 4, 4, gravity=False)).positions == 10_165_779  # 9,722,011 positions
    assert estimate_solve(ConnectN(4, 4, 4, gravity=False)).feasible
    assert not estimate_solve(DotsAndBoxes(3, 3)).feasible
    assert estimate_solve(object()).positions is None


def test_progress_does_not_change_the_answer(capsys):
    assert solve(TicTacToe(), progress=True) == (0.0, 5478)
    assert solve(DotsAndBoxes(1, 2), progress=True) == solve(DotsAndBoxes(1, 2))
