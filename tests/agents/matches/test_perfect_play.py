"""The Connect Four label sets and the grader: the files as the issue asks, checked against our own solver."""

import os

import numpy as np
import pytest

from agents.matches.perfect_play import (
    NO_MOVE,
    PAD,
    STAGES,
    LabelSet,
    agent_moves,
    agent_moves_at,
    connect_four,
    format_report,
    grade,
    load_labels,
    save_labels,
    shipped_labels_path,
)
from agents.persistence import SavedFileError
from agents.search.minimax import alphabeta

GAME = connect_four()


@pytest.fixture(scope="module")
def labels():
    return load_labels()


def test_the_shipped_sets_are_large_staged_small_and_disjoint(labels):
    heldout = load_labels(shipped_labels_path("heldout"))
    assert len(labels) >= 3000 and len(heldout) >= 1000
    for subset in (labels, heldout):
        counts = np.bincount(subset.stages(), minlength=len(STAGES))
        assert counts.min() >= len(subset) // 4 - 1  # four equal stages
        assert subset.critical().sum() > len(subset) // 4
        assert len(subset.sources) >= 10  # drawn from games of many kinds of player
    for name in ("labels", "heldout", "random"):
        assert os.path.getsize(shipped_labels_path(name)) < 1_000_000
    boards = {s.board for s in labels.states()}
    assert len(boards) == len(labels)  # no position twice
    assert boards.isdisjoint(s.board for s in heldout.states())


def test_the_random_play_set_is_staged_disjoint_and_from_random_games_only(labels):
    random_set = load_labels(shipped_labels_path("random"))
    assert len(random_set) >= 1000 and random_set.sources == ("random vs random",)
    assert np.bincount(random_set.stages(), minlength=len(STAGES)).min() >= len(random_set) // 4
    boards = {s.board for s in random_set.states()}
    assert len(boards) == len(random_set)
    heldout = load_labels(shipped_labels_path("heldout"))
    assert boards.isdisjoint(s.board for s in labels.states())
    assert boards.isdisjoint(s.board for s in heldout.states())


def test_late_positions_agree_with_our_own_exact_search(labels):
    # An independent check of the solver's labels without the solver: every move of 150 positions of 26+
    # plies, solved to the end by alpha-beta, has the same result (win, draw, loss) as its label.
    states = labels.states()
    late = np.flatnonzero(labels.plies >= 26)[:150]
    checked = 0
    for i in late:
        state = states[i]
        for action in GAME.legal_actions(state):
            child = GAME.apply(state, action)
            value = GAME.returns(child)[state.player] if GAME.is_terminal(child) else -alphabeta(GAME, child)[0]
            assert np.sign(value) == np.sign(labels.scores[i, action]), (labels.move_lists()[i], action)
            checked += 1
    assert checked > 400


def test_grade_scores_perfect_and_losing_moves(labels):
    best = np.argmax(np.where(labels.scores == NO_MOVE, -127, labels.scores), axis=1)
    report = grade(labels, best)
    assert report["outcome_kept"] == report["best_score"] == report["critical"]["outcome_kept"] == 1.0
    assert sum(report["stages"][name]["positions"] for name, _, _ in STAGES) == len(labels)
    worst = np.argmin(np.where(labels.scores == NO_MOVE, 127, labels.scores), axis=1)
    bad = grade(labels, worst)
    assert bad["critical"]["outcome_kept"] == 0.0  # on a critical position the worst move changes the result
    assert "| `best` | 100.0% | 100.0% |" in format_report({"best": report})


def test_grade_refuses_illegal_or_missing_moves(labels):
    full = np.flatnonzero((labels.scores == NO_MOVE).any(axis=1))[0]
    moves = np.argmax(labels.scores, axis=1)
    moves[full] = int(np.flatnonzero(labels.scores[full] == NO_MOVE)[0])
    with pytest.raises(ValueError, match="not legal in position"):
        grade(labels, moves)
    with pytest.raises(ValueError, match="one action per position"):
        grade(labels, moves[:-1])


@pytest.mark.parametrize("kind", [lambda m: m + 0.5, bool, str])
def test_grade_refuses_actions_that_are_not_integers(labels, kind):
    moves = np.argmax(labels.scores, axis=1)
    with pytest.raises(ValueError, match="actions must be integers"):
        grade(labels, [kind(m) for m in moves.tolist()])


def test_agents_and_the_raw_network_are_graded_alike(labels):
    from agents.alphazero.evaluation import greedy_moves
    from agents.factory import make_agent

    sample = labels.subset(np.arange(0, len(labels), 80))
    raw = make_agent("alphazero:0", game=GAME)
    assert agent_moves(raw, sample) == greedy_moves(raw.evaluator, GAME)(sample.states())
    report = grade(sample, agent_moves(make_agent("random", seed=0), sample))
    assert 0.0 < report["outcome_kept"] < 1.0


def _rewrite(tmp_path, labels, **changes):
    fields = {"moves": labels.moves.copy(), "scores": labels.scores.copy(), "source": labels.source.copy()}
    fields.update(changes)
    path = tmp_path / "bad.npz"
    save_labels(path, LabelSet(fields["moves"], fields["scores"], fields["source"], labels.sources))
    return path


