"""The Sutton & Barto chapter-1 TD player: initial values, greedy-only backups, play, seeding."""

import gymnasium as gym
import numpy as np
import pytest

import gym_boardgames  # noqa: F401  (registers the ids)
from agents.matches.arena import play_match
from agents.random_agent import RandomAgent
from agents.search.solver import position_values
from agents.tabular.td import TDAgent, train_self_play
from gym_boardgames.rules import ConnectN, TicTacToe

GAME = TicTacToe()
SCHEDULE = {"alpha": 0.8, "alpha_final": 0.05, "epsilon": 0.5, "epsilon_final": 0.1}


def board(rows):
    """A tic-tac-toe state from three strings of 'X', 'O' and '.'."""
    cells = "".join(rows)
    return GAME.state_from_board([".XO".index(c) for c in cells])


def key_after(state, action):
    return GAME.key(GAME.apply(state, action))


@pytest.fixture(scope="module")
def trained():
    agent, _ = train_self_play(GAME, 5000, seed=11, **SCHEDULE)
    return agent


@pytest.fixture(scope="module")
def solved():
    return position_values(GAME)


def test_fresh_tables_hold_one_half_for_both_seats():
    agent = TDAgent(GAME)
    assert agent.values.shape == (2, 3**9) and agent.values.dtype == np.float64
    assert np.all(agent.values == 0.5)


def test_terminal_afterstates_start_at_one_for_the_winner_zero_for_the_loser():
    x_can_win = board(["XX.", "OO.", "..."])
    agent = TDAgent(GAME)
    values = agent.action_values(GAME, x_can_win)
    win = key_after(x_can_win, 2)
    assert values[2] == 1.0
    assert agent.values[0, win] == 1.0 and agent.values[1, win] == 0.0
    assert all(v == 0.5 for a, v in values.items() if a != 2)  # non-terminal afterstates stay at 0.5

    o_can_win = board(["XX.", "OO.", "X.."])
    values = agent.action_values(GAME, o_can_win)
    o_win = key_after(o_can_win, 5)
    assert values[5] == 1.0
    assert agent.values[1, o_win] == 1.0 and agent.values[0, o_win] == 0.0


def test_a_drawn_afterstate_starts_at_one_half():
    last_move_draws = board(["XOX", "XOO", "OX."])
    agent = TDAgent(GAME)
    agent.values[:] = 0.9  # so that writing the draw value is visible
    assert agent.action_values(GAME, last_move_draws) == {8: 0.5}
    assert agent.values[:, key_after(last_move_draws, 8)].tolist() == [0.5, 0.5]


def non_terminal_changes(before, after):
    changed = np.argwhere(before != after)
    return [(seat, key) for seat, key in changed if not GAME.is_terminal(GAME.from_key(int(key)))]


@pytest.mark.parametrize("seed", range(5))
def test_exploratory_moves_do_not_back_up_only_the_final_result_is_learnt(seed):
    # Every move exploratory: the only non-terminal entry that may change is the last afterstate of the
    # seat that did not end the game, moved a step alpha towards that seat's final result.
    start = TDAgent(GAME, np.random.default_rng(seed).uniform(0.05, 0.95, size=(2, 3**9)))
    agent, _ = train_self_play(GAME, 1, alpha=0.5, epsilon=1.0, seed=seed, initial=start)
    changes = non_terminal_changes(start.values, agent.values)
    assert len(changes) == 1
    seat, key = changes[0]
    old, new = start.values[seat, key], agent.values[seat, key]
    assert any(np.isclose(new, old + 0.5 * (target - old)) for target in (0.0, 0.5))


@pytest.mark.parametrize("seed", range(5))
def test_greedy_moves_back_up_each_seats_previous_afterstate(seed):
    start = TDAgent(GAME, np.random.default_rng(seed).uniform(0.05, 0.95, size=(2, 3**9)))
    agent, _ = train_self_play(GAME, 1, alpha=0.5, epsilon=0.0, seed=seed, initial=start)
    changes = non_terminal_changes(start.values, agent.values)
    # X moves at least 3 times and O at least twice: >= 2 + 1 greedy backups, plus the loser's final one.
    assert len(changes) >= 4
    assert {seat for seat, _ in changes} == {0, 1}


def test_training_starting_from_an_agent_does_not_change_that_agent():
    start = TDAgent(GAME, np.full((2, 3**9), 0.5))
    train_self_play(GAME, 50, seed=0, initial=start)
    assert np.all(start.values == 0.5)


def test_short_training_beats_random_clearly_from_both_sides(trained):
    result = play_match(GAME, trained, "random", 400, seed=5)
    # Random against random: X wins about 58% and O about 29% of games.
    assert result.first.win >= 160 and result.first.loss <= 10
    assert result.second.win >= 150 and result.second.loss <= 10


def test_act_plays_for_whichever_side_is_to_move():
    agent = TDAgent(GAME, seed=0)  # untrained: only the terminal entries are known
    assert agent.act(GAME, board(["XX.", "OO.", "..."])) == 2  # X completes the top row
    assert agent.act(GAME, board(["XX.", "OO.", "X.."])) == 5  # O completes the middle row
    # O to move, both sides have a winning cell: O takes its own win (5), not X's (1).
    assert agent.act(GAME, board(["X.X", "OO.", "X.."])) == 5


