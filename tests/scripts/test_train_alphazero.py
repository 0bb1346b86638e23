"""scripts/train_alphazero.py: every game trains end to end on a tiny budget, resumes, and refuses bad input."""

import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))  # importlib import mode: put the sibling helper on the path
import script_helpers  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "scripts" / "train_alphazero.py"
#: A one-iteration tic-tac-toe run's training state (see tests/agents/alphazero/test_checkpoint.py), whose
#: settings are TrainConfig's defaults but these: iterations 2, games 2, channels 4, blocks 1, value_hidden 8,
#: eval_games 0, replay_window 64, n_simulations 2, parallel_games 2, seed 3.
OLD_STATE = ROOT / "tests" / "agents" / "alphazero" / "data" / "tictactoe_v1.train.npz"
TINY = ["--iterations", "1", "--games", "4", "--parallel-games", "4", "--simulations", "4", "--quiet", "--json"]

pytest.importorskip("torch", reason="the alphazero extra (PyTorch) is needed to train")


def run(*args, cwd=None):
    return subprocess.run(
        [sys.executable, str(SCRIPT), *map(str, args)],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=cwd,
        # PYTHONPATH kept: the script imports the package the tests import (a worktree's, not an installed one)
        env={"SDL_VIDEODRIVER": "dummy", "PATH": "/usr/bin:/bin", "HOME": tempfile.gettempdir()}
        | {k: v for k, v in os.environ.items() if k == "PYTHONPATH"},
    )


