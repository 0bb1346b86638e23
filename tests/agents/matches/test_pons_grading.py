"""Grading players on Pons' sets (agents.matches.pons_grading), on small sets written here: his are fetched data.

The positions, as Pons writes them (1-based columns), and what the solver says of them (checked in
``test_the_positions_are_what_the_tests_say``):

- ``4455``: the first player wins with its fourth stone in columns 3 or 6 (an open three in the bottom row, 18);
  columns 4 and 5 still win, later (2); column 1 loses (-4).
- ``112233``: the first player wins at once in column 4 (18); every other move loses.
- ``44455554221``: lost whatever the move (-15 each): no move can be a mistake there.
- ``11223``: the second player must block column 4 (and then wins, 2); every other move loses at once (-18).
- ``3333336``: a draw (0) with column 1, a loss with column 2 (-3).
- ``444444``: column 4 is full; a win (1) for the first player, but not with column 1 (-1).
"""

import importlib.util

import pytest

from agents.factory import make_agent
from agents.matches.perfect_play import connect_four
from agents.matches.pons_grading import (
    ScoreMismatchError,
    critical,
    format_testset_report,
    grade_on_testsets,
    mistakes,
    replay_testsets,
    score_testset,
)
from agents.matches.testsets import find_testsets, read_testset

HAS_SOLVER = all(importlib.util.find_spec(name) for name in ("numba", "bitbully_databases"))
needs_solver = pytest.mark.skipif(not HAS_SOLVER, reason="the solver extra: in pure Python these take minutes")

#: Two sets of three lines each, ``MOVES SCORE`` as in Pons' files.
FIRST = ["4455 18", "112233 18", "44455554221 -15"]
SECOND = ["11223 2", "3333336 0", "444444 1"]


class Column:
    """A player that always plays one column (0-based), legal or not."""

    def __init__(self, column):
        self.column = column

    def act(self, game, state):
        return self.column


class Refuses:
    """A player that must never be asked."""

    def act(self, game, state):
        raise AssertionError("a player moved before the sets were checked")


def write_sets(folder, files):
    """Write ``{file name: lines}`` into ``folder``; return the sets read (all of them, in Pons' order)."""
    folder.mkdir(exist_ok=True)
    for name, lines in files.items():
        (folder / name).write_text("\n".join(lines) + "\n")
    return find_testsets(folder)


@pytest.fixture
def two_sets(tmp_path):
    """End-Easy with :data:`FIRST` and Middle-Easy with :data:`SECOND`, replayed."""
    return replay_testsets(write_sets(tmp_path / "sets", {"Test_L3_R1": FIRST, "Test_L2_R1": SECOND}))


def test_replaying_gives_each_position_its_state_in_file_order(two_sets):
    game = connect_four()
    end, middle = two_sets
    assert (end.name, middle.name) == ("End-Easy", "Middle-Easy") and end.path.endswith("Test_L3_R1")
    assert [position.score for position in end.positions] == [18, 18, -15]
    start = game.initial_state()
    assert end.states[0] == game.apply(game.apply(game.apply(game.apply(start, 3), 3), 4), 4)
    assert [game.current_player(state) for state in middle.states] == [1, 1, 0]


def test_replaying_refuses_an_illegal_move_naming_the_set_file_line_and_moves(tmp_path):
    [testset] = write_sets(tmp_path / "sets", {"Test_L2_R2": ["4455 18", "", "1111111 0"]})
    with pytest.raises(ValueError) as error:
        replay_testsets([testset])
    path = tmp_path / "sets" / "Test_L2_R2"
    assert str(error.value) == f"Middle-Medium ({path}), line 3, moves 1111111: move 7 (column 1) is not legal"


def test_replaying_refuses_a_finished_game_and_a_move_after_it(tmp_path):
    path = tmp_path / "sets" / "Test_L1_R1"
    [testset] = write_sets(tmp_path / "sets", {"Test_L1_R1": ["1212121 0"]})  # four in column 1
    with pytest.raises(ValueError) as error:
        replay_testsets([testset])
    assert (
        str(error.value) == f"Begin-Easy ({path}), line 1, moves 1212121: the game is over, there is no move to grade"
    )
    [testset] = write_sets(tmp_path / "sets", {"Test_L1_R1": ["4455 18", "12121212 0"]})
    with pytest.raises(ValueError, match=r", line 2, moves 12121212: move 8 \(column 2\) is not legal$"):
        replay_testsets([testset])


def test_a_mistake_worsens_the_result_a_slower_win_or_quicker_loss_does_not():
    won = {0: 18, 1: 2, 2: 0, 3: -4}  # a win at once, a slower win, a draw, a loss
    drawn = {0: 0, 1: -3, 2: -20}
    lost = {0: -2, 1: -18}
    positions = [won, won, won, won, drawn, drawn, drawn, lost, lost]
    moves = [0, 1, 2, 3, 0, 1, 2, 0, 1]
    assert mistakes(positions, moves) == [False, False, True, True, False, True, True, False, False]
    assert critical(won) and critical(drawn) and not critical(lost)
    assert not critical({0: 5, 1: 1}) and not critical({3: 0, 4: 0}) and critical({3: 1, 4: -1})
    with pytest.raises(ValueError):  # one move per position
        mistakes(positions, moves[:-1])