def test_the_loader_refuses_labels_that_disagree_with_the_rules(tmp_path, labels):
    small = labels.subset(np.arange(40))
    save_labels(tmp_path / "ok.npz", small)
    assert len(load_labels(tmp_path / "ok.npz")) == 40
    scores = small.scores.copy()
    legal = int(np.flatnonzero(scores[0] != NO_MOVE)[0])
    scores[0, legal] = NO_MOVE
    with pytest.raises(SavedFileError, match="position 0: scores columns"):
        load_labels(_rewrite(tmp_path, small, scores=scores))
    moves = small.moves.copy()
    moves[1, :7] = 3  # seven pieces in one column of six
    moves[1, 7:] = PAD
    with pytest.raises(SavedFileError, match="position 1: move 3 is not legal"):
        load_labels(_rewrite(tmp_path, small, moves=moves))
    moves = small.moves.copy()
    moves[2, :] = PAD
    moves[2, :7] = [0, 1, 0, 1, 0, 1, 0]  # four in column 0: the game is over
    with pytest.raises(SavedFileError, match="position 2: the game is over"):
        load_labels(_rewrite(tmp_path, small, moves=moves))
    source = small.source.copy()
    source[3] = 250
    with pytest.raises(SavedFileError, match="source index"):
        load_labels(_rewrite(tmp_path, small, source=source))
    with pytest.raises(ValueError, match="shipped label set must be one of .*got 'x'"):
        shipped_labels_path("x")


def test_the_loader_refuses_scores_the_position_makes_impossible(tmp_path, labels):
    from agents.matches.perfect_play import connect_four

    game = connect_four()

    # Find a position with a move that wins at once, and label that move a loss.
    def winning_moves(row):
        state = game.initial_state()
        for column in row[row != PAD].tolist():
            state = game.apply(state, column)
        mover = game.current_player(state)
        children = {a: game.apply(state, a) for a in game.legal_actions(state)}
        return [a for a, child in children.items() if game.is_terminal(child) and game.returns(child)[mover] > 0]

    i = next(i for i, row in enumerate(labels.moves) if winning_moves(row))
    winning = winning_moves(labels.moves[i])
    small = labels.subset(np.array([i]))
    scores = small.scores.copy()
    scores[0, winning[0]] = -1
    with pytest.raises(SavedFileError, match=f"column {winning[0]} wins at once, so it scores"):
        load_labels(_rewrite(tmp_path, small, scores=scores))
    # A score beyond what the ply allows: ply n leaves the mover at most 21 - n // 2.
    late = int(np.argmax((labels.moves != PAD).sum(axis=1)))
    small = labels.subset(np.array([late]))
    scores = small.scores.copy()
    scores[0, np.flatnonzero(scores[0] != NO_MOVE)[0]] = 21
    with pytest.raises(SavedFileError, match="impossible at ply"):
        load_labels(_rewrite(tmp_path, small, scores=scores))


def test_the_perfect_agent_agrees_with_the_labels(labels):
    # The labels are BitBully's; our solver (tests/agents/search/test_connect_four_solver.py checks it in depth) gives
    # the same scores, and its player picks a best-scored move.
    from agents.search.connect_four import PerfectAgent, score_moves

    agent = PerfectAgent(seed=0)
    states = labels.states()
    for i in range(0, len(labels), 400):
        scores = score_moves(GAME, states[i])
        assert [scores.get(c, NO_MOVE) for c in range(7)] == labels.scores[i].tolist()
        assert labels.scores[i, agent.act(GAME, states[i])] == labels.best_scores()[i]


#: A user's agents (a file.py:Class each) whose moves are no column, and what the one move check says of them.
USER_AGENTS = """
import numpy as np

class Float:
    def act(self, game, state):
        return 0.7

class Bool:
    def act(self, game, state):
        return True

class Nothing:
    def act(self, game, state):
        return None

class Array:
    def act(self, game, state):
        return np.array([3])

class Raises:
    def act(self, game, state):
        raise RuntimeError("no move")
"""
REFUSED = {
    "Float": "played 0.7, which is not an integer in 0..6",
    "Bool": "played True, which is not an integer in 0..6",
    "Nothing": "played None, which is not an integer in 0..6",
    "Array": "array([3])",  # an array in this process; a child process sends what it shows of it
    "Raises": ": its act() raised RuntimeError: no move",
}


@pytest.mark.parametrize("move_time", [None, 30.0], ids=["in process", "in a child process"])
def test_every_move_a_user_agent_returns_goes_through_the_move_check(tmp_path, move_time):
    from gym_boardgames.errors import AgentError
    from gym_boardgames.opponents import make_opponent

    (tmp_path / "bad.py").write_text(USER_AGENTS)
    states = [GAME.initial_state()]
    for agent, says in REFUSED.items():
        spec = f"{tmp_path / 'bad.py'}:{agent}"
        opponent = make_opponent(spec, GAME, 0, move_time=move_time)
        with pytest.raises(ValueError) as error:
            agent_moves_at(opponent, states, where=lambda index: f"position {index}")
        message = str(error.value)
        assert message.startswith(f"position 0: agent {spec}") and says in message and "\n" not in message, message
        assert isinstance(error.value, AgentError) == (agent == "Raises")
