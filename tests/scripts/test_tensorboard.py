"""--tensorboard DIR: the training scripts log scalars TensorBoard reads back, and refuse at once without the extra.

The events are read with TensorBoard's own ``EventAccumulator``, as the TensorBoard app reads them.
"""

import importlib.util
import os
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("tensorboard", reason="the tensorboard extra is not installed")
sys.path.insert(0, str(Path(__file__).parent))  # importlib import mode: put the sibling helper on the path
from script_helpers import load_script  # noqa: E402  (it puts scripts/, where plumbing is, on the path)
from tensorboard.backend.event_processing.event_accumulator import EventAccumulator  # noqa: E402

# isort: split
from plumbing.figures import TENSORBOARD_MISSING, TensorBoardLog  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
HAS_TORCH = importlib.util.find_spec("torch") is not None


def read_scalars(logdir):
    """``{tag: [(step, value), ...]}`` of every event file under ``logdir`` (SB3 writes into a run subfolder)."""
    scalars = {}
    folders = {os.path.dirname(path) for path in map(str, Path(logdir).rglob("events.out.tfevents.*"))}
    for folder in folders:
        events = EventAccumulator(folder)
        events.Reload()
        for tag in events.Tags()["scalars"]:
            scalars.setdefault(tag, []).extend((e.step, e.value) for e in events.Scalars(tag))
    return {tag: sorted(points) for tag, points in scalars.items()}


def test_the_log_writes_scalars_tensorboard_reads_back(tmp_path):
    with TensorBoardLog(tmp_path / "run") as log:
        log.scalar("loss/policy", 2.5, 1)
        log.scalars({"loss/policy": 2.0, "loss/value": 0.5}, 2)
    assert read_scalars(tmp_path / "run") == {"loss/policy": [(1, 2.5), (2, 2.0)], "loss/value": [(2, 0.5)]}


def test_td_logs_its_learning_curve_by_episode(tmp_path):
    module = load_script("train_tictactoe_td", "tensorboard")
    logdir = tmp_path / "tb"
    module.main(
        ["--episodes", "300", "--curve-points", "3", "--curve-games", "4", "--eval-games", "2"]
        + ["--alphabeta-games", "1", "--no-progress", "--out", str(tmp_path / "td.npz"), "--tensorboard", str(logdir)]
    )
    scalars = read_scalars(logdir)
    assert set(scalars) == {
        "vs_random/win",
        "vs_random/draw",
        "vs_random/loss",
        "optimal_moves/all_positions",
        "optimal_moves/positions_it_can_meet",
    }
    assert [step for step, _ in scalars["optimal_moves/all_positions"]] == [100, 200, 300]
    for step in (100, 200, 300):
        outcomes = [dict(scalars[f"vs_random/{outcome}"])[step] for outcome in ("win", "draw", "loss")]
        assert sum(outcomes) == pytest.approx(1.0)


def test_blackjack_logs_the_prediction_errors_and_the_exploring_starts_curve(tmp_path):
    module = load_script("train_blackjack_mc", "tensorboard")
    logdir = tmp_path / "tb"
    summary = module.main(
        ["--episodes", "100", "200", "--curve-episodes", "--es-episodes", "300", "--es-every", "100", "--no-timing"]
        + ["--no-progress", "--tensorboard", str(logdir)]
    )
    scalars = read_scalars(logdir)
    assert set(scalars) == {
        "prediction/rms_error_first_visit",
        "prediction/rms_error_every_visit",
        "es/exact_return",
        "es/gap_to_optimum",
    }
    first = dict(scalars["prediction/rms_error_first_visit"])
    assert first == pytest.approx({int(n): e for n, e in summary["rms_error"]["first_visit"].items()})
    assert [step for step, _ in scalars["es/exact_return"]] == [100, 200, 300]


class FakeTrainer:
    positions, selfplay_seconds = 0, 0.0


def test_alphazero_logs_losses_every_iteration_and_connect_four_grades_at_evaluations(tmp_path):
    from agents.alphazero.checkpoint import CurvePoint

    module = load_script("train_alphazero", "tensorboard")
    trainer = FakeTrainer()
    with TensorBoardLog(tmp_path) as log:
        hook = module.tensorboard_logger(trainer, log)
        trainer.positions, trainer.selfplay_seconds = 500, 2.0
        hook(CurvePoint(1, 3.0, 128, 500, 1.9, 0.8))  # an iteration without evaluation
        trainer.positions, trainer.selfplay_seconds = 1500, 6.0
        other = {"random": [0.7, 0.4]}
        hook(CurvePoint(2, 9.0, 256, 1500, 1.7, 0.7, None, {}, 0.81, 0.52, other))
    expected = {
        "loss/policy": [(1, 1.9), (2, 1.7)],
        "loss/value": [(1, 0.8), (2, 0.7)],
        "selfplay/positions_per_second": [(1, 250.0), (2, 250.0)],  # each iteration's own: 500/2 s, 1000/4 s
        "eval/outcome_kept": [(2, 0.81)],
        "eval/outcome_kept_critical": [(2, 0.52)],
        "eval/outcome_kept_random": [(2, 0.7)],
        "eval/outcome_kept_critical_random": [(2, 0.4)],
    }
    scalars = read_scalars(tmp_path)
    assert set(scalars) == set(expected)
    for tag, points in expected.items():  # event values are float32
        assert [step for step, _ in scalars[tag]] == [step for step, _ in points]
        assert [value for _, value in scalars[tag]] == pytest.approx([value for _, value in points], rel=1e-6)


