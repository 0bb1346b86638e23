"""Dots and Boxes agents: the exact layered solver against brute force, the bots' rules, the value learner, files."""

import functools

import numpy as np
import pytest

from agents.arena import play_match
from agents.dots import (
    Always4Never3Bot,
    EndgameBot,
    FirstAvailableBot,
    LayeredValueAgent,
    LayerTable,
    RandomBot,
    _make_bot,
    first_available_order,
    solve_layers,
)
from agents.minimax import alphabeta
from agents.persistence import save_npz
from gym_boardgames.rules import DotsAndBoxes

# ---- an independent reference: plain recursion on the rules, no bitmasks and no numpy ---------------


def brute_force_q(game, state=None):
    """Boxes the player to move takes from each position to the end with best play: {edges bytes: Q}.

    Built only from the rules surface: ``apply`` says who moves next and ``scores`` what a move took.
    """
    memo = {}

    def q(position):
        if game.is_terminal(position):
            return 0
        if position.edges in memo:
            return memo[position.edges]
        mover = position.player
        taken = game.scores(position)[mover]
        left = position.owners.count(0)
        best = -1
        for action in game.legal_actions(position):
            child = game.apply(position, action)
            if child.player == mover:  # it completed a box: the same player goes on
                value = game.scores(child)[mover] - taken + q(child)
            else:  # the opponent takes q(child) of what is left, the mover the rest
                value = left - q(child)
            best = max(best, value)
        memo[position.edges] = best
        return best

    q(state or game.initial_state())
    return memo


def brute_force_best_moves(game, memo, state):
    mover, taken, left = state.player, game.scores(state)[state.player], state.owners.count(0)
    values = {}
    for action in game.legal_actions(state):
        child = game.apply(state, action)
        child_q = 0 if game.is_terminal(child) else memo[child.edges]
        values[action] = game.scores(child)[mover] - taken + child_q if child.player == mover else left - child_q
    best = max(values.values())
    return sorted(a for a, v in values.items() if v == best)


def bitmask(edges):
    return sum(1 << e for e, drawn in enumerate(edges) if drawn)


def random_position(game, rng, moves):
    state = game.initial_state()
    for _ in range(moves):
        legal = game.legal_actions(state)
        state = game.apply(state, legal[rng.integers(len(legal))])
    return state


@functools.lru_cache(maxsize=1)
def full_3x3_table():
    return solve_layers(DotsAndBoxes(3, 3))


# ---- the exact solver ------------------------------------------------------------------------------


@pytest.mark.parametrize("rows, cols", [(1, 1), (1, 2), (2, 2)])
def test_solve_layers_equals_brute_force_minimax_on_every_position(rows, cols):
    game = DotsAndBoxes(rows, cols)
    table = solve_layers(game)
    memo = brute_force_q(game)
    assert len(memo) == 2**game.num_edges - 1  # every edge set but the full board is reachable
    solved = {bitmask(edges): q for edges, q in memo.items()}
    expected = np.array([solved.get(key, 0) for key in range(2**game.num_edges)], dtype=np.int8)
    np.testing.assert_array_equal(table.values, expected)
    # And the moves it calls best are exactly the brute-force maximisers, on every position with a choice.
    state_of = {}
    stack = [game.initial_state()]
    while stack:
        state = stack.pop()
        if state.edges in state_of or game.is_terminal(state):
            continue
        state_of[state.edges] = state
        stack.extend(game.apply(state, a) for a in game.legal_actions(state))
    for state in state_of.values():
        assert table.best_moves(state) == brute_force_best_moves(game, memo, state)
        assert table.value(state) == table.value(bitmask(state.edges)) == memo[state.edges]


