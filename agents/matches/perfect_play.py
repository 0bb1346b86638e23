"""Grading a Connect Four player against perfect play, on positions whose every move an exact solver scored.

Connect Four 6x7 is too big to solve whole, so the truth comes from a *label set*: a few thousand positions,
each stored as the columns played from the empty board, with the exact score of every legal move.
``scripts/label_connectfour.py`` builds such sets with this project's exact solver
(:mod:`agents.search.connect_four`, fast with the ``solver`` extra; ``--crosscheck`` compares every position
with BitBully's). The shipped sets (:func:`shipped_labels_path`) were scored by BitBully, and our solver gives
every one of their scores again (``tests/agents/test_connect_four_solver.py``); they let anyone grade a
player with numpy alone.

Scores are Pascal Pons' (as both solvers report them), from the side to move: positive is a win, larger the
sooner; 0 a draw; negative a loss, more negative the sooner. A full column has no score (:data:`NO_MOVE`).

For a chosen move, three questions:

* **outcome kept**: the move keeps the position's result (win, draw or loss: the sign of the best score);
* **best score**: the move has the best score there is (the fastest win, or the slowest loss);
* **critical** positions are those where some legal move changes the result; a player that only has to
  avoid obvious blunders scores high on the rest, so the critical share is the harder number.

Each is reported over all positions, per stage of the game (:data:`STAGES`, by the number of pieces on the
board) and over the critical positions.
"""

from __future__ import annotations

import bisect
import functools
import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from importlib import resources
from typing import Any

import numpy as np

from agents.matches.arena import agent_name
from agents.persistence import ArraySpec, SavedFileError, load_npz, save_npz
from gym_boardgames.checks import check_choice, check_move
from gym_boardgames.errors import AgentError
from gym_boardgames.opponents import as_policy, reset_hook
from gym_boardgames.rules.registry import connect_four  # the game the labels are about

FORMAT = "gym_boardgames.connectfour_labels"
VERSION = 1
ROWS, COLS = 6, 7
MAX_PLIES = ROWS * COLS
#: Score of a full column (no move there).
NO_MOVE = -128
#: Padding after the last move of a position's move list.
PAD = 255
#: Stages of the game by plies played: (name, first ply, last ply).
STAGES: tuple[tuple[str, int, int], ...] = (("0-7", 0, 7), ("8-15", 8, 15), ("16-23", 16, 23), ("24+", 24, 41))
#: Most positions a label file may hold (the shipped ones hold a few thousand).
MAX_POSITIONS = 200_000
#: The shipped label sets: the graded set, and a held-out set built the same way from other games.
SHIPPED = {"labels": "connectfour_labels.npz", "heldout": "connectfour_heldout.npz", "random": "connectfour_random.npz"}


def stage_index(ply: int) -> int:
    """Return the index in :data:`STAGES` of a position with ``ply`` (0..41) pieces on the board."""
    return bisect.bisect_right([first for _, first, _ in STAGES], ply) - 1


