"""scripts/arena.py runs a round robin end to end and refuses unknown agents."""

import json
import subprocess
import sys
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "arena.py"


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