def test_known_values_of_the_empty_boards():
    # First-player margins 2 V(empty) - boxes: 1x1 -1, 1x2 0, 2x2 +2 (a first-player win, as in Winning Ways).
    margins = {(1, 1): -1, (1, 2): 0, (2, 2): 2, (2, 3): -2}
    for (rows, cols), margin in margins.items():
        game = DotsAndBoxes(rows, cols)
        assert solve_layers(game).margin(game.initial_state()) == margin
    # Alpha-beta (win/draw/loss, a different algorithm on the full state) agrees on who wins 2x2 and 1x2.
    assert alphabeta(DotsAndBoxes(2, 2), DotsAndBoxes(2, 2).initial_state())[0] == 1.0
    assert alphabeta(DotsAndBoxes(1, 2), DotsAndBoxes(1, 2).initial_state())[0] == 0.0


@pytest.mark.slow
def test_full_3x3_board_solves_and_the_second_player_wins_by_3():
    game = DotsAndBoxes(3, 3)
    table = full_3x3_table()
    assert table.values.shape == (2**24,) and table.last_k == 24
    assert table.value(game.initial_state()) == 3 and table.margin(game.initial_state()) == -3
    assert table.best_moves(game.initial_state()) == list(range(24))  # every opening loses by exactly 3


@pytest.mark.slow
def test_3x3_values_agree_with_brute_force_on_random_endgames():
    game = DotsAndBoxes(3, 3)
    table = full_3x3_table()
    rng = np.random.default_rng(7)
    for _ in range(12):
        state = random_position(game, rng, 13)  # 11 edges left: at most 2**11 sub-positions each
        memo = brute_force_q(game, state)
        for edges, q in memo.items():
            assert table.value(bitmask(edges)) == q
        assert table.best_moves(state) == brute_force_best_moves(game, memo, state)


def test_last_k_solves_only_the_last_layers():
    game = DotsAndBoxes(2, 2)
    full, partial = solve_layers(game), solve_layers(game, last_k=5)
    left = np.array([12 - bin(k).count("1") for k in range(2**12)])
    np.testing.assert_array_equal(partial.values[left <= 5], full.values[left <= 5])
    assert np.all(partial.values[left > 5] == -1)
    with pytest.raises(ValueError, match="at most 5 edges left, not 12"):
        partial.value(game.initial_state())
    # best_moves needs the children only: one layer beyond last_k works, two do not.
    six_left = random_position(game, np.random.default_rng(0), 6)
    assert partial.best_moves(six_left) == full.best_moves(six_left)
    with pytest.raises(ValueError, match="at most 5 edges left"):
        partial.best_moves(random_position(game, np.random.default_rng(0), 5))


def test_solver_rejects_boards_it_cannot_hold_and_foreign_games():
    with pytest.raises(ValueError, match="more than the 26"):
        solve_layers(DotsAndBoxes(3, 4))
    with pytest.raises(ValueError, match="last_k must be"):
        solve_layers(DotsAndBoxes(1, 1), last_k=-1)
    with pytest.raises(ValueError, match="play Dots and Boxes"):
        solve_layers(object())
    with pytest.raises(ValueError, match="has 12"):
        solve_layers(DotsAndBoxes(1, 1)).value(DotsAndBoxes(2, 2).initial_state())


# ---- the bots --------------------------------------------------------------------------------------


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
        assert play_and_check(game, table, bot, _make_bot(opponent, seed=2), 60, checked_from=k) == 0
    # The same check catches a player that is not exact in the endgame.
    assert play_and_check(game, table, Always4Never3Bot(seed=1), _make_bot(opponent, seed=2), 60, checked_from=8) > 0


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
    with pytest.raises(ValueError, match="needs a table solved for the last 6 moves"):
        EndgameBot(6, table=short).act(DotsAndBoxes(2, 2), six_left)
    with pytest.raises(ValueError, match="table for 2x2 boxes, not 1x1"):
        EndgameBot(4, table=short).act(DotsAndBoxes(1, 1), DotsAndBoxes(1, 1).initial_state())


def test_make_bot_names():
    assert [repr(_make_bot(n)) for n in ("random", "first_available", "always4never3", "endgame:10")] == [
        "RandomBot()",
        "FirstAvailableBot()",
        "Always4Never3Bot()",
        "EndgameBot(10)",
    ]
    with pytest.raises(ValueError, match="unknown bot 'bot2'"):
        _make_bot("bot2")


