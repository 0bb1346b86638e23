"""The batched rules agree with the scalar rules position by position, on the same geometry tables.

Random games are replayed through both: after every move each game of the batch, read back as a scalar
state, must equal the scalar rules' state, with the same legal moves, end and payoff.
"""

import numpy as np
import pytest

from agents.search.minimax import longest_game
from gym_boardgames.registration import layers_of
from gym_boardgames.rules import ConnectN, DotsAndBoxes, TicTacToe
from gym_boardgames.rules.batch import (
    ConnectNBatch,
    DotsAndBoxesBatch,
    connect_tables,
    dots_tables,
    random_legal_actions,
)
from gym_boardgames.rules.connect import board_geometry
from gym_boardgames.rules.dots import dots_geometry

GAMES = [
    TicTacToe(),
    ConnectN(6, 7, 4, True),
    ConnectN(4, 5, 3, True),
    ConnectN(5, 5, 4, False),
    ConnectN(9, 9, 5, False),  # 81 cells: bitboards of two words
    ConnectN(1, 4, 2, False),
    ConnectN(3, 1, 1, True),
    DotsAndBoxes(),
    DotsAndBoxes(2, 3),
    DotsAndBoxes(1, 1, "second"),
]


def make_batch(game, n):
    return layers_of(game).load("batch")(game, n)  # the batched rules its layers name


def scalar_winner(game, state):
    if not game.is_terminal(state):
        return -1
    payoff = game.returns(state)
    return -1 if payoff[0] == payoff[1] else int(np.argmax(payoff))


@pytest.mark.parametrize("game", GAMES, ids=repr)
def test_random_games_match_the_scalar_rules_move_by_move(game):
    n = 16
    batch = make_batch(game, n)
    rng = np.random.default_rng(7)
    states = [game.initial_state()] * n
    batch.reset()
    longest = longest_game(game)
    for _ in range(3 * longest):
        moving = np.array([not game.is_terminal(s) for s in states])
        if not moving.any():
            break
        moving &= rng.random(n) < 0.8  # some games sit out a move
        actions = random_legal_actions(batch.legal_mask(), rng)
        assert batch.is_legal(actions)[moving].all()
        batch.play(actions, moving)
        for i in np.flatnonzero(moving):
            states[i] = game.apply(states[i], int(actions[i]))
        mask, mine, theirs = batch.legal_mask(), batch.observation(), batch.observation(1 - batch.player)
        returns = batch.returns()
        for i, state in enumerate(states):
            assert batch.state(i) == state
            ended = game.is_terminal(state)
            np.testing.assert_array_equal(mask[i], game.legal_mask(state) * (not ended))
            assert batch.over[i] == ended
            assert batch.winner[i] == scalar_winner(game, state)
            np.testing.assert_array_equal(mine[i].ravel(), game.observation(state, state.player).ravel())
            np.testing.assert_array_equal(theirs[i].ravel(), game.observation(state, 1 - state.player).ravel())
            np.testing.assert_array_equal(returns[i], game.returns(state) if ended else (0.0, 0.0))
    assert batch.over.all(), "every game should have ended within 3 * (longest game) rounds"


