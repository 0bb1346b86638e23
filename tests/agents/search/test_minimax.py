"""Alpha-beta: the known answers, agreement with plain minimax on every game, and a refusal of too deep searches."""

import functools

import gymnasium as gym
import numpy as np
import pytest

import gym_boardgames  # noqa: F401
from agents.factory import make_agent
from agents.search.minimax import MAX_SEARCH_PLIES, AlphaBetaAgent, alphabeta, longest_game
from gym_boardgames.rules import ConnectN, DotsAndBoxes, TicTacToe


def plain_minimax(game, state):
    """Textbook minimax without pruning or tables: the value for the player to move."""
    mover = game.current_player(state)
    if game.is_terminal(state):
        return game.returns(state)[mover]
    best = -2.0
    for action in game.legal_actions(state):
        child = game.apply(state, action)
        value = plain_minimax(game, child)
        best = max(best, value if game.current_player(child) == mover else -value)
    return best


def play(game, moves):
    return functools.reduce(game.apply, moves, game.initial_state())


def random_positions(game, count, rng, min_moves):
    positions = []
    while len(positions) < count:
        state = game.initial_state()
        for _ in range(rng.integers(min_moves, min_moves + 6)):
            if game.is_terminal(state):
                break
            legal = game.legal_actions(state)
            state = game.apply(state, legal[rng.integers(len(legal))])
        if not game.is_terminal(state):
            positions.append(state)
    return positions


def test_tictactoe_is_a_draw():
    game = TicTacToe()
    assert alphabeta(game, game.initial_state(), seed=0)[0] == 0.0


def test_takes_a_win_in_one_and_blocks_a_loss_in_one():
    game = TicTacToe()
    # X: 0, 1; O: 3, 4 -> X to move wins at 2.
    state = play(game, [0, 3, 1, 4])
    for seed in range(5):
        value, action = alphabeta(game, state, seed=seed)
        assert (value, action) == (1.0, 2)
    # X: 0, 8; O: 4 and X must block O... O: 3, 4 with X to move must take 5.
    state = play(game, [0, 3, 8, 4])
    for seed in range(5):
        assert AlphaBetaAgent(seed=seed).act(game, state) == 5


@pytest.mark.parametrize(
    ("game", "min_moves"),
    [
        pytest.param(TicTacToe(), 1, marks=pytest.mark.slow),  # every position of the game
        (ConnectN(4, 4, 3, gravity=True), 6),
        (ConnectN(3, 4, 3, gravity=False), 5),
        (DotsAndBoxes(2, 2), 5),
        (DotsAndBoxes(1, 3), 3),
    ],
    ids=["tictactoe", "connect3-4x4", "mnk-3x4-k3", "dots-2x2", "dots-1x3"],
)
def test_value_and_move_agree_with_plain_minimax(game, min_moves):
    rng = np.random.default_rng(0)
    for state in random_positions(game, 25, rng, min_moves):
        expected = plain_minimax(game, state)
        value, action = alphabeta(game, state, seed=int(rng.integers(1000)))
        assert value == expected
        child = game.apply(state, action)
        mover = game.current_player(state)
        child_value = plain_minimax(game, child)
        assert (child_value if game.current_player(child) == mover else -child_value) == expected


def test_depth_limited_search_uses_the_heuristic():
    game = ConnectN()  # Connect Four, far too big to search to the end
    calls = []

    def centre_heuristic(g, state):
        calls.append(state)
        return 0.1

    value, action = alphabeta(game, game.initial_state(), depth=2, evaluate=centre_heuristic, seed=0)
    assert calls and value == pytest.approx(0.1) and action in range(7)
    # A win in one is still found at depth 1.
    state = play(game, [0, 6, 1, 6, 2, 5])
    assert alphabeta(game, state, depth=1, seed=0) == (1.0, 3)


def test_ties_between_optimal_moves_vary_with_the_seed_and_repeat_for_a_seed():
    game = TicTacToe()
    start = game.initial_state()
    moves = {AlphaBetaAgent(seed=seed).act(game, start) for seed in range(30)}
    assert len(moves) > 1  # every first move of tic-tac-toe draws, so the seed decides
    assert AlphaBetaAgent(seed=4).act(game, start) == AlphaBetaAgent(seed=4).act(game, start)


def test_bad_arguments_and_terminal_states():
    game = TicTacToe()
    with pytest.raises(ValueError, match="depth"):
        AlphaBetaAgent(depth=0)
    with pytest.raises(ValueError, match="depth"):
        alphabeta(game, game.initial_state(), depth=-1)
    over = play(game, [0, 3, 1, 4, 2])
    assert alphabeta(game, over) == (-1.0, None)
    with pytest.raises(ValueError, match="game is over"):
        AlphaBetaAgent().act(game, over)


def test_alphabeta_agent_is_a_perfect_env_opponent():
    env = gym.make("TicTacToe-v0", opponent=AlphaBetaAgent(seed=0))
    rng = np.random.default_rng(0)
    for seed in range(20):
        _, info = env.reset(seed=seed)
        terminated = False
        while not terminated:
            _, reward, terminated, _, info = env.step(int(rng.choice(np.flatnonzero(info["action_mask"]))))
        assert reward <= 0.0  # random play never beats perfect play


class Corridor:
    """A one-move-per-turn game of ``length`` plies ending in a draw: deep, with one position per ply."""

    num_players = 2

    def __init__(self, length):
        self.length = length

    def initial_state(self):
        return 0

    def current_player(self, state):
        return state % 2

    def legal_actions(self, state):
        return [] if state >= self.length else [0]

    def apply(self, state, action):
        return state + 1

    def is_terminal(self, state):
        return state >= self.length

    def returns(self, state):
        return (0.0, 0.0)


def test_alphabeta_too_deep_raises_a_clear_error_not_recursion_error():
    game = Corridor(5000)
    with pytest.raises(ValueError, match=f"deeper than MAX_SEARCH_PLIES={MAX_SEARCH_PLIES}.*give a depth limit"):
        alphabeta(game, game.initial_state())
    assert alphabeta(game, game.initial_state(), depth=50) == (0.0, 0)
    shallow = Corridor(MAX_SEARCH_PLIES)
    assert alphabeta(shallow, shallow.initial_state()) == (0.0, 0)


# ---- exact alpha-beta against the game's length --------------------------------------------------
# From the reliability issue: exact alpha-beta on a 64x64 board failed only at its first move.


#: A board whose game can last 64 * 64 = 4096 plies, ten times what alpha-beta's search can go.
LONG_BOARD = {"rows": 64, "cols": 64, "n": 4, "gravity": True}


def test_longest_game_counts_cells_or_edges():
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


def test_exact_search_is_refused_on_boards_it_cannot_solve_before_any_move():
    from agents.search.minimax import MAX_EXACT_POSITIONS

    with pytest.raises(ValueError, match=r"exact alpha-beta cannot solve ConnectN\(rows=6.*give a depth"):
        make_agent("alphabeta", game=ConnectN(6, 7, 4, gravity=True))
    with pytest.raises(ValueError, match=r"MAX_EXACT_POSITIONS=10\^8"):
        gym.make("ConnectFour-v0", opponent="alphabeta")
    assert MAX_EXACT_POSITIONS == 10**8
    make_agent("alphabeta:6", game=ConnectN(6, 7, 4, gravity=True))  # a depth limit is fine
    make_agent("alphabeta", game=DotsAndBoxes(3, 3))  # solvable: about 34 s of CPU for the first move
