"""AlphaZero's self-play on a real two-node Ray cluster (issue 21): the workers are placed on both nodes and
every game comes back whole, through :class:`SelfPlayPool` and through ``train_alphazero.py --ray-address``.

The cluster is two Ray nodes on this machine (``ray.cluster_utils.Cluster``: a head and a second node, one CPU
each, so two workers cannot both run on one node), always shut down by the fixture. Where each task ran is read
from Ray's state API (the head's dashboard, part of ``ray[default]``). Opt-in: skipped without Ray, and slow.
"""

import json
import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

ray = pytest.importorskip("ray", reason="the rllib extra (ray) is needed for a Ray cluster")
pytest.importorskip("aiohttp", reason="Ray's state API (which node ran a task) needs ray[default]'s dashboard")
pytest.importorskip("torch", reason="the alphazero extra (PyTorch) is needed for self-play workers")

from agents.alphazero.config import NetConfig, SelfPlayConfig  # noqa: E402
from agents.alphazero.encoding import encoder_for  # noqa: E402
from agents.alphazero.workers import SelfPlayPool, selfplay_tasks, selfplay_worker  # noqa: E402
from gym_boardgames.rules import TicTacToe  # noqa: E402

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[3]
SCRIPT = ROOT / "scripts" / "train_alphazero.py"
WORKER = "selfplay_worker"  # the Ray task's function name, as the state API lists it
TINY = ["--game", "tictactoe", "--iterations", "2", "--games", "8", "--parallel-games", "4", "--simulations", "8"]
TINY += ["--eval-every", "0", "--workers", "2", "--quiet", "--json"]


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@pytest.fixture(scope="module")
def cluster():
    """A head and a second node, one CPU each; ``cluster.node_ids`` holds both nodes' ids."""
    from ray.cluster_utils import Cluster

    # No node_ip_address: Ray 2.60's ray.init rewrites a 127.0.0.1 address to the machine's own IP, so nodes
    # bound to loopback alone could never be joined (the driver retries for many minutes). The nodes take the
    # address `ray start` gives them.
    cluster = Cluster()
    try:
        head = cluster.add_node(num_cpus=1, include_dashboard=True, dashboard_port=_free_port())
        second = cluster.add_node(num_cpus=1)
        cluster.wait_for_nodes()
        cluster.node_ids = {head.node_id, second.node_id}
        yield cluster
    finally:
        ray.shutdown()  # the driver SelfPlayPool connected, if a test made one
        cluster.shutdown()


def finished_tasks(cluster, expected: int, exclude_job: str | None = None, timeout: float = 60.0) -> list:
    """The cluster's finished self-play tasks (waiting for Ray's task events, which arrive every second)."""
    from ray.util.state import list_tasks

    deadline = time.monotonic() + timeout
    while True:
        tasks = [
            task
            for task in list_tasks(address=cluster.address, filters=[("func_or_class_name", "=", WORKER)], detail=True)
            if task.job_id != exclude_job and task.state == "FINISHED"
        ]
        if len(tasks) >= expected or time.monotonic() > deadline:
            return tasks
        time.sleep(0.5)


def assert_complete(tasks, results) -> None:
    """Every task's games came back with all their positions: a policy (a distribution) and a value each."""
    assert len(results) == len(tasks)
    for task, (samples, summaries) in zip(tasks, results, strict=True):
        assert len(summaries) == task["games"]
        positions = sum(summary.moves for summary in summaries)
        assert len(samples.planes) == len(samples.policies) == len(samples.values) == positions > 0
        np.testing.assert_allclose(samples.policies.sum(axis=1), 1.0, atol=1e-5)
        assert set(np.unique(samples.values)) <= {-1.0, 0.0, 1.0}


def assert_same(results, expected) -> None:
    for (samples, summaries), (want_samples, want_summaries) in zip(results, expected, strict=True):
        assert summaries == want_summaries
        for got, want in zip(samples, want_samples, strict=True):
            np.testing.assert_allclose(got, want, atol=1e-6)


@pytest.fixture(scope="module")
def tasks():
    """Two workers' shares of 6 tic-tac-toe games with a small random network, run by numpy."""
    import torch

    from agents.alphazero.torch_model import PolicyValueNet, params_of

    game = TicTacToe()
    encoder = encoder_for(game)
    net = NetConfig(*encoder.shape, encoder.num_actions, channels=8, blocks=1, value_hidden=16)
    torch.manual_seed(0)
    params = params_of(PolicyValueNet(net))
    selfplay = SelfPlayConfig(simulations=6, parallel_games=2, temperature_moves=9)
    return selfplay_tasks(game, net, params, selfplay, "numpy", 6, seeds=[11, 12])


def test_the_completeness_check_catches_a_lost_share(tasks):
    results = [selfplay_worker(task) for task in tasks]
    assert_complete(tasks, results)
    with pytest.raises(AssertionError):
        assert_complete(tasks, results[:1])  # one node's share missing
    samples, summaries = results[1]
    with pytest.raises(AssertionError):
        assert_complete(tasks, [results[0], (type(samples)(*(a[:-1] for a in samples)), summaries)])


def test_pool_runs_workers_on_both_nodes_and_returns_every_game(cluster, tasks):
    pool = SelfPlayPool(2, ray_address=cluster.address)
    try:
        results = pool.run(tasks)
    finally:
        pool.close()
    assert_complete(tasks, results)
    # The same games as this process plays from the same seeds: nothing lost, reordered or mixed up.
    assert_same(results, [selfplay_worker(task) for task in tasks])
    job = ray.get_runtime_context().get_job_id()
    ran = [task for task in finished_tasks(cluster, len(tasks)) if task.job_id == job]
    assert len(ran) == len(tasks)
    assert {task.node_id for task in ran} == cluster.node_ids, "the workers did not run on both nodes"


def test_train_alphazero_ray_address_uses_both_nodes_like_local_workers(cluster, tmp_path):
    env = {**os.environ, "SDL_VIDEODRIVER": "dummy"}
    env.pop("RAY_ADDRESS", None)
    runs = {}
    for name, extra in (("ray", ["--ray-address", cluster.address]), ("local", [])):
        (tmp_path / name).mkdir()
        out = tmp_path / name / "model.npz"
        result = subprocess.run(
            [sys.executable, str(SCRIPT), *TINY, *extra, "--out", str(out)],
            capture_output=True,
            text=True,
            timeout=600,
            env=env,
        )
        assert result.returncode == 0, result.stderr[-3000:]
        summary = json.loads(result.stdout.strip().splitlines()[-1])
        with np.load(out.parent / "model.train.npz") as state:
            replay = {key: state[f"replay.{key}"] for key in ("planes", "policies", "values")}
        runs[name] = summary, replay
    summary, replay = runs["ray"]
    assert summary["iterations"] == 2 and summary["games"] == 16
    assert len(replay["values"]) == len(replay["policies"]) == len(replay["planes"]) == summary["positions"] > 0
    # The replay window of the two-node run holds exactly the local worker processes' samples.
    local_summary, local_replay = runs["local"]
    assert summary["positions"] == local_summary["positions"]
    for key in replay:
        np.testing.assert_allclose(replay[key], local_replay[key], atol=1e-5, err_msg=key)
    this_driver = ray.get_runtime_context().get_job_id() if ray.is_initialized() else None
    ran = finished_tasks(cluster, 4, exclude_job=this_driver)
    assert len(ran) == 4, "2 iterations x 2 workers"
    assert {task.node_id for task in ran} == cluster.node_ids, "the workers did not run on both nodes"
