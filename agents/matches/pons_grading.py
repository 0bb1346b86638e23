"""Grading any Connect Four player on Pascal Pons' benchmark sets: the share of positions where it errs.

Pons' six sets (:mod:`agents.matches.testsets`) give each position's exact score, not its moves' scores, so every
position's legal moves are scored here by this project's exact solver (:mod:`agents.search.connect_four`), once per
set, and those scores grade every player. The best of them must be the file's ``SCORE``: a disagreement means the
solver or the file is wrong, and stops the grading before any player moves (:class:`ScoreMismatchError`).

A position's *class* is the sign of its best move's score: win, draw or loss for the player to move. A player's
move is a **mistake** when its own score has a lower sign: a win thrown to a draw or a loss, a draw to a loss. A
slower win, or a quicker loss, is no mistake. This is the label sets' "outcome kept" turned round
(:mod:`agents.matches.perfect_play`). A position is *critical* when some legal move there is a mistake; on the
others no move can be one, so the critical count bounds every player's mistakes.

Each player is reset before each position (:func:`~agents.matches.perfect_play.agent_moves_at`), as on the label
sets: its tree from another position would not apply. Its moves go through the one move check, as the arena's do
(:func:`gym_boardgames.checks.check_move`): a move that is no legal column stops the grading, naming the
position, the player and the move. ``scripts/eval_perfect_play.py --testsets DIR`` is the command line.
"""

from __future__ import annotations

import functools
import time
from collections.abc import Callable, Sequence
from typing import Any, NamedTuple

from agents.matches.perfect_play import agent_moves_at, connect_four
from agents.matches.testsets import PonsPosition, PonsSet, line_number
from gym_boardgames.utils import progress_bar

#: The moves (0-based columns) of the position scored before the first set, so that loading the solver is not timed:
#: 4455, where the first player wins with its fourth stone (Pons' score 18).
WARM_UP = (3, 3, 4, 4)
#: ``progress(total, label)``: a progress bar (``update(n)``, a context manager), e.g. a partial of
#: :func:`gym_boardgames.utils.progress_bar`.
Progress = Callable[[int, str], Any]


class ScoreMismatchError(ValueError):
    """The solver's best move score of a position differs from its file's ``SCORE`` (the solver or file is wrong)."""


class PlayableSet(NamedTuple):
    """A set whose positions were replayed: Pons' name, the file, its positions and their states, in file order."""

    name: str
    path: str
    positions: list[PonsPosition]
    states: list[Any]


def _where(testset: PonsSet | PlayableSet, index: int) -> str:
    """``NAME (PATH), line N, moves 4455``: a position of a set as a user finds it in the file (1-based columns)."""
    moves = "".join(str(column + 1) for column in testset.positions[index].moves)
    return f"{testset.name} ({testset.path}), line {line_number(testset, index)}, moves {moves or '(none)'}"


def replay_testsets(sets: Sequence[PonsSet]) -> list[PlayableSet]:
    """Replay every position of ``sets`` from the empty board of Connect Four; return the sets with their states.

    Raises:
        ValueError: for the first position with an illegal move or a game already over, naming its set, file,
            line and moves.
    """
    game = connect_four()
    playable = []
    for testset in sets:
        states = []
        for index, position in enumerate(testset.positions):
            state = game.initial_state()
            for ply, column in enumerate(position.moves):
                if game.is_terminal(state) or not game.is_legal(state, column):
                    raise ValueError(f"{_where(testset, index)}: move {ply + 1} (column {column + 1}) is not legal")
                state = game.apply(state, column)
            if game.is_terminal(state):
                raise ValueError(f"{_where(testset, index)}: the game is over, there is no move to grade")
            states.append(state)
        playable.append(PlayableSet(testset.name, testset.path, list(testset.positions), states))
    return playable


def _sign(value: int) -> int:
    return (value > 0) - (value < 0)


def _bars(progress: Progress | None) -> Progress:
    return progress or (lambda total, label: progress_bar(total, label, enabled=False))


def _scorer(solver: Any) -> Callable[[Any, Any], dict[int, int]]:
    """``score_moves(game, state)`` of ``solver``, or of the process's shared solver if it is None."""
    if solver is not None:
        return solver.score_moves
    from agents.search.connect_four import score_moves  # numba and the book load with it: not at import

    return score_moves


def score_testset(testset: PlayableSet, solver: Any = None, progress: Progress | None = None) -> list[dict[int, int]]:
    """Return ``{column: exact score}`` for each position of ``testset``, checked against the file's ``SCORE``.

    Args:
        testset: a set from :func:`replay_testsets`.
        solver: an object with ``score_moves(game, state)``, e.g. a
            :class:`~agents.search.connect_four.ConnectFourSolver`; None: the process's shared solver (the one
            the agent ``perfect`` plays with, whose table the scores then warm).
        progress: a bar factory (:data:`Progress`), advanced once per position.

    Raises:
        ScoreMismatchError: at the first position whose best move score is not its ``SCORE``, naming the set, the
            file, the line, the moves and both scores.
    """
    game = connect_four()
    score = _scorer(solver)
    scored = []
    with _bars(progress)(len(testset.states), f"scoring {testset.name}") as bar:
        for index, (position, state) in enumerate(zip(testset.positions, testset.states, strict=True)):
            scores = score(game, state)
            best = max(scores.values())
            if best != position.score:
                raise ScoreMismatchError(
                    f"{_where(testset, index)}: the file's SCORE is {position.score}, our solver's best move scores "
                    f"{best} (the solver or the file is wrong)"
                )
            scored.append(scores)
            bar.update(1)
    return scored


