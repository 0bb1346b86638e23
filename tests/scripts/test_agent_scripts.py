"""solve.py and arena.py run end to end and report what they computed."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

from agents.factory import make_agent
from gym_boardgames.rules.registry import make_game

ROOT = Path(__file__).resolve().parents[2]


def run_script(name, *args, check=True):
    return subprocess.run(
        [sys.executable, str(ROOT / "scripts" / name), *args], capture_output=True, text=True, check=check, cwd=ROOT
    )


def test_solve_reports_value_positions_and_time(tmp_path):
    out = tmp_path / "solve.json"
    stdout = run_script("solve.py", "tictactoe", "--json", "--out", str(out)).stdout
    summary = json.loads(stdout.splitlines()[-1])
    assert (summary["value"], summary["positions"], summary["result"]) == (0.0, 5478, "draw")
    assert summary["seconds"] >= 0 and json.loads(out.read_text()) == summary


def test_solve_small_connect_four_and_dots():
    summary = json.loads(
        run_script("solve.py", "connectn", "--rows", "4", "--cols", "4", "--n", "3", "--json").stdout.splitlines()[-1]
    )
    assert (summary["value"], summary["positions"]) == (1.0, 41750)
    summary = json.loads(run_script("solve.py", "dots", "--rows", "1", "--cols", "2", "--json").stdout.splitlines()[-1])
    assert summary["positions"] == 143


def test_solve_rejects_options_the_game_does_not_take():
    result = run_script("solve.py", "tictactoe", "--rows", "4", check=False)
    assert result.returncode != 0 and "tictactoe does not take rows" in result.stderr


def test_arena_round_robin_table(tmp_path):
    stdout = run_script("arena.py", "--agents", "random", "alphabeta", "--games", "10", "--json").stdout
    summary = json.loads(stdout.splitlines()[-1])
    record = summary["results"]["random vs alphabeta"]
    assert record["total"]["win"] == 0 and sum(record["total"].values()) == 10


def test_arena_rejects_unknown_agents():
    result = run_script("arena.py", "--agents", "random", "stockfish", check=False)
    assert result.returncode != 0 and "unknown agent 'stockfish'" in result.stderr


def test_factory_and_registry_errors_name_the_choices():
    with pytest.raises(ValueError, match="alphabeta\\[:DEPTH\\]"):
        make_agent("minimax")
    with pytest.raises(ValueError, match="depth must be a positive integer"):
        make_agent("alphabeta:x")
    with pytest.raises(ValueError, match="tictactoe, connectfour, connectn, dots"):
        make_game("chess")
    assert make_game("connectn", rows=4, cols=5, n=3, gravity=False).config == (4, 5, 3, False)
    assert make_game("dots", rows=2, cols=2).num_edges == 12
