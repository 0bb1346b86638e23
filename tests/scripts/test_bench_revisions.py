import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "scripts" / "bench_revisions.py"


def run(*args, timeout=60):
    return subprocess.run(
        [sys.executable, str(SCRIPT), *args], capture_output=True, text=True, cwd=ROOT, timeout=timeout
    )


@pytest.mark.slow
def test_compares_two_revisions_prints_json_last_and_writes_it_to_out(tmp_path):
    out = tmp_path / "bench.json"
    done = run(
        "HEAD", "HEAD", "--repeats", "1", "--workloads", "mcts_tictactoe", "--json", "--out", str(out), timeout=300
    )
    assert done.returncode == 0, done.stderr
    # --json prints the summary as the last line of stdout, after the table; --out holds the same line.
    last = done.stdout.strip().splitlines()[-1]
    report = json.loads(last)
    assert out.read_text() == last + "\n"
    row = report["workloads"]["mcts_tictactoe"]
    assert row["a"] > 0 and row["b"] > 0
    assert row["ratio"] == row["b"] / row["a"]
    assert (report["base"], report["head"], report["repeats"]) == ("HEAD", "HEAD", 1)
    assert len(report["load_start"]) == 3 and len(report["load_end"]) == 3
    assert "mcts_tictactoe" in done.stdout and "load average" in done.stdout
    # The temporary worktrees are removed again.
    listed = subprocess.run(["git", "-C", str(ROOT), "worktree", "list"], capture_output=True, text=True).stdout
    assert "bench_revisions_" not in listed


def test_json_is_a_flag_as_in_every_other_script(tmp_path):
    """--json takes no file (that is --out's job): a path after it is an extra argument, refused before any work."""
    done = run("HEAD", "HEAD", "--json", str(tmp_path / "bench.json"))
    assert done.returncode == 2
    assert "unrecognized arguments" in done.stderr
    assert not (tmp_path / "bench.json").exists()


def test_unwritable_out_is_refused_before_any_work(tmp_path):
    done = run("HEAD", "--out", str(tmp_path / "no-such-folder" / "bench.json"))
    assert done.returncode == 2
    assert "--out" in done.stderr and "does not exist" in done.stderr


def test_unknown_revision_is_refused_before_any_work(tmp_path):
    done = run("no-such-revision-xyz", "--repeats", "1")
    assert done.returncode == 2
    assert "'no-such-revision-xyz' is not a commit" in done.stderr