GAME_ARGS = {
    "tictactoe": ["--game", "tictactoe"],
    "connectn": ["--game", "connectn", "--rows", "5", "--cols", "5", "--n", "4", "--no-gravity", "--workers", "1"],
    "dotsandboxes": ["--game", "dotsandboxes", "--rows", "2", "--cols", "2", "--workers", "1"],
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
@pytest.mark.slow
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


@pytest.mark.slow
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


def load_script():
    return script_helpers.load_script("train_alphazero", "outputs")


@pytest.mark.slow
@pytest.mark.parametrize(
    ("flags", "message"),
    [
        ([], "the run is finished (1 of 1 iterations done; give a larger --iterations to continue it)"),
        (["--iterations", "3", "--time-limit", "0.001"], "training seconds done; give a larger --time-limit"),
    ],
)
def test_resuming_a_finished_run_is_refused_saying_how_to_continue_it(trained, tmp_path, capsys, flags, message):
    first, trained_out = trained("tictactoe")
    assert first.returncode == 0, first.stderr
    for name in ("model.npz", "model.train.npz"):
        shutil.copy(trained_out.parent / name, tmp_path / name)
    before = {path.name: path.read_bytes() for path in tmp_path.iterdir()}
    with pytest.raises(SystemExit) as info:  # it used to train nothing, then print "saved" as if it had
        load_script().parse_args(["--resume", str(tmp_path / "model.npz"), *flags])
    assert info.value.code == 2
    lines = capsys.readouterr().err.strip().splitlines()
    assert len(lines) == 1 and message in lines[0] and f"--resume {tmp_path / 'model.train.npz'}: " in lines[0]
    assert {path.name: path.read_bytes() for path in tmp_path.iterdir()} == before


@pytest.mark.slow  # a subprocess run of the script
def test_an_existing_model_is_refused_before_any_training(tmp_path):
    out = tmp_path / "model.npz"
    out.write_bytes(b"a trained player")
    result = run("--game", "connectfour", "--out", out, cwd=tmp_path)  # a 2-hour default budget, were it to start
    assert result.returncode == 2 and result.stdout == ""
    assert result.stderr.strip().splitlines()[-1] == (
        f"train_alphazero.py: error: --out {out} exists: pass --overwrite to replace it"
    )
    assert out.read_bytes() == b"a trained player" and sorted(p.name for p in tmp_path.iterdir()) == ["model.npz"]


def test_resume_writes_back_to_its_own_run_and_refuses_another_existing_file(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)  # where a new run's default output would go
    script = load_script()
    run_dir = tmp_path / "runs"
    run_dir.mkdir()
    for name in ("c4.npz", "c4_curve.png", "other.npz"):
        (run_dir / name).write_bytes(b"x")
    shutil.copy(OLD_STATE, run_dir / "c4.train.npz")  # a real state: resuming checks the flags against its settings
    model, state = str(run_dir / "c4.npz"), str(run_dir / "c4.train.npz")
    for resume in (model, state):  # by default the run's own three files, replaced without --overwrite
        args = script.parse_args(["--resume", resume])
        assert (args.out, args.plot) == (model, str(run_dir / "c4_curve.png"))
        assert script.parse_args(["--resume", resume, "--out", model]).out == model
    fresh = str(run_dir / "continued.npz")  # a new name for the continued run is fine too
    assert script.parse_args(["--resume", model, "--out", fresh]).out == fresh
    other = str(run_dir / "other.npz")
    with pytest.raises(SystemExit) as info:
        script.parse_args(["--resume", model, "--out", other])
    assert info.value.code == 2
    last = capsys.readouterr().err.strip().splitlines()[-1]
    assert last.endswith(f": error: --out {other} exists: pass --overwrite to replace it")
    assert script.parse_args(["--resume", model, "--out", other, "--overwrite"]).out == other
    assert sorted(p.name for p in tmp_path.iterdir()) == ["runs"]


def _saved_run(tmp_path):
    """A copy of OLD_STATE as ``tmp_path/run.train.npz``, and its settings."""
    from agents.alphazero.checkpoint import read_settings

    state = tmp_path / "run.train.npz"
    shutil.copy(OLD_STATE, state)
    return str(state), read_settings(state)[1]


def test_a_resumed_run_applies_each_flag_given_that_differs_and_says_it_in_one_line(tmp_path):
    script = load_script()
    state, saved = _saved_run(tmp_path)
    argv = ["--resume", state, "--lr", "0.01", "--games", "3", "--simulations", "5", "--dirichlet-alpha", "0.3"]
    args = script.parse_args([*argv, "--batch-size", "256", "--channels", "4", "--seed", "3"])  # the last: as saved
    assert args.applied == [  # in --help's order
        "--games 3: applied (the saved run had 2)",
        "--simulations 5: applied (the saved run had 2)",
        "--dirichlet-alpha 0.3: applied (the saved run had 0.5)",
        "--lr 0.01: applied (the saved run had 0.002)",
    ]
    changed = {"lr": 0.01, "games": 3, "simulations": 5, "dirichlet_alpha": 0.3}
    assert args.changes == changed and args.config.settings() == {**saved.settings(), **changed}


def test_flags_not_given_keep_the_saved_settings_not_the_games_preset(tmp_path):
    from agents.alphazero.config import PRESETS

    state, saved = _saved_run(tmp_path)
    args = load_script().parse_args(["--resume", state])
    assert args.changes == {} and args.applied == [] and args.config == saved
    assert saved.settings() != PRESETS["tictactoe"].settings()  # so the preset would have shown


@pytest.mark.parametrize(
    ("flags", "message"),
    [
        (["--channels", "8"], "--channels 8: cannot change on resume: the saved parameters and Adam's moments have "),
        (["--value-hidden", "16"], "--value-hidden 16: cannot change on resume: the saved parameters"),
        (["--seed", "5"], "--seed 5: cannot change on resume: the run's random state is restored from its file"),
        (["--game", "connectfour"], "--game: the game cannot change on resume (the run learns TicTacToe"),
        (["--rows", "4"], "--rows: the game cannot change on resume"),
    ],
)
def test_a_resumed_run_refuses_a_flag_that_cannot_change_in_one_line_and_writes_nothing(
    tmp_path, capsys, flags, message
):
    script = load_script()
    state, _ = _saved_run(tmp_path)
    before = sorted(tmp_path.iterdir())
    with pytest.raises(SystemExit) as info:
        script.parse_args(["--resume", state, "--lr", "0.01", *flags])
    assert info.value.code == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and f": error: {message}" in err[0], err
    assert sorted(tmp_path.iterdir()) == before


@pytest.mark.slow  # trains one iteration in this process
def test_the_applied_settings_train_and_are_saved_with_the_run(tmp_path, capsys):
    from agents.alphazero.checkpoint import read_settings

    script = load_script()
    state, saved = _saved_run(tmp_path)
    argv = ["--resume", state, "--games", "3", "--lr", "0.01", "--eval-every", "0", "--quiet", "--json"]
    assert script.main(argv) == 0
    out = capsys.readouterr().out
    assert "--games 3: applied (the saved run had 2)\n--lr 0.01: applied (the saved run had 0.002)\n" in out
    assert json.loads(out.strip().splitlines()[-1])["games"] == 2 + 3  # the saved iteration's and the new one's
    changed = {"games": 3, "lr": 0.01, "eval_every": 0}
    assert read_settings(state)[1].settings() == {**saved.settings(), **changed}


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--game", "tictactoe", "--rows", "4"], "tictactoe does not take --rows"),
        (["--games", "0"], "argument --games"),
        (["--dirichlet-epsilon", "2"], "argument --dirichlet-epsilon: must be a number in [0, 1], got 2.0"),
        (["--out", "/nonexistent/dir/model.npz"], "--out"),
        pytest.param(["--resume", "/nonexistent/state.train.npz"], "--resume", marks=pytest.mark.slow),
        pytest.param(["--game", "connectn", "--rows", "100"], "at most 64", marks=pytest.mark.slow),
        # games against the exact solver need a board it plays
        (["--game", "tictactoe", "--perfect-games", "2"], "--perfect-games 2: the exact solver plays gravity boards"),
        (["--game", "connectfour", "--init", "shipped", "--channels", "8"], "--init shipped: its network is"),
        (["--game", "connectn", "--rows", "5", "--cols", "5", "--init", "shipped"], "--init shipped: no shipped model"),
        (["--init", "/nonexistent/model.npz"], "/nonexistent/model.npz"),
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


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--replay-window", str(10**12)], "argument --replay-window: must be an integer in [1, 100000000]"),
        (["--replay-window", str(90_000_000)], "--replay-window 90,000,000 is too large for this game: at most"),
        (["--threads", str(10**9)], "argument --threads: must be an integer in [1, 64]"),
        (["--workers", str(10**7)], "argument --workers: must be an integer in [1, 64]"),
        (["--channels", "100000"], "network channels must be an integer in [1, 512]"),
        (["--seed", str(10**30)], "argument --seed: must be an integer in [0,"),
        (
            [
                "--game",
                "connectn",
                "--rows",
                "64",
                "--cols",
                "64",
                "--no-gravity",
                "--channels",
                "512",
                "--replay-window",
                "1000",
            ],
            "multiply-adds",
        ),
        (["--episode", "3"], "unrecognized arguments: --episode"),
    ],
)
@pytest.mark.slow
def test_unbounded_flags_are_refused_in_one_line(tmp_path, args, message):
    result = run(*args, "--quiet", cwd=tmp_path)
    assert result.returncode == 2 and message in result.stderr, result.stderr
    assert "Traceback" not in result.stderr and not list(tmp_path.iterdir())


