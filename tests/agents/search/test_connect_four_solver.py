"""agents.search.connect_four: exact scores, checked against the shipped labels, our own layered solver and BitBully.

The shipped label sets were scored by BitBully, independently of this solver, so agreeing with them is the main
check; small boards are checked against :func:`agents.search.solver.position_values`, which solves every position.
``GYM_BOARDGAMES_TEST_ALL_LABELS=1`` scores all 5,200 labelled positions instead of a sample (minutes).
"""

import json
import os
import re
import subprocess
import sys

import gymnasium as gym
import numpy as np
import pytest

from agents.factory import make_agent
from agents.matches.arena import play_game
from agents.matches.perfect_play import NO_MOVE, SHIPPED, STAGES, connect_four, load_labels, shipped_labels_path
from agents.search.connect_four import (
    ConnectFourSolver,
    PerfectAgent,
    SearchBudgetExceeded,
    check_solvable,
    score_moves,
)
from agents.search.opening_book import read_book
from agents.search.solver import position_values
from agents.search.solver import score_moves as solver_score_moves
from gym_boardgames.rules import ConnectN, TicTacToe

GAME = connect_four()
ALL_LABELS = os.environ.get("GYM_BOARDGAMES_TEST_ALL_LABELS") == "1"


@pytest.fixture(scope="module")
def label_sets():
    return {name: load_labels(shipped_labels_path(name)) for name in SHIPPED}


def labelled(label_sets):
    """Every labelled position: (set name, index, moves played, state, the label's scores by column)."""
    for name, labels in label_sets.items():
        for i, (moves, state) in enumerate(zip(labels.move_lists(), labels.states(), strict=True)):
            yield name, i, moves, state, labels.scores[i].tolist()


def row(scores):
    return [scores.get(column, NO_MOVE) for column in range(7)]


def replay(game, moves):
    state = game.initial_state()
    for column in moves:
        state = game.apply(state, column)
    return state


def sample(label_sets, per_stage, seed=0, plies=None):
    """A seeded sample of labelled positions: ``per_stage`` of each stage (or of the positions with ``plies``)."""
    everything = list(labelled(label_sets))
    rng = np.random.default_rng(seed)
    picked = []
    if plies is not None:
        groups = [[p for p in everything if len(p[2]) in plies]]
    else:
        groups = [[p for p in everything if first <= len(p[2]) <= last] for _, first, last in STAGES]
    for group in groups:
        picked += [group[i] for i in rng.permutation(len(group))[:per_stage]]
    return picked


def assert_scores_match_the_labels(positions):
    wrong = [
        (name, i, moves, label, row(score_moves(GAME, state)))
        for name, i, moves, state, label in positions
        if row(score_moves(GAME, state)) != label
    ]
    assert not wrong, f"{len(wrong)} of {len(positions)} differ; first (set, index, moves, label, ours): {wrong[0]}"


def test_a_sample_of_the_shipped_labels_is_scored_again(label_sets):
    # 38 positions of each stage, and 12 at ply 11, whose children the 12-ply opening book scores.
    positions = sample(label_sets, 38) + sample(label_sets, 12, seed=1, plies={11})
    stages = {next(k for k, (_, first, last) in enumerate(STAGES) if first <= len(p[2]) <= last) for p in positions}
    assert len(positions) == 164 and stages == {0, 1, 2, 3} and sum(len(p[2]) == 11 for p in positions) >= 12
    assert_scores_match_the_labels(positions)


@pytest.mark.slow
@pytest.mark.skipif(not ALL_LABELS, reason="all 5,200 labels take minutes: set GYM_BOARDGAMES_TEST_ALL_LABELS=1")
def test_every_shipped_label_is_scored_again(label_sets):
    positions = list(labelled(label_sets))
    assert len(positions) == 5200
    assert_scores_match_the_labels(positions)


def test_the_empty_board_and_immediate_wins_have_their_known_scores():
    assert score_moves(GAME, GAME.initial_state()) == {0: -2, 1: -1, 2: 0, 3: 1, 4: 0, 5: -1, 6: -2}
    # A win with the next stone scores (43 - ply) // 2: 18 at ply 6, whatever the other columns score.
    assert score_moves(GAME, replay(GAME, [0, 1, 0, 1, 0, 1]))[0] == 18
    assert score_moves(GAME, replay(GAME, [0, 1, 0, 1, 0, 1, 6]))[1] == (43 - 7) // 2  # the second player's
    late = replay(GAME, [3, 3, 2, 4, 4, 2, 5, 1, 1, 6, 0, 0, 6, 5, 5, 2, 2, 3, 3, 1, 0, 6])
    assert score_moves(GAME, late)[6] == (43 - 22) // 2  # and every other column loses to the next stone
    small = ConnectN(4, 4, 4, True)
    assert score_moves(small, replay(small, [0, 1, 0, 1, 0, 1]))[0] == (17 - 6) // 2


