"""MCTSAgent: tactics on every game, strength against random play, PUCT and value hooks, tree reuse, seeding.

The tactical positions are checked first (exhaustively where the game is small), so the expected moves are
really the immediate wins, or the only moves that do not lose.
"""

import functools
import math

import gymnasium
import numpy as np
import pytest

import gym_boardgames  # noqa: F401  (registers the env ids)
from agents.matches.arena import play_match
from agents.search.mcts import ChildStats, MCTSAgent
from gym_boardgames.rules import ConnectN, DotsAndBoxes, DotsState, TicTacToe

TTT = TicTacToe()
CONNECT_FOUR = ConnectN(rows=6, cols=7, n=4, gravity=True)
DOTS = DotsAndBoxes(rows=2, cols=2)
SEEDS = range(5)


def ttt(board: str):
    """A tic-tac-toe state from 9 characters, row-major: X (player 0), O (player 1) or '.'."""
    return TTT.state_from_board(bytes(".XO".index(ch) for ch in board))


def after(game, moves):
    state = game.initial_state()
    for move in moves:
        state = game.apply(state, move)
    return state


def dots(drawn: set[int], player: int) -> DotsState:
    """A 2x2 Dots and Boxes state with the given edges drawn and no box owned yet."""
    return DotsState(bytes(e in drawn for e in range(DOTS.num_edges)), bytes(DOTS.num_boxes), player)


def exact_values(game, state) -> dict[int, float]:
    """Every move's exact value for the player to move at ``state`` (memoised minimax; small games only)."""

    @functools.cache
    def value(s) -> float:  # for player 0
        if game.is_terminal(s):
            return game.returns(s)[0]
        values = [value(game.apply(s, a)) for a in game.legal_actions(s)]
        return max(values) if game.current_player(s) == 0 else min(values)

    sign = 1.0 if game.current_player(state) == 0 else -1.0
    return {a: sign * value(game.apply(state, a)) for a in game.legal_actions(state)}


def wins_in_one(game, state) -> set[int]:
    """The moves that end the game at once with a win for the player to move."""
    mover = game.current_player(state)
    ends = {a: game.apply(state, a) for a in game.legal_actions(state)}
    return {a for a, s in ends.items() if game.is_terminal(s) and game.returns(s)[mover] == 1.0}


def only_saving_moves(game, state) -> set[int]:
    """The moves that do not lose with best play, after checking that every other move loses."""
    values = exact_values(game, state)
    assert min(values.values()) == -1.0, "a test position must have losing moves"
    return {a for a, v in values.items() if v > -1.0}


# X to move: X completes the top row at 2 (O's threat on the middle row must not distract it).
TTT_WIN = ttt("XX.OO....")
# X to move, no win of its own: O threatens the middle row, only 5 blocks it.
TTT_BLOCK = ttt("X..OO.X..")
# O to move: O completes the middle row at 4 instead of blocking X's threat at 1.
TTT_WIN_FOR_O = ttt("X.XO.O.X.")
# Connect Four, X to move: X has three on the bottom row (columns 0-2); column 3 wins.
C4_WIN = after(CONNECT_FOUR, [0, 6, 1, 6, 2, 5])
# Connect Four, X to move: O has three in column 6; only 6 stops it.
C4_BLOCK = after(CONNECT_FOUR, [0, 6, 0, 6, 1, 6])
# Dots and Boxes 2x2, player 1 to move. Box 2 (bottom left) has three sides; edge 10 takes it and makes
# box 3 a three-sider, which the extra turn takes with edge 3. Every other move loses.
#   +   +---+
#           |
#   +---+   +
#   |       |
#   +---+---+
DOTS_CHAIN = dots({1, 2, 4, 5, 8, 9, 11}, player=1)
# Dots and Boxes 2x2, player 1 to move, nothing to take. Every edge but 1 hands over a box and loses.
#   +---+   +
#   |       |
#   +   +   +
#   |       |
#   +---+---+
DOTS_SAFE = dots({0, 4, 5, 6, 8, 9, 11}, player=1)


def uniform_prior(game, state):
    return {a: 1.0 for a in game.legal_actions(state)}


