"""The self-play worker pool: an iteration's games in this process, in local processes, or as Ray tasks.

:func:`selfplay_tasks` splits an iteration's games into one task per worker; :func:`selfplay_worker` plays one
task (the network's weights travel as numpy arrays, and each worker runs it on one thread); :class:`SelfPlayPool`
runs the tasks where the run asked for them. PyTorch is imported inside the functions that need it (as Ray is
inside the pool that uses it), so importing this module needs numpy only.

Workers run the network on the CPU whatever the run's device (:mod:`agents.alphazero.device`): each spawned
process would open a CUDA context of its own (hundreds of MB each, all contending for one device), and a
worker's batch of ``parallel_games`` positions is the size a CPU core runs well. Only self-play in the
trainer's own process runs the network on the run's device (:func:`make_forward`'s ``device``).
"""

from __future__ import annotations

import os
from typing import Any

import numpy as np

from agents.alphazero.agent import NetworkEvaluator
from agents.alphazero.config import NetConfig, SelfPlayConfig
from agents.alphazero.encoding import recorded_game
from agents.alphazero.network import NumpyNet
from agents.alphazero.selfplay import GameSummary, Samples, play_games
from gym_boardgames.rules.registry import game_to_config
from gym_boardgames.utils import WAKE_S, process_pool, require_extra

#: Seconds to wait for a Ray cluster's port before giving up (ray.init itself retries for minutes).
RAY_CONNECT_TIMEOUT = 5.0