@dataclass(frozen=True)
class LabelSet:
    """Positions of Connect Four with the exact score of every legal move.

    Attributes:
        moves: ``(N, 42)`` uint8, the columns played from the empty board, padded with :data:`PAD`.
        scores: ``(N, 7)`` int8, each column's score for the player to move (:data:`NO_MOVE` if full).
        source: ``(N,)`` uint8, index into ``sources`` of the kind of game the position was taken from.
        sources: names of those kinds of game (e.g. ``"random vs mcts:100"``).
        meta: free JSON metadata (how the set was built).
    """

    moves: np.ndarray
    scores: np.ndarray
    source: np.ndarray
    sources: tuple[str, ...]
    meta: dict[str, Any] = field(default_factory=dict)

    def __len__(self) -> int:
        return len(self.scores)

    @property
    def plies(self) -> np.ndarray:
        """``(N,)`` int: pieces on the board of each position."""
        return (self.moves != PAD).sum(axis=1)

    def move_lists(self) -> list[list[int]]:
        """Return each position's columns played, without padding."""
        return [row[row != PAD].tolist() for row in self.moves]

    def states(self) -> list[Any]:
        """Return each position as a state of :func:`connect_four` (replayed from its moves)."""
        game = connect_four()
        return [functools.reduce(game.apply, moves, game.initial_state()) for moves in self.move_lists()]

    def stages(self) -> np.ndarray:
        """``(N,)`` int: each position's index in :data:`STAGES`."""
        return np.array([stage_index(int(p)) for p in self.plies], dtype=np.int64)

    def best_scores(self) -> np.ndarray:
        """``(N,)`` int: the best score of each position (its value under perfect play)."""
        return np.where(self.scores == NO_MOVE, -127, self.scores.astype(np.int64)).max(axis=1)

    def critical(self) -> np.ndarray:
        """``(N,)`` bool: positions where some legal move changes the result (win, draw or loss)."""
        signs = np.sign(self.scores.astype(np.int64))
        return np.any((self.scores != NO_MOVE) & (signs != np.sign(self.best_scores())[:, None]), axis=1)

    def subset(self, index: np.ndarray) -> LabelSet:
        """Return the positions at ``index`` (an int or bool array) as a new label set."""
        return LabelSet(self.moves[index], self.scores[index], self.source[index], self.sources, dict(self.meta))


def shipped_labels_path(name: str = "labels") -> str:
    """Return the path of a shipped label set: ``"labels"`` (graded) or ``"heldout"``.

    Raises:
        ValueError: on another name, naming the shipped sets.
    """
    check_choice("shipped label set", name, tuple(SHIPPED))
    return str(resources.files("agents").joinpath("data", SHIPPED[name]))


def save_labels(path: str | os.PathLike[str], labels: LabelSet, *, replace: bool = True) -> str:
    """Write ``labels`` to ``path`` (``.npz``, atomically; ``replace`` as ``save_npz``'s); return the path."""
    arrays = {"moves": labels.moves, "scores": labels.scores, "source": labels.source}
    meta = {"sources": list(labels.sources), **labels.meta}
    return save_npz(path, arrays, format=FORMAT, version=VERSION, meta=meta, replace=replace)


def load_labels(path: str | os.PathLike[str] | None = None) -> LabelSet:
    """Load a label set (default: the shipped graded set), checking every position against the rules.

    Every move list must be legal from the empty board and end in a position that is not over, and the
    columns with a score must be exactly the legal ones.

    Raises:
        SavedFileError: naming the file and what is wrong.
        FileNotFoundError: if it does not exist.
    """
    path = shipped_labels_path() if path is None else path

    def schema(version: int, meta: dict[str, Any]) -> dict[str, ArraySpec]:
        sources = meta.get("sources") if isinstance(meta, dict) else None
        if not isinstance(sources, list) or not 0 < len(sources) <= 255 or not all(isinstance(s, str) for s in sources):
            raise ValueError("the metadata must hold 'sources', a list of 1..255 names")
        return {
            "moves": ArraySpec((None, MAX_PLIES), np.uint8),
            "scores": ArraySpec((None, COLS), np.int8),
            "source": ArraySpec((None,), np.uint8),
        }

    loaded = load_npz(path, format=FORMAT, versions={VERSION}, schema=schema, allow_extra=False)
    meta = dict(loaded.meta)
    labels = LabelSet(*(loaded.arrays[k] for k in ("moves", "scores", "source")), tuple(meta.pop("sources")), meta)
    if problem := _labels_problem(labels):
        raise SavedFileError(path, problem)
    return labels


def _labels_problem(labels: LabelSet) -> str | None:
    """What makes a loaded label set unusable (a phrase naming the position), or None."""
    moves, scores, source = labels.moves, labels.scores, labels.source
    if not len(moves) == len(scores) == len(source):
        return f"moves, scores and source differ in length ({len(moves)}, {len(scores)}, {len(source)})"
    if not 0 < len(moves) <= MAX_POSITIONS:
        return f"a label set holds 1..{MAX_POSITIONS} positions, got {len(moves)}"
    if np.any(source >= len(labels.sources)):
        return f"a source index is out of range (there are {len(labels.sources)} sources)"
    game = connect_four()
    for i, row in enumerate(moves):
        if problem := _position_problem(game, row, scores[i]):
            return f"position {i}: {problem}"
    return None


