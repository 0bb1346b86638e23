"""Dots and Boxes rules: numbering, scoring, extra turns, ties and the rules surface."""

import numpy as np
import pytest

from gym_boardgames.rules import DotsAndBoxes


def play(game, moves, state=None):
    state = state or game.initial_state()
    for move in moves:
        state = game.apply(state, move)
    return state


def test_default_board_is_3x3_boxes_with_24_edges():
    game = DotsAndBoxes()
    assert (game.num_edges, game.num_boxes, game.num_actions) == (24, 9, 24)


def test_edge_numbering_is_openspiels_horizontal_then_vertical():
    game = DotsAndBoxes(2, 2)
    assert game.edge_endpoints(0) == ((0, 0), (0, 1))
    assert game.edge_endpoints(5) == ((2, 1), (2, 2))
    assert game.edge_endpoints(6) == ((0, 0), (1, 0))
    assert game.edge_endpoints(11) == ((1, 2), (2, 2))
    assert game.geometry.box_edges.tolist() == [[0, 2, 6, 7], [1, 3, 7, 8], [2, 4, 9, 10], [3, 5, 10, 11]]
    with pytest.raises(ValueError, match="0..11"):
        game.edge_endpoints(12)


def test_completing_a_box_scores_it_and_gives_another_move():
    game = DotsAndBoxes(1, 2)  # edges: top 0 1, bottom 2 3, verticals 4 5 6
    state = play(game, [0, 2, 4])  # players 0, 1, 0: box 0 has three sides
    assert game.current_player(state) == 1
    state = game.apply(state, 5)  # player 1 closes box 0
    assert state.owners == bytes([2, 0])
    assert game.current_player(state) == 1  # and moves again
    assert game.scores(state) == (0, 1)


def test_one_edge_can_complete_two_boxes():
    game = DotsAndBoxes(1, 2)
    state = play(game, [0, 1, 2, 3, 4, 6])  # everything but the middle vertical 5
    mover = game.current_player(state)
    assert game.boxes_completed_by(state, 5) == 2
    state = game.apply(state, 5)
    assert game.scores(state)[mover] == 2
    assert game.is_terminal(state)


def test_a_chain_is_taken_box_after_box_by_the_same_player():
    game = DotsAndBoxes(1, 3)  # a corridor of three boxes: tops 0-2, bottoms 3-5, verticals 6-9
    state = play(game, [0, 1, 2, 3, 4, 5, 6])  # only the inner verticals 7, 8 and the end 9 are left
    taker = game.current_player(state)
    for edge in (7, 8):
        state = game.apply(state, edge)
        assert game.current_player(state) == taker
    state = game.apply(state, 9)
    assert game.scores(state)[taker] == 3 and game.is_terminal(state)


def test_ties_are_draws_or_wins_for_the_second_player():
    for tie_break, expected in (("draw", (0.0, 0.0)), ("second", (-1.0, 1.0))):
        game = DotsAndBoxes(1, 2, tie_break=tie_break)
        # Box 0 = edges 0, 2, 4, 5; box 1 = edges 1, 3, 5, 6. Player 0 closes box 0 with 4 and moves
        # again (3), then player 1 closes box 1 with 6: one box each.
        state = play(game, [5, 0, 1, 2, 4, 3, 6])
        assert game.is_terminal(state) and state.owners == bytes([1, 2])
        assert game.returns(state) == expected


def test_returns_before_the_end_and_bad_edges_raise():
    game = DotsAndBoxes(2, 2)
    state = play(game, [0])
    with pytest.raises(ValueError, match="end of the game"):
        game.returns(state)
    with pytest.raises(ValueError, match=r"^action 0 is an illegal move here: legal actions are \[1, 2, "):
        game.apply(state, 0)
    with pytest.raises(ValueError, match="0..11"):
        game.apply(state, 12)
    with pytest.raises(ValueError, match="integer"):
        game.apply(state, "3")
    assert state == play(game, [0])


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [({"rows": 0}, "rows .a number of boxes. must be an integer >= 1"), ({"tie_break": "first"}, "tie_break")],
)
def test_bad_parameters_raise_value_error(kwargs, message):
    with pytest.raises(ValueError, match=message):
        DotsAndBoxes(**kwargs)