# ---- the layered value learner -----------------------------------------------------------------------


def test_unseen_positions_are_estimated_from_known_siblings_or_half_the_boxes_left():
    game = DotsAndBoxes(1, 2)  # edges: tops 0 1, bottoms 2 3, verticals 4 5 6
    agent = LayeredValueAgent(seed=0)
    state = game.apply(game.apply(game.initial_state(), 0), 2)  # box 0 has top and bottom; 2 boxes left
    # Nothing known: a non-scoring move leaves the opponent half of 2 boxes, so f = 2 - 1 = 1 everywhere.
    assert agent.move_values(game, state) == {1: 1.0, 3: 1.0, 4: 1.0, 5: 1.0, 6: 1.0}
    # One known sibling is not enough for a mean; two are.
    agent.layers[4][bitmask(game.apply(state, 1).edges)] = 2.0
    assert agent.move_values(game, state)[3] == 1.0 and agent.move_values(game, state)[1] == 0.0
    agent.layers[4][bitmask(game.apply(state, 3).edges)] = 1.0
    values = agent.move_values(game, state)
    assert values[1] == 0.0 and values[3] == 1.0 and values[4] == values[5] == values[6] == 2 - 1.5


def test_update_walks_the_game_backwards_with_the_learning_rate():
    game = DotsAndBoxes(1, 1)  # four edges; the last one always takes the box
    agent = LayeredValueAgent(lr=0.5, explore=0.0, seed=0)
    agent.train(game, FirstAvailableBot(), 1)
    layers = agent.layers
    # One game visits one position per layer. Layer 1: f = 1 exactly; old estimate 1/2 -> 1/2 + (1 - 1/2)/2.
    assert [len(layer) for layer in layers] == [1, 1, 1, 1, 1]
    assert list(layers[1].values()) == [0.75]
    # Layer 2 (2 edges left, 1 box): both moves give the box away; the learned child is worth 0.75 to the
    # opponent, the unseen one 0.5 (no two known siblings), so the target is max(1 - 0.75, 1 - 0.5) = 0.5.
    assert list(layers[2].values()) == [0.5 + 0.5 * (0.5 - 0.5)]
    before = [dict(layer) for layer in layers]
    agent.lr = 0.0
    agent.train(game, FirstAvailableBot(), 5)  # lr = 0 learns nothing
    assert [dict(layer) for layer in agent.layers] == before and agent.games_trained == 6


def test_layered_q_agent_after_a_short_run_beats_random_clearly():
    game = DotsAndBoxes(3, 3, tie_break="second")
    agent = LayeredValueAgent(lr=1.0, seed=0)
    training = agent.train(game, RandomBot(seed=1), 500)
    assert training.total.win + training.total.loss == 500 and agent.num_states > 5000
    result = play_match(game, agent, RandomBot(seed=2), 200)
    assert result.total.win >= 185


def test_training_teaches_more_than_greedy_box_taking():
    # Untrained, the agent already takes every box (its estimates favour scoring); learning must add more.
    game = DotsAndBoxes(2, 2, tie_break="second")
    untrained, trained = LayeredValueAgent(seed=0), LayeredValueAgent(lr=1.0, seed=0)
    trained.train(game, RandomBot(seed=1), 1000)
    before = play_match(game, untrained, Always4Never3Bot(seed=3), 200).total.win
    after = play_match(game, trained, Always4Never3Bot(seed=3), 200).total.win
    assert after >= 60 and after >= 2 * before


def test_agent_checks_its_settings_and_board():
    for kwargs in ({"lr": 1.5}, {"lr": -0.1}, {"explore": 2.0}, {"lr": float("nan")}):
        with pytest.raises(ValueError, match="must be a number in \\[0, 1\\]"):
            LayeredValueAgent(**kwargs)
    agent = LayeredValueAgent(seed=0)
    agent.train(DotsAndBoxes(1, 1), "random", 2)
    with pytest.raises(ValueError, match="learned 1x1 boxes, not 2x2"):
        agent.act(DotsAndBoxes(2, 2), DotsAndBoxes(2, 2).initial_state())
    with pytest.raises(ValueError, match="illegal move"):
        LayeredValueAgent(seed=0).train(DotsAndBoxes(1, 1), lambda game, state: 0, 1)


