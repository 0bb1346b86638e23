"""scripts/train_alphazero.py: every game trains end to end on a tiny budget, resumes, and refuses bad input."""

import json
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "scripts" / "train_alphazero.py"
TINY = ["--iterations", "1", "--games", "4", "--parallel-games", "4", "--simulations", "4", "--quiet", "--json"]

pytest.importorskip("torch", reason="the alphazero extra (PyTorch) is needed to train")


def run(*args, cwd=None):
    return subprocess.run(
        [sys.executable, str(SCRIPT), *map(str, args)],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=cwd,
        env={"SDL_VIDEODRIVER": "dummy", "PATH": "/usr/bin:/bin", "HOME": tempfile.gettempdir()},
    )


@pytest.mark.parametrize(
    "game_args",
    [
        ["--game", "tictactoe"],
        ["--game", "connectn", "--rows", "5", "--cols", "5", "--n", "4", "--no-gravity", "--workers", "1"],
        ["--game", "dots", "--rows", "2", "--cols", "2", "--workers", "1"],
    ],
    ids=["tictactoe", "connectn", "dots"],
)
def test_each_game_trains_saves_a_playable_model_and_a_summary(tmp_path, game_args):
    out = tmp_path / "model.npz"
    result = run(*game_args, *TINY, "--eval-games", "2", "--baseline-simulations", "5", "--out", out)
    assert result.returncode == 0, result.stderr
    summary = json.loads(result.stdout.strip().splitlines()[-1])
    assert summary["iterations"] == 1 and summary["games"] == 4 and summary["positions"] > 0
    assert out.is_file() and (tmp_path / "model.train.npz").is_file() and (tmp_path / "model_curve.png").is_file()
    from agents.alphazero import AlphaZeroAgent

    agent = AlphaZeroAgent.load(out, n_simulations=8)
    state = agent.game.initial_state()
    assert agent.act(agent.game, state) in agent.game.legal_actions(state)


def test_resume_continues_the_iterations(tmp_path):
    out = tmp_path / "ttt.npz"
    assert run(*TINY, "--eval-every", "0", "--out", out).returncode == 0
    result = run("--resume", out, "--iterations", "2", "--quiet", "--json", "--out", out)
    assert result.returncode == 0, result.stderr
    summary = json.loads(result.stdout.strip().splitlines()[-1])
    assert summary["iterations"] == 2 and summary["games"] == 8  # the resumed run keeps its 4 games per iteration


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--game", "tictactoe", "--rows", "4"], "--rows/--cols are for connectn and dots"),
        (["--games", "0"], "argument --games"),
        (["--epsilon", "2"], "--epsilon must be in"),
        (["--out", "/nonexistent/dir/model.npz"], "--out"),
        (["--resume", "/nonexistent/state.train.npz"], "--resume"),
        (["--game", "connectn", "--rows", "100"], "at most 64"),
    ],
)
def test_bad_input_is_one_line_and_status_2_before_any_work(tmp_path, args, message):
    result = run(*args, "--quiet", cwd=tmp_path)
    assert result.returncode == 2, result.stderr
    assert message in result.stderr and "Traceback" not in result.stderr
    assert not list(tmp_path.iterdir())


def test_ray_workers_run_the_same_self_play(tmp_path):
    pytest.importorskip("ray", reason="the rllib extra (ray) is needed for --ray-address")
    out = tmp_path / "ray.npz"
    result = run(*TINY, "--ray-address", "local", "--workers", "2", "--eval-every", "0", "--out", out)
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout.strip().splitlines()[-1])["games"] == 4 and out.is_file()