@needs_solver
def test_the_positions_are_what_the_tests_say(two_sets):
    end, middle = (score_testset(testset) for testset in two_sets)
    assert end[0] == {0: -4, 1: -3, 2: 18, 3: 2, 4: 2, 5: 18, 6: -3}
    assert end[1][3] == 18 and max(s for c, s in end[1].items() if c != 3) < 0
    assert set(end[2].values()) == {-15}
    assert middle[0][3] == 2 and set(s for c, s in middle[0].items() if c != 3) == {-18}
    assert (max(middle[1].values()), middle[1][0], middle[1][1]) == (0, 0, -3)
    assert 3 not in middle[2] and (max(middle[2].values()), middle[2][0]) == (1, -1)


@needs_solver
def test_perfect_play_makes_no_mistake_and_a_fixed_column_the_ones_it_should(two_sets):
    players = {"perfect": make_agent("perfect", seed=0, game=connect_four()), "column 1": Column(0)}
    report = grade_on_testsets(players, two_sets)
    end, middle = report["sets"]["End-Easy"], report["sets"]["Middle-Easy"]
    assert (end["positions"], end["critical"], middle["positions"], middle["critical"]) == (3, 2, 3, 3)
    assert end["file"] == two_sets[0].path and end["solver_seconds"] >= 0
    assert (report["positions"], report["critical"]) == (6, 5)
    assert end["players"]["perfect"] == middle["players"]["perfect"] == {"mistakes": 0, "positions": 3,
                                                                         "mistake_rate": 0.0}  # fmt: skip
    # column 1 throws away the wins of 4455, 112233, 11223 and 444444; 3333336 draws; 44455554221 is lost anyway
    assert end["players"]["column 1"] == {"mistakes": 2, "positions": 3, "mistake_rate": round(2 / 3, 6)}
    assert middle["players"]["column 1"] == {"mistakes": 2, "positions": 3, "mistake_rate": round(2 / 3, 6)}
    overall = report["players"]["column 1"]
    assert (overall["mistakes"], overall["positions"], overall["mistake_rate"]) == (4, 6, round(4 / 6, 6))
    assert report["players"]["perfect"]["mistakes"] == 0 and overall["seconds"] >= 0
    table = format_testset_report(report).splitlines()
    assert table[0] == "| set | positions | critical | solver s | `perfect` mistakes | `column 1` mistakes |"
    assert table[2].startswith("| End-Easy | 3 | 2 | ") and table[2].endswith(" | 0.0% (0/3) | 66.7% (2/3) |")
    assert table[3].startswith("| Middle-Easy | 3 | 3 | ")
    assert table[4] == "" and table[5].startswith(
        "`perfect` over the 2 sets: 0.0% (0/6) mistakes (5 positions critical), "
    )
    assert table[6].startswith("`column 1` over the 2 sets: 66.7% (4/6) mistakes (5 positions critical), ")
    assert len(table) == 7 and table[6].endswith(" s")


@needs_solver
def test_a_slower_win_is_no_mistake_and_a_full_column_is_refused_naming_the_position(two_sets):
    center = {"center": Column(3)}  # 4455: a slower win; 112233: the win; 44455554221: lost anyway
    report = grade_on_testsets(center, two_sets[:1])
    assert report["players"]["center"]["mistakes"] == 0 and list(report["sets"]) == ["End-Easy"]
    with pytest.raises(ValueError) as error:  # 444444: column 4 is full
        grade_on_testsets(center, two_sets)
    assert str(error.value).startswith(f"Middle-Easy ({two_sets[1].path}), line 3, moves 444444: agent center played 3")


@needs_solver
def test_a_wrong_score_in_a_file_stops_the_grading_before_any_player_moves(tmp_path):
    lines = [*SECOND[:2], "4455 17"]
    sets = replay_testsets(write_sets(tmp_path / "sets", {"Test_L3_R1": FIRST, "Test_L1_R2": lines}))
    with pytest.raises(ScoreMismatchError) as error:
        grade_on_testsets({"refuses": Refuses()}, sets)
    path = tmp_path / "sets" / "Test_L1_R2"
    assert str(error.value) == (f"Begin-Medium ({path}), line 3, moves 4455: the file's SCORE is 17, our solver's best "
                                "move scores 18 (the solver or the file is wrong)")  # fmt: skip


@needs_solver
def test_a_given_solver_scores_the_sets(two_sets):
    class Shifted:  # a wrong solver: every score one more
        def score_moves(self, game, state):
            from agents.search.connect_four import score_moves

            return {column: score + 1 for column, score in score_moves(game, state).items()}

    with pytest.raises(
        ScoreMismatchError, match=r"line 1, moves 4455: the file's SCORE is 18, our solver's best .* 19"
    ):
        score_testset(two_sets[0], Shifted())
    assert read_testset(two_sets[0].path).positions == two_sets[0].positions