def test_mirrored_positions_have_mirrored_scores(label_sets):
    for _, _, moves, state, _ in sample(label_sets, 5, seed=2):
        mirrored = score_moves(GAME, replay(GAME, [6 - column for column in moves]))
        assert {6 - column: score for column, score in mirrored.items()} == score_moves(GAME, state), moves


def small_board_positions(game, count, seed):
    """``count`` distinct non-terminal positions of seeded random games on ``game``, every ply represented."""
    rng = np.random.default_rng(seed)
    found = {}
    while len(found) < count:
        state = game.initial_state()
        while not game.is_terminal(state):
            found.setdefault(game.key(state), state)
            legal = game.legal_actions(state)
            state = game.apply(state, int(legal[int(rng.integers(len(legal)))]))
    return list(found.values())[:count]


@pytest.mark.parametrize(
    "shape", [(4, 4), pytest.param((4, 5), marks=pytest.mark.slow), pytest.param((5, 4), marks=pytest.mark.slow)]
)
def test_small_boards_agree_with_the_layered_solver_on_every_move(shape):
    game = ConnectN(*shape, 4, True)
    values = position_values(game)  # every reachable position's win/draw/loss for the player to move
    checked = 0
    for state in small_board_positions(game, 150, seed=sum(shape)):
        mover = game.current_player(state)
        scores = score_moves(game, state)
        assert sorted(scores) == sorted(game.legal_actions(state))
        assert np.sign(max(scores.values())) == values[game.key(state)]
        for column, score in scores.items():
            child = game.apply(state, column)
            value = game.returns(child)[mover] if game.is_terminal(child) else -values[game.key(child)]
            assert np.sign(score) == value, (shape, state.board, column, score, value)
            checked += 1
    assert checked > 300


# Scores the positions given on stdin (JSON: [[rows, cols, moves], ...]) with the solver as plain Python.
PURE_PYTHON = """
import json, sys
from agents.search.connect_four import COMPILED, ConnectFourSolver
from gym_boardgames.rules import ConnectN
solvers, out = {}, []
for rows, cols, moves in json.load(sys.stdin):
    game = ConnectN(rows, cols, 4, True)
    solver = solvers.setdefault((rows, cols), ConnectFourSolver(rows, cols))
    state = game.initial_state()
    for column in moves:
        state = game.apply(state, column)
    out.append({str(c): s for c, s in solver.score_moves(game, state).items()})
print(json.dumps({"compiled": COMPILED, "scores": out}))
"""


@pytest.mark.slow
def test_the_pure_python_solver_agrees_with_the_compiled_one(label_sets):
    late = [(6, 7, moves) for _, _, moves, _, _ in sample(label_sets, 10, seed=3, plies=range(22, 42))]
    small = [
        (rows, cols, moves)
        for rows, cols in ((4, 4), (4, 5), (5, 4))
        for moves in ([], [1, 2], [0, 3, 1, 1, 2, 0, 3, 2])
        if (rows, cols) == (4, 4) or len(moves) >= 8
    ]
    positions = late + small
    env = {**os.environ, "NUMBA_DISABLE_JIT": "1"}
    done = subprocess.run(
        [sys.executable, "-c", PURE_PYTHON], input=json.dumps(positions), capture_output=True, text=True, env=env
    )
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert result["compiled"] is False
    for (rows, cols, moves), pure in zip(positions, result["scores"], strict=True):
        game = ConnectN(rows, cols, 4, True)
        compiled = score_moves(game, replay(game, moves))
        assert {int(c): s for c, s in pure.items()} == compiled, (rows, cols, moves)


def test_check_solvable_refuses_other_games_naming_the_boards_it_plays():
    for game in (TicTacToe(), ConnectN(6, 7, 5, True), ConnectN(6, 7, 4, False)):
        with pytest.raises(ValueError, match=r"gravity boards with four in a row \(Connect Four and smaller\)"):
            make_agent("perfect", game=game)
    with pytest.raises(ValueError, match=r"8x8 needs 72.*6x7 \(Connect Four\), 7x7, 6x8 or a smaller board"):
        PerfectAgent(seed=0).check(ConnectN(8, 8, 4, True))
    for board in ((6, 7), (7, 7), (6, 8), (4, 4)):
        check_solvable(ConnectN(*board, 4, True))  # accepted