TACTICS = {
    "tictactoe-win": (TTT, TTT_WIN, {2}),
    "tictactoe-win-as-second-player": (TTT, TTT_WIN_FOR_O, {4}),
    "tictactoe-block": (TTT, TTT_BLOCK, {5}),
    "connect-four-win": (CONNECT_FOUR, C4_WIN, {3}),
    "connect-four-block": (CONNECT_FOUR, C4_BLOCK, {6}),
    "dots-take-the-chain": (DOTS, DOTS_CHAIN, {10}),
    "dots-give-no-box": (DOTS, DOTS_SAFE, {1}),
}
WINS_IN_ONE = {"tictactoe-win", "tictactoe-win-as-second-player", "connect-four-win"}
EXACT_CHECKABLE = {"tictactoe-block", "dots-take-the-chain", "dots-give-no-box"}


@pytest.mark.parametrize("name", sorted(WINS_IN_ONE))
def test_win_positions_have_exactly_the_expected_wins_in_one(name):
    game, state, expected = TACTICS[name]
    assert wins_in_one(game, state) == expected


@pytest.mark.parametrize("name", sorted(EXACT_CHECKABLE))
def test_forced_positions_have_exactly_the_expected_saving_moves(name):
    game, state, expected = TACTICS[name]
    assert only_saving_moves(game, state) == expected
    assert not wins_in_one(game, state)


def test_the_connect_four_block_is_forced():
    for move in CONNECT_FOUR.legal_actions(C4_BLOCK):
        reply = CONNECT_FOUR.apply(C4_BLOCK, move)
        assert not CONNECT_FOUR.is_terminal(reply)  # X has no win of its own
        if move != 6:
            assert CONNECT_FOUR.returns(CONNECT_FOUR.apply(reply, 6)) == (-1.0, 1.0)


@pytest.mark.parametrize("name", sorted(TACTICS))
def test_takes_the_win_or_the_only_saving_move_at_200_simulations(name):
    game, state, expected = TACTICS[name]
    for seed in SEEDS:
        assert MCTSAgent(n_simulations=200, seed=seed).act(game, state) in expected


@pytest.mark.parametrize("name", sorted(WINS_IN_ONE))
def test_a_win_in_one_is_proven_and_ends_the_search_early(name):
    game, state, expected = TACTICS[name]
    agent = MCTSAgent(n_simulations=1000, seed=0)
    assert agent.act(game, state) in expected
    assert agent.last_simulations < 1000
    stats = {s.action: s for s in agent.root_statistics()}
    assert all(stats[a].proven == 1.0 for a in expected)


def test_moves_that_allow_a_win_in_one_are_proven_losses():
    agent = MCTSAgent(n_simulations=200, seed=0)
    assert agent.act(TTT, TTT_BLOCK) == 5
    stats = agent.root_statistics()
    assert {s.action for s in stats} == set(TTT.legal_actions(TTT_BLOCK))
    assert all(s.proven == -1.0 for s in stats if s.action != 5)


@pytest.mark.parametrize("prior", [None, "uniform"], ids=["uct", "puct"])
def test_a_proven_loss_is_never_visited_again_even_with_strong_exploration(prior):
    agent = MCTSAgent(n_simulations=1000, c=10.0, seed=0, prior=uniform_prior if prior else None)
    assert agent.act(CONNECT_FOUR, C4_BLOCK) == 6
    for stats in agent.root_statistics():
        if stats.action != 6:
            assert stats.proven == -1.0
            # One visit to evaluate the move, then at most one per reply until O's win is found.
            assert stats.visits <= 1 + len(CONNECT_FOUR.legal_actions(C4_BLOCK)), stats


@pytest.mark.slow
def test_never_loses_to_random_play_from_either_side_at_1000_simulations():
    # play_match alternates seats: 50 games as the first player and 50 as the second.
    result = play_match(TTT, MCTSAgent(n_simulations=1000, seed=1), "random", games=100, seed=2)
    assert result.first.games == result.second.games == 50
    assert result.first.loss == 0 and result.second.loss == 0, result.as_dict()
    assert result.total.win >= 80, result.as_dict()


