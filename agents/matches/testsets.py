"""Pascal Pons' public Connect Four benchmark sets: reading them, and the figures Pons published for them.

Pons publishes six sets of 1,000 positions on his blog (http://blog.gamesolver.org/solving-connect-four/02-test-protocol/,
the files at ``http://blog.gamesolver.org/data/<file>``). A line is ``MOVES SCORE``: the columns played as 1-based
digits, then the exact score of the position for the player to move, in the convention of
:mod:`agents.search.connect_four` (a win scores 22 minus the winner's stones at the end, a loss the negative).

The sets are fetched data, not the project's: :func:`find_testsets` reads them from a folder the user names.
The scripts that use them: ``scripts/bench.py --solver --testsets DIR`` (the solver's speed beside BitBully's)
and ``scripts/eval_perfect_play.py --testsets DIR`` (any player's mistakes per set).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import NamedTuple

from agents.matches.perfect_play import score_range
from gym_boardgames.checks import read_regular_file
from gym_boardgames.errors import BadFileError

#: The six files, in Pons' order of difficulty within each stage, and their names on his blog.
TESTSETS = (
    ("Test_L3_R1", "End-Easy"),
    ("Test_L2_R1", "Middle-Easy"),
    ("Test_L2_R2", "Middle-Medium"),
    ("Test_L1_R1", "Begin-Easy"),
    ("Test_L1_R2", "Begin-Medium"),
    ("Test_L1_R3", "Begin-Hard"),
)
#: Pons' published mean explored positions of his final ("strong") solver per set, each position solved from an
#: empty table and without an opening book (part 12 of his tutorial, "Lower bound transposition table").
PONS_MEAN_NODES = {
    "End-Easy": 51.28,
    "Middle-Easy": 449.6,
    "Middle-Medium": 39_900.0,
    "Begin-Easy": 3_298.0,
    "Begin-Medium": 1_201_000.0,
    "Begin-Hard": 65_920_000.0,
}
#: The columns of the board the sets are for (6 rows x 7 columns), and its cells.
COLS, CELLS = 7, 42
#: The largest set file read: about 7 times Pons' largest (Test_L3_R1, 37,836 bytes for its 1,000 lines).
MAX_FILE_BYTES = 256 * 1024
#: The longest line (blanks around it aside): 41 moves, a space and a score take 44 characters.
MAX_LINE_CHARS = 64


class PonsPosition(NamedTuple):
    """One line of a set: the moves (0-based columns) and the exact score for the player to move."""

    moves: tuple[int, ...]
    score: int


class PonsSet(NamedTuple):
    """A set read from its file: Pons' name, the file and its positions in file order."""

    name: str
    path: str
    positions: list[PonsPosition]


def _parse_line(path: str, number: int, line: str) -> PonsPosition:
    """One line of ``path`` (its ``number``, 1-based; the line without its line break) as a position."""
    where = f"{path}, line {number}"
    if len(line.strip()) > MAX_LINE_CHARS:  # also bounds what the messages below show of it
        raise ValueError(
            f"{where}: {len(line.strip()):,} characters, more than a line 'MOVES SCORE' holds ({MAX_LINE_CHARS})"
        )
    fields = line.split()
    if len(fields) != 2:
        raise ValueError(f"{where}: expected 'MOVES SCORE' (two fields), got {line.strip()!r}")
    moves, score = fields
    if not moves.isdigit() or any(digit not in "1234567" for digit in moves):
        raise ValueError(f"{where}: MOVES must be the columns played as digits 1-{COLS}, got {moves!r}")
    if len(moves) >= CELLS:
        raise ValueError(f"{where}: MOVES holds {len(moves)} moves, more than the {CELLS - 1} a position to play has")
    try:
        value = int(score)
    except ValueError:
        raise ValueError(f"{where}: SCORE must be an integer, got {score!r}") from None
    low, high = score_range(len(moves))
    if not low <= value <= high:
        raise ValueError(f"{where}: SCORE {value} is impossible at ply {len(moves)} (scores are {low}..{high})")
    return PonsPosition(tuple(int(digit) - 1 for digit in moves), value)