@pytest.mark.parametrize(
    ("game", "board"),
    [
        (ConnectN(6, 7, 5, True), bytes(42)),  # five in a row: read as four, it scored lines that were not wins
        (ConnectN(6, 7, 4, False), bytes(42)),  # no gravity
        (ConnectN(6, 7, 4, True), bytes(10)),  # a 10-byte board: read as the empty one
        (ConnectN(5, 6, 4, True), bytes(30)),  # another size
        (TicTacToe(), bytes(9)),
    ],
    ids=["n=5", "no gravity", "10 bytes", "5x6", "tictactoe"],
)
def test_the_solver_refuses_a_board_it_was_not_built_for_naming_both(game, board):
    from gym_boardgames.rules.connect import BoardState

    state = BoardState(board, 0)
    built = r"this solver is built for 6x7 gravity boards with four in a row \(42 cells\), not "
    message = built + re.escape(f"{game!r} with a board of {len(board)} cells")
    solver = ConnectFourSolver(6, 7, book=False)
    for call in (solver.score_moves, solver.solve):
        with pytest.raises(ValueError, match=f"^{message}$"):
            call(game, state)
    if game == ConnectN(6, 7, 4, True):  # the module's score_moves, on the board its shared solver is for
        with pytest.raises(ValueError, match=f"^{message}$"):
            score_moves(game, state)
        with pytest.raises(ValueError, match=f"^{message}$"):
            solver_score_moves(game, state)