class TorchForward:
    """``forward(planes) -> (logits, values)`` of a PyTorch model in inference mode, as numpy arrays.

    The planes go to the model's device and the outputs come back to the CPU (the search is numpy).
    """

    def __init__(self, model: Any) -> None:
        import torch

        self._torch = torch
        self.model = model.eval()
        self._device = next(model.parameters()).device

    def forward(self, planes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Run the model on ``(B, C, H, W)`` planes."""
        batch = self._torch.from_numpy(np.ascontiguousarray(planes, dtype=np.float32)).to(self._device)
        with self._torch.inference_mode():
            logits, values = self.model(batch)
        return logits.cpu().numpy(), values.cpu().numpy()


def make_forward(inference: str, net: NetConfig, params: dict[str, np.ndarray], device: str = "cpu") -> Any:
    """Return the network of ``params`` run by PyTorch on ``device`` or by numpy (``inference``), in inference mode.

    ``device`` (``"cpu"`` or ``"cuda"``, :class:`agents.alphazero.device.Device`'s name) is PyTorch's only:
    numpy runs on the CPU.
    """
    if inference == "numpy":
        return NumpyNet(net, params)
    from agents.alphazero.torch_model import PolicyValueNet, load_params

    model = PolicyValueNet(net).to(device)
    load_params(model, params)
    return TorchForward(model)


def selfplay_worker(task: dict[str, Any]) -> tuple[Samples, list[GameSummary]]:
    """Play a share of an iteration's games in a worker process (or a Ray actor) and return the samples.

    Args:
        task: ``game`` (its :func:`~gym_boardgames.rules.registry.game_to_config` record), ``net`` (a
            :class:`NetConfig` dict), ``params`` (numpy arrays by name), ``selfplay`` (a :class:`SelfPlayConfig`
            dict), ``games`` and ``seed``.
    """
    import torch

    torch.set_num_threads(1)  # one core per worker: the workers themselves are the parallelism
    game, encoder = recorded_game(task["game"])
    net = make_forward(task["inference"], NetConfig(**task["net"]), task["params"])
    evaluator = NetworkEvaluator(game, net, encoder)
    rng = np.random.default_rng(task["seed"])
    return play_games(game, encoder, evaluator, task["games"], SelfPlayConfig(**task["selfplay"]), rng)


def selfplay_tasks(
    game: Any,
    net: NetConfig,
    params: dict[str, np.ndarray],
    selfplay: SelfPlayConfig,
    inference: str,
    games: int,
    seeds: list[int],
) -> list[dict[str, Any]]:
    """Split ``games`` self-play games into one :func:`selfplay_worker` task per seed (one per worker).

    The shares differ by at most one game; a worker with no game gets no task.
    """
    workers = len(seeds)
    shared = {"game": game_to_config(game), "net": net.to_dict(), "params": params, "selfplay": selfplay.to_dict()}
    shares = [games // workers + (w < games % workers) for w in range(workers)]
    return [
        {**shared, "inference": inference, "games": share, "seed": int(seed)}
        for share, seed in zip(shares, seeds, strict=True)
        if share > 0
    ]


def _init_worker() -> None:
    os.environ["OMP_NUM_THREADS"] = "1"


def check_ray_reachable(address: str, timeout: float = RAY_CONNECT_TIMEOUT) -> None:
    """Check that something listens at a Ray address (``host:port`` or ``ray://host:port``) before ``ray.init``.

    ``"auto"`` and ``"local"`` are left to Ray. ``ray.init`` on an address where nothing listens keeps
    retrying for minutes; this fails in ``timeout`` seconds instead.

    Raises:
        ConnectionError: naming the address, if it cannot be reached or has no port.
    """
    if address in ("auto", "local"):
        return
    import socket

    rest = address.split("://", 1)[-1]
    host, sep, port = rest.rpartition(":")
    if not sep or not port.isdigit() or not 0 < int(port) < 65536:
        raise ConnectionError(f"cannot reach the Ray cluster at {address!r}: give HOST:PORT, ray://HOST:PORT or auto")
    try:
        with socket.create_connection((host.strip("[]") or "127.0.0.1", int(port)), timeout=timeout):
            pass
    except OSError as error:
        raise ConnectionError(f"cannot reach the Ray cluster at {address}: {error.strerror or error}") from None


class SelfPlayPool:
    """Runs self-play in this process, in local worker processes, or as Ray tasks on a cluster.

    Args:
        workers: processes (or Ray tasks) per iteration; 1 plays in this process.
        ray_address: a Ray cluster address (``"auto"``, ``"ray://host:10001"``) to run the workers as Ray
            tasks instead of local processes; None for local.
        force_processes: use a worker process even for ``workers=1`` (to time the pool itself).
    """

    def __init__(self, workers: int, ray_address: str | None = None, force_processes: bool = False) -> None:
        self.workers = workers
        #: True when self-play runs in this process.
        self.local = self.plays_here(workers, ray_address) and not force_processes
        self._pool: Any = None
        self._ray: Any = None
        if ray_address is not None:
            require_extra("rllib", "ray", needed_for="--ray-address")
            check_ray_reachable(ray_address)
            import ray

            ray.init(address=ray_address, ignore_reinit_error=True, log_to_driver=False)
            self._ray = ray
            self._remote = ray.remote(num_cpus=1)(selfplay_worker)
        elif not self.local:
            # spawned (forking a process that has started PyTorch's thread pools can deadlock), ignoring Ctrl-C
            self._pool = process_pool(workers, _init_worker)

    @staticmethod
    def plays_here(workers: int, ray_address: str | None = None) -> bool:
        """Return whether a pool of ``workers`` (and ``ray_address``) plays self-play in this process."""
        return ray_address is None and workers == 1

    def run(self, tasks: list[dict[str, Any]]) -> list[tuple[Samples, list[GameSummary]]]:
        """Run the tasks (one per worker) and return their results in order."""
        if self._ray is not None:
            return self._ray.get([self._remote.remote(task) for task in tasks])
        if self._pool is not None:
            pending = self._pool.map_async(selfplay_worker, tasks)
            while not pending.ready():  # waking, so that Ctrl-C or SIGTERM is answered during a long iteration
                pending.wait(WAKE_S)
            return pending.get()
        return [selfplay_worker(task) for task in tasks]

    def close(self) -> None:
        """Stop the worker processes."""
        if self._pool is not None:
            # The tasks are done (or abandoned: an error, Ctrl-C); waiting for abandoned ones could take minutes.
            self._pool.terminate()
            self._pool.join()
            self._pool = None
