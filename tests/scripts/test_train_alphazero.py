"""scripts/train_alphazero.py: every game trains end to end on a tiny budget, resumes, and refuses bad input."""

import json
import shutil
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


GAME_ARGS = {
    "tictactoe": ["--game", "tictactoe"],
    "connectn": ["--game", "connectn", "--rows", "5", "--cols", "5", "--n", "4", "--no-gravity", "--workers", "1"],
    "dots": ["--game", "dots", "--rows", "2", "--cols", "2", "--workers", "1"],
}


@pytest.fixture(scope="module")
def trained(tmp_path_factory):
    """``trained(game)``: the result and model path of the game's tiny training run, made once per module
    (each run costs a process start with PyTorch; the resume test continues the tic-tac-toe one)."""
    runs = {}

    def train(game):
        if game not in runs:
            out = tmp_path_factory.mktemp(game) / "model.npz"
            tiny = [*GAME_ARGS[game], *TINY, "--eval-games", "2", "--baseline-simulations", "5"]
            runs[game] = run(*tiny, "--out", out), out
        return runs[game]

    return train


@pytest.mark.parametrize("game", list(GAME_ARGS))
def test_each_game_trains_saves_a_playable_model_and_a_summary(trained, game):
    result, out = trained(game)
    assert result.returncode == 0, result.stderr
    summary = json.loads(result.stdout.strip().splitlines()[-1])
    assert summary["iterations"] == 1 and summary["games"] == 4 and summary["positions"] > 0
    assert out.is_file() and (out.parent / "model.train.npz").is_file() and (out.parent / "model_curve.png").is_file()
    from agents.alphazero import AlphaZeroAgent

    agent = AlphaZeroAgent.load(out, n_simulations=8)
    state = agent.game.initial_state()
    assert agent.act(agent.game, state) in agent.game.legal_actions(state)


def test_resume_continues_the_iterations(trained, tmp_path):
    first, trained_out = trained("tictactoe")
    assert first.returncode == 0, first.stderr
    # Resume a copy, so the model the test above loads stays the one-iteration one.
    out = tmp_path / "model.npz"
    for name in ("model.npz", "model.train.npz"):
        shutil.copy(trained_out.parent / name, tmp_path / name)
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