def test_observation_mask_and_keys():
    game = DotsAndBoxes(1, 1)  # edges 0 top, 1 bottom, 2 left, 3 right
    state = play(game, [0, 1, 2, 3])
    assert state.owners == bytes([2])  # player 1 drew the fourth edge
    assert game.observation(state, 1).tolist() == [1, 1, 1, 1, 1]
    assert game.observation(state, 0).tolist() == [1, 1, 1, 1, -1]
    assert game.legal_mask(play(game, [2])).tolist() == [1, 1, 0, 1]
    assert game.legal_mask(play(game, [2])).dtype == np.int8
    assert game.edge_key(play(game, [2])) == 0b100
    keys = {game.key(play(game, moves)) for moves in ([0], [1], [0, 1], [1, 0])}
    assert len(keys) == 3  # [0, 1] and [1, 0] reach the same position


def test_states_are_hashable_values():
    game = DotsAndBoxes()
    assert play(game, [0, 5]) == play(game, [0, 5]) and hash(play(game, [0, 5])) == hash(play(game, [0, 5]))
    assert play(game, [0, 5]) == play(game, [5, 0])  # same edges, same mover, no boxes: one position
    assert play(game, [0]) != play(game, [5])


@pytest.mark.parametrize(("tie_break", "tie_winner"), [("draw", -1), ("second", 1)])
def test_the_tie_rule_decides_equal_margins_and_nothing_else(tie_break, tie_winner):
    game = DotsAndBoxes(2, 2, tie_break=tie_break)
    assert game.tie_winner == tie_winner
    assert (game.winner_of_margin(2), game.winner_of_margin(-1), game.winner_of_margin(0)) == (0, 1, tie_winner)
    assert game.payoff_of_margin(1, 1) == 1.0 and game.payoff_of_margin(-3, 0) == -1.0
    tie = {-1: (0.0, 0.0), 1: (-1.0, 1.0)}[tie_winner]
    assert (game.payoff_of_margin(0, 0), game.payoff_of_margin(0, 1)) == tie


def test_the_bitmask_helpers_agree_with_the_rules_on_random_games():
    rng = np.random.default_rng(5)
    for rows, cols in ((1, 1), (2, 3), (3, 3)):
        game = DotsAndBoxes(rows, cols)
        state = game.initial_state()
        while not game.is_terminal(state):
            key = game.edge_key(state)
            assert key == sum(1 << e for e, drawn in enumerate(state.edges) if drawn)
            assert game.num_boxes - game.completed_boxes(key) == game.boxes_left(state) == state.owners.count(0)
            assert game.free_edges(key) == game.legal_actions(state)
            expected = [
                (a, game.edge_key(game.apply(state, a)), game.boxes_completed_by(state, a))
                for a in game.legal_actions(state)
            ]
            assert game.edge_key_successors(key) == expected
            for a in game.legal_actions(state):
                # Drawing the fourth side of a box completes it: the sides before the move say so too.
                assert game.box_sides(key, a).count(3) == game.boxes_completed_by(state, a)
            state = game.apply(state, int(rng.choice(game.legal_actions(state))))
        assert game.completed_boxes(np.array([game.full_key, 0])).tolist() == [game.num_boxes, 0]
    with pytest.raises(ValueError, match="edges but this board"):
        DotsAndBoxes(1, 1).edge_key(DotsAndBoxes(2, 2).initial_state())


def test_the_edge_count_is_the_geometry_s():
    for rows, cols in ((1, 1), (2, 3), (3, 3), (32, 32)):
        game = DotsAndBoxes(rows, cols)
        assert game.num_edges == game.num_actions == (rows + 1) * cols + rows * (cols + 1)
        assert game.num_horizontal == (rows + 1) * cols and game.full_key == 2**game.num_edges - 1
