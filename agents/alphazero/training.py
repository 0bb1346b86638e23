"""AlphaZero's training loop: batched self-play, a replay window, and the policy-value loss (PyTorch).

Each iteration:

1. **Self-play**: ``games_per_iteration`` games with the current network (:mod:`agents.alphazero.selfplay`),
   in this process or in ``workers`` processes (or Ray actors on a cluster), each playing its share with
   ``parallel_games`` games at once. Workers get the network's weights as numpy arrays and run it with
   PyTorch on one thread each.
2. **Replay window**: the samples join a window of the most recent ``replay_window`` positions.
3. **Training**: ``epochs * new positions / batch_size`` gradient steps (at least one), each on a batch
   drawn uniformly from the window, every sample under a random symmetry of the board, minimising
   AlphaGo Zero's loss ``(z - v)^2 - pi . log p + c ||theta||^2``; the L2 term is AdamW's (decoupled)
   weight decay. The learning rate decays linearly to 10% over the iterations.
4. **Checkpoint**: the model (``out``, loadable by :meth:`AlphaZeroAgent.load`) and the training state
   (``out`` with ``.train.npz``: optimizer moments, the replay window, the curve and the iteration), both
   atomic, so ``resume`` continues where a run stopped.
5. **Evaluation** every ``eval_every`` iterations (for the learning curve): the share of optimal moves of
   the raw network where the game is small enough to solve, and the search player's score against fixed
   baselines.
6. **Gating** (optional): the new network plays the best one so far (``gate_games`` games through
   :func:`agents.arena.play_match`); it becomes the self-play network only if it scores at least
   ``gate_threshold``.
"""

from __future__ import annotations

import math
import multiprocessing
import os
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np

from agents.alphazero._checks import check_int, check_number
from agents.alphazero.agent import AlphaZeroAgent, NetworkEvaluator, game_from_spec, game_spec, same_game
from agents.alphazero.encoding import BoardEncoder, encoder_for
from agents.alphazero.network import NetConfig, NumpyNet
from agents.alphazero.selfplay import GameSummary, Samples, SelfPlayConfig, play_games
from agents.persistence import ArraySpec, load_npz, save_npz
from gym_boardgames.utils import require_extra

TRAIN_FORMAT = "gym_boardgames.alphazero.training"
TRAIN_VERSION = 1
#: Largest training-state file accepted on resume (the replay window dominates it).
MAX_TRAIN_FILE_BYTES = 1 << 30
#: Most memory the replay window may take (float32 planes, policies and values of every kept position):
#: checked from the settings before allocating, so neither a flag nor a small file can ask for terabytes.
MAX_REPLAY_BYTES = 4 << 30
#: Upper bounds of the settings that size processes, threads and loops (far above any run on one machine;
#: a larger value is a typo that would otherwise spawn processes or threads until the machine gives out).
MAX_WORKERS = 64
MAX_THREADS = 64
MAX_SEED = 2**63 - 1


_UPPER = {
    "iterations": 10_000_000,
    "games_per_iteration": 100_000,
    "batch_size": 65_536,
    "replay_window": 100_000_000,  # and MAX_REPLAY_BYTES, checked with the game's encoding
    "workers": MAX_WORKERS,
    "threads": MAX_THREADS,
    "baseline_simulations": 1_000_000,
    "eval_games": 100_000,
    "eval_simulations": 1_000_000,
    "gate_games": 100_000,
    "seed": MAX_SEED,
    "eval_every": 10_000_000,
}


def replay_bytes(window: int, encoder: BoardEncoder) -> int:
    """Return the bytes a replay window of ``window`` positions of ``encoder``'s game takes (float32)."""
    return window * 4 * (math.prod(encoder.shape) + encoder.num_actions + 1)