def _tiny_state(trained, tmp_path):
    """A copy of the tic-tac-toe tiny run's model and training state in ``tmp_path``."""
    first, trained_out = trained("tictactoe")
    assert first.returncode == 0, first.stderr
    for name in ("model.npz", "model.train.npz"):
        shutil.copy(trained_out.parent / name, tmp_path / name)
    return tmp_path / "model.npz", tmp_path / "model.train.npz"


def _rewrite_state(path, arrays=None, meta=None):
    """Rewrite a training state with some arrays or metadata replaced (as a hostile edit would)."""
    import numpy as np

    from agents.alphazero.checkpoint import TRAIN_FORMAT, TRAIN_VERSION
    from agents.persistence import save_npz

    with np.load(path, allow_pickle=False) as data:
        header = json.loads(str(data["__header__"]))
        kept = {k: data[k] for k in data.files if k != "__header__"}
    kept.update(arrays or {})
    meta = dict(meta or {})
    if "curve" in meta:  # the curve is an array of its JSON's bytes
        kept["curve"] = np.frombuffer(json.dumps(meta.pop("curve")).encode(), np.uint8)
    save_npz(path, kept, format=TRAIN_FORMAT, version=TRAIN_VERSION, meta={**header["meta"], **meta})


@pytest.mark.slow
def test_bad_training_states_are_refused_in_one_line_naming_the_file(trained, tmp_path):
    """Each check of the file is tested in tests/agents/alphazero/test_checkpoint.py; here, the script's line."""
    import numpy as np

    model, state = _tiny_state(trained, tmp_path)
    with np.load(state, allow_pickle=False) as data:
        values = data["replay.values"].copy()
    values[0] = np.nan
    for arrays, meta, message in (
        ({"replay.values": values}, None, "NaN"),
        (None, {"curve": [{"iteration": "x"}]}, "bad run record"),
    ):
        shutil.copy(trained("tictactoe")[1].parent / "model.train.npz", state)
        _rewrite_state(state, arrays, meta)
        result = run("--resume", model, "--iterations", "2", "--quiet", "--out", model)
        assert result.returncode == 2, result.stderr
        assert "error:" in result.stderr and "model.train.npz" in result.stderr and message in result.stderr
        assert "Traceback" not in result.stderr
    state.unlink()
    result = run("--resume", model, "--quiet")
    assert result.returncode == 2 and "no training state at" in result.stderr and "Traceback" not in result.stderr


