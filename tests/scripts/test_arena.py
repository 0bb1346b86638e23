"""scripts/arena.py runs a round robin end to end and refuses unknown agents."""

import json
import subprocess
import sys
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "arena.py"
sys.path.insert(0, str(Path(__file__).parent))  # importlib import mode: put the sibling helper on the path
from script_helpers import load_script  # noqa: E402


def run_arena(*args, check=True):
    return subprocess.run(
        [sys.executable, str(SCRIPT), *args], capture_output=True, text=True, check=check, cwd=SCRIPT.parents[1]
    )


def test_round_robin_table():
    stdout = run_arena("--agents", "random", "alphabeta", "--games", "10", "--json").stdout
    summary = json.loads(stdout.splitlines()[-1])
    record = summary["results"]["random vs alphabeta"]
    assert record["total"]["win"] == 0 and sum(record["total"].values()) == 10


def test_unknown_agents_are_refused():
    result = run_arena("--agents", "random", "stockfish", check=False)
    assert result.returncode != 0 and "unknown agent 'stockfish'" in result.stderr


def test_a_full_disk_at_out_ends_in_one_line_and_keeps_the_results(tmp_path, monkeypatch, capsys):
    """The round robin's results are printed and the script exits 1 naming the file, not with a traceback."""
    import errno

    from plumbing import cli

    def full_disk(path, text, **_):
        raise OSError(errno.ENOSPC, "No space left on device", str(path))

    monkeypatch.setattr(cli, "write_text_atomic", full_disk)
    arena = load_script("arena")
    out = tmp_path / "results.json"
    try:
        arena.main(["--agents", "random", "alphabeta", "--games", "4", "--out", str(out)])
    except SystemExit as stop:
        assert stop.code == 1
    else:
        raise AssertionError("a full disk must end the script with status 1")
    captured = capsys.readouterr()
    summary = json.loads(captured.out.splitlines()[-1])
    assert sum(summary["results"]["random vs alphabeta"]["total"].values()) == 4
    assert captured.err.strip().splitlines()[-1] == (
        f"error: cannot write --out {out}: No space left on device (the summary is printed above)"
    )
    assert not out.exists()


def test_the_table_lines_up_and_a_written_summary_is_said(tmp_path):
    out = tmp_path / "arena.json"
    stdout = run_arena("--agents", "random", "alphabeta:1", "mcts:20", "--games", "12", "--out", str(out)).stdout
    lines = stdout.splitlines()
    header = next(i for i, line in enumerate(lines) if line.startswith("pair"))
    table = lines[header : header + 4]
    assert len({len(line) for line in table}) == 1  # every row as wide as the header: the columns line up
    assert lines[-1] == f"summary written to {out}" and out.stat().st_size > 0
