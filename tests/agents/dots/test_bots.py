"""The bots' rules: first available by distance, always4never3, the endgame bot against the solver, names."""

import sys
from pathlib import Path

import numpy as np
import pytest

from agents.dots import Always4Never3Bot, EndgameBot, FirstAvailableBot, RandomBot, first_available_order, solve_layers
from agents.dots.bots import make_bot
from agents.matches.arena import play_match
from gym_boardgames.rules import DotsAndBoxes

sys.path.insert(0, str(Path(__file__).parent))  # importlib import mode: put the sibling helper on the path
from dots_helpers import full_3x3_table, random_position  # noqa: E402


def test_first_available_plays_the_first_free_edge_by_distance_from_the_corner():
    game = DotsAndBoxes(3, 3)

    def distance(edge):  # of the edge's midpoint from dot (0, 0)
        (r0, c0), (r1, c1) = game.edge_endpoints(edge)
        return ((r0 + r1) / 2) ** 2 + ((c0 + c1) / 2) ** 2

    order = sorted(range(24), key=lambda e: (distance(e), e))
    assert first_available_order(game) == order
    assert order[:6] == [0, 12, 3, 13, 1, 16]
    bot, rng = FirstAvailableBot(), np.random.default_rng(1)
    for moves in range(0, 24, 3):
        state = random_position(game, rng, moves)
        assert bot.act(game, state) == next(e for e in order if not state.edges[e])


def count_three_sided(game, state):
    return sum(sum(state.edges[e] for e in box) == 3 for box in game.geometry.box_edges)


def test_always4never3_takes_every_free_box_and_never_offers_one_when_it_can_avoid_it():
    game = DotsAndBoxes(3, 3)
    bot, rng = Always4Never3Bot(seed=0), np.random.default_rng(2)
    checked = {"take": 0, "safe": 0, "forced": 0}
    for _ in range(40):
        # A few random moves, then the bot plays both sides to the end: every kind of position comes up.
        state = random_position(game, rng, int(rng.integers(0, 8)))
        while not game.is_terminal(state):
            legal = game.legal_actions(state)
            move = bot.act(game, state)
            assert move in legal
            if any(game.boxes_completed_by(state, e) for e in legal):
                assert game.boxes_completed_by(state, move) > 0
                checked["take"] += 1
            elif any(count_three_sided(game, game.apply(state, e)) == 0 for e in legal):
                assert count_three_sided(game, game.apply(state, move)) == 0
                checked["safe"] += 1
            else:
                checked["forced"] += 1
            state = game.apply(state, move)
    assert min(checked.values()) >= 20  # every branch of the rule was exercised


def test_bots_are_seeded_and_random_among_equals():
    game = DotsAndBoxes(3, 3)
    empty = game.initial_state()
    for cls in (RandomBot, Always4Never3Bot):
        assert [cls(seed=5).act(game, empty) for _ in range(3)] == [cls(seed=5).act(game, empty) for _ in range(3)]
        assert len({cls(seed=s).act(game, empty) for s in range(40)}) > 5
    assert len({EndgameBot(24, table=full_3x3_table(), seed=s).act(game, empty) for s in range(40)}) > 5


def play_and_check(game, table, agent, opponent, games, checked_from):
    """Play seat-alternating games; return how often the agent ended below what the solver says it could force.

    Whenever the agent is to move with at most ``checked_from`` edges left, it can force its lead so far
    plus ``table.margin(state)``; a game counts once if it ends with less than that.
    """
    violations = 0
    for i in range(games):
        seat = i % 2
        players = (agent, opponent) if seat == 0 else (opponent, agent)
        state, forced = game.initial_state(), None
        while not game.is_terminal(state):
            if state.player == seat and game.num_edges - sum(state.edges) <= checked_from:
                scores = game.scores(state)
                lead = scores[seat] - scores[1 - seat] + table.margin(state)
                forced = lead if forced is None else max(forced, lead)
            state = game.apply(state, players[state.player].act(game, state))
        scores = game.scores(state)
        violations += forced is not None and scores[seat] - scores[1 - seat] < forced
    return violations


@pytest.mark.parametrize("opponent", ["random", "first_available", "always4never3"])
def test_endgame_bot_never_ends_below_what_the_solver_says_it_can_force(opponent):
    game, table = DotsAndBoxes(3, 3), full_3x3_table()
    for k in (8, 24):
        bot = EndgameBot(k, table=table, seed=1)
        assert play_and_check(game, table, bot, make_bot(opponent, seed=2), 60, checked_from=k) == 0
    # The same check catches a player that is not exact in the endgame.
    assert play_and_check(game, table, Always4Never3Bot(seed=1), make_bot(opponent, seed=2), 60, checked_from=8) > 0


def test_exact_endgame_bot_solves_its_own_table_and_wins_2x2_as_first_player():
    game = DotsAndBoxes(2, 2)  # the first player wins 2x2 by 2 boxes
    bot = EndgameBot(12, seed=0)  # no table given: solved on the first move
    result = play_match(game, bot, RandomBot(seed=1), 40)
    assert result.first.win == 20 and bot.table.last_k == 12
    result = play_match(game, bot, EndgameBot(12, seed=2), 20)
    assert (result.first.win, result.second.loss) == (10, 10)


def test_endgame_bot_checks_its_table_and_k():
    with pytest.raises(ValueError, match="k must be an integer >= 0"):
        EndgameBot(-1)
    short = solve_layers(DotsAndBoxes(2, 2), last_k=3)
    six_left = random_position(DotsAndBoxes(2, 2), np.random.default_rng(0), 6)
    with pytest.raises(
        ValueError,
        match=r"needs a table of 2x2 boxes solved for the last 6 moves, got LayerTable\(rows=2, cols=2, last_k=3\)",
    ):
        EndgameBot(6, table=short).act(DotsAndBoxes(2, 2), six_left)
    with pytest.raises(
        ValueError, match=r"needs a table of 1x1 boxes solved for the last 4 moves, got LayerTable\(rows=2, cols=2,"
    ):
        EndgameBot(4, table=short).act(DotsAndBoxes(1, 1), DotsAndBoxes(1, 1).initial_state())


def testmake_bot_names():
    assert [repr(make_bot(n)) for n in ("random", "first_available", "always4never3", "endgame:10")] == [
        "RandomBot()",
        "FirstAvailableBot()",
        "Always4Never3Bot()",
        "EndgameBot(10)",
    ]
    with pytest.raises(ValueError, match="unknown bot 'bot2'"):
        make_bot("bot2")
