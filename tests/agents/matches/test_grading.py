"""Grading against a solved game: perfect play grades perfect, blunders are found, in walks and in games."""

import math

import numpy as np
import pytest

from agents.dots.bots import Always4Never3Bot, EndgameBot
from agents.dots.layer_table import solve_layers
from agents.dots.study import BoxMargins
from agents.matches.grading import (
    ExactValues,
    audit_all_positions,
    audit_seat,
    grade_moves,
    is_optimal,
    move_value,
    optimal_move_rate,
    play_graded,
    player_moves,
)
from agents.random_agent import RandomAgent
from agents.search.minimax import AlphaBetaAgent
from agents.search.solver import position_values
from agents.tabular.td import TDAgent
from gym_boardgames.opponents import Opponent
from gym_boardgames.rules import ConnectN, DotsAndBoxes, TicTacToe

GAME = TicTacToe()


def key_after(state, action):
    return GAME.key(GAME.apply(state, action))


@pytest.fixture(scope="module")
def solved():
    return position_values(GAME)


@pytest.fixture(scope="module")
def exact(solved):
    return ExactValues(GAME, solved)


class PerfectAgent:
    """Chooses among the game-theoretically best moves."""

    def __init__(self, solved):
        self.solved = solved

    def greedy_actions(self, game, state):
        best = self.solved[game.key(state)]
        return [a for a in game.legal_actions(state) if -self.solved[key_after(state, a)] == best]


def test_audit_of_perfect_play_finds_every_move_optimal(solved):
    perfect = PerfectAgent(solved)
    overall = audit_all_positions(perfect, GAME, solved)
    assert overall.positions == 5478 - 958 and overall.optimal == overall.positions and overall.losing == 0
    for seat in (0, 1):
        audit = audit_seat(perfect, GAME, solved, seat)
        assert 0 < audit.positions < overall.positions and audit.losing == 0


@pytest.mark.slow
def test_audit_finds_the_losing_moves_of_an_untrained_player(solved):
    fresh = TDAgent(GAME)  # every non-terminal afterstate ties at 0.5
    assert audit_seat(fresh, GAME, solved, 1).losing > 0
    assert audit_all_positions(fresh, GAME, solved).optimal_share < 0.9


def test_exact_values_read_terminal_results_and_grade_a_win_in_one(exact):
    state = GAME.initial_state()
    for move in (0, 3, 1, 4):  # X threatens 2, O threatens 5
        state = GAME.apply(state, move)
    assert exact.value(state) == 1 and exact.move_value(state, 2) == 1 and exact.is_optimal(state, 2)
    assert move_value(exact, state, 8) == -1 and not is_optimal(exact, state, 8)
    end = GAME.apply(state, 2)
    assert exact.value(end) == -1  # O, to move at the end, has lost
    assert len(exact.non_terminal_states()) == 4520


def test_the_optimal_move_rate_is_one_for_a_perfect_chooser_and_counts_positions(exact):
    states = exact.non_terminal_states()
    best = [next(a for a in GAME.legal_actions(s) if exact.is_optimal(s, a)) for s in states]
    assert optimal_move_rate(exact, lambda batch: best) == 1.0
    first = [GAME.legal_actions(s)[0] for s in states]
    graded = grade_moves(exact, states, [[a] for a in first])
    assert optimal_move_rate(exact, lambda batch: first, states) == graded.optimal / 4520 < 1
    assert graded.positions == 4520 and graded.losing > 0


def test_a_connect_board_is_graded_the_same_way():
    game = ConnectN(3, 4, 3, True)
    exact = ExactValues(game)
    assert exact.values == position_values(game)
    assert 0 < optimal_move_rate(exact, lambda states: [game.legal_actions(s)[0] for s in states]) < 1


def test_player_moves_are_a_td_agents_tied_greedy_moves_or_an_agents_one_choice():
    state = GAME.initial_state()
    assert player_moves(TDAgent(GAME), GAME, state) == list(range(9))  # every afterstate ties at 0.5
    assert player_moves(RandomAgent(seed=0), GAME, state) in [[a] for a in range(9)]
    # Built as every surface builds it (an Opponent), the project's TD agent is still graded on all its ties.
    assert player_moves(Opponent(TDAgent(GAME), "td"), GAME, state) == list(range(9))


class Ties:
    """An agent that lists tied greedy moves, as a TD agent does."""

    def __init__(self, moves):
        self.moves = moves

    def greedy_actions(self, game, state):
        return self.moves

    def act(self, game, state):
        return self.moves[0]


@pytest.mark.parametrize(
    ("move", "says"),
    [
        (0.7, "agent bot played 0.7, which is not an integer in 0..8"),
        (True, "agent bot played True, which is not an integer in 0..8"),
        ("0", "agent bot played '0', which is not an integer in 0..8"),
        (None, "agent bot played None, which is not an integer in 0..8"),
        (np.array([4]), "agent bot played array([4]), which is not an integer in 0..8"),
        (4, "agent bot played 4, which is an illegal move here: legal actions are [0, 1, 2, 3, 5, 6, 7, 8]"),
    ],
)
def test_a_graded_move_goes_through_the_one_move_check_naming_the_agent(move, says):
    state = GAME.apply(GAME.initial_state(), 4)
    with pytest.raises(ValueError) as error:
        player_moves(lambda game, state: move, GAME, state, "bot")
    assert str(error.value) == says
    with pytest.raises(ValueError) as error:  # a TD agent's ties too
        player_moves(Opponent(Ties([0, move]), "bot"), GAME, state)
    assert str(error.value) == says
    assert player_moves(lambda game, state: np.int8(0), GAME, state, "bot") == [0]


def test_audit_seat_refuses_a_seat_that_is_not_zero_or_one(solved):
    with pytest.raises(ValueError, match=r"seat must be an integer in \[0, 1\], got 2"):
        audit_seat(TDAgent(GAME), GAME, solved, 2)


def test_a_graded_game_of_perfect_play_ends_with_what_each_side_could_force(exact):
    for seat in (0, 1):
        graded = play_graded(exact, AlphaBetaAgent(seed=0), AlphaBetaAgent(seed=1), seat)
        assert graded.returns == (0.0, 0.0) and graded.forced == graded.final == 0


def test_a_graded_dots_game_compares_box_margins():
    game = DotsAndBoxes(2, 2, tie_break="second")
    margins = BoxMargins(game, solve_layers(game))
    graded = play_graded(margins, EndgameBot(12, table=margins.table, seed=0), Always4Never3Bot(seed=1), 0)
    assert graded.final >= graded.forced > -math.inf
    assert graded.returns[0] == game.payoff_of_margin(graded.final, 0)
