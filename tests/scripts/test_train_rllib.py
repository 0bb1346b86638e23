"""train_rllib.py: runs on a local Ray instance with two env runners (skipped without the rllib extra)."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def test_rllib_trains_with_two_env_runners_and_reports_json():
    pytest.importorskip("ray.rllib", reason="the 'rllib' extra is not installed: pip install -e '.[rllib]'")
    result = subprocess.run(
        [
            sys.executable,
            str(ROOT / "scripts" / "train_rllib.py"),
            "--iterations",
            "1",
            "--batch",
            "500",
            "--eval-games",
            "20",
            "--env-runners",
            "2",
            "--json",
        ],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert result.returncode == 0, result.stderr[-2000:]
    summary = json.loads(result.stdout.strip().splitlines()[-1])
    assert summary["env_runners"] == 2 and len(summary["episode_return_mean"]) == 1
    assert sum(summary["vs_random"].values()) == 20


def test_missing_rllib_or_bad_arguments_give_clear_errors():
    result = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "train_rllib.py"), "--env-runners", "0"], capture_output=True, text=True
    )
    assert result.returncode == 2 and "--env-runners must be >= 1" in result.stderr
    try:
        import ray.rllib  # noqa: F401
    except ImportError:
        result = subprocess.run(
            [sys.executable, str(ROOT / "scripts" / "train_rllib.py")], capture_output=True, text=True
        )
        assert result.returncode != 0 and "pip install -e '.[rllib]'" in result.stderr