@pytest.mark.parametrize("game", GAMES, ids=repr)
def test_set_state_then_state_round_trips_and_play_continues_from_it(game):
    rng = np.random.default_rng(3)
    state = game.initial_state()
    for _ in range(game.num_actions // 2):
        if game.is_terminal(state):
            break
        state = game.apply(state, int(rng.choice(game.legal_actions(state))))
    batch = make_batch(game, 3)
    batch.set_state(1, state)
    assert batch.state(1) == state and batch.state(0) == game.initial_state()
    if not game.is_terminal(state):
        action = game.legal_actions(state)[-1]
        batch.play(np.array([game.legal_actions(game.initial_state())[0], action, 0]), np.array([False, True, False]))
        assert batch.state(1) == game.apply(state, action)
        assert batch.state(0) == batch.state(2) == game.initial_state()


@pytest.mark.parametrize("game", GAMES, ids=repr)
def test_games_outside_the_moving_mask_are_untouched_whatever_their_action(game):
    rng = np.random.default_rng(5)
    batch = make_batch(game, 8)
    for _ in range(4):
        actions = random_legal_actions(batch.legal_mask(), rng)
        batch.play(actions, ~batch.over)
    before = [batch.state(i) for i in range(8)]
    arrays = {name: getattr(batch, name).copy() for name in ("player", "over")}
    # Every action, legal or not, in games that do not move.
    for action in range(game.num_actions):
        batch.play(np.full(8, action), np.zeros(8, dtype=bool))
    assert [batch.state(i) for i in range(8)] == before
    for name, array in arrays.items():
        np.testing.assert_array_equal(getattr(batch, name), array)


def test_reset_of_some_rows_leaves_the_others():
    game = ConnectN(6, 7, 4, True)
    batch = ConnectNBatch(game, 4)
    batch.play(np.array([3, 3, 3, 3]))
    batch.reset(np.array([1, 3]))
    assert batch.state(1) == batch.state(3) == game.initial_state()
    assert batch.state(0) == batch.state(2) == game.apply(game.initial_state(), 3)


@pytest.mark.parametrize("game", [TicTacToe(), DotsAndBoxes(1, 1)])
def test_reset_by_indices_and_winner_is_a_fresh_array(game):
    batch = make_batch(game, 3)
    batch.play(np.zeros(3, dtype=np.intp))
    batch.reset(indices=np.array([1]))
    assert batch.state(1) == game.initial_state() != batch.state(0)
    winner = batch.winner
    winner[:] = 1  # a copy: the batch's own state is not written
    assert batch.winner.tolist() == [-1, -1, -1]


@pytest.mark.parametrize("gravity", [False, True])
def test_bitboard_tables_hold_exactly_the_win_lines_of_board_geometry(gravity):
    for rows, cols, n in [(3, 3, 3), (6, 7, 4), (9, 9, 5), (1, 4, 2), (5, 1, 3)]:
        tables = connect_tables(rows, cols, n, gravity)
        lines = {frozenset(line) for line in board_geometry(rows, cols, n).lines}
        cells = rows * cols
        found = set()
        for k in range(tables.through.shape[0]):
            for cell in range(cells):
                bits = tables.through[k, :, cell]
                if (bits == np.uint64(2**64 - 1)).all():
                    assert gravity  # a cell where no line can be completed
                    continue
                members = frozenset(c for c in range(cells) if int(bits[c // 64]) >> (c % 64) & 1)
                assert cell in members and members in lines
                if gravity and len(members) > 1 and max(members) - min(members) == (n - 1) * cols:
                    assert cell == min(members)  # a vertical line only through the piece on top of it
                found.add(members)
        assert found == lines


def test_dots_tables_follow_the_edge_box_map_of_dots_geometry():
    for rows, cols in [(3, 3), (2, 3), (1, 1)]:
        tables, geometry = dots_tables(rows, cols), dots_geometry(rows, cols)
        for edge, boxes in enumerate(geometry.edge_boxes):
            second = [] if tables.second_box[edge] == rows * cols else [int(tables.second_box[edge])]
            assert [int(tables.first_box[edge]), *second] == list(boxes)


@pytest.mark.parametrize("num_actions", [1, 7, 9, 12, 13, 24, 225])
def test_random_legal_actions_is_uniform_over_the_legal_actions(num_actions):
    rng = np.random.default_rng(num_actions)
    row = (rng.random(num_actions) < 0.5).astype(np.int8)
    row[-1] = 1
    mask = np.repeat(row[None], 20_000, axis=0)
    mask[0] = 0  # nothing legal: action 0
    actions = random_legal_actions(mask, rng)
    assert actions[0] == 0
    counts = np.bincount(actions[1:], minlength=num_actions)
    legal = np.flatnonzero(row)
    assert set(np.flatnonzero(counts)) == set(legal)
    expected = (len(mask) - 1) / len(legal)
    # 5 standard deviations of a binomial count: fails only on a real bias.
    assert np.all(np.abs(counts[legal] - expected) < 5 * np.sqrt(expected) + 1)


def test_random_legal_actions_differs_per_row_and_is_reproducible():
    mask = np.ones((1000, 9), dtype=np.int8)
    first = random_legal_actions(mask, np.random.default_rng(1))
    assert len(set(first.tolist())) == 9
    np.testing.assert_array_equal(first, random_legal_actions(mask, np.random.default_rng(1)))


def test_a_batch_needs_a_positive_number_of_games():
    for bad in (0, -1, 2.0, True):
        with pytest.raises(ValueError, match="num_envs"):
            ConnectNBatch(TicTacToe(), bad)
        with pytest.raises(ValueError, match="num_envs"):
            DotsAndBoxesBatch(DotsAndBoxes(), bad)


@pytest.mark.parametrize("shape", [(3, 3, 3), (5, 5, 4), (9, 9, 5), (1, 4, 2)])
def test_completing_any_win_line_wins_and_a_near_miss_does_not(shape):
    """One game per win line: player 0 holds all of it but its last cell and plays that cell (or another)."""
    game = ConnectN(*shape, gravity=False)
    lines = board_geometry(*shape).lines
    batch = ConnectNBatch(game, 2 * len(lines))
    finishing, missing, expected = [], [], []
    for j, line in enumerate(lines):
        board = bytearray(game.num_cells)
        for cell in line[:-1]:
            board[cell] = 1
        others = [c for c in range(game.num_cells) if c not in line][: game.n - 1]
        for cell in others:
            board[cell] = 2
        state = game.state_from_board(board)
        batch.set_state(2 * j, state)
        batch.set_state(2 * j + 1, state)
        finishing.append(line[-1])
        # A cell off the line (cell values are re-read from the state, so any free one will do).
        missing.append(next(c for c in range(game.num_cells) if c not in line and board[c] == 0))
        expected += [game.apply(state, finishing[-1]).winner, game.apply(state, missing[-1]).winner]
    actions = np.array([a for pair in zip(finishing, missing, strict=True) for a in pair])
    batch.play(actions)
    assert batch.winner.tolist() == [-1 if w is None else w for w in expected]
    assert batch.winner[0::2].tolist() == [0] * len(lines)
    assert (batch.winner[1::2] == -1).any()


@pytest.mark.parametrize("game", GAMES, ids=repr)
def test_an_illegal_move_without_a_mask_spoils_only_its_own_game(game):
    """Finished or full games may play anything unmasked; the reset then restores them, others never change."""
    rng = np.random.default_rng(2)
    batch = make_batch(game, 5)
    states = [game.initial_state()] * 5
    # Game 2 plays until its first action is illegal (a full column, a drawn edge, an occupied cell).
    while batch.is_legal(np.zeros(5, dtype=np.int64))[2] and not batch.over[2]:
        actions = random_legal_actions(batch.legal_mask(), rng)
        actions[2] = 0
        batch.play(actions)
        states = [game.apply(s, int(a)) for s, a in zip(states, actions, strict=True)]
    actions = random_legal_actions(batch.legal_mask(), rng)
    actions[2] = 0
    ongoing = [i for i in range(5) if i != 2 and not game.is_terminal(states[i])]
    batch.play(actions)  # finished games (and game 2) get garbage; the ongoing ones a legal move
    batch.reset(np.array([2]))
    assert batch.state(2) == game.initial_state()
    for i in ongoing:
        assert batch.state(i) == game.apply(states[i], int(actions[i]))
