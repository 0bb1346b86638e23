"""train_rllib.py: runs on a local Ray instance with two env runners (skipped without the rllib extra)."""

import json
import os
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))  # importlib import mode: put the sibling helper on the path
from script_helpers import load_script, run_script  # noqa: E402


def test_rllib_trains_with_two_env_runners_and_reports_json():
    pytest.importorskip("ray.rllib", reason='the rllib extra is not installed: pip install -e ".[rllib]"')
    args = ["--iterations", "1", "--batch", "500", "--eval-games", "20", "--env-runners", "2", "--json"]
    env = {key: value for key, value in os.environ.items() if not key.endswith("_NUM_THREADS")}
    result = run_script("train_rllib", *args, timeout=600, env=env)
    assert result.returncode == 0, result.stderr[-2000:]
    summary = json.loads(result.stdout.strip().splitlines()[-1])
    assert summary["env_runners"] == 2 and len(summary["episode_return_mean"]) == 1
    assert sum(summary["vs_random"].values()) == 20
    # The default of --threads reached PyTorch in the learner's process and in both env runners'.
    assert summary["threads"] == summary["torch_threads"] == 1
    assert summary["env_runner_torch_threads"] == [1, 1]


def test_threads_flag_reaches_torch_and_the_ray_workers_before_ray_starts(monkeypatch):
    """--threads 3 sets the variables and torch.set_num_threads before ray.init, and hands the variables to
    Ray's workers; ray.init is stopped there, so nothing trains."""
    pytest.importorskip("ray.rllib", reason='the rllib extra is not installed: pip install -e ".[rllib]"')
    import ray
    import torch

    module = load_script("train_rllib")
    for name in module.THREAD_VARIABLES:
        monkeypatch.setenv(name, "7")  # restored after the test, as the script overwrites them
    seen = {}

    class Stop(Exception):
        pass

    def init(**kwargs):
        seen.update(
            kwargs, torch=torch.get_num_threads(), env={name: os.environ[name] for name in module.THREAD_VARIABLES}
        )
        raise Stop

    monkeypatch.setattr(ray, "init", init)
    before = torch.get_num_threads()
    try:
        with pytest.raises(Stop):
            module.main(["--threads", "3", "--iterations", "1"])
    finally:
        torch.set_num_threads(before)
    want = dict.fromkeys(module.THREAD_VARIABLES, "3")
    assert seen["torch"] == 3 and seen["env"] == want
    assert seen["runtime_env"] == {"env_vars": want}


def test_missing_rllib_or_bad_arguments_give_clear_errors():
    result = run_script("train_rllib", "--env-runners", "0")
    assert result.returncode == 2 and "argument --env-runners: must be an integer >= 1, got 0" in result.stderr
    result = run_script("train_rllib", "--threads", "0")
    assert result.returncode == 2 and "argument --threads: must be an integer >= 1, got 0" in result.stderr
    try:
        import ray.rllib  # noqa: F401
    except ImportError:
        result = run_script("train_rllib")
        assert result.returncode != 0 and 'pip install -e ".[rllib]"' in result.stderr