@pytest.mark.slow
def test_a_diverged_network_is_never_saved_over_a_good_one(tmp_path):
    import numpy as np

    from agents.alphazero.config import SelfPlayConfig, TrainConfig
    from agents.alphazero.training import Trainer
    from agents.alphazero.workers import SelfPlayPool
    from gym_boardgames.rules import TicTacToe

    out = tmp_path / "model.npz"
    config = TrainConfig(
        iterations=1,
        games=2,
        channels=8,
        blocks=1,
        eval_every=0,
        selfplay=SelfPlayConfig(simulations=2, parallel_games=2),
    )
    trainer = Trainer(TicTacToe(), config, out)
    trainer.step(SelfPlayPool(1))  # one iteration: self-play, training and its save
    before = (out.read_bytes(), (tmp_path / "model.train.npz").read_bytes())
    with trainer.torch.no_grad():
        next(trainer.model.parameters()).fill_(float("nan"))
    with pytest.raises(ValueError, match="training diverged"):
        trainer.save()
    assert (out.read_bytes(), (tmp_path / "model.train.npz").read_bytes()) == before
    assert np.isfinite(Trainer.resume(out).params()["stem.conv.weight"]).all()


@pytest.mark.slow
def test_a_full_disk_ends_the_run_in_one_line_and_keeps_resumable_files(tmp_path, monkeypatch, capsys):
    import errno

    from agents import persistence
    from agents.alphazero.training import Trainer

    script = load_script()  # restores the BLAS thread settings the script sets at import
    out = tmp_path / "model.npz"
    calls = []

    def full_disk_after_first(path, data, **options):
        calls.append(str(path))
        if len(calls) > 2:  # the first iteration's state and model are written, then the disk is full
            raise OSError(errno.ENOSPC, "No space left on device", str(path))
        return write(path, data, **options)

    write = persistence.write_bytes_atomic  # what every saved file (the state and the model) is written with
    monkeypatch.setattr(persistence, "write_bytes_atomic", full_disk_after_first)
    status = script.main(
        [
            "--iterations",
            "3",
            "--games",
            "2",
            "--parallel-games",
            "2",
            "--simulations",
            "2",
            "--eval-every",
            "0",
            "--quiet",
            "--out",
            str(out),
        ]
    )
    err = capsys.readouterr().err
    assert status == 1 and "error:" in err and "No space left on device" in err and "model.train.npz" in err
    assert calls[2].endswith("model.train.npz")  # the state is written before the model
    monkeypatch.undo()
    assert Trainer.resume(out).iteration == 1  # what was saved resumes


class _FakeTrainer:
    """Stands in for Trainer: each iteration plays its games (calling on_game) and takes 10 training seconds."""

    def __init__(self, game, config, out, ray_address=None, log=None, *, device):  # the script passes a Device
        from agents.alphazero.device import Throughput

        self.game, self.config, self.on_game = game, config, None
        self.iteration, self.seconds, self.games, self.positions, self.selfplay_seconds = 0, 0.0, 0, 0, 1.0
        self.device, self.throughput = device, Throughput(device.name)

    def device_line(self):
        return f"device: {self.device}"

    def run(self):
        while self.iteration < self.config.iterations and self.seconds < self.config.time_limit:
            for _ in range(self.config.games):
                self.on_game(None)
                self.games += 1
            self.iteration, self.seconds = self.iteration + 1, self.seconds + 10.0
        return []


@pytest.mark.parametrize(
    ("iterations", "time_limit", "ends"),
    [(5, 1000, 50), (100, 30, 30)],  # the cap's 5 x 10 s comes first; the time limit's 30 s comes first
)
def test_the_time_bar_runs_to_whichever_end_comes_first(monkeypatch, tmp_path, iterations, time_limit, ends):
    from agents.alphazero import training

    module = script_helpers.load_script("train_alphazero", "test")
    bars = []

    class Bar:  # tqdm's ETA is (total - n) / rate: the total must be the run's real end
        def __init__(self, total, desc, enabled=True):
            self.total, self.desc, self.n, self.totals = total, desc, 0, []
            bars.append(self)

        def update(self, n=1):
            self.n += n
            self.totals.append(self.total)

        def close(self):
            pass

    monkeypatch.setattr(training, "Trainer", _FakeTrainer)
    monkeypatch.setattr(module, "progress_bar", Bar)
    flags = ["--iterations", iterations, "--time-limit", time_limit, "--games", "2", "--out", tmp_path / "m.npz"]
    assert module.main([str(flag) for flag in flags]) == 0
    (bar,) = bars
    assert bar.desc == "training seconds"
    # Before an iteration ends there is no rate: the bar's opening and the first two games count to the time limit.
    assert bar.totals[:3] == [time_limit] * 3 and set(bar.totals[3:]) == {ends}
    assert bar.n == ends - 10  # the last iteration's seconds come after its last game