def test_the_perfect_agent_takes_the_quickest_win_and_the_slowest_loss(label_sets):
    labels = label_sets["labels"]
    best = labels.best_scores()
    plies = labels.plies
    legal = labels.scores != NO_MOVE
    # A win now (the best score there is at that ply) beside slower wins; all moves lost, some sooner.
    quick = np.flatnonzero(
        (best == 21 - plies // 2) & np.any(legal & (labels.scores > 0) & (labels.scores < best[:, None]), axis=1)
    )
    slow = np.flatnonzero((best < 0) & np.any(legal & (labels.scores < best[:, None]), axis=1))
    assert len(quick) and len(slow)
    states = labels.states()
    for i in [*quick[:5], *slow[:5]]:
        for seed in range(3):
            column = PerfectAgent(seed=seed).act(GAME, states[i])
            assert labels.scores[i, column] == best[i], (labels.move_lists()[i], labels.scores[i].tolist(), column)


def test_seeds_choose_among_equal_moves_and_repeat(label_sets):
    labels = label_sets["labels"]
    legal = labels.scores != NO_MOVE
    tied = np.flatnonzero(((labels.scores == labels.best_scores()[:, None]) & legal).sum(axis=1) >= 2)[:20]
    states = labels.states()

    def choices(seed):
        agent = make_agent("perfect", seed=seed, game=GAME)
        return [agent.act(GAME, states[i]) for i in tied]

    assert choices(0) == choices(0)
    assert len({tuple(choices(seed)) for seed in range(4)}) > 1
    assert all(labels.scores[i, c] == labels.best_scores()[i] for i, c in zip(tied, choices(5), strict=True))


def perfect_game(seed, opponent):
    """Play ``perfect`` (seeded ``seed``) first against ``opponent`` (seeded 100); return its payoff and the moves."""
    moves = []
    payoff = play_game(
        GAME,
        make_agent("perfect", seed=seed, game=GAME),
        make_agent(opponent, seed=100, game=GAME),
        on_move=lambda _state, action, _child: moves.append(action),
    )
    return payoff[0], tuple(moves)


@pytest.mark.slow
@pytest.mark.parametrize("opponent", ["random", "mcts:200"])
def test_the_perfect_agent_wins_every_game_as_first_player_and_seeds_repeat_them(opponent):
    games = {seed: perfect_game(seed, opponent) for seed in range(3)}
    assert all(payoff > 0 for payoff, _ in games.values()), games
    assert perfect_game(0, opponent) == games[0]
    # The opponent's seed is the same in every game, so different games are the perfect player's choices.
    assert len({moves for _, moves in games.values()}) > 1


def test_connect_four_env_plays_against_the_perfect_opponent():
    env = gym.make("ConnectFour-v0", opponent="perfect")
    env.reset(seed=0)
    _, _, terminated, truncated, _ = env.step(0)
    assert not terminated and not truncated
    env.close()


def test_a_node_budget_stops_the_search_and_leaves_the_solver_exact(label_sets):
    labels = label_sets["labels"]
    # A draw at ply 12-16: the search has to see to the end of many lines, far more than 10 positions.
    hard = int(np.flatnonzero((labels.plies >= 12) & (labels.plies <= 16) & (labels.best_scores() == 0))[0])
    state = labels.states()[hard]
    solver = ConnectFourSolver()
    with pytest.raises(SearchBudgetExceeded, match="within 10 positions"):
        solver.score_moves(GAME, state, max_nodes=10)
    assert row(solver.score_moves(GAME, state)) == labels.scores[hard].tolist()
    assert solver.nodes > 10


def test_agents_solver_gives_the_same_scores():
    from agents.search.solver import score_moves as reexported

    state = replay(GAME, [3, 3, 2, 4, 4, 2, 5, 1, 1, 6, 0, 0, 6, 5, 5, 2, 2, 3, 3, 1, 0, 6])
    assert reexported(GAME, state) == score_moves(GAME, state) == ConnectFourSolver().score_moves(GAME, state)


def write_book(path, codes, scores):
    records = np.zeros(len(codes), dtype=[("code", ">i4"), ("score", "i1")])
    records["code"], records["score"] = codes, scores
    path.write_bytes(records.tobytes())
    return path


def test_read_book_reads_a_book_and_refuses_broken_files(tmp_path):
    good = write_book(tmp_path / "good.dat", [-5, 3, 7], [0, 99, -58])
    book = read_book(good)
    assert len(book) == 3 and book.codes.tolist() == [-5, 3, 7] and book.scores.tolist() == [0, 99, -58]
    truncated = tmp_path / "truncated.dat"
    truncated.write_bytes(good.read_bytes()[:-2])
    with pytest.raises(ValueError, match=rf"{truncated}: 13 bytes is not a whole number"):
        read_book(truncated)
    unsorted = write_book(tmp_path / "unsorted.dat", [3, -5, 7], [0, 0, 0])
    with pytest.raises(ValueError, match=rf"{unsorted}: the position codes are not strictly ascending"):
        read_book(unsorted)
    for score in (50, -57, 100):  # distances 50, 43 and 0 plies: no 12-stone game ends so
        bad = write_book(tmp_path / f"bad{score}.dat", [1, 2], [0, score])
        with pytest.raises(ValueError, match=rf"{bad}: a score outside"):
            read_book(bad)


@pytest.mark.slow
def test_scores_agree_with_bitbully_on_random_positions():
    bitbully = pytest.importorskip("bitbully", reason="the crosscheck extra (bitbully, AGPL-3.0) is not installed")
    solver = bitbully.BitBully()
    rng = np.random.default_rng(7)
    checked = 0
    while checked < 30:
        plies = int(rng.integers(4, 36))
        state, moves = GAME.initial_state(), []
        while len(moves) < plies and not GAME.is_terminal(state):
            legal = GAME.legal_actions(state)
            moves.append(int(legal[int(rng.integers(len(legal)))]))
            state = GAME.apply(state, moves[-1])
        if GAME.is_terminal(state):
            continue
        board = bitbully.Board.from_array(np.frombuffer(state.board, dtype=np.uint8).reshape(6, 7).tolist())
        theirs = {int(c): int(s) for c, s in solver.score_all_moves(board).items()}
        assert score_moves(GAME, state) == theirs, moves
        checked += 1


@pytest.mark.parametrize("bad", [0, -5, 2.5, "100"])
def test_a_node_budget_that_is_not_a_positive_int_is_refused_not_read_as_no_limit(bad):
    from agents.search.connect_four import ConnectFourSolver

    game, solver = connect_four(), ConnectFourSolver(book=False)
    message = rf"^max_nodes \(or None for no limit\) must be an integer >= 1, got {re.escape(repr(bad))}$"
    for call in (solver.solve, solver.score_moves):
        with pytest.raises(ValueError, match=message):
            call(game, game.initial_state(), max_nodes=bad)


def accepted_shapes():
    """Every board shape :func:`check_solvable` takes with four in a row: tall and narrow, wide and flat."""
    shapes = []
    for rows in range(1, 64):
        for cols in range(1, 64):
            if max(rows, cols) >= 4 and (rows + 1) * cols <= 63:
                check_solvable(ConnectN(rows, cols, 4, True))
                shapes.append((rows, cols))
    return shapes


def brute_force_scores(game, state):
    """``{column: score}`` by plain negamax over the rules, with the module's scores (no pruning, no bitboards)."""
    memo = {}

    def best(position):
        found = memo.get(game.key(position))
        if found is None:
            found = memo[game.key(position)] = max(move_scores(position).values())
        return found

    def move_scores(position):
        mover, ply = game.current_player(position), sum(1 for cell in position.board if cell)
        scores = {}
        for column in game.legal_actions(position):
            child = game.apply(position, column)
            if game.is_terminal(child):
                scores[column] = (game.num_cells + 1 - ply) // 2 if game.returns(child)[mover] > 0 else 0
            else:
                scores[column] = -best(child)
        return scores

    return move_scores(state)


def late_positions(game, empty, count, seed):
    """``count`` positions of seeded random games, not over, with ``empty`` empty cells (or as many as fit)."""
    rng = np.random.default_rng(seed)
    empty = min(empty, game.num_cells - 1)
    positions = []
    for _ in range(50 * count):
        state, moves = game.initial_state(), []
        while game.num_cells - len(moves) > empty and not game.is_terminal(state):
            legal = game.legal_actions(state)
            moves.append(int(legal[int(rng.integers(len(legal)))]))
            state = game.apply(state, moves[-1])
        if not game.is_terminal(state):
            positions.append(moves)
            if len(positions) == count:
                break
    return positions


@pytest.mark.slow
def test_every_accepted_board_shape_scores_as_brute_force_and_the_pure_python_solver_do():
    # Tall and narrow boards (from 20 rows) once made the compiled search shift int64 by 64 bits or more and find
    # wins that were not there: a drawn 20x3 position with 16 empty cells scored {0: 2, 1: 0, 2: 0}.
    shapes = accepted_shapes()
    assert {(20, 3), (30, 2), (62, 1), (1, 31), (6, 7), (8, 7), (6, 9)} <= set(shapes) and len(shapes) > 150
    positions = []
    for rows, cols in shapes:
        game = ConnectN(rows, cols, 4, True)
        # As many empty cells as brute force finishes in well under a second; more positions on the boards of 15
        # rows or more, where only vertical lines fit and the old fault lay.
        empties = (6, 10, 16) if cols <= 3 else (10,) if cols <= 5 else (7,)
        count = 3 if rows >= 15 else 2
        for empty in empties:
            found = late_positions(game, empty, count, seed=rows * 64 + cols + empty)
            positions += [(rows, cols, moves) for moves in found]
    assert sum(rows == 20 and cols == 3 for rows, cols, _ in positions) >= 9
    env = {**os.environ, "NUMBA_DISABLE_JIT": "1"}
    done = subprocess.run(
        [sys.executable, "-c", PURE_PYTHON], input=json.dumps(positions), capture_output=True, text=True, env=env
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["compiled"] is False
    pure_scores = json.loads(done.stdout)["scores"]
    wrong, solvers = [], {}
    for (rows, cols, moves), pure in zip(positions, pure_scores, strict=True):
        game = ConnectN(rows, cols, 4, True)
        state = replay(game, moves)
        if (rows, cols) not in solvers:  # one table (67 MB) at a time, not score_moves' one per shape for good
            solvers = {(rows, cols): ConnectFourSolver(rows, cols, book=False)}
        compiled, exact = solvers[rows, cols].score_moves(game, state), brute_force_scores(game, state)
        if not compiled == exact == {int(c): s for c, s in pure.items()}:
            wrong.append((rows, cols, moves, compiled, exact, pure))
    assert not wrong, f"{len(wrong)} of {len(positions)} positions differ; first: {wrong[0]}"


def test_a_drawn_20x3_position_scores_every_move_as_a_draw():
    # The compiled search once scored this {0: -3, 1: -3, 2: 0}: a shift of 66 bits, read by x86 as one of 2.
    game = ConnectN(20, 3, 4, True)
    moves = [2, 0, 2, 0, 2, 0, 0, 2, 2, 0, 1, 1, 2, 1, 0, 2, 1, 2, 2, 1, 1, 0, 0, 1, 0, 1, 0, 2, 1, 0, 1, 2, 1]
    moves += [0, 2, 1, 0, 0, 0, 1, 2, 0, 0, 1, 1, 1, 0, 2, 2, 2, 2, 1, 1, 1]
    state = replay(game, moves)
    assert brute_force_scores(game, state) == {0: 0, 1: 0, 2: 0}
    assert ConnectFourSolver(20, 3, book=False).score_moves(game, state) == {0: 0, 1: 0, 2: 0}
