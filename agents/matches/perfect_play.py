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

import functools
import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from importlib import resources
from typing import Any

import numpy as np

from agents.persistence import ArraySpec, SavedFileError, load_npz, save_npz
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
    """Return the index in :data:`STAGES` of a position with ``ply`` pieces on the board."""
    for index, (_, first, last) in enumerate(STAGES):
        if first <= ply <= last:
            return index
    raise ValueError(f"ply must be 0..{MAX_PLIES - 1}, got {ply}")


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
        ValueError: on another name.
    """
    if name not in SHIPPED:
        raise ValueError(f"no shipped label set {name!r}: choose one of {', '.join(SHIPPED)}")
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
        if not isinstance(sources, list) or not sources or not all(isinstance(s, str) for s in sources):
            raise ValueError("the metadata must hold 'sources', a non-empty list of names")
        if len(sources) > 255:
            raise ValueError(f"at most 255 sources, got {len(sources)}")
        return {
            "moves": ArraySpec((None, MAX_PLIES), np.uint8),
            "scores": ArraySpec((None, COLS), np.int8),
            "source": ArraySpec((None,), np.uint8),
        }

    loaded = load_npz(path, format=FORMAT, versions={VERSION}, schema=schema, allow_extra=False)
    moves, scores, source = (loaded.arrays[k] for k in ("moves", "scores", "source"))
    meta = dict(loaded.meta)
    sources = tuple(meta.pop("sources"))
    if not len(moves) == len(scores) == len(source):
        raise SavedFileError(
            path, f"moves, scores and source differ in length ({len(moves)}, {len(scores)}, {len(source)})"
        )
    if not 0 < len(moves) <= MAX_POSITIONS:
        raise SavedFileError(path, f"a label set holds 1..{MAX_POSITIONS} positions, got {len(moves)}")
    if np.any(source >= len(sources)):
        raise SavedFileError(path, f"a source index is out of range (there are {len(sources)} sources)")
    labels = LabelSet(moves, scores, source, sources, meta)
    game = connect_four()
    for i, row in enumerate(moves):
        # Replay the position's moves, refusing padding inside a move list or an illegal or finishing move.
        n = int((row != PAD).sum())
        if np.any(row[n:] != PAD):  # n stones, so a stone past n means padding before it
            raise SavedFileError(path, f"position {i}: padding inside its move list")
        state = game.initial_state()
        for column in row[:n].tolist():
            if game.is_terminal(state) or not game.is_legal(state, column):
                raise SavedFileError(path, f"position {i}: move {column} is not legal after {row[:n].tolist()}")
            state = game.apply(state, column)
        if game.is_terminal(state):
            raise SavedFileError(path, f"position {i}: the game is over after {row[:n].tolist()}")
        legal = game.legal_mask(state).astype(bool)
        if not np.array_equal(legal, scores[i] != NO_MOVE):
            scored, playable = np.flatnonzero(scores[i] != NO_MOVE).tolist(), np.flatnonzero(legal).tolist()
            raise SavedFileError(path, f"position {i} scores columns {scored}, but {playable} are legal")
        _check_scores_against_the_rules(path, i, game, state, n, scores[i])
    return labels


def _check_scores_against_the_rules(path: Any, i: int, game: Any, state: Any, ply: int, scores: np.ndarray) -> None:
    """Refuse scores the position makes impossible (Pons' scale: a win is 22 less the winner's stones).

    At ply ``ply`` the mover has placed ``ply // 2`` stones and the other player ``ceil(ply / 2)``, so the best
    score is ``21 - ply // 2`` (winning with this very move), which a move that wins at once must have, and the
    worst is ``-(21 - ceil(ply / 2))`` (losing to the very next move).
    """
    best, worst = 21 - ply // 2, -(21 - (ply + 1) // 2)
    mover = game.current_player(state)
    for column in np.flatnonzero(scores != NO_MOVE).tolist():
        score = int(scores[column])
        if not worst <= score <= best:
            raise SavedFileError(
                path, f"position {i}: column {column} scores {score}, impossible at ply {ply} ({worst}..{best})"
            )
        child = game.apply(state, column)
        if game.is_terminal(child) and game.returns(child)[mover] > 0 and score != best:
            raise SavedFileError(path, f"position {i}: column {column} wins at once, so it scores {best}, not {score}")


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
    if given.dtype == np.bool_ or not np.issubdtype(given.dtype, np.integer):
        # np.asarray(..., int64) would truncate 2.7 to 2 and read True as 1, or fail later on strings.
        raise ValueError(f"actions must be integers (columns 0..{COLS - 1}), got dtype {given.dtype}")
    actions = given.astype(np.int64)
    if actions.shape != (len(labels),):
        raise ValueError(f"need one action per position ({len(labels)}), got shape {actions.shape}")
    if np.any((actions < 0) | (actions >= COLS)):
        raise ValueError(f"actions must be columns 0..{COLS - 1}")
    chosen = labels.scores[np.arange(len(labels)), actions].astype(np.int64)
    if np.any(chosen == NO_MOVE):
        bad = int(np.flatnonzero(chosen == NO_MOVE)[0])
        raise ValueError(f"action {int(actions[bad])} is not legal in position {bad} ({labels.move_lists()[bad]})")
    best = labels.best_scores()
    kept = np.sign(chosen) == np.sign(best)
    top = chosen == best
    critical = labels.critical()
    stages = labels.stages()
    report = _rates(kept, top)
    report["critical"] = _rates(kept[critical], top[critical])
    report["stages"] = {name: _rates(kept[stages == i], top[stages == i]) for i, (name, _, _) in enumerate(STAGES)}
    return report


def agent_moves(
    agent: Any, labels: LabelSet, progress: Callable[[int], Any] | None = None, states: list[Any] | None = None
) -> list[int]:
    """Ask ``agent`` (an agent with ``act`` or a ``policy(game, state)``) for its move in every position.

    The agent is reset before each position (its tree from another position would not apply).
    """
    game = connect_four()
    policy = as_policy(agent)
    reset = reset_hook(agent)
    moves = []
    for state in labels.states() if states is None else states:
        if reset is not None:
            reset()
        moves.append(int(policy(game, state)))
        if progress is not None:
            progress(1)
    return moves


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
