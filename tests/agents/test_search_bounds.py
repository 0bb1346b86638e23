"""Search budgets are bounded, a proven root ends the search, and alpha-beta is checked against the game.

From the reliability issue: ``opponent="mcts:99999999999999999999"`` hung the first ``step()``, and exact
alpha-beta on a 64x64 board failed only at its first move. Work is counted in operations (evaluator calls,
simulations), never in seconds.
"""

from __future__ import annotations

import gymnasium as gym
import pytest

import gym_boardgames  # noqa: F401  (registers the ids)
from agents.factory import make_agent
from agents.mcts import MCTSAgent
from agents.minimax import AlphaBetaAgent
from gym_boardgames.rules import ConnectN, DotsAndBoxes, TicTacToe

HUGE = "99999999999999999999"
#: A board whose game can last 64 * 64 = 4096 plies, ten times what alpha-beta's search can go.
LONG_BOARD = {"rows": 64, "cols": 64, "n": 4, "gravity": True}


def play(game, *actions):
    state = game.initial_state()
    for action in actions:
        state = game.apply(state, action)
    return state


class CountingValue:
    """A leaf value function that counts its calls: one call per simulation that reaches a new leaf."""

    def __init__(self) -> None:
        self.calls = 0

    def __call__(self, game, state) -> float:
        self.calls += 1
        return 0.0


# ---- upper bounds --------------------------------------------------------------------------------


def test_mcts_agent_takes_at_most_ten_million_simulations():
    assert MCTSAgent(n_simulations=10**7).n_simulations == 10**7  # the bound itself is allowed
    for too_many in (10**7 + 1, int(HUGE)):
        with pytest.raises(ValueError, match=r"n_simulations must be an integer >= 1 and <= 10000000"):
            MCTSAgent(n_simulations=too_many)


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        (f"mcts:{HUGE}", r"the simulations must be a positive integer and <= 10000000, got '9+'"),
        ("mcts:10000001", r"the simulations must be a positive integer and <= 10000000"),
        ("alphabeta:401", r"the depth must be a positive integer and <= 400"),
        (f"alphabeta:{HUGE}", r"the depth must be a positive integer and <= 400"),
        ("alphazero:1000001", r"the simulations must be an integer >= 0 and <= 1000000"),
    ],
)
def test_agent_names_refuse_counts_past_their_bounds_naming_the_range(spec, message):
    with pytest.raises(ValueError, match=rf"bad agent '{spec}': {message}"):
        make_agent(spec)


def test_agent_names_at_their_bounds_are_built():
    assert make_agent("mcts:10000000").n_simulations == 10**7
    assert make_agent("alphabeta:400").depth == 400


def test_an_env_refuses_a_huge_mcts_opponent_when_made_not_at_its_first_step():
    with pytest.raises(ValueError, match=r"bad opponent 'mcts:9+'.*<= 10000000"):
        gym.make("TicTacToe-v0", opponent=f"mcts:{HUGE}")


# ---- a proven root stops the search ------------------------------------------------------------------


def test_a_root_with_a_win_in_one_stops_the_search_at_once():
    game = TicTacToe()
    state = play(game, 0, 3, 1, 4)  # X to move: 2 completes the top row
    value = CountingValue()
    agent = MCTSAgent(n_simulations=10**6, seed=0, value=value)
    tree = agent.search(game, state)
    legal = len(game.legal_actions(state))
    assert tree.root.proven is not None and tree.root.proven[game.current_player(state)] == 1.0
    assert agent.last_simulations <= legal and tree.root.n <= legal
    assert value.calls < legal  # at most the other moves' leaves were valued before the win was found
    assert tree.best_action() == 2


def test_a_root_proven_lost_stops_long_before_the_budget():
    game = TicTacToe()
    state = play(game, 0, 1, 4, 8, 3)  # X threatens 6 (column) and 5 (row): O to move has lost
    value = CountingValue()
    agent = MCTSAgent(n_simulations=10**6, seed=0, value=value)
    tree = agent.search(game, state)
    assert tree.root.proven is not None and tree.root.proven[game.current_player(state)] == -1.0
    # Four O moves, each refuted by one of at most three X replies: a few dozen simulations, not 10^6.
    assert agent.last_simulations < 100 and tree.root.n == agent.last_simulations
    assert value.calls <= agent.last_simulations


def test_a_kept_proven_root_runs_no_simulation_at_the_next_move():
    game = TicTacToe()
    state = play(game, 0, 3, 1, 4)
    value = CountingValue()
    agent = MCTSAgent(n_simulations=10**6, seed=0, value=value, reuse_tree=True)
    agent.search(game, state)
    calls = value.calls
    agent.search(game, state)
    assert agent.last_simulations == 0 and value.calls == calls


# ---- alpha-beta against the game ---------------------------------------------------------------------


def test_longest_game_counts_cells_or_edges():
    from agents.minimax import longest_game  # imported here: it is new, and the other tests need not wait for it

    assert longest_game(TicTacToe()) == 9
    assert longest_game(ConnectN(**LONG_BOARD)) == 4096
    assert longest_game(DotsAndBoxes(2, 3)) == DotsAndBoxes(2, 3).num_edges == 17
    assert longest_game(object()) is None


def test_alphabeta_check_refuses_exact_search_of_a_game_longer_than_its_limit():
    board = ConnectN(**LONG_BOARD)
    with pytest.raises(ValueError, match=r"exact alpha-beta could search 4096 plies deep on ConnectN.*SEARCH_PLIES"):
        AlphaBetaAgent().check(board)
    AlphaBetaAgent(depth=4).check(board)  # a depth limit fits
    AlphaBetaAgent().check(TicTacToe())  # a short game fits
    AlphaBetaAgent().check(object())  # a game of unknown length is not refused


def test_make_agent_with_the_game_refuses_exact_alphabeta_on_a_long_board():
    with pytest.raises(ValueError, match=r"MAX_SEARCH_PLIES=400: give a depth of at most 400 \(alphabeta:DEPTH\)"):
        make_agent("alphabeta", game=ConnectN(**LONG_BOARD))
    assert make_agent("alphabeta:3", game=ConnectN(**LONG_BOARD)).depth == 3
    assert make_agent("alphabeta").depth is None  # without the game nothing can be checked


def test_an_env_refuses_exact_alphabeta_on_a_long_board_when_made():
    with pytest.raises(ValueError, match=r"bad opponent 'alphabeta'.*MAX_SEARCH_PLIES"):
        gym.make("ConnectN-v0", opponent="alphabeta", **LONG_BOARD)