# ---- PUCT and value hooks -------------------------------------------------------------------------


def test_puct_with_a_uniform_prior_plays_the_tactics_and_beats_random():
    for name in ("tictactoe-win", "tictactoe-block", "connect-four-block", "dots-give-no-box"):
        game, state, expected = TACTICS[name]
        assert MCTSAgent(n_simulations=200, seed=0, prior=uniform_prior).act(game, state) in expected, name
    result = play_match(TTT, MCTSAgent(n_simulations=400, seed=0, prior=uniform_prior), "random", games=10, seed=0)
    assert result.total.loss == 0


def test_a_concentrated_prior_gets_most_visits_in_a_quiet_position():
    # The empty board: every move draws with best play, and rollouts barely separate them.
    for target in (0, 1, 4):
        probs = np.full(9, 0.1 / 8)
        probs[target] = 0.9
        agent = MCTSAgent(n_simulations=200, seed=0, prior=lambda g, s, p=probs: p)
        agent.act(TTT, TTT.initial_state())
        stats = agent.root_statistics()
        assert max(stats, key=lambda s: s.visits).action == target
        assert sum(s.visits for s in stats if s.action == target) > 0.5 * sum(s.visits for s in stats)
        # The very first simulation already follows the prior.
        first = MCTSAgent(n_simulations=1, seed=0, prior=lambda g, s, p=probs: p)
        assert first.act(TTT, TTT.initial_state()) == target


QUIET = ttt("X...O....")  # X to move in a drawn position; legal moves 1, 2, 3, 5, 6, 7, 8


def at_quiet_root(root_prior):
    """A prior that is ``root_prior`` at QUIET and uniform elsewhere in the tree."""
    return lambda game, state: root_prior if state == QUIET else uniform_prior(game, state)


@pytest.mark.parametrize(
    "prior",
    [
        at_quiet_root({7: 5.0, 3: 1.0}),  # a mapping: legal moves it leaves out get 0
        at_quiet_root([0, 0, 0, 1, 0, 0, 0, 5, 0]),  # one entry per action, unnormalised
        at_quiet_root([9.0, 0.0, 0.0, 1.0, 9.0, 0.0, 0.0, 5.0, 0.0]),  # per action; 0 and 4 are occupied
        at_quiet_root(np.array([0.0, 0.0, 1.0, 0.0, 0.0, 5.0, 0.0])),  # one per legal move: 1,2,3,5,6,7,8
    ],
    ids=["mapping", "per-action", "per-action-with-illegal-mass", "per-legal-move"],
)
def test_prior_formats_put_the_visits_where_the_mass_is(prior):
    agent = MCTSAgent(n_simulations=100, c=3.0, seed=0, prior=prior)
    agent.act(TTT, QUIET)
    visits = {s.action: s.visits for s in agent.root_statistics()}
    assert max(visits, key=visits.get) == 7
    assert visits[7] > visits.get(3, 0) > 0
    assert all(visits[3] > v for a, v in visits.items() if a not in (3, 7))


def test_a_prior_with_all_mass_on_illegal_moves_falls_back_to_uniform():
    agent = MCTSAgent(n_simulations=200, seed=0, prior=lambda g, s: {0: 1.0, 4: 1.0})  # both occupied
    assert agent.act(TTT, TTT_BLOCK) == 5


def test_a_constant_value_function_still_finds_wins_and_blocks_via_the_solver():
    calls = []

    def value(game, state):
        calls.append((game, state))
        return 0.0

    for name in ("tictactoe-win", "tictactoe-win-as-second-player", "tictactoe-block", "connect-four-win"):
        game, state, expected = TACTICS[name]
        for seed in SEEDS:
            assert MCTSAgent(n_simulations=200, seed=seed, value=value).act(game, state) in expected, name
    assert calls and not any(game.is_terminal(state) for game, state in calls)  # terminal leaves are exact


