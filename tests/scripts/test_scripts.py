"""Every script runs end to end with a tiny budget and prints its JSON summary last."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def run_script(name, *args):
    result = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / name), *args], capture_output=True, text=True, check=True, cwd=ROOT
    )
    return result.stdout


def test_demo_prints_boards_and_a_json_summary(tmp_path):
    out = tmp_path / "demo.json"
    stdout = run_script("demo_tictactoe.py", "--games", "200", "--seed", "3", "--json", "--out", str(out))
    summary = json.loads(stdout.splitlines()[-1])
    assert sum(summary["wins"].values()) == 200
    # Random against random: X (the agent, first) wins far more often than O.
    assert summary["wins"]["X"] > summary["wins"]["O"] > 0
    assert "X to move" in stdout and "---+---+---" in stdout
    assert json.loads(out.read_text()) == summary


@pytest.mark.slow
def test_demo_is_reproducible_from_its_seed():
    assert run_script("demo_tictactoe.py", "--games", "5", "--seed", "9") == run_script(
        "demo_tictactoe.py", "--games", "5", "--seed", "9"
    )


def test_demo_rejects_bad_arguments():
    result = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "demo_tictactoe.py"), "--games", "0"], capture_output=True, text=True
    )
    assert result.returncode == 2 and "argument --games: must be an integer >= 1, got 0" in result.stderr


@pytest.mark.slow
def test_bench_reports_moves_per_second_as_json(tmp_path):
    out = tmp_path / "bench.json"
    stdout = run_script("bench.py", "--moves", "2000", "--repeats", "1", "--warmup", "100", "--out", str(out))
    summary = json.loads(stdout.splitlines()[-1])
    assert set(summary["results"]) == {"TicTacToe-v0", "ConnectFour-v0", "DotsAndBoxes-v0", "Gomoku-15x15"}
    for entry in summary["results"].values():
        assert entry["selfplay_moves_per_s"] > 0 and entry["vs_random_agent_steps_per_s"] > 0
    assert json.loads(out.read_text()) == summary


def test_bench_compare_times_pettingzoo_in_the_same_run():
    pytest.importorskip("pettingzoo")
    pytest.importorskip("pyspiel", reason="--compare needs OpenSpiel too (the bench extra)")
    stdout = run_script(
        "bench.py",
        "--games",
        "ConnectFour-v0",
        "--moves",
        "500",
        "--repeats",
        "1",
        "--warmup",
        "0",
        "--compare",
        "--json",
    )
    entry = json.loads(stdout.splitlines()[-1])["results"]["ConnectFour-v0"]
    assert entry["pettingzoo_connect_four_v3_moves_per_s"] > 0 and entry["selfplay_vs_pettingzoo_ratio"] > 0


@pytest.mark.slow
def test_bench_compare_without_the_bench_extra_names_it(tmp_path):
    import importlib.util

    if importlib.util.find_spec("pyspiel") and importlib.util.find_spec("pettingzoo"):
        pytest.skip("the bench extra is installed")
    result = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "bench.py"), "--quick", "--compare"], capture_output=True, text=True
    )
    assert result.returncode != 0 and 'pip install -e ".[bench]"' in result.stderr
