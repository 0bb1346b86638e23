"""agents.hints: exact "win in N" / "draw" / "loss in N" labels on Connect Four; past the budget, the estimate.

The labels are checked against known positions and against a plain exhaustive search written here, which
counts the plies to the end under best play (the winner hurries, the loser delays) without the solver.
"""

import functools

import numpy as np
import pytest

from agents.hints import EXACT, SEARCH_ESTIMATE, HintLabels, exact_label, hint_labels
from agents.search.connect_four import COMPILED
from gym_boardgames.rules import ConnectN, TicTacToe

CONNECT_FOUR = ConnectN(6, 7, 4, True)


def replay(game, moves):
    state = game.initial_state()
    for column in moves:
        state = game.apply(state, int(column))
    return state


def labels_of(game, moves, **kwargs):
    """The hints of the position after ``moves``; with a time budget no busy machine reaches unless one is given
    (these tests check the labels, the budget's tests give theirs: a loaded machine read a first solve as '?')."""
    state = replay(game, moves)
    kwargs.setdefault("seconds", 600)
    return hint_labels(game, state, game.current_player(state), **kwargs)


def exhaustive_labels(game, state):
    """The label of each move by plain search: a win or loss whose last stone is the d-th ply from now.

    A value is ``100 - d`` for a win of the mover whose winning stone is the d-th ply from now, ``-(100 - d)``
    for a loss, 0 for a draw; the mover takes the largest. A win on ply d is the mover's ``(d + 1) // 2``-th
    stone; a loss on ply d comes after ``d // 2`` moves of the mover's.
    """

    @functools.cache
    def value(position):
        return max(move_value(position, action) for action in game.legal_actions(position))

    def move_value(position, action):
        child = game.apply(position, action)
        if game.is_terminal(child):
            return 99 * int(game.returns(child)[game.current_player(position)])
        theirs = value(child)  # one ply further from the end for us
        return 1 - theirs if theirs > 0 else -1 - theirs if theirs < 0 else 0

    def label(value):
        plies = 100 - abs(value)
        return "draw" if value == 0 else f"win in {(plies + 1) // 2}" if value > 0 else f"loss in {plies // 2}"

    return {action: label(move_value(state, action)) for action in game.legal_actions(state)}


# ---- known positions --------------------------------------------------------------------------------


def test_a_win_with_this_stone_is_win_in_1():
    labels = labels_of(CONNECT_FOUR, "001122")  # X holds 0-1-2 of the bottom row
    assert labels[3] == "win in 1" and labels.source == EXACT


def test_an_open_three_made_now_wins_with_the_second_stone():
    labels = labels_of(CONNECT_FOUR, "2233")  # X on 2-3 of the bottom row: 1 or 4 makes _XXX_
    assert labels[1] == labels[4] == "win in 2"


def test_two_threats_lose_to_the_next_stone_whatever_the_mover_plays():
    labels = labels_of(CONNECT_FOUR, "020364")  # O holds 2-3-4 of the bottom row, 1 and 5 open
    assert labels == dict.fromkeys(range(7), "loss in 1")


@pytest.mark.skipif(not COMPILED, reason="the empty board needs the compiled solver within the hint budget")
def test_the_empty_board_centre_wins_its_neighbours_draw_the_rest_lose():
    labels = labels_of(CONNECT_FOUR, "")
    # Column 3 wins with the first player's 21st stone (the 41st of the game); 1 and 5 lose to the 42nd
    # stone, 0 and 6 to the 40th (the second player's 20th).
    assert labels == {
        0: "loss in 20", 1: "loss in 21", 2: "draw", 3: "win in 21", 4: "draw", 5: "loss in 21", 6: "loss in 20",
    }  # fmt: skip
    assert labels.source == EXACT


def test_the_label_formula_inverts_pons_scores():
    # 6x7, 10 stones played: a win with this stone scores (43 - 10) // 2 = 16, a loss to the next stone
    # -(42 - 10) // 2 = -16; each further stone of the winner's is one point less.
    assert [exact_label(s, 42, 10) for s in (16, 15, 1, 0, -1, -15, -16)] == [
        "win in 1", "win in 2", "win in 16", "draw", "loss in 16", "loss in 2", "loss in 1",
    ]  # fmt: skip
    assert exact_label(1, 42, 0) == "win in 21" and exact_label(-2, 42, 0) == "loss in 20"


@pytest.mark.parametrize(
    "moves",
    [
        "5435444655432114060150010",  # win in 8 and in 6, loss in 5 and in 1
        pytest.param("351255335233622643206656", marks=pytest.mark.slow),  # wins in 8, losses in 5 and 1
        pytest.param("2055342544112245504511004", marks=pytest.mark.slow),  # draws, win in 9, loss in 1
    ],
)
def test_labels_agree_with_an_exhaustive_search_of_the_endgame(moves):
    state = replay(CONNECT_FOUR, moves)
    labels = hint_labels(CONNECT_FOUR, state, CONNECT_FOUR.current_player(state))
    assert labels.source == EXACT
    assert dict(labels) == exhaustive_labels(CONNECT_FOUR, state)
    assert len({label.split(" in ")[0] for label in labels.values()}) >= 2  # not a one-sided position


