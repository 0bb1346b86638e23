"""train_sb3.py: MaskablePPO never plays an illegal move, and the script runs end to end on a tiny budget.

Skipped when the 'sb3' extra (stable-baselines3, sb3-contrib, torch) is missing, except the checks that
need none of it (--help, and the message when the extra is missing).
"""

import json
import subprocess
import sys
from pathlib import Path

import gymnasium as gym
import pytest

from agents.matches.arena import play_match
from gym_boardgames.rules import TicTacToe

sys.path.insert(0, str(Path(__file__).parent))  # importlib import mode: put the sibling helper on the path
import script_helpers  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "scripts" / "train_sb3.py"
SKIP_REASON = "the 'sb3' extra is not installed (stable-baselines3, sb3-contrib, torch): pip install -e '.[sb3]'"


def needs_sb3() -> None:
    for module in ("torch", "stable_baselines3", "sb3_contrib"):
        pytest.importorskip(module, reason=SKIP_REASON)


def run_script(*args, check=True):
    return script_helpers.run_script("train_sb3", *args, check=check, timeout=120)


def load_script():
    return script_helpers.load_script("train_sb3", "test")


def test_help_mentions_the_extra_and_pickled_zips():
    result = run_script("--help")
    assert "--algo" in result.stdout and "maskableppo" in result.stdout
    assert "sb3" in result.stdout and "pickled" in result.stdout


def test_bad_arguments_exit_with_status_2():
    result = run_script("--timesteps", "0", check=False)
    assert result.returncode == 2 and "argument --timesteps: must be an integer >= 1, got 0" in result.stderr


def test_missing_extra_gives_a_clear_message(tmp_path):
    # Block the imports, as if the extra were not installed, and run the script as __main__.
    code = (
        "import runpy, sys\n"
        "sys.modules['sb3_contrib'] = None\n"
        "sys.modules['stable_baselines3'] = None\n"
        f"sys.argv = ['train_sb3.py', '--out', {str(tmp_path / 'm.zip')!r}]\n"
        f"runpy.run_path({str(SCRIPT)!r}, run_name='__main__')\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=60)
    assert result.returncode == 2
    assert "'sb3' extra" in result.stderr and "pip install" in result.stderr
    assert not (tmp_path / "m.zip").exists()


@pytest.mark.slow
def test_maskable_ppo_never_plays_an_illegal_move():
    needs_sb3()
    import torch

    torch.set_num_threads(1)
    script = load_script()
    venv = script.make_vec_env("TicTacToe-v0", "random", n_envs=4, seed=5)
    model = script.make_model("maskableppo", venv, seed=5, net_arch=[64])
    model.learn(total_timesteps=3072)
    assert script.illegal_moves_in(venv) == 0
    agent = script.SB3Agent(model, masked=True)
    result = play_match(TicTacToe(), agent, "random", 100, seed=5)
    assert result.total.games == 100
    assert agent.moves > 100 and agent.illegal_moves == 0
    venv.close()


@pytest.mark.slow
def test_script_trains_evaluates_saves_and_prints_json(tmp_path):
    needs_sb3()
    out = tmp_path / "model.zip"
    result = run_script(
        "--timesteps", "2048", "--eval-games", "20", "--alphabeta-games", "4", "--seed", "1",
        "--out", str(out), "--json", "--no-progress",
    )  # fmt: skip
    summary = json.loads(result.stdout.strip().splitlines()[-1])
    assert summary["algo"] == "maskableppo" and summary["timesteps"] == 2048
    assert summary["train_illegal_moves"] == 0 and summary["eval_illegal_moves"] == 0
    assert summary["eval_illegal_games"] == 0
    assert sum(summary["vs_random"]["total"].values()) == 20
    assert sum(summary["vs_alphabeta"]["total"].values()) == 4
    assert summary["vs_alphabeta"]["total"]["win"] == 0  # nobody beats perfect play
    assert "policy vs" in result.stdout and "illegal moves in evaluation: 0" in result.stdout
    assert out.is_file() and out.stat().st_size > 0
    assert not [p for p in tmp_path.iterdir() if p.name.endswith(".tmp") or p.name.startswith(".")]

    from sb3_contrib import MaskablePPO

    loaded = MaskablePPO.load(out, device="cpu")  # our own file, so unpickling it is safe
    agent = load_script().SB3Agent(loaded, masked=True)
    play_match(TicTacToe(), agent, "random", 10, seed=0)
    assert agent.illegal_moves == 0


@pytest.mark.slow
def test_connect_four_in_self_play(tmp_path):
    needs_sb3()
    out = tmp_path / "c4.zip"
    result = run_script(
        "--game", "connectfour", "--opponent", "self", "--timesteps", "2048", "--eval-games", "10",
        "--alphabeta-games", "2", "--out", str(out), "--json", "--no-progress",
    )  # fmt: skip
    summary = json.loads(result.stdout.strip().splitlines()[-1])
    assert summary["game"] == "connectfour" and summary["opponent"] == "self"
    assert summary["alphabeta"] == "alphabeta:4" and sum(summary["vs_alphabeta"]["total"].values()) == 2
    assert summary["train_illegal_moves"] == 0 and out.is_file()


def test_an_unknown_opponent_is_refused_before_training(tmp_path):
    result = run_script("--opponent", "bogus", "--out", str(tmp_path / "m.zip"), check=False)
    assert result.returncode == 2 and "--opponent: unknown opponent 'bogus'" in result.stderr
    assert "alphabeta[:DEPTH]" in result.stderr and not (tmp_path / "m.zip").exists()


def test_the_saved_model_has_the_mode_every_other_output_has(tmp_path):
    needs_sb3()
    from stable_baselines3 import PPO

    script = load_script()
    model = PPO("MlpPolicy", gym.make("CartPole-v1"), n_steps=64, device="cpu")
    script.save_model(model, str(tmp_path / "m.zip"))
    (tmp_path / "plain.txt").write_text("a file opened the usual way")
    assert (tmp_path / "m.zip").stat().st_mode & 0o777 == (tmp_path / "plain.txt").stat().st_mode & 0o777
    assert sorted(p.name for p in tmp_path.iterdir()) == ["m.zip", "plain.txt"]  # no temporary file left
    PPO.load(tmp_path / "m.zip", device="cpu")