@dataclass(frozen=True)
class TrainConfig:
    """Everything a training run depends on (saved with every checkpoint).

    Attributes:
        iterations: self-play + training rounds.
        games_per_iteration: self-play games per round.
        selfplay: search and move-selection settings of self-play.
        channels: network trunk width.
        blocks: residual blocks.
        value_hidden: value head's hidden width.
        policy_channels: filters of the policy head's 1x1 convolution.
        value_channels: filters of the value head's 1x1 convolution.
        lr: AdamW learning rate at the start (decays linearly to 10%).
        weight_decay: AdamW's decoupled weight decay (the loss's L2 term).
        batch_size: samples per gradient step.
        epochs: gradient samples per new position: each iteration runs ``epochs * new / batch_size`` steps.
        replay_window: positions kept for training (the most recent).
        workers: self-play processes (1: in this process).
        eval_every: iterations between evaluations (0: never).
        eval_games: games per baseline at each evaluation.
        eval_simulations: the search player's simulations at evaluation.
        baseline_simulations: simulations of the MCTS baseline (random rollouts).
        gate_games: games against the best network before adopting a new one (0: no gating).
        gate_threshold: score (wins + draws / 2) the new network needs to be adopted.
        time_limit: stop after this many seconds of training (0: no limit); the run ends after the
            iteration that crosses it.
        threads: PyTorch threads for training. 1 by default: on a 2-core machine with anything else running,
            2 threads measured 4-30x slower per step than 1 (threads spin waiting for each other).
        inference: what runs the network in self-play: ``"torch"`` (faster on big boards and batches) or
            ``"numpy"`` (faster on tic-tac-toe, whose batches are small and cheap).
        seed: the run's seed.
    """

    iterations: int = 20
    games_per_iteration: int = 64
    selfplay: SelfPlayConfig = field(default_factory=SelfPlayConfig)
    channels: int = 32
    blocks: int = 3
    value_hidden: int = 64
    policy_channels: int = 2
    value_channels: int = 1
    lr: float = 2e-3
    weight_decay: float = 1e-4
    batch_size: int = 256
    epochs: float = 4.0
    replay_window: int = 50_000
    workers: int = 1
    eval_every: int = 1
    eval_games: int = 10
    eval_simulations: int = 50
    baseline_simulations: int = 200
    gate_games: int = 0
    gate_threshold: float = 0.55
    time_limit: float = 0.0
    threads: int = 1
    inference: str = "torch"
    seed: int = 0

    def __post_init__(self) -> None:
        for name in (
            "iterations",
            "games_per_iteration",
            "channels",
            "value_hidden",
            "policy_channels",
            "value_channels",
            "batch_size",
            "replay_window",
            "workers",
            "baseline_simulations",
            "threads",
        ):
            check_int(name, getattr(self, name), 1, _UPPER.get(name))
        for name in ("blocks", "eval_every", "gate_games", "seed", "eval_games", "eval_simulations"):
            check_int(name, getattr(self, name), 0, _UPPER.get(name))
        if self.inference not in ("torch", "numpy"):
            raise ValueError(f"inference must be 'torch' or 'numpy', got {self.inference!r}")
        check_number("lr", self.lr, 1e-8, 10.0)
        check_number("weight_decay", self.weight_decay, 0.0, 10.0)
        check_number("epochs", self.epochs, 0.0, 1e6)
        check_number("gate_threshold", self.gate_threshold, 0.0, 1.0)
        check_number("time_limit", self.time_limit, 0.0, 1e9)

    def to_dict(self) -> dict[str, Any]:
        """Return the settings as a JSON-ready dict."""
        return asdict(self)

    @staticmethod
    def from_dict(data: Any) -> TrainConfig:
        """Rebuild the settings saved by :meth:`to_dict` (validated)."""
        if not isinstance(data, dict) or not isinstance(data.get("selfplay"), dict):
            raise ValueError("the training settings must be an object with a 'selfplay' object")
        known = set(TrainConfig.__dataclass_fields__)
        if set(data) - known:
            raise ValueError(f"unknown training settings {sorted(set(data) - known)}")
        return TrainConfig(**{**data, "selfplay": SelfPlayConfig(**data["selfplay"])})