def test_the_solver_proves_a_small_endgame_a_draw_and_stops():
    # After the forced block at 5 the game is a draw; with no information from the leaves, only the
    # all-children-proven rule can establish that.
    for seed in SEEDS:
        agent = MCTSAgent(n_simulations=1000, seed=seed, value=lambda g, s: 0.0)
        assert agent.act(TTT, TTT_BLOCK) == 5
        assert agent.last_simulations < 1000
        assert {s.action: s.proven for s in agent.root_statistics()}[5] == 0.0


def test_a_value_function_replaces_rollouts_and_is_read_from_the_movers_side():
    applied = []

    class CountingTicTacToe(TicTacToe):
        def apply(self, state, action):
            applied.append(action)
            return super().apply(state, action)

    game = CountingTicTacToe()
    # The value says the player to move at a leaf is lost, so every move looks won for the one who made it.
    agent = MCTSAgent(n_simulations=9, seed=0, value=lambda g, s: -1.0)
    agent.act(game, game.initial_state())
    assert sorted(applied) == list(range(9))  # one expansion per simulation and no rollout moves
    assert agent.root_statistics() == [ChildStats(a, 1, 1.0, None) for a in range(9)]


def test_a_rollout_policy_is_used_with_the_agents_generator():
    seen = []

    def first_legal(game, state, rng):
        seen.append(rng)
        return game.legal_actions(state)[0]

    agent = MCTSAgent(n_simulations=100, seed=0, rollout=first_legal)
    assert agent.act(TTT, TTT_BLOCK) == 5
    assert seen and all(rng is agent.rng for rng in seen)


# ---- seeding, tree reuse and reset -----------------------------------------------------------------


def play_against_random(agent, game, seed):
    """Moves of one game: the agent as player 0 against a seeded random player."""
    rng = np.random.default_rng(seed)
    state, moves = game.initial_state(), []
    while not game.is_terminal(state):
        if game.current_player(state) == 0:
            move = agent.act(game, state)
        else:
            legal = game.legal_actions(state)
            move = legal[rng.integers(len(legal))]
        moves.append(move)
        state = game.apply(state, move)
    return moves


@pytest.mark.parametrize("game", [TTT, CONNECT_FOUR, DOTS], ids=["tictactoe", "connect-four", "dots"])
def test_the_same_seed_gives_the_same_moves(game):
    games = []
    for _ in range(2):
        np.random.seed(np.random.randint(1 << 30))  # global numpy randomness must not matter
        games.append(play_against_random(MCTSAgent(n_simulations=60, seed=7), game, seed=11))
    assert games[0] == games[1]
    # ...and the seed is really used: other seeds give other games.
    others = {tuple(play_against_random(MCTSAgent(n_simulations=60, seed=s), game, seed=11)) for s in range(8)}
    assert len(others) > 1


@pytest.mark.parametrize("prior", [None, uniform_prior], ids=["uct", "puct"])
def test_untried_moves_are_tried_in_a_seeded_random_order_not_by_number(prior):
    first_tries = {MCTSAgent(n_simulations=1, seed=s, prior=prior).act(TTT, TTT.initial_state()) for s in range(30)}
    assert len(first_tries) >= 5


def test_a_generator_can_be_passed_as_the_seed():
    a = MCTSAgent(n_simulations=100, seed=np.random.default_rng(5))
    b = MCTSAgent(n_simulations=100, seed=np.random.default_rng(5))
    assert a.act(TTT, TTT.initial_state()) == b.act(TTT, TTT.initial_state())
    assert a.root_statistics() == b.root_statistics()


def test_reuse_carries_the_subtree_over_after_the_opponents_reply():
    agent = MCTSAgent(n_simulations=300, seed=0)
    state = TTT.initial_state()
    move = agent.act(TTT, state)
    assert agent.reused_visits == 0
    child_visits = {s.action: s.visits for s in agent.root_statistics()}[move]
    reply = TTT.legal_actions(TTT.apply(state, move))[0]
    agent.act(TTT, TTT.apply(TTT.apply(state, move), reply))
    assert agent.reused_visits > 0
    assert agent.reused_visits < child_visits  # a grandchild of the old root, not the old root itself
    # The root's first visit was its own evaluation as a leaf; every later one went to a child.
    assert sum(s.visits for s in agent.root_statistics()) == agent.reused_visits - 1 + agent.last_simulations