def mistakes(scores: Sequence[dict[int, int]], moves: Sequence[int]) -> list[bool]:
    """Whether each move (a column) is a mistake in its position: its score's sign is below the best score's.

    Args:
        scores: each position's ``{column: score}`` over its legal columns (:func:`score_testset`).
        moves: one legal column per position (a key of its scores; :func:`grade_on_testsets` checks them).
    """
    return [_sign(position[move]) < _sign(max(position.values())) for position, move in zip(scores, moves, strict=True)]


def critical(scores: dict[int, int]) -> bool:
    """Whether some legal move of a position (its ``{column: score}``) is a mistake."""
    best = _sign(max(scores.values()))
    return any(_sign(score) < best for score in scores.values())


def _counts(count: int, positions: int) -> dict[str, Any]:
    return {"mistakes": count, "positions": positions, "mistake_rate": round(count / positions, 6)}


def grade_on_testsets(
    players: dict[str, Any], sets: Sequence[PlayableSet], solver: Any = None, progress: Progress | None = None
) -> dict[str, Any]:
    """Grade every player on every set: the solver scores each set's moves once, then each player moves in it.

    All the sets are scored (and checked against their files) before the first player moves.

    Args:
        players: ``{name: agent}``, each an agent with ``act`` or a ``policy(game, state)`` (reset before each
            position when it has ``reset``), best an :class:`~gym_boardgames.opponents.Opponent`
            (:func:`~gym_boardgames.opponents.make_opponent`), whose guard makes a user's agent that raises one
            :class:`~gym_boardgames.errors.AgentError` line.
        sets: the sets, from :func:`replay_testsets`.
        solver: as :func:`score_testset`'s.
        progress: a bar factory (:data:`Progress`): one bar per set while it is scored, one per player.

    Returns:
        A dict: ``"sets"`` maps each set to its ``"file"``, ``"positions"``, ``"critical"``,
        ``"solver_seconds"`` and ``"players"`` (each player's counts there); ``"players"`` maps each player to
        its counts over all the sets and its ``"seconds"``; ``"positions"``, ``"critical"`` and
        ``"solver_seconds"`` are the totals over the sets. A player's counts are ``"mistakes"``,
        ``"positions"`` and ``"mistake_rate"`` (a share in ``[0, 1]``).

    Raises:
        ScoreMismatchError: as :func:`score_testset`.
        ValueError: if a player's move is no legal column (a full one, one off the board, or no integer: ``0.7``,
            ``True``, ``'0'``, ``None``, an array), or a user's player fails (an ``AgentError``), naming the
            position, the player and the move.
    """
    game = connect_four()
    if sets:  # load the compiled search (about a second) outside the first set's time, on a 3-node position
        _scorer(solver)(game, functools.reduce(game.apply, WARM_UP, game.initial_state()))
    scored, seconds = {}, {}
    for testset in sets:
        start = time.perf_counter()
        scored[testset.name] = score_testset(testset, solver, progress)
        seconds[testset.name] = time.perf_counter() - start
    report: dict[str, Any] = {
        "sets": {
            testset.name: {
                "file": testset.path,
                "positions": len(testset.states),
                "critical": sum(map(critical, scored[testset.name])),
                "solver_seconds": round(seconds[testset.name], 3),
                "players": {},
            }
            for testset in sets
        },
        "players": {},
    }
    total = sum(len(testset.states) for testset in sets)
    for name, agent in players.items():
        start, count = time.perf_counter(), 0
        with _bars(progress)(total, name) as bar:
            for testset in sets:
                # Each move is checked as it comes (the one move check), its refusal led by the position.
                moves = agent_moves_at(agent, testset.states, bar.update, name, functools.partial(_where, testset))
                found = sum(mistakes(scored[testset.name], moves))
                report["sets"][testset.name]["players"][name] = _counts(found, len(moves))
                count += found
        report["players"][name] = {**_counts(count, total), "seconds": round(time.perf_counter() - start, 1)}
    report["positions"] = total
    report["critical"] = sum(entry["critical"] for entry in report["sets"].values())
    report["solver_seconds"] = round(sum(seconds.values()), 3)
    return report


def _cell(counts: dict[str, Any]) -> str:
    """``12.5% (1/8)``: a player's mistakes as a percentage and as a count of the positions."""
    return f"{100 * counts['mistake_rate']:.1f}% ({counts['mistakes']:,}/{counts['positions']:,})"


def format_testset_report(report: dict[str, Any]) -> str:
    """Return :func:`grade_on_testsets`' report as a Markdown table, then a line per player over all the sets.

    The table has a row per set (its positions, its critical positions, the solver's seconds scoring it) and a
    column per player: its mistakes as a percentage and as ``count/positions``.
    """
    players = list(report["players"])
    header = ["set", "positions", "critical", "solver s", *(f"`{name}` mistakes" for name in players)]
    lines = ["| " + " | ".join(header) + " |", "|---|" + "---:|" * (len(header) - 1)]
    for name, entry in report["sets"].items():
        cells = [name, f"{entry['positions']:,}", f"{entry['critical']:,}", f"{entry['solver_seconds']:.1f}"]
        lines.append("| " + " | ".join(cells + [_cell(entry["players"][p]) for p in players]) + " |")
    lines.append("")
    sets = "the set" if len(report["sets"]) == 1 else f"the {len(report['sets'])} sets"
    for name, counts in report["players"].items():
        lines.append(
            f"`{name}` over {sets}: {_cell(counts)} mistakes ({report['critical']:,} positions critical), "
            f"{counts['seconds']:.1f} s"
        )
    return "\n".join(lines)
