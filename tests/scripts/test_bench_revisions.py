import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "scripts" / "bench_revisions.py"


@pytest.mark.slow
def test_compares_two_revisions_and_writes_ratios(tmp_path):
    out = tmp_path / "bench.json"
    done = subprocess.run(
        [
            sys.executable,
            str(SCRIPT),
            "HEAD",
            "HEAD",
            "--repeats",
            "1",
            "--workloads",
            "mcts_tictactoe",
            "--json",
            str(out),
        ],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    report = json.loads(out.read_text())
    row = report["workloads"]["mcts_tictactoe"]
    assert row["a"] > 0 and row["b"] > 0
    assert row["ratio"] == row["b"] / row["a"]
    assert "mcts_tictactoe" in done.stdout and "load average" in done.stdout
    # The temporary worktrees are removed again.
    listed = subprocess.run(["git", "-C", str(ROOT), "worktree", "list"], capture_output=True, text=True).stdout
    assert "bench_revisions_" not in listed


def test_unknown_revision_is_refused_before_any_work(tmp_path):
    done = subprocess.run(
        [sys.executable, str(SCRIPT), "no-such-revision-xyz", "--repeats", "1"],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=60,
    )
    assert done.returncode == 2
    assert "'no-such-revision-xyz' is not a commit" in done.stderr