@pytest.mark.parametrize(
    ("rows", "block"),
    [
        (["XX.", ".O.", "..."], 2),  # O to move blocks the top row
        (["X.O", ".X.", "..."], 8),  # O to move blocks the diagonal
        (["O.X", ".X.", "O.."], 3),  # X to move blocks the left column
    ],
)
def test_trained_agent_finds_the_only_drawing_block_for_either_side(trained, solved, rows, block):
    state = board(rows)
    drawing = [a for a in GAME.legal_actions(state) if solved[key_after(state, a)] == 0]
    assert drawing == [block]  # every other move loses against perfect play
    assert trained.greedy_actions(GAME, state) == [block]


def test_ties_are_broken_by_the_seeded_rng():
    first_moves = {TDAgent(GAME, seed=s).act(GAME, GAME.initial_state()) for s in range(30)}
    assert len(first_moves) > 3  # all nine afterstates are worth 0.5 in fresh tables
    again = [TDAgent(GAME, seed=7).act(GAME, GAME.initial_state()) for _ in range(3)]
    assert len(set(again)) == 1


def test_same_seed_gives_the_same_tables_and_another_seed_other_tables():
    a, _ = train_self_play(GAME, 2000, seed=3, **SCHEDULE)
    b, _ = train_self_play(GAME, 2000, seed=3, **SCHEDULE)
    c, _ = train_self_play(GAME, 2000, seed=4, **SCHEDULE)
    np.testing.assert_array_equal(a.values, b.values)
    assert not np.array_equal(a.values, c.values)


def test_both_returned_agents_share_the_tables_learnt_in_the_same_games():
    first, second = train_self_play(GAME, 300, seed=0)
    assert first.values is second.values
    assert (first.seat, second.seat) == (0, 1)
    assert np.any(first.values[0] != 0.5) and np.any(first.values[1] != 0.5)


def test_progress_and_callbacks_report_every_episode_once():
    reported, calls = [], []
    train_self_play(
        GAME, 1000, seed=0, progress=reported.append, callback=lambda n, a, b: calls.append(n), callback_every=300
    )
    assert sum(reported) == 1000
    assert calls == [300, 600, 900]


def test_a_callback_runs_before_its_chunk_is_reported_so_a_full_bar_means_all_the_work_is_done():
    events = []
    progress, callback = (lambda n: events.append("progress")), (lambda n, a, b: events.append(n))
    train_self_play(GAME, 100, seed=0, progress=progress, callback=callback, callback_every=50)
    assert events[events.index(50) + 1] == "progress" and events[-2:] == [100, "progress"]


def test_callback_sees_the_tables_so_far():
    snapshots = []
    train_self_play(GAME, 400, seed=0, callback=lambda n, a, b: snapshots.append(a.values.copy()), callback_every=200)
    assert not np.array_equal(snapshots[0], snapshots[1])
    assert np.any(snapshots[0] != 0.5)


@pytest.mark.parametrize("agent_player", [0, 1])
def test_works_as_an_env_opponent(trained, agent_player):
    env = gym.make("TicTacToe-v0", opponent=trained, agent_player=agent_player)
    rng = np.random.default_rng(0)
    rewards = []
    for episode in range(40):
        _, info = env.reset(seed=episode)
        terminated = False
        while not terminated:
            action = int(rng.choice(np.flatnonzero(info["action_mask"])))
            _, reward, terminated, _, info = env.step(action)
        rewards.append(reward)
    env.close()
    # The random agent loses most games against the trained TD opponent.
    assert rewards.count(-1.0) >= 25 and rewards.count(1.0) <= 4


def test_agent_refuses_to_play_another_board():
    agent = TDAgent(GAME)
    other = ConnectN(3, 4, 3, gravity=False)
    with pytest.raises(ValueError, match="tables are for TicTacToe"):
        agent.act(other, other.initial_state())


def test_act_at_the_end_of_the_game_is_an_error():
    finished = board(["XXX", "OO.", "..."])
    with pytest.raises(ValueError, match="game is over"):
        TDAgent(GAME).act(GAME, finished)


def test_learns_on_other_connect_n_boards_including_gravity():
    game = ConnectN(3, 4, 3, gravity=True)
    agent, _ = train_self_play(game, 1500, seed=0, **SCHEDULE)
    assert agent.values.shape == (2, 3**12)
    result = play_match(game, agent, RandomAgent(0), 100)
    assert result.total.win > 70


@pytest.mark.parametrize(
    ("kwargs", "pattern"),
    [
        ({"episodes": -1}, "episodes must be an integer >= 0"),
        ({"alpha": 0.0}, r"alpha must be a number in \(0, 1\], got 0.0"),
        ({"alpha_final": 1.5}, r"alpha_final must be a number in \(0, 1\], got 1.5"),
        ({"epsilon": -0.1}, r"epsilon must be a number in \[0, 1\], got -0.1"),
        ({"callback": print}, "callback_every must be >= 1"),
    ],
)
def test_training_rejects_bad_parameters(kwargs, pattern):
    with pytest.raises(ValueError, match=pattern):
        train_self_play(GAME, **{"episodes": 10, **kwargs})