def test_reuse_follows_extra_turns_in_dots_and_boxes():
    agent = MCTSAgent(n_simulations=400, seed=0)
    first = agent.act(DOTS, DOTS_CHAIN)
    assert first == 10
    state = DOTS.apply(DOTS_CHAIN, 10)
    assert DOTS.current_player(state) == 1  # the capture gives player 1 another move
    assert agent.act(DOTS, state) == 3
    assert agent.reused_visits > 0


def test_reset_drops_the_tree():
    agent = MCTSAgent(n_simulations=200, seed=0)
    agent.act(TTT, TTT.initial_state())
    agent.reset()
    assert agent.root_statistics() == []
    agent.act(TTT, TTT.initial_state())
    assert agent.reused_visits == 0


def test_without_reuse_every_search_starts_fresh_and_plays_as_well():
    agent = MCTSAgent(n_simulations=200, seed=0, reuse_tree=False)
    agent.act(TTT, TTT.initial_state())
    agent.act(TTT, TTT.initial_state())
    assert agent.reused_visits == 0
    for name in ("tictactoe-win", "tictactoe-block", "connect-four-block", "dots-take-the-chain"):
        game, state, expected = TACTICS[name]
        assert agent.act(game, state) in expected, name
    result = play_match(TTT, MCTSAgent(n_simulations=1000, seed=3, reuse_tree=False), "random", games=10, seed=5)
    assert result.total.loss == 0


def test_a_tree_of_another_game_is_not_reused():
    agent = MCTSAgent(n_simulations=100, seed=0)
    agent.act(TTT, TTT.initial_state())
    three_by_three_gravity = ConnectN(3, 3, 3, gravity=True)
    move = agent.act(three_by_three_gravity, three_by_three_gravity.initial_state())
    assert agent.reused_visits == 0
    assert move in three_by_three_gravity.legal_actions(three_by_three_gravity.initial_state())


def test_root_statistics_are_per_tried_move_and_sum_to_the_simulations():
    agent = MCTSAgent(n_simulations=500, seed=0)
    agent.act(TTT, TTT.initial_state())
    stats = agent.root_statistics()
    assert all(isinstance(s, ChildStats) for s in stats)
    assert [s.action for s in stats] == list(range(9))
    assert sum(s.visits for s in stats) == 500
    assert all(-1.0 <= s.value <= 1.0 and s.proven is None for s in stats)


# ---- inside the environments ------------------------------------------------------------------------


@pytest.mark.parametrize("agent_player", [0, 1])
def test_plays_legal_games_as_an_env_opponent(agent_player):
    env = gymnasium.make("TicTacToe-v0", opponent=MCTSAgent(n_simulations=200, seed=0), agent_player=agent_player)
    rng = np.random.default_rng(0)
    outcomes = []
    for episode in range(6):
        _, info = env.reset(seed=episode)
        done, reward = False, 0.0
        while not done:
            legal = np.flatnonzero(info["action_mask"])
            _, reward, terminated, truncated, info = env.step(int(rng.choice(legal)))
            assert not info.get("illegal_action", False)
            done = terminated or truncated
        outcomes.append(reward)
    env.close()
    assert all(r <= 0 for r in outcomes)  # a random agent never beats MCTS here


class RecordingMCTS(MCTSAgent):
    """An MCTSAgent that records every ``(state, move)`` it is asked to play."""

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.moves = []

    def act(self, game, state):
        move = super().act(game, state)
        self.moves.append((state, move))
        return move