def test_init_starts_a_new_run_from_the_models_weights_and_refuses_a_resumed_run(tmp_path):
    """--init shipped: the first network is the shipped one (a learning rate of ~0 keeps it), not random weights."""
    import numpy as np

    from agents.alphazero.agent import AlphaZeroAgent, load_pretrained

    out = tmp_path / "m.npz"
    result = run(*TINY, "--game", "tictactoe", "--init", "shipped", "--lr", "1e-8", "--eval-every", "0", "--out", out)
    assert result.returncode == 0, result.stderr
    assert "starting from the weights of shipped" in result.stdout
    shipped, trained = load_pretrained("tictactoe").params, AlphaZeroAgent.load(out).params
    # The learned weights stay put (batch norm's running statistics follow the new batches whatever the rate).
    learned = [k for k in shipped if "running_" not in k]
    assert all(np.allclose(trained[k], shipped[k], atol=1e-6) for k in learned)
    fresh = tmp_path / "fresh.npz"
    assert run(*TINY, "--game", "tictactoe", "--lr", "1e-8", "--eval-every", "0", "--out", fresh).returncode == 0
    fresh_params = AlphaZeroAgent.load(fresh).params
    assert max(float(np.abs(fresh_params[k] - shipped[k]).max()) for k in learned) > 0.1  # random weights
    again = run("--resume", out, "--init", "shipped", "--quiet", cwd=tmp_path)
    assert again.returncode == 2 and "--init: a resumed run continues its own network" in again.stderr


# ---- --device ------------------------------------------------------------------------------------


@pytest.mark.slow  # trains two iterations in this process
def test_device_cpu_trains_reports_its_speeds_and_resumes_on_the_cpu(tmp_path, capsys):
    out = tmp_path / "model.npz"
    # --inference torch: self-play's batched network call runs on the device too (the preset's is numpy)
    argv = [*TINY, "--inference", "torch", "--eval-every", "0", "--device", "cpu", "--out", str(out)]
    assert load_script().main(argv) == 0
    printed = capsys.readouterr().out
    assert "\ndevice: cpu (as asked)\n" in printed
    summary = json.loads(printed.strip().splitlines()[-1])
    assert summary["device"] == "cpu" and summary["iterations"] == 1
    assert summary["selfplay_positions_per_second"] > 0 and summary["learner_steps_per_second"] > 0
    assert load_script().main(["--resume", str(out), "--iterations", "2", "--device", "cpu", "--quiet", "--json"]) == 0
    resumed = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert resumed["iterations"] == 2 and resumed["games"] == 8 and resumed["device"] == "cpu"
    assert resumed["learner_steps_per_second"] > 0  # this process's own steps, not the saved run's


def test_device_auto_is_the_default_and_resolves_to_the_cpu_without_cuda(tmp_path, monkeypatch):
    import torch

    from agents.alphazero.device import Device

    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    script = load_script()
    for given in ([], ["--device", "auto"]):
        args = script.parse_args([*given, "--out", str(tmp_path / "m.npz")])
        assert args.device == Device("cpu", "auto: no CUDA device")


def test_device_cuda_without_a_cuda_device_is_refused_before_anything_is_written(tmp_path, monkeypatch, capsys):
    import torch

    if torch.cuda.is_available():
        pytest.skip("PyTorch sees a CUDA device here")
    monkeypatch.chdir(tmp_path)
    with pytest.raises(SystemExit) as info:
        load_script().main(["--device", "cuda", "--out", str(tmp_path / "m.npz"), "--quiet"])
    assert info.value.code == 2
    (line,) = capsys.readouterr().err.strip().splitlines()
    said = f": error: --device cuda: PyTorch sees no CUDA device (torch {torch.__version__}, "
    assert said in line and line.endswith("); use --device cpu or auto"), line
    assert not list(tmp_path.iterdir())


def test_an_unknown_device_is_refused_by_the_parser_naming_the_choices(capsys):
    with pytest.raises(SystemExit) as info:
        load_script().parse_args(["--device", "tpu"])
    assert info.value.code == 2
    (line,) = capsys.readouterr().err.strip().splitlines()[-1:]
    assert "argument --device: invalid choice: 'tpu' (choose from " in line
    assert all(choice in line.split("choose from ")[1] for choice in ("auto", "cpu", "cuda"))