def _lines(path: str) -> list[tuple[int, str]]:
    """The lines of the set file ``path`` that are not blank, each with its number (1-based), line breaks removed.

    The file is read by :func:`~gym_boardgames.checks.read_regular_file` (a FIFO or a device is refused before
    any read, and at most :data:`MAX_FILE_BYTES` bytes are read). Lines end with LF or CR LF.

    Raises:
        ValueError: naming the file (and the line): not a regular file, too large, empty, not ASCII, or its
            last line cut short (no line break after it).
        FileNotFoundError: if there is no file.
    """
    data = read_regular_file(path, MAX_FILE_BYTES, what="a Pons set file")
    if not data:
        raise BadFileError(path, "is empty (expected 'MOVES SCORE' lines)")
    try:
        text = data.decode("ascii")
    except UnicodeDecodeError as error:
        line = data.count(b"\n", 0, error.start) + 1
        byte = data[error.start]
        raise ValueError(f"{path}, line {line}: byte 0x{byte:02x} is not ASCII (a set is ASCII text)") from None
    lines = text.split("\n")
    if lines[-1].strip():  # Pons' files end every line with a line break: this one was cut short
        raise ValueError(f"{path}, line {len(lines)}: the file ends inside this line (no line break): it was cut short")
    return [(number, line.removesuffix("\r")) for number, line in enumerate(lines[:-1], start=1) if line.strip()]


def read_testset(path: str | os.PathLike[str], name: str | None = None) -> PonsSet:
    """Read one set file (``MOVES SCORE`` lines; blank lines skipped).

    Raises:
        ValueError: naming the file, and the line where one is to blame: not a regular file (a folder, a FIFO), more
            than :data:`MAX_FILE_BYTES` bytes, empty or without positions, not ASCII, its last line cut short, or a
            malformed line (not two fields, MOVES not digits 1-7 or a full board, SCORE not an integer or not a
            score the position can have, :func:`~agents.matches.perfect_play.score_range`).
        FileNotFoundError: if there is no file.
    """
    path = os.fspath(path)
    positions = [_parse_line(path, number, line) for number, line in _lines(path)]
    if not positions:
        raise BadFileError(path, "no positions (expected 'MOVES SCORE' lines)")
    return PonsSet(name or Path(path).name, path, positions)


def find_testsets(directory: str | os.PathLike[str], names: list[str] | None = None) -> list[PonsSet]:
    """Read the sets found in ``directory``, in :data:`TESTSETS` order (all six, or those of ``names``).

    ``names`` are Pons' names or the file names. Without ``names`` the sets whose files are there are read; a
    named set must be there.

    Raises:
        ValueError: saying what was expected: the folder is missing or holds none of the files; a name is no set
            (listing the sets); a named set's file is missing (naming it); a line is malformed
            (:func:`read_testset`).
        OSError: a file cannot be read.
    """
    folder = Path(directory)
    if not folder.is_dir():
        raise ValueError(f"--testsets {os.fspath(directory)!r} is not a folder (expected one holding Pons' sets)")
    wanted = list(TESTSETS)
    if names is not None:
        known = {alias: (file, pons) for file, pons in TESTSETS for alias in (file, pons)}
        unknown = [name for name in names if name not in known]
        if unknown:
            choices = ", ".join(pons for _, pons in TESTSETS)
            raise ValueError(f"unknown test set(s) {', '.join(unknown)}: the sets are {choices} (or their file names)")
        picked = {known[name] for name in names}
        wanted = [entry for entry in TESTSETS if entry in picked]
    # Any entry of the name, so that a folder or a FIFO there is refused by the reader rather than passed over.
    present = [(file, pons) for file, pons in wanted if (folder / file).exists()]
    if not present:
        files = ", ".join(file for file, _ in wanted)
        raise ValueError(f"{os.fspath(directory)!r} holds none of Pons' set files ({files})")
    if names is not None and len(present) < len(wanted):
        missing = ", ".join(f"{file} ({pons})" for file, pons in wanted if (file, pons) not in present)
        raise ValueError(f"{os.fspath(directory)!r} lacks the file of a set named: {missing}")
    return [read_testset(folder / file, pons) for file, pons in present]


def line_number(testset: PonsSet, index: int) -> int:
    """Return the line of ``testset``'s file (1-based) holding its position ``index`` (0-based; blank lines skipped).

    Raises:
        IndexError: if the set has no position ``index``.
    """
    if not 0 <= index < len(testset.positions):
        raise IndexError(f"{testset.name} has {len(testset.positions)} positions, no position {index}")
    return _lines(testset.path)[index][0]
