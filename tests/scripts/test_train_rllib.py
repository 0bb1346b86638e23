"""train_rllib.py: runs on a local Ray instance with two env runners (skipped without the rllib extra)."""

import json
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))  # importlib import mode: put the sibling helper on the path
from script_helpers import run_script  # noqa: E402


def test_rllib_trains_with_two_env_runners_and_reports_json():
    pytest.importorskip("ray.rllib", reason='the rllib extra is not installed: pip install -e ".[rllib]"')
    args = ["--iterations", "1", "--batch", "500", "--eval-games", "20", "--env-runners", "2", "--json"]
    result = run_script("train_rllib", *args, timeout=600)
    assert result.returncode == 0, result.stderr[-2000:]
    summary = json.loads(result.stdout.strip().splitlines()[-1])
    assert summary["env_runners"] == 2 and len(summary["episode_return_mean"]) == 1
    assert sum(summary["vs_random"].values()) == 20


def test_missing_rllib_or_bad_arguments_give_clear_errors():
    result = run_script("train_rllib", "--env-runners", "0")
    assert result.returncode == 2 and "argument --env-runners: must be an integer >= 1, got 0" in result.stderr
    try:
        import ray.rllib  # noqa: F401
    except ImportError:
        result = run_script("train_rllib")
        assert result.returncode != 0 and 'pip install -e ".[rllib]"' in result.stderr