def test_plays_dots_and_boxes_with_extra_turns_as_an_env_opponent():
    opponent = RecordingMCTS(n_simulations=100, seed=0)
    env = gymnasium.make("DotsAndBoxes-v0", rows=2, cols=2, opponent=opponent, agent_player=0)
    rng = np.random.default_rng(0)
    steps_with_extra_turns, boxes = 0, np.zeros(2, dtype=int)
    for episode in range(6):
        _, info = env.reset(seed=episode)
        done = False
        while not done:
            opponent.moves.clear()
            _, _, terminated, truncated, info = env.step(int(rng.choice(np.flatnonzero(info["action_mask"]))))
            done = terminated or truncated
            # Inside one env step the opponent plays for player 1, and plays again after each box it completes.
            for k, (state, move) in enumerate(opponent.moves):
                assert DOTS.current_player(state) == 1 and move in DOTS.legal_actions(state)
                if k < len(opponent.moves) - 1:
                    assert DOTS.boxes_completed_by(state, move) > 0
            steps_with_extra_turns += len(opponent.moves) > 1
            assert done or info["current_player"] == 0  # the step returns on the agent's turn
        boxes += info["scores"]
    env.close()
    assert steps_with_extra_turns > 0
    assert boxes[1] > 2 * boxes[0]  # MCTS takes most boxes from a random player


# ---- bad parameters -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"n_simulations": 0}, r"n_simulations must be an integer in \[1, 10000000\]"),
        ({"n_simulations": -5}, r"n_simulations must be an integer in \[1, 10000000\]"),
        ({"n_simulations": 10.5}, r"n_simulations must be an integer in \[1, 10000000\]"),
        ({"n_simulations": True}, r"n_simulations must be an integer in \[1, 10000000\]"),
        ({"c": -0.1}, r"c must be a number in \[0, inf\)"),
        ({"c": math.nan}, r"c must be a number in \[0, inf\)"),
        ({"c": math.inf}, r"c must be a number in \[0, inf\)"),
        ({"c": "1.4"}, r"c must be a number in \[0, inf\)"),
        ({"seed": "abc"}, "seed must be None, an int or a numpy.random.Generator"),
        ({"rollout": 3}, "rollout must be None or a callable"),
        ({"prior": "uniform"}, "prior must be None or a callable"),
        ({"value": 0.5}, "value must be None or a callable"),
        ({"rollout": lambda g, s, r: 0, "value": lambda g, s: 0.0}, "not both"),
        ({"reuse_tree": "yes"}, "reuse_tree must be True or False"),
    ],
)
def test_bad_parameters_raise_value_error_naming_the_valid_range(kwargs, message):
    with pytest.raises(ValueError, match=message):
        MCTSAgent(**kwargs)


def test_acting_on_a_terminal_state_raises():
    over = ttt("XXXOO....")
    with pytest.raises(ValueError, match="terminal"):
        MCTSAgent(n_simulations=10, seed=0).act(TTT, over)


@pytest.mark.parametrize(
    ("hooks", "message"),
    [
        ({"prior": lambda g, s: [0.5, 0.5]}, "expected game.num_actions=9"),
        ({"prior": lambda g, s: np.ones((3, 3))}, "1-D"),
        ({"prior": lambda g, s: {a: -1.0 for a in g.legal_actions(s)}}, "finite and >= 0"),
        ({"prior": lambda g, s: [math.nan] * 9}, "finite and >= 0"),
        ({"value": lambda g, s: 2.0}, r"value must return a float in \[-1, 1\]"),
        ({"value": lambda g, s: math.nan}, r"value must return a float in \[-1, 1\]"),
        ({"value": lambda g, s: "good"}, r"value must return a float in \[-1, 1\]"),
    ],
)
def test_bad_hook_outputs_raise_value_error(hooks, message):
    with pytest.raises(ValueError, match=message):
        MCTSAgent(n_simulations=20, seed=0, **hooks).act(TTT, TTT.initial_state())


# ---- the simulation budget's bound ---------------------------------------------------------------
# From the reliability issue: ``opponent="mcts:99999999999999999999"`` hung the first ``step()``.


HUGE = "99999999999999999999"


def test_mcts_agent_takes_at_most_ten_million_simulations():
    assert MCTSAgent(n_simulations=10**7).n_simulations == 10**7  # the bound itself is allowed
    for too_many in (10**7 + 1, int(HUGE)):
        with pytest.raises(ValueError, match=r"n_simulations must be an integer in \[1, 10000000\]"):
            MCTSAgent(n_simulations=too_many)
