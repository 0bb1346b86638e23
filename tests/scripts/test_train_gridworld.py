"""scripts/train_gridworld_dp.py reproduces Figure 4.1, summarises as JSON, draws a PNG and rejects bad input."""

import json
import re
import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).parent))  # importlib import mode: put the sibling helper on the path
import script_helpers  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
FIGURE_4_1 = [0, -14, -20, -22, -14, -18, -20, -20, -20, -20, -18, -14, -22, -20, -14, 0]
OPTIMAL_4X4 = [0, -1, -2, -3, -1, -2, -3, -2, -2, -3, -2, -1, -3, -2, -1, 0]


def load_script():
    return script_helpers.load_script("train_gridworld_dp", "test")


def run_in_process(capsys, *args):
    """Run the script's main() here (no interpreter start-up); return (exit code, stdout, stderr)."""
    code = 0
    try:
        load_script().main(["--no-progress", *args])
    except SystemExit as stop:
        code = stop.code
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def run(*args, check=True):
    return script_helpers.run_script("train_gridworld_dp", "--no-progress", *args, check=check)


def test_default_run_prints_figure_4_1_and_a_json_summary_last(tmp_path):
    out = tmp_path / "gridworld.png"
    stdout = run("--episodes", "300", "--seed", "1", "--json", "--out", str(out)).stdout
    summary = json.loads(stdout.splitlines()[-1])
    np.testing.assert_allclose(summary["random_policy"]["values"], FIGURE_4_1, atol=1e-6)
    np.testing.assert_allclose(summary["optimal_values"], OPTIMAL_4X4, atol=1e-6)
    assert summary["policy_iteration"]["iterations"] == 2
    assert summary["value_iteration"]["sweeps"] == 4
    assert summary["async_value_iteration"]["updates"] < summary["value_iteration"]["updates"]
    assert summary["random_policy"]["sweeps"] < summary["random_policy"]["two_array_sweeps"]
    assert summary["max_value_difference"] < 1e-9
    # The env's own sampled episodes average to the model's optimal value (-2 over the 14 starts).
    rollouts = summary["rollouts"]
    assert rollouts["episodes"] == 300 and abs(rollouts["mean_return"] - summary["optimal_start_value"]) < 0.2
    # The printed value grid is Figure 4.1's first row.
    assert any(line.split() == ["0.0", "-14.0", "-20.0", "-22.0"] for line in stdout.splitlines())
    assert any(line.split() == ["^", "^<", "v<", "v"] for line in stdout.splitlines())  # greedy arrows, row 1
    # The PNG: two panels (random policy, optimal) side by side.
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    pygame = pytest.importorskip("pygame")
    width, height = pygame.image.load(str(out)).get_size()
    assert width > 1.8 * height


@pytest.mark.slow
def test_a_map_file_with_slip_and_discount(tmp_path):
    maze = tmp_path / "maze.txt"
    maze.write_text("T..#..\n.#....\n...#.S\n.....T\n")
    stdout = run("--map", str(maze), "--slip", "0.1", "--gamma", "0.95", "--methods", "pi,vi,async", "--json").stdout
    summary = json.loads(stdout.splitlines()[-1])
    assert summary["grid"] == "4x6" and summary["walls"] == 3 and summary["slip"] == 0.1
    assert "random_policy" not in summary and summary["max_value_difference"] < 1e-6
    assert summary["rollouts"]["truncated"] == 0


@pytest.mark.slow
def test_a_large_grid_is_summarised_not_printed():
    stdout = run("--rows", "30", "--cols", "40", "--methods", "vi,async", "--episodes", "20", "--json").stdout
    summary = json.loads(stdout.splitlines()[-1])
    assert summary["states"] == 1200 and "optimal_values" not in summary
    assert "too large to print" in stdout
    assert summary["optimal_start_value"] < -10


@pytest.mark.parametrize(
    "args, message",
    [
        (["--methods", "vi,magic"], "--methods takes a comma-separated subset"),
        (["--rows", "0"], "argument --rows: must be an integer >= 1, got 0"),
        (["--gamma", "1.5"], r"argument --gamma: must be a number in \[0, 1\], got 1.5"),
        (["--slip", "2"], r"slip must be a number in \[0, 1\], got 2.0"),
        (["--map", "missing-file.txt"], "--map: map file missing-file.txt: .*No such file"),
        (["--map", "x.txt", "--rows", "3"], "do not also give --rows/--cols"),
    ],
)
def test_bad_arguments_exit_with_a_usage_error(capsys, args, message):
    code, _, stderr = run_in_process(capsys, *args)
    assert code == 2 and re.search(message, stderr), stderr


def test_a_bad_map_is_reported_with_its_problem(capsys, tmp_path):
    ragged = tmp_path / "ragged.txt"
    ragged.write_text("T..\n..\n..T\n")
    code, _, stderr = run_in_process(capsys, "--map", str(ragged))
    assert code == 2 and "row 0 has 3 cells, row 1 has 2" in stderr


def test_help_documents_the_options(capsys):
    code, stdout, _ = run_in_process(capsys, "--help")
    assert code == 0
    for option in ("--rows", "--cols", "--map", "--slip", "--gamma", "--seed", "--out", "--json", "--methods"):
        assert option in stdout


def test_main_returns_the_summary_it_prints(capsys):
    code, stdout, _ = run_in_process(capsys, "--rows", "3", "--cols", "5", "--episodes", "0", "--json")
    assert code == 0
    summary = json.loads(stdout.splitlines()[-1])
    assert summary["grid"] == "3x5" and "rollouts" not in summary
    assert summary["optimal_values"][0] == 0.0 and min(summary["optimal_values"]) == -3.0
