"""scripts/eval_perfect_play.py --testsets DIR: players graded on Pons' sets, here small ones written in tmp_path.

Pons' own files are fetched data, not the project's. The positions and what the solver says of them are those of
tests/agents/matches/test_pons_grading.py: a player that always plays column 1 errs in exactly 4,455, 112,233,
11,223 and 444,444 of them.
"""

import importlib.util
import json
import os
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))  # importlib import mode: put the sibling helper on the path
from script_helpers import load_script, run_script  # noqa: E402

HAS_SOLVER = all(importlib.util.find_spec(name) for name in ("numba", "bitbully_databases"))
needs_solver = pytest.mark.skipif(not HAS_SOLVER, reason="the solver extra (numba, bitbully-databases)")

#: End-Easy (Test_L3_R1) and Middle-Easy (Test_L2_R1), three positions each; Begin-Easy (Test_L1_R1) is there too
#: and left out by --testset-names.
FILES = {
    "Test_L3_R1": ["4455 18", "112233 18", "44455554221 -15"],
    "Test_L2_R1": ["11223 2", "3333336 0", "444444 1"],
    "Test_L1_R1": ["4455 18"],
}
#: A user's agent, given as file.py:Class: it always plays column 1.
COLUMN_ONE = "class ColumnOne:\n    def act(self, game, state):\n        return 0\n"


def write_sets(folder, files=FILES):
    folder.mkdir()
    for name, lines in files.items():
        (folder / name).write_text("\n".join(lines) + "\n")
    return folder


@pytest.fixture
def script():
    return load_script("eval_perfect_play")


