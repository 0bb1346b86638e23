"""scripts/solve.py: every game choice finishes or is refused at once; --force and progress on long solves."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

import agents.search.solver

sys.path.insert(0, str(Path(__file__).parent))  # importlib import mode: put the sibling helper on the path
import script_helpers  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "scripts" / "solve.py"


def run_solve(*args, timeout=300):  # a hang guard only: what the tests check is counted or printed, not timed
    return subprocess.run(
        [sys.executable, str(SCRIPT), *args], capture_output=True, text=True, cwd=ROOT, timeout=timeout, check=False
    )


@pytest.mark.slow
def test_reports_value_positions_and_time(tmp_path):
    out = tmp_path / "solve.json"
    result = run_solve("tictactoe", "--json", "--out", str(out))
    assert result.returncode == 0, result.stderr
    summary = json.loads(result.stdout.splitlines()[-1])
    assert (summary["value"], summary["positions"], summary["result"]) == (0.0, 5478, "draw")
    assert summary["seconds"] >= 0 and json.loads(out.read_text()) == summary


@pytest.mark.slow
def test_small_connect_n_and_dots_boards_solve_exactly():
    for args, expected in (
        (["connectn", "--rows", "4", "--cols", "4", "--n", "3"], {"value": 1.0, "positions": 41750}),
        (["dotsandboxes", "--rows", "1", "--cols", "2"], {"positions": 143}),
    ):
        result = run_solve(*args, "--json")
        assert result.returncode == 0, result.stderr
        summary = json.loads(result.stdout.splitlines()[-1])
        assert {key: summary[key] for key in expected} == expected


def test_options_the_game_does_not_take_are_refused():
    result = run_solve("tictactoe", "--rows", "4")
    assert result.returncode == 2 and "tictactoe does not take --rows" in result.stderr


@pytest.fixture(scope="module")
def solve_script():
    return script_helpers.load_script("solve")


CANNOT_FINISH = [
    ["connectfour"],  # ran 10 minutes to 10.8 GB and printed nothing
    ["connectn"],  # the same 6x7 board by default
    ["dotsandboxes"],  # 3x3 boxes: a bound of 60 million states for the memoised search
    ["connectn", "--rows", "50", "--cols", "50", "--n", "5", "--no-gravity"],  # RecursionError
    ["connectn", "--rows", "30", "--cols", "30", "--n", "30"],  # 11 GB in two minutes
    ["connectn", "--rows", "64", "--cols", "64", "--n", "5"],
    ["connectn", "--rows", "5", "--cols", "5", "--n", "4"],  # layered, but a bound of 172 million
    ["dotsandboxes", "--rows", "32", "--cols", "32"],
]


@pytest.mark.parametrize("args", CANNOT_FINISH)
def test_what_cannot_finish_never_starts_the_solver(args, solve_script, monkeypatch, capsys, work_budget):
    monkeypatch.setattr(solve_script, "solve", lambda game, **kwargs: pytest.fail(f"the solver started on {game!r}"))
    # The board and its estimate only: the 64x64 board's geometry is the most, about 260,000 lines.
    with work_budget.bounded(max_lines=1_000_000):
        with pytest.raises(SystemExit) as exit_info:
            solve_script.main(args)
    assert exit_info.value.code == 2
    captured = capsys.readouterr()
    assert captured.out == ""  # not even the estimate line, which is printed just before a solve starts
    assert "refusing to solve (--force to try anyway)" in captured.err


@pytest.mark.slow
@pytest.mark.parametrize("args", CANNOT_FINISH)
def test_what_cannot_finish_is_refused_in_one_line_with_status_2(args):
    result = run_solve(*args)
    assert result.returncode == 2
    assert result.stdout == ""  # the estimate line, printed before any solve, never came
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("solve.py: error: ") and "positions" in lines[0] and "limit" in lines[0]
    assert "--force" in lines[0] and "Traceback" not in result.stderr


@pytest.mark.slow
@pytest.mark.parametrize(
    ("args", "positions"),
    [
        (["tictactoe"], 5478),
        (["connectn", "--rows", "3", "--cols", "4", "--n", "3"], None),
        (["dotsandboxes", "--rows", "1", "--cols", "3"], None),
    ],
)
def test_what_can_finish_prints_the_estimate_first_and_solves(args, positions):
    result = run_solve(*args, "--json")
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0].startswith("estimate: up to ")
    summary = json.loads(lines[-1])
    if positions is not None:
        assert summary["positions"] == positions


def test_sizes_over_the_board_limit_fail_with_exit_status_2():
    result = run_solve("connectn", "--rows", "1000", "--cols", "1000")
    assert result.returncode == 2
    assert result.stderr.strip() == "solve.py: error: rows must be at most 64 (the documented limit), got 1000"


def test_force_solves_over_the_limit_with_progress(solve_script, monkeypatch, capsys):
    monkeypatch.setattr(agents.search.solver, "MAX_LAYERED_POSITIONS", 100)
    with pytest.raises(SystemExit) as exit_info:
        solve_script.main(["tictactoe"])
    assert exit_info.value.code == 2
    assert "the layered solver's limit is 100" in capsys.readouterr().err
    calls = []

    def recording_solve(game, **kwargs):
        calls.append(kwargs)
        return agents.search.solver.solve(game, **kwargs)

    # Whether a bar shows for a 0.01 s solve depends on tqdm being installed (the plain-text fallback only
    # writes after a second), so check that the solve was asked for progress instead of reading stderr.
    monkeypatch.setattr(solve_script, "solve", recording_solve)
    summary = solve_script.main(["tictactoe", "--force"])
    assert summary["positions"] == 5478
    captured = capsys.readouterr()
    assert "[--force: over the limit]" in captured.out
    assert calls == [{"progress": True}]


def test_a_solve_over_the_available_memory_is_refused(solve_script, monkeypatch, capsys):
    monkeypatch.setattr(solve_script, "available_memory", lambda: 2**20)
    with pytest.raises(SystemExit) as exit_info:
        solve_script.main(["tictactoe"])
    assert exit_info.value.code == 2
    assert "of memory, and 1 MB is available" in capsys.readouterr().err


def test_a_bad_out_path_fails_before_solving(tmp_path):
    result = run_solve("tictactoe", "--out", str(tmp_path / "missing" / "x.json"))
    assert result.returncode == 2 and result.stdout == ""
    assert "--out" in result.stderr and "does not exist" in result.stderr


def test_the_documented_limits_are_those_in_the_docstring():
    doc = SCRIPT.read_text()
    assert f"{agents.search.solver.MAX_LAYERED_POSITIONS // 10**6} million" in doc
    assert f"{agents.search.solver.MAX_MEMOISED_POSITIONS // 10**6} million" in doc