def _position_problem(game: Any, row: np.ndarray, scores: np.ndarray) -> str | None:
    """What is wrong with one position's move list and scores against the rules, or None.

    The move list must be legal from the empty board and end in a position that is not over, and the
    columns with a score must be exactly the legal ones. Pons' scale then bounds the scores
    (:func:`score_range`), and a move that wins at once must have the best score there is.
    """
    n = int((row != PAD).sum())
    if np.any(row[n:] != PAD):  # n stones, so a stone past n means padding before it
        return "padding inside its move list"
    state = game.initial_state()
    for column in row[:n].tolist():
        if game.is_terminal(state) or not game.is_legal(state, column):
            return f"move {column} is not legal after {row[:n].tolist()}"
        state = game.apply(state, column)
    if game.is_terminal(state):
        return f"the game is over after {row[:n].tolist()}"
    legal = game.legal_mask(state).astype(bool)
    if not np.array_equal(legal, scored := scores != NO_MOVE):
        return f"scores columns {np.flatnonzero(scored).tolist()}, but {np.flatnonzero(legal).tolist()} are legal"
    worst, best = score_range(n)
    mover = game.current_player(state)
    for column in np.flatnonzero(legal).tolist():
        score = int(scores[column])
        if not worst <= score <= best:
            return f"column {column} scores {score}, impossible at ply {n} ({worst}..{best})"
        child = game.apply(state, column)
        if game.is_terminal(child) and game.returns(child)[mover] > 0 and score != best:
            return f"column {column} wins at once, so it scores {best}, not {score}"
    return None