@needs_solver
@pytest.mark.slow  # a subprocess
def test_players_are_graded_per_set_as_a_table_and_json(tmp_path):
    folder = write_sets(tmp_path / "sets")
    (tmp_path / "column.py").write_text(COLUMN_ONE)
    out = tmp_path / "grades.json"
    flags = ["--testsets", folder, "--testset-names", "Middle-Easy", "End-Easy", "--quiet", "--json", "--out", out]
    done = run_script("eval_perfect_play", "perfect", "random", "column.py:ColumnOne", *flags, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    summary = json.loads(lines[-1])
    assert json.loads(out.read_text()) == summary
    assert list(summary["sets"]) == ["End-Easy", "Middle-Easy"]  # Pons' order; Begin-Easy not named
    assert summary["sets"]["End-Easy"]["file"] == str(folder / "Test_L3_R1")
    assert [(entry["positions"], entry["critical"]) for entry in summary["sets"].values()] == [(3, 2), (3, 3)]
    assert (summary["positions"], summary["critical"], summary["testset_positions"]) == (6, 5, None)
    column = [entry["players"]["column.py:ColumnOne"]["mistakes"] for entry in summary["sets"].values()]
    assert column == [2, 2] and summary["players"]["column.py:ColumnOne"]["mistakes"] == 4
    assert summary["players"]["perfect"] == {**summary["players"]["perfect"], "mistakes": 0, "positions": 6}
    for entry in summary["sets"].values():  # random errs where it errs, but only on critical positions
        assert 0 <= entry["players"]["random"]["mistakes"] <= entry["critical"]
    random = summary["players"]["random"]
    assert random["mistakes"] == sum(entry["players"]["random"]["mistakes"] for entry in summary["sets"].values())
    assert random["mistake_rate"] == round(random["mistakes"] / 6, 6)
    assert summary["command"].startswith("scripts/eval_perfect_play.py perfect random column.py:ColumnOne --testsets")
    assert len(summary["load_average"]) == 3
    header = lines.index("| set | positions | critical | solver s | `perfect` mistakes | `random` mistakes "
                         "| `column.py:ColumnOne` mistakes |")  # fmt: skip
    assert lines[header - 1].startswith("Mistakes (moves that worsen the result for the player to move) on 6 positions")
    end, middle = lines[header + 2], lines[header + 3]
    assert end.startswith("| End-Easy | 3 | 2 | ") and end.endswith(" | 66.7% (2/3) |") and "| 0.0% (0/3) | " in end
    assert middle.startswith("| Middle-Easy | 3 | 3 | ") and middle.endswith(" | 66.7% (2/3) |")
    assert [line for line in lines if line.startswith("`column.py:ColumnOne` over the 2 sets: 66.7% (4/6) mistakes")]


@needs_solver
def test_the_first_positions_of_each_set_in_process(script, tmp_path, capsys):
    folder = write_sets(tmp_path / "sets")
    (tmp_path / "column.py").write_text(COLUMN_ONE)
    players = ["perfect", str(tmp_path / "column.py") + ":ColumnOne"]
    assert script.main([*players, "--testsets", str(folder), "--testset-positions", "2", "--quiet", "--json"]) == 0
    summary = json.loads(capsys.readouterr().out.splitlines()[-1])
    assert list(summary["sets"]) == ["End-Easy", "Middle-Easy", "Begin-Easy"]  # all the sets that are there
    assert [entry["positions"] for entry in summary["sets"].values()] == [2, 2, 1]  # Begin-Easy has one
    assert [entry["players"][players[1]]["mistakes"] for entry in summary["sets"].values()] == [2, 1, 1]
    assert summary["testset_positions"] == 2 and summary["players"]["perfect"]["mistakes"] == 0


@needs_solver
def test_a_wrong_score_in_a_file_fails_with_status_1_naming_the_line(script, tmp_path, capsys):
    folder = write_sets(tmp_path / "sets", {"Test_L3_R1": ["4455 18", "", "112233 17"]})
    with pytest.raises(SystemExit) as end:
        script.main(["perfect", "--testsets", str(folder), "--quiet"])
    assert end.value.code == 1
    out, err = capsys.readouterr()
    path = folder / "Test_L3_R1"
    assert err.strip().endswith(f"error: End-Easy ({path}), line 3, moves 112233: the file's SCORE is 17, our "
                                "solver's best move scores 18 (the solver or the file is wrong)")  # fmt: skip
    assert "| set |" not in out


def test_the_solver_extra_is_required_before_any_work(script, tmp_path, capsys, monkeypatch):
    folder = write_sets(tmp_path / "sets")
    monkeypatch.setitem(sys.modules, "numba", None)  # as if numba were not installed: its import fails
    with pytest.raises(SystemExit) as end:
        script.main(["random", "--testsets", str(folder)])
    assert end.value.code == 2
    (line,) = capsys.readouterr().err.strip().splitlines()
    assert line.endswith("error: --testsets needs numba, the 'solver' extra: pip install -e \".[solver]\"")


#: The first players' sets: @DIR holds FILES; @BAD a line that is no line; @ILLEGAL a move into a full column.
REFUSALS = [
    (["--testsets", "@DIR/missing"], "--testsets '@DIR/missing' is not a folder (expected one holding Pons' sets)"),
    (["--testsets", "@DIR", "--testset-names", "Begin-Hard"],
     "--testsets: '@DIR' holds none of Pons' set files (Test_L1_R3)"),
    (["--testsets", "@DIR", "--testset-names", "End-Easy", "Begin-Medium"],
     "--testsets: '@DIR' lacks the file of a set named: Test_L1_R2 (Begin-Medium)"),
    (["--testsets", "@DIR", "--testset-names", "Nope"],
     "--testset-names: unknown test set(s) Nope: the sets are End-Easy, Middle-Easy, Middle-Medium, Begin-Easy, "
     "Begin-Medium, Begin-Hard (or their file names)"),
    (["--testset-positions", "3"], "--testset-positions needs --testsets DIR"),
    (["--testset-names", "End-Easy"], "--testset-names needs --testsets DIR"),
    (["--testset-positions", "3", "--testset-names", "End-Easy"],
     "--testset-positions and --testset-names need --testsets DIR"),
    (["--testsets", "@DIR", "--testset-positions", "0"],
     "argument --testset-positions: must be an integer >= 1, got 0"),
    (["--testsets", "@DIR", "--game", "tictactoe"],
     "--testsets grades Pons' Connect Four sets alone: it takes no --game tictactoe"),
    (["--testsets", "@DIR", "--labels", "heldout"],
     "--testsets grades Pons' Connect Four sets alone: it takes no --labels"),
    (["--testsets", "@DIR", "--per-stage", "5", "--fresh-search"],
     "--testsets grades Pons' Connect Four sets alone: it takes no --per-stage, --fresh-search"),
    (["--testsets", "@DIR", "--solver-games", "1"],
     "--testsets grades Pons' Connect Four sets alone: it takes no --solver-games"),
    (["--testsets", "@BAD"], "--testsets: @BAD/Test_L3_R1, line 2: MOVES must be the columns played as digits 1-7, "
                             "got '4485'"),
    (["--testsets", "@ILLEGAL"],
     "--testsets: End-Easy (@ILLEGAL/Test_L3_R1), line 2, moves 1111111: move 7 (column 1) is not legal"),
]  # fmt: skip


@pytest.mark.parametrize(("flags", "message"), REFUSALS)
def test_each_refusal_names_its_flag_with_status_2(script, tmp_path, capsys, flags, message):
    folders = {
        "@DIR": write_sets(tmp_path / "sets"),
        "@BAD": write_sets(tmp_path / "bad", {"Test_L3_R1": ["4455 18", "4485 18"]}),
        "@ILLEGAL": write_sets(tmp_path / "illegal", {"Test_L3_R1": ["4455 18", "1111111 0"]}),
    }

    def fill(text):
        for name, folder in folders.items():
            text = text.replace(name, str(folder))
        return text

    with pytest.raises(SystemExit) as end:
        script.parse_args(["random", *map(fill, flags)])
    assert end.value.code == 2
    (line,) = capsys.readouterr().err.strip().splitlines()[-1:]
    assert line.endswith(f"error: {fill(message)}"), line


#: Set files that are no set: each is refused before any grading, in one line naming the file (@) and the line.
BAD_FILES = {
    "empty": (b"", "@: is empty (expected 'MOVES SCORE' lines)"),
    "truncated": (b"4455 18\n1122", "@, line 2: the file ends inside this line (no line break): it was cut short"),
    "cut mid-number": (b"4455 18\n112233 1", "@, line 2: the file ends inside this line (no line break): it was cut "
                                             "short"),
    "binary": (b"4455 18\n\x89PNG\r\n\x1a\n\x00\x00", "@, line 2: byte 0x89 is not ASCII (a set is ASCII text)"),
    "not digits": (b"4455 18\n44a5 18\n", "@, line 2: MOVES must be the columns played as digits 1-7, got '44a5'"),
    "column 8": (b"4455 18\n4485 18\n", "@, line 2: MOVES must be the columns played as digits 1-7, got '4485'"),
    "too many moves": (b"1234567" * 6 + b" 0\n", "@, line 1: MOVES holds 42 moves, more than the 41 a position to "
                                                 "play has"),
    "score": (b"4455 18\n112233 99\n", "@, line 2: SCORE 99 is impossible at ply 6 (scores are -18..18)"),
    "fields": (b"4455 18 0\n", "@, line 1: expected 'MOVES SCORE' (two fields), got '4455 18 0'"),
    "long line": (b"4455 18\n" + b"4" * 100 + b"\n", "@, line 2: 100 characters, more than a line 'MOVES SCORE' holds "
                                                     "(64)"),
}  # fmt: skip
#: A user's agent that must never be asked: the files are refused before any player moves.
NEVER_ASKED = "class Refuses:\n    def act(self, game, state):\n        raise AssertionError('asked for a move')\n"


def refused_line(script, capsys, argv):
    """Run the script on ``argv`` in this process; return its one line on stderr (the status must be 2)."""
    with pytest.raises(SystemExit) as end:
        script.main(argv)
    assert end.value.code == 2
    out, err = capsys.readouterr()
    assert out == ""  # no table: nothing was graded
    (line,) = err.strip().splitlines()
    return line


@pytest.mark.parametrize("case", BAD_FILES)
def test_a_bad_set_file_is_refused_in_one_line_naming_it_before_any_grading(script, tmp_path, capsys, case):
    data, message = BAD_FILES[case]
    folder = write_sets(tmp_path / "sets", {"Test_L2_R1": ["11223 2"]})
    (folder / "Test_L3_R1").write_bytes(data)
    (tmp_path / "never.py").write_text(NEVER_ASKED)
    line = refused_line(script, capsys, [f"{tmp_path / 'never.py'}:Refuses", "--testsets", str(folder), "--quiet"])
    assert line.endswith(f"error: --testsets: {message.replace('@', str(folder / 'Test_L3_R1'))}"), line


def test_a_set_file_over_the_size_bound_is_refused_naming_it(script, tmp_path, capsys):
    from agents.matches.testsets import MAX_FILE_BYTES

    folder = write_sets(tmp_path / "sets", {"Test_L2_R1": ["11223 2"]})
    path = folder / "Test_L3_R1"
    path.write_bytes(b"4455 18\n" * (MAX_FILE_BYTES // 8 + 1))
    line = refused_line(script, capsys, ["random", "--testsets", str(folder)])
    assert line.endswith(f"error: --testsets: {path}: is {MAX_FILE_BYTES + 8} bytes, more than the limit of "
                         f"{MAX_FILE_BYTES}")  # fmt: skip


@pytest.mark.slow  # a subprocess
def test_a_fifo_in_place_of_a_set_is_refused_at_once_not_waited_on(tmp_path):
    folder = write_sets(tmp_path / "sets", {"Test_L2_R1": ["11223 2"]})
    os.mkfifo(folder / "Test_L3_R1")  # nobody writes: a plain open() would wait for ever
    done = run_script("eval_perfect_play", "random", "--testsets", folder, timeout=120)
    assert done.returncode == 2 and "Traceback" not in done.stderr and done.stdout == ""
    (line,) = done.stderr.strip().splitlines()
    assert line.endswith(f"error: --testsets: {folder / 'Test_L3_R1'}: is not a regular file (a FIFO), not a Pons "
                         "set file")  # fmt: skip


@needs_solver
def test_a_crlf_set_file_is_graded_as_its_lines(script, tmp_path, capsys):
    folder = tmp_path / "sets"
    folder.mkdir()
    (folder / "Test_L3_R1").write_bytes(b"4455 18\r\n112233 18\r\n")
    assert script.main(["perfect", "--testsets", str(folder), "--quiet", "--json"]) == 0
    summary = json.loads(capsys.readouterr().out.splitlines()[-1])
    assert summary["positions"] == 2 and summary["players"]["perfect"]["mistakes"] == 0


#: A user's agents that return no column, each with the end of the one line that stops the grading (@ is its spec).
BAD_AGENTS = """
import numpy as np

class Float:
    def act(self, game, state):
        return 0.7

class Bool:
    def act(self, game, state):
        return True

class Text:
    def act(self, game, state):
        return "0"

class Nothing:
    def act(self, game, state):
        return None

class Array:
    def act(self, game, state):
        return np.array([0])

class OffBoard:
    def act(self, game, state):
        return 7

class FullColumn:
    def act(self, game, state):
        return next(column for column in range(7) if not game.is_legal(state, column))

class Raises:
    def act(self, game, state):
        raise RuntimeError("no move\\nhere")
"""
#: What the line says of each agent's move (@: its spec).
BAD_MOVES = {
    "Float": "agent @ played 0.7, which is not an integer in 0..6",
    "Bool": "agent @ played True, which is not an integer in 0..6",
    "Text": "agent @ played '0', which is not an integer in 0..6",
    "Nothing": "agent @ played None, which is not an integer in 0..6",
    "Array": "agent @ played array([0]), which is not an integer in 0..6",
    "OffBoard": "agent @ played 7, which is not an integer in 0..6",
    "FullColumn": "agent @ played 2, which is an illegal move here: legal actions are [0, 1, 3, 4, 5, 6]",
    "Raises": "agent @: its act() raised RuntimeError: no move here",
}
#: One position, where column 3 is full (Pons' columns are 1-based).
FULL_COLUMN = {"Test_L3_R1": ["3333336 0"]}


@needs_solver
@pytest.mark.parametrize("agent", BAD_MOVES)
def test_a_move_that_is_no_column_stops_the_grading_in_one_line_with_status_1(script, tmp_path, capsys, agent):
    folder = write_sets(tmp_path / "sets", FULL_COLUMN)
    (tmp_path / "bad.py").write_text(BAD_AGENTS)
    spec = f"{tmp_path / 'bad.py'}:{agent}"
    with pytest.raises(SystemExit) as end:
        script.main([spec, "--testsets", str(folder), "--quiet"])
    assert end.value.code == 1  # a failure during the work
    out, err = capsys.readouterr()
    (line,) = err.strip().splitlines()
    where = f"End-Easy ({folder / 'Test_L3_R1'}), line 1, moves 3333336"
    assert line.endswith(f"error: {where}: {BAD_MOVES[agent].replace('@', spec)}"), line
    assert "| set |" not in out


@needs_solver
@pytest.mark.slow  # subprocesses
def test_a_bad_move_or_a_raising_agent_is_no_traceback_from_the_command_line(tmp_path):
    folder = write_sets(tmp_path / "sets", FULL_COLUMN)
    (tmp_path / "bad.py").write_text(BAD_AGENTS)
    for agent in ("Nothing", "Array", "Raises"):
        done = run_script("eval_perfect_play", f"bad.py:{agent}", "--testsets", folder, "--quiet", cwd=tmp_path)
        assert done.returncode == 1 and "Traceback" not in done.stderr, done.stderr
        (line,) = done.stderr.strip().splitlines()
        assert line.endswith(BAD_MOVES[agent].replace("@", f"bad.py:{agent}")), line