class TorchForward:
    """``forward(planes) -> (logits, values)`` of a PyTorch model in inference mode, as numpy arrays."""

    def __init__(self, model: Any) -> None:
        import torch

        self._torch = torch
        self.model = model.eval()

    def forward(self, planes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Run the model on ``(B, C, H, W)`` planes."""
        with self._torch.inference_mode():
            logits, values = self.model(self._torch.from_numpy(np.ascontiguousarray(planes, dtype=np.float32)))
        return logits.numpy(), values.numpy()


def selfplay_worker(task: dict[str, Any]) -> tuple[Samples, list[GameSummary]]:
    """Play a share of an iteration's games in a worker process (or a Ray actor) and return the samples.

    Args:
        task: ``game`` (a :func:`game_spec`), ``net`` (a :class:`NetConfig` dict), ``params`` (numpy arrays
            by name), ``selfplay`` (a :class:`SelfPlayConfig` dict), ``games`` and ``seed``.
    """
    import torch

    torch.set_num_threads(1)  # one core per worker: the workers themselves are the parallelism
    game = game_from_spec(task["game"])
    evaluator = NetworkEvaluator(game, _forward(task["inference"], NetConfig(**task["net"]), task["params"]))
    rng = np.random.default_rng(task["seed"])
    return play_games(game, evaluator.encoder, evaluator, task["games"], SelfPlayConfig(**task["selfplay"]), rng)


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
    tasks = []
    for w, seed in enumerate(seeds):
        share = games // workers + (w < games % workers)
        if share > 0:
            tasks.append(
                {
                    "game": game_spec(game),
                    "net": net.to_dict(),
                    "params": params,
                    "selfplay": selfplay.to_dict(),
                    "inference": inference,
                    "games": share,
                    "seed": int(seed),
                }
            )
    return tasks


def _forward(inference: str, net: NetConfig, params: dict[str, np.ndarray]) -> Any:
    """Return the network of ``params`` run by PyTorch or numpy (``inference``), in inference mode."""
    if inference == "numpy":
        return NumpyNet(net, params)
    from agents.alphazero.torch_model import PolicyValueNet, load_params

    model = PolicyValueNet(net)
    load_params(model, params)
    return TorchForward(model)


def _init_worker() -> None:
    os.environ["OMP_NUM_THREADS"] = "1"


#: Iterations between log lines when a run has no evaluations.
LOG_EVERY = 10
#: Seconds to wait for a Ray cluster's port before giving up (ray.init itself retries for minutes).
RAY_CONNECT_TIMEOUT = 5.0


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
        self.local = ray_address is None and workers == 1 and not force_processes
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
            # spawn, not fork: forking a process that has started PyTorch's thread pools can deadlock.
            self._pool = multiprocessing.get_context("spawn").Pool(workers, initializer=_init_worker)

    def run(self, tasks: list[dict[str, Any]]) -> list[tuple[Samples, list[GameSummary]]]:
        """Run the tasks (one per worker) and return their results in order."""
        if self._ray is not None:
            return self._ray.get([self._remote.remote(task) for task in tasks])
        if self._pool is not None:
            return self._pool.map(selfplay_worker, tasks)
        return [selfplay_worker(task) for task in tasks]

    def close(self) -> None:
        """Stop the worker processes."""
        if self._pool is not None:
            self._pool.close()
            self._pool.join()
            self._pool = None


class ReplayWindow:
    """The most recent ``capacity`` training samples, in ring buffers."""

    def __init__(self, capacity: int, encoder: BoardEncoder) -> None:
        self.capacity = capacity
        self.planes = np.zeros((capacity, *encoder.shape), dtype=np.float32)
        self.policies = np.zeros((capacity, encoder.num_actions), dtype=np.float32)
        self.values = np.zeros(capacity, dtype=np.float32)
        self.size = 0
        self.next = 0

    def add(self, samples: Samples) -> None:
        """Append samples, overwriting the oldest once full."""
        n = len(samples.values)
        if n >= self.capacity:
            samples = Samples(*(a[-self.capacity :] for a in samples))
            n = self.capacity
        index = (self.next + np.arange(n)) % self.capacity
        self.planes[index], self.policies[index], self.values[index] = samples
        self.next = int((self.next + n) % self.capacity)
        self.size = min(self.capacity, self.size + n)

    def ordered(self) -> Samples:
        """Return the kept samples, oldest first."""
        if self.size < self.capacity:
            index = np.arange(self.size)
        else:
            index = (self.next + np.arange(self.capacity)) % self.capacity
        return Samples(self.planes[index], self.policies[index], self.values[index])


@dataclass
class CurvePoint:
    """One evaluation of a training run (a point of the learning curve)."""

    iteration: int
    seconds: float
    games: int
    positions: int
    policy_loss: float
    value_loss: float
    optimal_rate: float | None = None
    scores: dict[str, float] = field(default_factory=dict)
    #: Connect Four 6x7: the raw network's share of moves that keep the result on the shipped label set
    #: (:mod:`agents.perfect_play`), over all positions and over the critical ones.
    outcome_kept: float | None = None
    outcome_kept_critical: float | None = None


class Trainer:
    """One AlphaZero training run (see the module docstring).

    Args:
        game: the rules object to learn.
        config: the run's settings.
        out: where the model is saved after every iteration (the training state goes beside it).
        ray_address: run self-play workers as Ray tasks on this cluster.
        log: called with a one-line message after every iteration.
        on_game: called after each self-play game played in this process (progress bars).

    Attributes:
        on_iteration: if set, called with each iteration's :class:`CurvePoint` once the iteration is saved
            (its evaluation filled in on evaluated iterations): the scripts' TensorBoard logging.
    """

    def __init__(
        self,
        game: Any,
        config: TrainConfig,
        out: str | os.PathLike[str],
        ray_address: str | None = None,
        log: Callable[[str], None] | None = None,
        on_game: Callable[[GameSummary], None] | None = None,
    ) -> None:
        require_extra("alphazero", "torch", needed_for="training an AlphaZero network")
        import torch

        from agents.alphazero.torch_model import PolicyValueNet

        self.torch = torch
        self.game = game
        self.config = config
        self.out = os.fspath(out)
        self.ray_address = ray_address
        self.log = log or (lambda message: None)
        self.on_game = on_game
        self.on_iteration: Callable[[CurvePoint], None] | None = None
        self.encoder = encoder_for(game)
        needed = replay_bytes(config.replay_window, self.encoder)
        if needed > MAX_REPLAY_BYTES:
            most = MAX_REPLAY_BYTES // replay_bytes(1, self.encoder)
            raise ValueError(
                f"a replay window of {config.replay_window:,} positions of {game!r} takes {needed / 2**30:.1f} GiB, "
                f"more than the {MAX_REPLAY_BYTES / 2**30:.0f} GiB limit: use at most {most:,} positions"
            )
        self.net_config = NetConfig(
            *self.encoder.shape,
            self.encoder.num_actions,
            channels=config.channels,
            blocks=config.blocks,
            value_hidden=config.value_hidden,
            policy_channels=config.policy_channels,
            value_channels=config.value_channels,
        )
        torch.set_num_threads(config.threads)
        torch.manual_seed(config.seed)
        self.rng = np.random.default_rng(config.seed)
        self.model = PolicyValueNet(self.net_config)
        self.optimizer = torch.optim.AdamW(self.model.parameters(), lr=config.lr, weight_decay=config.weight_decay)
        self.replay = ReplayWindow(config.replay_window, self.encoder)
        self.best_params: dict[str, np.ndarray] | None = None  # the self-play network when gating
        self.iteration = 0
        self.seconds = 0.0
        self.games = 0
        self.positions = 0
        self.selfplay_seconds = 0.0
        self.curve: list[CurvePoint] = []
        self._exact: Any = None

    # ---- the loop ------------------------------------------------------------------------------

    def params(self) -> dict[str, np.ndarray]:
        """Return the current network's parameters as numpy arrays."""
        from agents.alphazero.torch_model import params_of

        return params_of(self.model)

    def agent(
        self, n_simulations: int = 0, params: dict[str, np.ndarray] | None = None, seed: int = 0
    ) -> AlphaZeroAgent:
        """Return the current (or given) network as a numpy-backed player."""
        return AlphaZeroAgent(
            self.game,
            self.net_config,
            params if params is not None else self.params(),
            n_simulations=n_simulations,
            c_puct=self.config.selfplay.c_puct,
            seed=seed,
        )

    def run(self) -> list[CurvePoint]:
        """Train until ``iterations`` (or ``time_limit``) and return the learning curve."""
        config = self.config
        pool = SelfPlayPool(config.workers, self.ray_address)
        try:
            while self.iteration < config.iterations:
                if config.time_limit and self.seconds >= config.time_limit:
                    self.log(f"time limit of {config.time_limit:.0f} s reached after {self.iteration} iterations")
                    break
                self.step(pool)
        finally:
            pool.close()
        return self.curve

    def step(self, pool: SelfPlayPool) -> None:
        """Run one iteration: self-play, training, evaluation, gating and checkpoint."""
        config = self.config
        start = time.perf_counter()
        samples, summaries = self._self_play(pool)
        self.selfplay_seconds += time.perf_counter() - start
        self.replay.add(samples)
        self.games += len(summaries)
        self.positions += len(samples.values)
        steps = max(1, math.ceil(config.epochs * len(samples.values) / config.batch_size))
        # Decay over the run's length: its iterations, or its time limit if that ends it first.
        fraction = self.iteration / max(1, config.iterations - 1)
        if config.time_limit:
            fraction = max(fraction, self.seconds / config.time_limit)
        fraction = min(fraction, 1.0)
        for group in self.optimizer.param_groups:
            group["lr"] = config.lr * (1.0 - 0.9 * fraction)
        policy_loss, value_loss = self.train_steps(steps)
        self.iteration += 1
        self.seconds += time.perf_counter() - start
        adopted = self._gate()
        point = CurvePoint(self.iteration, self.seconds, self.games, self.positions, policy_loss, value_loss)
        evaluated = bool(
            config.eval_every and (self.iteration % config.eval_every == 0 or self.iteration == config.iterations)
        )
        eval_seconds = 0.0
        if evaluated:
            eval_start = time.perf_counter()
            self._evaluate(point)
            eval_seconds = time.perf_counter() - eval_start
        self.curve.append(point)
        self.save()
        if self.on_iteration is not None:
            self.on_iteration(point)
        results = f"{sum(s.result > 0 for s in summaries)}/{sum(s.result == 0 for s in summaries)}/"
        results += f"{sum(s.result < 0 for s in summaries)}"
        message = (
            f"iter {self.iteration}: {len(summaries)} games ({results} first/draw/second), "
            f"{len(samples.values)} positions, {steps} steps, loss p={policy_loss:.3f} v={value_loss:.3f}, "
            f"{self.seconds:.0f} s"
        )
        if point.optimal_rate is not None:
            message += f", optimal {100 * point.optimal_rate:.1f}%"
        if point.outcome_kept is not None:
            message += (
                f", outcome kept {100 * point.outcome_kept:.1f}% ({100 * point.outcome_kept_critical:.1f}% critical)"
            )
        if point.scores:
            message += ", " + ", ".join(f"vs {k} {100 * v:.0f}%" for k, v in point.scores.items())
        if adopted is not None:
            message += f", gate {'adopted' if adopted else 'kept the best'}"
        if evaluated:
            message += f" (evaluation {eval_seconds:.1f} s, not counted)"
        # One line per evaluation (or every LOG_EVERY iterations without them), so a run's log stays short.
        if evaluated or (not config.eval_every and self.iteration % LOG_EVERY == 0):
            self.log(message)

    def _self_play(self, pool: SelfPlayPool) -> tuple[Samples, list[GameSummary]]:
        config = self.config
        params = self.best_params if self.best_params is not None else self.params()
        seeds = self.rng.integers(2**63, size=pool.workers).tolist()
        if pool.local:
            evaluator = NetworkEvaluator(self.game, _forward(config.inference, self.net_config, params), self.encoder)
            return play_games(
                self.game,
                self.encoder,
                evaluator,
                config.games_per_iteration,
                config.selfplay,
                np.random.default_rng(seeds[0]),
                self.on_game,
            )
        tasks = selfplay_tasks(
            self.game, self.net_config, params, config.selfplay, config.inference, config.games_per_iteration, seeds
        )
        results = pool.run(tasks)
        if self.on_game is not None:
            for _, summaries in results:
                for summary in summaries:
                    self.on_game(summary)
        return Samples.concat([r[0] for r in results]), [s for r in results for s in r[1]]

    def train_steps(self, steps: int) -> tuple[float, float]:
        """Run ``steps`` gradient steps on random augmented batches of the window; return the mean losses."""
        config = self.config
        self.model.train()
        total_p = total_v = 0.0
        n_sym = len(self.encoder.symmetries)
        for _ in range(steps):
            index = self.rng.integers(self.replay.size, size=min(config.batch_size, self.replay.size))
            planes, policies = self.encoder.augment(
                self.replay.planes[index], self.replay.policies[index], self.rng.integers(n_sym, size=len(index))
            )
            p_loss, v_loss = self.loss(planes, policies, self.replay.values[index])
            self.optimizer.zero_grad()
            (p_loss + v_loss).backward()
            self.optimizer.step()
            total_p += float(p_loss.detach())
            total_v += float(v_loss.detach())
        self.model.eval()
        return total_p / steps, total_v / steps

    def loss(self, planes: np.ndarray, policies: np.ndarray, values: np.ndarray) -> tuple[Any, Any]:
        """Return AlphaGo Zero's policy loss ``-pi . log p`` and value loss ``(z - v)^2``, batch means."""
        torch = self.torch
        logits, v = self.model(torch.from_numpy(planes))
        log_p = torch.log_softmax(logits, dim=1)
        policy_loss = -(torch.from_numpy(policies) * log_p).sum(dim=1).mean()
        value_loss = ((torch.from_numpy(values) - v) ** 2).mean()
        return policy_loss, value_loss

    # ---- evaluation and gating -----------------------------------------------------------------

    def _gate(self) -> bool | None:
        """Play the new network against the best; adopt it if it scores enough. None without gating."""
        config = self.config
        if not config.gate_games:
            return None
        if self.best_params is None:
            self.best_params = self.params()
            return True
        from agents.arena import play_match

        new, best = (
            self.agent(config.eval_simulations, seed=1),
            self.agent(config.eval_simulations, self.best_params, 2),
        )
        result = play_match(self.game, new, best, config.gate_games, seed=config.seed).total
        score = (result.win + result.draw / 2) / config.gate_games
        if score >= config.gate_threshold:
            self.best_params = self.params()
            return True
        return False

    def _evaluate(self, point: CurvePoint) -> None:
        from agents.arena import play_match
        from agents.mcts import MCTSAgent

        config = self.config
        labels = self._label_set()
        if labels is not None:
            from agents.perfect_play import grade, network_moves

            report = grade(labels, network_moves(self.agent(0).evaluator, labels))
            point.outcome_kept = report["outcome_kept"]
            point.outcome_kept_critical = report["critical"]["outcome_kept"]
        exact = self._solved_game()
        if exact is not None:
            from agents.alphazero.evaluation import greedy_moves, optimal_move_rate

            point.optimal_rate = optimal_move_rate(exact, greedy_moves(self.agent(0).evaluator, self.game))
        if config.eval_games:
            baselines = {"random": "random", f"mcts{config.baseline_simulations}": None}
            for name, opponent in baselines.items():
                if opponent is None:
                    opponent = MCTSAgent(config.baseline_simulations, seed=config.seed + self.iteration)
                player = self.agent(config.eval_simulations, seed=config.seed + self.iteration)
                total = play_match(self.game, player, opponent, config.eval_games, seed=config.seed).total
                point.scores[name] = (total.win + total.draw / 2) / config.eval_games

    def _label_set(self) -> Any:
        """The shipped Connect Four label set if the game is Connect Four 6x7, else None (loaded once)."""
        if not hasattr(self, "_labels"):
            from agents.perfect_play import connect_four, load_labels

            self._labels = load_labels() if same_game(self.game, connect_four()) else None
        return self._labels

    def _solved_game(self) -> Any:
        """The exact values of the game if it is small enough to solve in seconds (tic-tac-toe), else None."""
        if self._exact is None:
            from gym_boardgames.rules import ConnectN

            if isinstance(self.game, ConnectN) and self.game.num_cells <= 12:
                from agents.alphazero.evaluation import ExactValues

                self._exact = ExactValues(self.game)
            else:
                self._exact = False
        return self._exact or None

    # ---- files ---------------------------------------------------------------------------------

    def save(self) -> None:
        """Write the training state and then the model (``out``), each atomically.

        The state holds the model's parameters too, so it is written first: a crash or a full disk between
        the two writes leaves a state that resumes (and rewrites the model), never a model newer than its
        state. A model with NaN or infinite parameters (a diverged run) is never written over a good one.

        Raises:
            ValueError: if the network's parameters are not finite (nothing is written).
            OSError: if a file cannot be written (the previous files are kept, whole).
        """
        params = self.params()
        broken = [name for name, value in params.items() if not np.all(np.isfinite(value))]
        if broken:
            raise ValueError(
                f"training diverged at iteration {self.iteration}: parameters {broken[:3]} hold NaN or infinite "
                f"values; {self.out} and its training state keep the last good iteration"
            )
        info = {
            "training": self.config.to_dict(),
            "iteration": self.iteration,
            "seconds": round(self.seconds, 3),
            "games": self.games,
            "positions": self.positions,
        }
        arrays: dict[str, np.ndarray] = {f"model.{k}": v for k, v in params.items()}
        optimizer_state = self.optimizer.state_dict()
        parameter_names = [n for n, _ in self.model.named_parameters()]
        for index, name in enumerate(parameter_names):
            state = optimizer_state["state"].get(index)
            if state:
                arrays[f"adam.exp_avg.{name}"] = state["exp_avg"].numpy()
                arrays[f"adam.exp_avg_sq.{name}"] = state["exp_avg_sq"].numpy()
                arrays[f"adam.step.{name}"] = np.array(float(state["step"]), dtype=np.float32)
        if self.best_params is not None:
            arrays.update({f"best.{k}": v for k, v in self.best_params.items()})
        kept = self.replay.ordered()
        # Planes hold multiples of 1/4 in [0, 1] (0/1 pieces, Dots' sides drawn / 4): stored exactly as
        # uint8 quarters, a quarter of the bytes, which keeps the per-iteration save short.
        quarters = np.rint(kept.planes * 4).astype(np.uint8)
        arrays.update({"replay.planes": quarters, "replay.policies": kept.policies, "replay.values": kept.values})
        meta = {
            "game": game_spec(self.game),
            "net": self.net_config.to_dict(),
            **info,
            "selfplay_seconds": round(self.selfplay_seconds, 3),
            "rng": self.rng.bit_generator.state,
            "curve": [asdict(p) for p in self.curve],
        }
        save_npz(training_state_path(self.out), arrays, format=TRAIN_FORMAT, version=TRAIN_VERSION, meta=meta)
        AlphaZeroAgent(self.game, self.net_config, params, n_simulations=0, meta=info).save(self.out)

    @classmethod
    def resume(
        cls,
        path: str | os.PathLike[str],
        out: str | os.PathLike[str] | None = None,
        iterations: int | None = None,
        workers: int | None = None,
        ray_address: str | None = None,
        log: Callable[[str], None] | None = None,
        on_game: Callable[[GameSummary], None] | None = None,
        time_limit: float | None = None,
    ) -> Trainer:
        """Continue a run from its training state (``MODEL.train.npz``, or the model path beside it).

        Args:
            path: the training-state file, or the model file it sits beside.
            out: where to keep saving (default: the run's model path).
            iterations: a new total of iterations (default: the saved one).
            workers: a new number of self-play workers (default: the saved one).
            ray_address: as for the constructor.
            log: as for the constructor.
            on_game: as for the constructor.
            time_limit: a new total training time in seconds (default: the saved one). A longer one
                extends a finished run; the learning rate follows the new length, so it rises again from
                where the old schedule had decayed it (a warm restart).

        Raises:
            SavedFileError: if the file is not a valid training state.
        """
        state_path = os.fspath(path)
        if not state_path.endswith(".train.npz"):
            state_path = training_state_path(state_path)
        found: dict[str, Any] = {}

        def schema(version: int, meta: dict[str, Any]) -> dict[str, ArraySpec]:
            game = game_from_spec(meta.get("game"))
            config = TrainConfig.from_dict(meta.get("training"))
            encoder = encoder_for(game)
            net = NetConfig(
                *encoder.shape,
                encoder.num_actions,
                config.channels,
                config.blocks,
                config.value_hidden,
                config.policy_channels,
                config.value_channels,
            )
            if meta.get("net") != net.to_dict():
                raise ValueError(f"network {meta.get('net')} does not match the training settings {net.to_dict()}")
            if replay_bytes(config.replay_window, encoder) > MAX_REPLAY_BYTES:
                raise ValueError(
                    f"its replay window of {config.replay_window:,} positions would take more than "
                    f"{MAX_REPLAY_BYTES / 2**30:.0f} GiB"
                )
            found.update(game=game, config=config, meta=meta)
            specs = {f"model.{k}": ArraySpec(s, np.float32, finite=True) for k, s in net.param_shapes().items()}
            for name, shape in net.param_shapes().items():
                if name.endswith(("running_mean", "running_var")):
                    continue
                specs[f"adam.exp_avg.{name}"] = ArraySpec(shape, np.float32, finite=True)
                specs[f"adam.exp_avg_sq.{name}"] = ArraySpec(shape, np.float32, finite=True)
                specs[f"adam.step.{name}"] = ArraySpec((), np.float32, finite=True)
            window = config.replay_window
            specs["replay.planes"] = ArraySpec(
                (None, *encoder.shape), np.uint8, max_size=window * math.prod(encoder.shape)
            )
            specs["replay.policies"] = ArraySpec(
                (None, encoder.num_actions), np.float32, finite=True, max_size=window * encoder.num_actions
            )
            specs["replay.values"] = ArraySpec((None,), np.float32, finite=True, max_size=window)
            return specs

        loaded = load_npz(
            state_path,
            format=TRAIN_FORMAT,
            versions={TRAIN_VERSION},
            schema=schema,
            allow_extra=True,
            max_file_bytes=MAX_TRAIN_FILE_BYTES,
            max_data_bytes=MAX_TRAIN_FILE_BYTES,
        )
        meta, config = found["meta"], found["config"]
        from agents.persistence import SavedFileError

        arrays = loaded.arrays
        negative = [k for k, v in arrays.items() if k.startswith("adam.exp_avg_sq.") and np.any(v < 0)]
        if negative:
            raise SavedFileError(state_path, f"optimizer second moments must be >= 0, {negative[0]} is not")
        try:
            counters = {key: _meta_int(meta, key) for key in ("iteration", "games", "positions")}
            seconds = {key: _meta_seconds(meta, key) for key in ("seconds", "selfplay_seconds")}
            curve = [CurvePoint(**p) for p in meta.get("curve", [])]
            _check_curve(curve)
        except (TypeError, ValueError) as error:
            raise SavedFileError(state_path, f"bad run record: {error}") from None
        changes = {}
        if iterations is not None:
            changes["iterations"] = iterations
        if workers is not None:
            changes["workers"] = workers
        if time_limit is not None:
            changes["time_limit"] = time_limit
        if changes:
            config = TrainConfig(**{**asdict(config), **changes, "selfplay": config.selfplay})
        trainer = cls(
            found["game"], config, out if out is not None else _model_path(state_path), ray_address, log, on_game
        )
        from agents.alphazero.torch_model import load_params

        load_params(trainer.model, {k[len("model.") :]: v for k, v in arrays.items() if k.startswith("model.")})
        torch = trainer.torch
        # One Adam step first creates the moment buffers, which are then overwritten with the saved ones.
        optimizer_state = trainer.optimizer.state_dict()
        for index, (name, param) in enumerate(trainer.model.named_parameters()):
            if f"adam.exp_avg.{name}" in arrays:
                optimizer_state["state"][index] = {
                    "step": torch.tensor(float(arrays[f"adam.step.{name}"])),
                    "exp_avg": torch.from_numpy(np.array(arrays[f"adam.exp_avg.{name}"])),
                    "exp_avg_sq": torch.from_numpy(np.array(arrays[f"adam.exp_avg_sq.{name}"])),
                }
            del param
        trainer.optimizer.load_state_dict(optimizer_state)
        quarters, policies, values = (arrays[f"replay.{k}"] for k in ("planes", "policies", "values"))
        planes = quarters.astype(np.float32) / 4
        if not len(planes) == len(policies) == len(values) or quarters.max(initial=0) > 4:
            raise SavedFileError(state_path, "the replay arrays have different lengths or planes above 1")
        trainer.replay.add(Samples(planes, policies, values))
        trainer.iteration, trainer.games, trainer.positions = (counters[k] for k in ("iteration", "games", "positions"))
        trainer.seconds, trainer.selfplay_seconds = seconds["seconds"], seconds["selfplay_seconds"]
        try:
            trainer.rng.bit_generator.state = meta["rng"]
        except (KeyError, TypeError, ValueError, OverflowError):
            # An edited RNG state: continue with the seed's stream (reproducibility is lost, nothing else).
            log = log or (lambda message: None)
            log(f"note: {state_path}: the saved random state is not usable; continuing from the run's seed")
        trainer.curve = curve
        return trainer


def _meta_int(meta: dict[str, Any], key: str) -> int:
    value = meta.get(key, 0)
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= MAX_SEED:
        raise ValueError(f"training state {key} must be an integer in [0, {MAX_SEED}], got {value!r}")
    return value


def _meta_seconds(meta: dict[str, Any], key: str) -> float:
    value = meta.get(key, 0.0)
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 <= value <= 1e9:
        raise ValueError(f"training state {key} must be a number of seconds in [0, 1e9], got {value!r}")
    return float(value)


def _check_curve(curve: list[CurvePoint]) -> None:
    """Refuse a learning curve whose entries are not numbers of the right kind (a hand-edited file)."""
    for point in curve:
        for name in ("iteration", "games", "positions"):
            if isinstance(getattr(point, name), bool) or not isinstance(getattr(point, name), int):
                raise ValueError(f"curve {name} must be an integer, got {getattr(point, name)!r}")
        for name in ("seconds", "policy_loss", "value_loss"):
            value = getattr(point, name)
            if isinstance(value, bool) or not isinstance(value, (int, float)):
                raise ValueError(f"curve {name} must be a number, got {value!r}")
        if not isinstance(point.scores, dict):
            raise ValueError(f"curve scores must be an object, got {point.scores!r}")


def read_curve(path: str | os.PathLike[str]) -> list[CurvePoint]:
    """Return the learning curve kept in a training state (``MODEL.train.npz`` or the model beside it).

    Only the file's header is read, not its replay window.

    Raises:
        SavedFileError: naming the file, if it is not a training state or its curve is malformed.
    """
    from agents.persistence import SavedFileError

    state_path = os.fspath(path)
    if not state_path.endswith(".train.npz"):
        state_path = training_state_path(state_path)
    loaded = load_npz(
        state_path, format=TRAIN_FORMAT, versions={TRAIN_VERSION}, schema={}, max_file_bytes=MAX_TRAIN_FILE_BYTES
    )
    try:
        curve = [CurvePoint(**p) for p in loaded.meta.get("curve", [])]
        _check_curve(curve)
    except (TypeError, ValueError) as error:
        raise SavedFileError(state_path, f"bad run record: {error}") from None
    return curve


def training_state_path(model_path: str) -> str:
    """Return where the training state of the model at ``model_path`` is kept (``X.npz`` -> ``X.train.npz``)."""
    root, ext = os.path.splitext(os.fspath(model_path))
    return f"{root}.train{ext or '.npz'}"


def _model_path(state_path: str) -> str:
    return state_path[: -len(".train.npz")] + ".npz"