RUNS = {
    # tic-tac-toe is solved (the raw network's share of optimal moves) and plays the baselines
    "tictactoe": (
        ["--eval-games", "2", "--baseline-simulations", "5"],
        {"eval/optimal_moves", "eval/score_vs_random", "eval/score_vs_mcts5"},
    ),
    # Connect Four is graded on every shipped label set (outcome kept) and in games against the exact solver, and
    # plays no baseline games by default
    "connectfour": (
        ["--workers", "1", "--perfect-games", "1", "--eval-simulations", "2"],
        {f"eval/outcome_kept{part}{on}" for part in ("", "_critical") for on in ("", "_heldout", "_random")}
        | {"eval/score_vs_perfect"},
    ),
}


@pytest.mark.slow  # a subprocess training run with PyTorch
@pytest.mark.skipif(not HAS_TORCH, reason="the alphazero extra (PyTorch) is needed to train")
@pytest.mark.parametrize("game", list(RUNS))
def test_alphazero_training_run_logs_every_iteration_and_each_evaluation(game, tmp_path):
    flags, evaluation_tags = RUNS[game]
    logdir = tmp_path / "tb"
    tiny = ["--iterations", "2", "--games", "2", "--parallel-games", "2", "--simulations", "2", "--eval-every", "1"]
    result = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "train_alphazero.py"), "--game", game, *tiny, *flags, "--quiet"]
        + ["--out", str(tmp_path / "m.npz"), "--tensorboard", str(logdir)],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert result.returncode == 0, result.stderr
    assert f"TensorBoard log in {logdir}" in result.stdout
    scalars = read_scalars(logdir)
    assert set(scalars) == {"loss/policy", "loss/value", "selfplay/positions_per_second"} | evaluation_tags
    assert all([step for step, _ in points] == [1, 2] for points in scalars.values())
    assert all(0 <= value <= 1 for tag, points in scalars.items() if tag.startswith("eval/") for _, value in points)


@pytest.mark.slow  # trains a MaskablePPO model (imports torch)
def test_sb3_gets_the_folder_as_its_tensorboard_log(tmp_path):
    for extra in ("torch", "stable_baselines3", "sb3_contrib"):
        pytest.importorskip(extra)
    module = load_script("train_sb3", "tensorboard")
    logdir = tmp_path / "tb"
    module.main(
        ["--timesteps", "100", "--n-envs", "2", "--eval-games", "2", "--alphabeta-games", "1", "--no-progress"]
        + ["--out", str(tmp_path / "m.zip"), "--tensorboard", str(logdir)]
    )
    assert [path.name for path in logdir.iterdir()] == ["MaskablePPO_1"]  # SB3's own run folder
    assert "rollout/ep_rew_mean" in read_scalars(logdir)  # SB3 logs each rollout; its losses from the second on


# ---- without the extra -------------------------------------------------------------------------


BLOCKED = """
import runpy, sys
sys.modules["tensorboard"] = None  # an import of tensorboard fails, as without the extra
sys.argv = [sys.argv[1], *sys.argv[2:]]
runpy.run_path(sys.argv[0], run_name="__main__")
"""


@pytest.mark.slow  # a subprocess run of each script
@pytest.mark.parametrize(
    ("script", "argv"),
    [
        ("train_tictactoe_td.py", []),  # the default budget: minutes, were it to start
        ("train_blackjack_mc.py", []),
        ("train_sb3.py", []),
        ("train_alphazero.py", []),
    ],
)
def test_without_the_extra_the_flag_is_refused_in_one_line_before_any_work(script, argv, tmp_path):
    result = subprocess.run(
        [sys.executable, "-c", BLOCKED, str(ROOT / "scripts" / script), *argv, "--tensorboard", "tb"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        timeout=120,
    )
    assert result.returncode == 2 and result.stdout == ""
    assert result.stderr.strip().splitlines()[-1] == f"{script}: error: {TENSORBOARD_MISSING}"
    assert "Traceback" not in result.stderr
    assert list(tmp_path.iterdir()) == []  # no log folder, no model