# ---- files ---------------------------------------------------------------------------------------------


def test_table_save_load_round_trip(tmp_path):
    table = solve_layers(DotsAndBoxes(2, 2), last_k=7)
    table.save(tmp_path / "t.npz")
    loaded = LayerTable.load(tmp_path / "t.npz")
    assert (loaded.rows, loaded.cols, loaded.last_k) == (2, 2, 7)
    np.testing.assert_array_equal(loaded.values, table.values)


def test_agent_save_load_round_trip(tmp_path):
    game = DotsAndBoxes(2, 2)
    agent = LayeredValueAgent(lr=0.2, explore=0.5, seed=0)
    agent.train(game, RandomBot(seed=1), 50)
    agent.save(tmp_path / "q.npz")
    loaded = LayeredValueAgent.load(tmp_path / "q.npz", seed=9)
    assert (loaded.lr, loaded.explore, loaded.games_trained) == (0.2, 0.5, 50)
    assert loaded.layers == agent.layers
    state = random_position(game, np.random.default_rng(3), 4)
    assert loaded.move_values(game, state) == agent.move_values(game, state)
    with pytest.raises(ValueError, match="nothing to save"):
        LayeredValueAgent().save(tmp_path / "empty.npz")


def test_corrupt_and_foreign_files_raise_clear_errors(tmp_path):
    table = solve_layers(DotsAndBoxes(1, 1))
    table.save(tmp_path / "t.npz")
    agent = LayeredValueAgent(seed=0)
    agent.train(DotsAndBoxes(1, 1), "random", 3)
    agent.save(tmp_path / "q.npz")

    raw = (tmp_path / "t.npz").read_bytes()
    (tmp_path / "cut.npz").write_bytes(raw[: len(raw) // 2])
    with pytest.raises(ValueError, match="cut.npz: .*(corrupt|truncated)"):
        LayerTable.load(tmp_path / "cut.npz")
    np.savez(tmp_path / "foreign.npz", q=np.zeros(16, np.int8))
    with pytest.raises(ValueError, match="not a gym_boardgames file"):
        LayerTable.load(tmp_path / "foreign.npz")
    with pytest.raises(ValueError, match="expected 'gym_boardgames.dots.layer_table'"):
        LayerTable.load(tmp_path / "q.npz")
    with pytest.raises(ValueError, match="expected 'gym_boardgames.dots.layered_q'"):
        LayeredValueAgent.load(tmp_path / "t.npz")

    # Right header, impossible content.
    meta = {"rows": 1, "cols": 1, "last_k": 4}
    bad = table.values.copy()
    bad[0] = 7
    save_npz(tmp_path / "bad.npz", {"q": bad}, format=LayerTable.FORMAT, version=1, meta=meta)
    with pytest.raises(ValueError, match="values outside 0..1"):
        LayerTable.load(tmp_path / "bad.npz")
    save_npz(tmp_path / "short.npz", {"q": bad[:8]}, format=LayerTable.FORMAT, version=1, meta=meta)
    with pytest.raises(ValueError, match="shape \\(8,\\), expected \\(16,\\)"):
        LayerTable.load(tmp_path / "short.npz")
    arrays = {"keys": np.array([15, 99], np.uint64), "values": np.array([0.0, 0.5])}
    q_meta = {"rows": 1, "cols": 1, "lr": 0.1, "explore": 0.5, "games_trained": 1}
    save_npz(tmp_path / "badq.npz", arrays, format=LayeredValueAgent.FORMAT, version=1, meta=q_meta)
    with pytest.raises(ValueError, match="bitmasks beyond the 4 edges"):
        LayeredValueAgent.load(tmp_path / "badq.npz")
    with pytest.raises(FileNotFoundError):
        LayerTable.load(tmp_path / "missing.npz")
