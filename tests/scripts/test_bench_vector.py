"""bench.py times the vector envs (and, with --compare, OpenSpiel and pgx) and reports them as JSON."""

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "scripts"))  # bench.py's workloads package, found as bench.py finds it
from peers.workloads import vector_steps, vector_workload  # noqa: E402

TINY = ["--moves", "300", "--repeats", "1", "--warmup", "0", "--vector-moves", "2000", "--no-agents"]


def run_bench(*args, env=None):
    result = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "bench.py"), *args],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env=env,
    )
    return result


@pytest.mark.slow
def test_vector_sizes_memory_and_the_old_keys_are_in_the_json(tmp_path):
    out = tmp_path / "bench.json"
    result = run_bench(
        "--games", "TicTacToe-v0", "DotsAndBoxes-v0", *TINY, "--num-envs", "1", "16", "--memory-envs", "64",
        "--out", str(out),
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    summary = json.loads(result.stdout.splitlines()[-1])
    assert json.loads(out.read_text()) == summary
    for label in ("TicTacToe-v0", "DotsAndBoxes-v0"):
        entry = summary["results"][label]
        assert entry["selfplay_moves_per_s"] > 0 and entry["vs_random_agent_steps_per_s"] > 0
        assert set(entry["vector"]) == {"1", "16"}
        for row in entry["vector"].values():
            assert row["selfplay_moves_per_s"] > 0 and row["vs_single_env_ratio"] > 0
        # A smoke run plays the random opponent at the largest size only.
        assert entry["vector"]["16"]["vs_random_agent_moves_per_s"] > 0
        assert "vs_random_agent_moves_per_s" not in entry["vector"]["1"]
    # A smoke run probes the memory of the first game only.
    probe = summary["memory"]["vector_64_envs"]["TicTacToe-v0"]
    assert 10 < probe["imports_rss_mb"] <= probe["rss_mb"] < 1000
    assert summary["memory"]["bench_process_peak_rss_mb"] > 10
    assert "pgx" in summary and "agents_tictactoe" not in summary
    assert "ours moves/s" in result.stdout  # the vector table


def test_an_empty_num_envs_skips_the_vector_envs():
    result = run_bench("--games", "ConnectFour-v0", *TINY, "--num-envs", "--json")
    assert result.returncode == 0, result.stderr
    summary = json.loads(result.stdout.splitlines()[-1])
    assert "vector" not in summary["results"]["ConnectFour-v0"] and "vector_4096_envs" not in summary["memory"]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--num-envs", "0"], "argument --num-envs: must be an integer >= 1, got 0"),
        (["--vector-moves", "0"], "argument --vector-moves: must be an integer >= 1, got 0"),
        (["--memory-envs", "-1"], "argument --memory-envs: must be an integer >= 0, got -1"),
    ],
)
def test_bad_arguments_exit_with_a_message(args, message):
    result = run_bench(*args)
    assert result.returncode == 2 and message in result.stderr


def test_compare_times_openspiel_and_pgx_in_the_same_run():
    pytest.importorskip("pyspiel")
    pytest.importorskip("pettingzoo")
    pytest.importorskip("pgx")
    result = run_bench(
        "--games", "TicTacToe-v0", *TINY, "--num-envs", "64", "--pgx-num-envs", "64", "--memory-envs", "0",
        "--compare", "--json",
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    summary = json.loads(result.stdout.splitlines()[-1])
    entry = summary["results"]["TicTacToe-v0"]
    assert entry["openspiel_tic_tac_toe_moves_per_s"] > 0 and entry["selfplay_vs_openspiel_ratio"] > 0
    assert entry["pettingzoo_tictactoe_v3_moves_per_s"] > 0
    row = entry["vector"]["64"]
    assert row["pgx_moves_per_s"] > 0
    assert row["vs_pgx_ratio"] == pytest.approx(row["selfplay_moves_per_s"] / row["pgx_moves_per_s"], rel=0.01)
    assert summary["pgx"].startswith("ok (pgx ")


def test_compare_without_pgx_says_why_and_times_the_rest(tmp_path):
    pytest.importorskip("pyspiel")
    pytest.importorskip("pettingzoo")
    # A pgx package that cannot import, first on the path.
    (tmp_path / "pgx").mkdir()
    (tmp_path / "pgx" / "__init__.py").write_text("raise ImportError('no jax here', name='jax')\n")
    env = {"PYTHONPATH": os.pathsep.join([str(tmp_path), str(ROOT)]), "PATH": "/usr/bin:/bin"}
    result = run_bench("--games", "TicTacToe-v0", *TINY, "--num-envs", "8", "--memory-envs", "0", "--compare", env=env)
    assert result.returncode == 0, result.stderr
    assert "pgx skipped: pgx is not installed (jax is missing)" in result.stderr
    summary = json.loads(result.stdout.splitlines()[-1])
    assert summary["pgx"].startswith("pgx is not installed")
    assert "pgx_moves_per_s" not in summary["results"]["TicTacToe-v0"]["vector"]["8"]
    assert summary["results"]["TicTacToe-v0"]["openspiel_tic_tac_toe_moves_per_s"] > 0


def test_the_vector_workload_counts_moves_not_restart_steps():
    assert vector_steps(1000, 10, 50) == 50 and vector_steps(1000, 4096, 50) == 2
    workload = vector_workload("TicTacToe-v0", {}, 1, None, 1000)
    moves = workload(900, np.zeros(1))
    # One game of tic-tac-toe takes 5 to 9 moves, then one restart step that plays none.
    assert 900 * 5 / 6 <= moves <= 900 * 9 / 10 + 1