def score_range(plies: int) -> tuple[int, int]:
    """Return the lowest and highest score a position with ``plies`` stones on the board can have (Pons' scale).

    A win scores 22 less the winner's stones at the end: at ply ``n`` the mover has placed ``n // 2`` stones and
    the other player ``ceil(n / 2)``, so the best score is ``21 - n // 2`` (winning with this very move) and the
    worst ``-(21 - ceil(n / 2))`` (losing to the very next move).
    """
    return -(21 - (plies + 1) // 2), 21 - plies // 2


def _rates(kept: np.ndarray, best: np.ndarray) -> dict[str, Any]:
    count = int(len(kept))
    return {
        "positions": count,
        "outcome_kept": float(kept.mean()) if count else None,
        "best_score": float(best.mean()) if count else None,
    }


def grade(labels: LabelSet, actions: Sequence[int]) -> dict[str, Any]:
    """Grade one chosen column per position of ``labels``.

    Returns:
        ``{"positions", "outcome_kept", "best_score", "critical": {...}, "stages": {name: {...}}}``, each
        inner dict with the same three keys; rates are shares in ``[0, 1]``.

    Raises:
        ValueError: if the number of actions differs from the positions, or an action is not a legal column.
    """
    given = np.asarray(actions)
    if problem := _actions_problem(labels, given):
        raise ValueError(problem)
    chosen = labels.scores[np.arange(len(labels)), given].astype(np.int64)
    best = labels.best_scores()
    kept = np.sign(chosen) == np.sign(best)
    top = chosen == best
    critical = labels.critical()
    stages = labels.stages()
    report = _rates(kept, top)
    report["critical"] = _rates(kept[critical], top[critical])
    report["stages"] = {name: _rates(kept[stages == i], top[stages == i]) for i, (name, _, _) in enumerate(STAGES)}
    return report


def _actions_problem(labels: LabelSet, given: np.ndarray) -> str | None:
    """What makes ``given`` not one legal column per position of ``labels`` (a phrase), or None."""
    if given.dtype == np.bool_ or not np.issubdtype(given.dtype, np.integer):
        # Casting would truncate 2.7 to 2 and read True as 1, or fail later on strings.
        return f"actions must be integers (columns 0..{COLS - 1}), got dtype {given.dtype}"
    if given.shape != (len(labels),):
        return f"need one action per position ({len(labels)}), got shape {given.shape}"
    column = (given >= 0) & (given < COLS)
    illegal = np.flatnonzero(~column | (labels.scores[np.arange(len(labels)), given % COLS] == NO_MOVE))
    if not illegal.size:
        return None
    bad, legal = int(illegal[0]), np.flatnonzero(labels.scores[illegal[0]] != NO_MOVE).tolist()
    return f"action {given[bad]} is not legal in position {bad} (after {labels.move_lists()[bad]}: columns {legal} are)"


def agent_moves(
    agent: Any,
    labels: LabelSet,
    progress: Callable[[int], Any] | None = None,
    states: list[Any] | None = None,
    name: str | None = None,
) -> list[int]:
    """Ask ``agent`` (an agent with ``act`` or a ``policy(game, state)``) for its move in every position.

    The agent is reset before each position (its tree from another position would not apply), and each move is
    checked (:func:`agent_moves_at`); a refusal starts with the position, by its columns played (0-based), which
    name it in a sample too: ``position after columns [3, 3, 4]: agent random played 9, ...``.
    """
    played = labels.move_lists()
    states = labels.states() if states is None else states
    return agent_moves_at(agent, states, progress, name, lambda index: f"position after columns {played[index]}")


def agent_moves_at(
    agent: Any,
    states: Sequence[Any],
    progress: Callable[[int], Any] | None = None,
    name: str | None = None,
    where: Callable[[int], str] | None = None,
) -> list[int]:
    """Ask ``agent`` for its move in each of ``states`` (positions of :func:`connect_four`), in order.

    As :func:`agent_moves`: the agent is reset before each position, and ``progress(1)`` is called after each.
    Each move goes through the one move check (:func:`gym_boardgames.checks.check_move`), so a move that is no
    legal column (``0.7``, ``True``, ``'0'``, ``None``, an array, a full column) is refused, never graded.

    Args:
        agent: the player: an agent with ``act`` or a ``policy(game, state)``, best an
            :class:`~gym_boardgames.opponents.Opponent` (:func:`~gym_boardgames.opponents.make_opponent`), whose
            guard makes a user's agent that raises one :class:`~gym_boardgames.errors.AgentError` line.
        states: the positions.
        progress: called with 1 after each position.
        name: the agent's name in the messages (default :func:`~agents.matches.arena.agent_name`).
        where: ``where(index)`` names position ``index`` at the start of a refusal.

    Raises:
        ValueError: naming the position (with ``where``), the agent and the move: a move the check refuses
            (``ActionTypeError`` for one that is no integer), or the ``AgentError`` of a user's agent.
    """
    game = connect_four()
    policy = as_policy(agent)
    reset = reset_hook(agent)
    name = agent_name(agent) if name is None else name
    moves = []
    for index, state in enumerate(states):
        if reset is not None:
            reset()
        try:
            move = policy(game, state)
        except AgentError as error:  # a user's agent raised (its Opponent's guard): one line, with the position
            raise _at(where, index, error) from None
        try:
            moves.append(check_move(game, state, move, name))
        except ValueError as error:
            raise _at(where, index, error) from None
        if progress is not None:
            progress(1)
    return moves


def _at(where: Callable[[int], str] | None, index: int, error: ValueError) -> ValueError:
    """``error`` again, of its type, its message led by ``where(index)`` if there is a ``where``."""
    return error if where is None else type(error)(f"{where(index)}: {error}")


def format_report(reports: dict[str, dict[str, Any]]) -> str:
    """Return a Markdown table: one row per player, outcome kept overall, on critical positions, per stage."""
    stage_names = [name for name, _, _ in STAGES]
    header = ["player", "outcome kept", "critical", *(f"plies {s}" for s in stage_names), "best score"]
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]

    def pct(value: float | None) -> str:
        return "n/a" if value is None else f"{100 * value:.1f}%"

    for name, report in reports.items():
        kept = [report, report["critical"], *(report["stages"][s] for s in stage_names)]
        cells = [f"`{name}`", *(pct(rates["outcome_kept"]) for rates in kept), pct(report["best_score"])]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)