def test_smaller_gravity_boards_get_exact_labels_too():
    game = ConnectN(4, 4, 4, True)
    state = replay(game, "1221")
    labels = hint_labels(game, state, game.current_player(state))
    assert labels.source == EXACT and dict(labels) == exhaustive_labels(game, state)


# ---- the budget and the other games -----------------------------------------------------------------


def test_a_budget_too_small_falls_back_to_the_searched_estimate():
    labels = labels_of(CONNECT_FOUR, "33", max_nodes=1)
    assert isinstance(labels, HintLabels) and labels.source == SEARCH_ESTIMATE
    assert set(labels) == set(range(7)) and set(labels.values()) <= {"win", "loss", "?"}
    assert "?" in labels.values()  # no forced result within four plies of this opening


def test_the_estimate_still_sees_a_win_in_one():
    labels = labels_of(CONNECT_FOUR, "001122", max_nodes=1)
    assert labels.source == SEARCH_ESTIMATE and labels[3] == "win"


def test_other_games_keep_their_labels_and_name_their_source():
    ttt = TicTacToe()
    labels = hint_labels(ttt, ttt.initial_state(), 0)
    assert labels.source == EXACT and set(labels.values()) == {"draw"}
    no_gravity = ConnectN(4, 5, 4, False)  # 20 cells: searched four plies deep
    labels = hint_labels(no_gravity, no_gravity.initial_state(), 0)
    assert labels.source == SEARCH_ESTIMATE and set(labels.values()) == {"?"}
    too_wide = ConnectN(7, 9, 4, True)  # the solver's bitboard cannot hold it: the searched estimate
    assert hint_labels(too_wide, too_wide.initial_state(), 0).source == SEARCH_ESTIMATE


@pytest.mark.parametrize("max_nodes", [0, -5, 1.5])
def test_a_budget_below_one_position_is_refused(max_nodes):
    with pytest.raises(ValueError, match="max_nodes"):
        hint_labels(CONNECT_FOUR, CONNECT_FOUR.initial_state(), 0, max_nodes=max_nodes)


def test_exact_labels_are_the_movers():
    with pytest.raises(ValueError, match="mover"):
        hint_labels(CONNECT_FOUR, CONNECT_FOUR.initial_state(), 1)


def test_seeded_random_positions_agree_with_the_exhaustive_search():
    game = ConnectN(4, 5, 4, True)
    rng = np.random.default_rng(3)
    checked = 0
    while checked < 4:
        state = game.initial_state()
        for _ in range(8):
            state = game.apply(state, int(rng.choice(game.legal_actions(state))))
            if game.is_terminal(state):
                break
        if game.is_terminal(state):
            continue
        labels = hint_labels(game, state, game.current_player(state))
        assert labels.source == EXACT and dict(labels) == exhaustive_labels(game, state)
        checked += 1


def test_hints_on_a_big_board_answer_within_their_budget_what_a_shallow_search_finds():
    import time

    # 9x9, five in a row, no gravity: a 4-ply search of each of 81 cells took 118 s. X has four on the top row.
    game = ConnectN(rows=9, cols=9, n=5, gravity=False)
    state = game.initial_state()
    for action in (0, 40, 1, 50, 2, 60, 3, 70):  # X a1-d1, O scattered: X to move, e1 wins
        state = game.apply(state, action)
    start = time.monotonic()
    labels = hint_labels(game, state, game.current_player(state), seconds=0.5)
    assert time.monotonic() - start < 0.5 + 30  # the budget, and a margin only a blocking search exceeds
    assert labels.source == SEARCH_ESTIMATE and len(labels) == 73
    assert labels[4] == "win" and set(labels.values()) <= {"win", "?", "loss"}


def test_hints_of_a_cancelled_position_are_not_returned_as_a_cut_search():
    from gym_boardgames.cancel import Cancelled, CancelSignal, cancellable

    game = ConnectN(rows=9, cols=9, n=5, gravity=False)
    signal = CancelSignal()
    signal.cancel()  # the person left the position: the caller wants nothing, not a page of "?"
    with cancellable(signal), pytest.raises(Cancelled):
        hint_labels(game, game.initial_state(), 0)


@pytest.mark.parametrize("seconds", [0, -1, float("nan"), "2"])
def test_a_bad_hint_budget_is_refused(seconds):
    with pytest.raises(ValueError, match="^seconds must be a positive number"):
        hint_labels(TicTacToe(), TicTacToe().initial_state(), 0, seconds=seconds)
