"""AlphaZero's training loop, :class:`Trainer`: batched self-play, a replay window, and the policy-value loss.

Each iteration:

1. **Self-play**: ``games`` games with the current network (:mod:`agents.alphazero.selfplay`),
   in this process or in ``workers`` processes (or Ray actors on a cluster; :mod:`agents.alphazero.workers`),
   each playing its share with ``parallel_games`` games at once. Workers get the network's weights as numpy
   arrays and run it with PyTorch on one thread each.
2. **Replay window** (:mod:`agents.alphazero.replay`): the samples join a window of the most recent
   ``replay_window`` positions.
3. **Training**: ``epochs * new positions / batch_size`` gradient steps (at least one), each on a batch
   drawn uniformly from the window, every sample under a random symmetry of the board, minimising
   AlphaGo Zero's loss ``(z - v)^2 - pi . log p + c ||theta||^2``; the L2 term is AdamW's (decoupled)
   weight decay. The learning rate decays linearly to 10% over the iterations.
4. **Checkpoint**: the model (``out``, loadable by :meth:`AlphaZeroAgent.load`) and the training state
   (``out`` with ``.train.npz``: optimizer moments, the replay window, the curve and the iteration;
   :mod:`agents.alphazero.checkpoint`), both atomic, so ``resume`` continues where a run stopped.
5. **Evaluation** every ``eval_every`` iterations (for the learning curve): the share of optimal moves of
   the raw network where the game is small enough to solve, and the search player's score against fixed
   baselines.
6. **Gating** (optional): the new network plays the best one so far (``gate_games`` games through
   :func:`agents.matches.arena.play_match`); it becomes the self-play network only if it scores at least
   ``gate_threshold``.

The run's settings are :class:`agents.alphazero.config.TrainConfig`. The device (``device``, resolved by
:func:`agents.alphazero.device.resolve_device`) is not one of them: it is this process's, never saved, so a
resumed run may switch it. The learner runs on it (the network, AdamW's moments, each step's batch), and so does
self-play's batched network call when self-play runs in this process with ``inference="torch"``; self-play in
worker processes, numpy inference, evaluation and gating run on the CPU (:meth:`Trainer.device_line` says which).
"""

from __future__ import annotations

import functools
import math
import os
import time
from collections.abc import Callable
from typing import Any

import numpy as np

from agents.alphazero.agent import AlphaZeroAgent, NetworkEvaluator
from agents.alphazero.checkpoint import (
    RUN_RECORD,
    CurvePoint,
    TrainingState,
    kept_model_path,
    kept_point,
    model_path,
    read_training_state,
    resolve_state_path,
    save_training_state,
    selection_score,
    training_state_path,
)
from agents.alphazero.config import TrainConfig
from agents.alphazero.device import Device, Throughput, describe_device, resolve_device
from agents.alphazero.encoding import encoder_for
from agents.alphazero.replay import ReplayWindow, check_replay_window
from agents.alphazero.selfplay import GameSummary, Samples, play_games
from agents.alphazero.workers import SelfPlayPool, make_forward, selfplay_tasks
from gym_boardgames.utils import require_extra

#: Iterations between log lines when a run has no evaluations.
LOG_EVERY = 10
#: The exact solver's first seed in the games of an evaluation (``perfect_games``): apart from the 0-49 of grading.
PERFECT_SEED_BASE = 10_000


class Trainer:
    """One AlphaZero training run (see the module docstring).

    Args:
        game: the rules object to learn.
        config: the run's settings.
        out: where the model is saved after every iteration (the training state goes beside it).
        ray_address: run self-play workers as Ray tasks on this cluster.
        log: called with a one-line message after every iteration.
        on_game: called after each self-play game played in this process (progress bars).
        device: where the learner (and self-play in this process, with ``inference="torch"``) runs: a
            :class:`~agents.alphazero.device.Device`, or a choice of :data:`~agents.alphazero.device.DEVICES`
            (resolved by :func:`~agents.alphazero.device.resolve_device`).

    Attributes:
        on_iteration: if set, called with each iteration's :class:`CurvePoint` once the iteration is saved
            (its evaluation filled in on evaluated iterations): the scripts' TensorBoard logging.
        throughput: this process's work and its seconds (:class:`Throughput`).

    Raises:
        ValueError: if ``device`` is ``"cuda"`` and PyTorch sees no CUDA device, or not a choice of ``DEVICES``.
    """

    def __init__(
        self,
        game: Any,
        config: TrainConfig,
        out: str | os.PathLike[str],
        ray_address: str | None = None,
        log: Callable[[str], None] | None = None,
        on_game: Callable[[GameSummary], None] | None = None,
        device: Device | str = "cpu",
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
        self.device = device if isinstance(device, Device) else resolve_device(device)
        self.throughput = Throughput(self.device.name)
        self.encoder = encoder_for(game)
        check_replay_window(config.replay_window, self.encoder)
        self.net_config = config.net_config(self.encoder)
        torch.set_num_threads(config.threads)
        torch.manual_seed(config.seed)
        self.rng = np.random.default_rng(config.seed)
        # Made on the CPU and then moved, so a seed gives the same first weights on every device.
        self.model = PolicyValueNet(self.net_config).to(self.device.name)
        self.optimizer = torch.optim.AdamW(self.model.parameters(), lr=config.lr, weight_decay=config.weight_decay)
        self.replay = ReplayWindow(config.replay_window, self.encoder)
        self.best_params: dict[str, np.ndarray] | None = None  # the self-play network when gating
        self.iteration = self.games = self.positions = 0  # the run record (RUN_RECORD)
        self.seconds = self.selfplay_seconds = 0.0
        self.curve: list[CurvePoint] = []
        if config.perfect_games and config.eval_every:  # only evaluations play the solver
            from agents.search.connect_four import check_solvable

            check_solvable(game)  # before any work: the games against the solver need a board it plays
            # The pure-Python path is exact but far too slow to play a few games at every evaluation.
            require_extra("solver", "numba", needed_for="perfect_games (games against the exact solver)")

    def start_from(self, agent: AlphaZeroAgent) -> None:
        """Train on from ``agent``'s network (a shipped or saved model) instead of random weights.

        Only the weights are taken: the optimizer, the replay window and the learning-rate schedule start afresh.

        Raises:
            ValueError: if the agent plays another game or its network has another shape than the settings'.
        """
        if (agent.game, agent.config) != (self.game, self.net_config):
            made = f"the settings make {self.net_config} for {self.game!r}"
            raise ValueError(f"the model's network is {agent.config} for {agent.game!r}: {made}")
        from agents.alphazero.torch_model import load_params

        load_params(self.model, agent.params)

    def device_line(self) -> str:
        """Return one line naming the device and what runs on it (the training script's banner)."""
        here = SelfPlayPool.plays_here(self.config.workers, self.ray_address)
        return describe_device(self.device, self.config.workers if not here else 0, self.config.inference)

    def kept_score(self) -> float | None:
        """Return the best :func:`~agents.alphazero.checkpoint.selection_score` of the run so far (the kept one's)."""
        kept = kept_point(self.curve)
        return None if kept is None else kept[0]

    # ---- the loop ------------------------------------------------------------------------------

    def params(self) -> dict[str, np.ndarray]:
        """Return the current network's parameters as numpy arrays."""
        from agents.alphazero.torch_model import params_of

        return params_of(self.model)

    def agent(
        self, n_simulations: int = 0, params: dict[str, np.ndarray] | None = None, seed: int = 0
    ) -> AlphaZeroAgent:
        """Return the current (or given) network as a numpy-backed player."""
        params = params if params is not None else self.params()
        return AlphaZeroAgent(self.game, self.net_config, params, n_simulations, self.config.selfplay.c_puct, seed)

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
        played = time.perf_counter() - start
        self.selfplay_seconds += played
        self.replay.add(samples)
        self.games += len(summaries)
        self.positions += len(samples.values)
        steps = max(1, math.ceil(config.epochs * len(samples.values) / config.batch_size))
        # Decay over the run's length: its iterations, or its time limit if that ends it first.
        timed = self.seconds / config.time_limit if config.time_limit else 0.0
        fraction = min(max(self.iteration / max(1, config.iterations - 1), timed), 1.0)
        for group in self.optimizer.param_groups:
            group["lr"] = config.lr * (1.0 - 0.9 * fraction)
        learn_start = time.perf_counter()
        policy_loss, value_loss = self.train_steps(steps)
        self.throughput.add(len(samples.values), played, steps, time.perf_counter() - learn_start)
        self.iteration += 1
        self.seconds += time.perf_counter() - start
        adopted = self._gate()
        point = CurvePoint(self.iteration, self.seconds, self.games, self.positions, policy_loss, value_loss)
        evaluated = bool(
            config.eval_every and (self.iteration % config.eval_every == 0 or self.iteration == config.iterations)
        )
        eval_seconds, kept = 0.0, False
        if evaluated:
            eval_start = time.perf_counter()
            self._evaluate(point)
            eval_seconds = time.perf_counter() - eval_start
            best_so_far, score = self.kept_score(), selection_score(point)
            kept = score is not None and (best_so_far is None or score > best_so_far)
        self.curve.append(point)
        self.save(keep=kept)
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
            message += "".join(f", {name} {100 * all_:.1f}%" for name, (all_, _) in point.outcome_kept_other.items())
        if point.scores:
            message += ", " + ", ".join(f"vs {k} {100 * v:.0f}%" for k, v in point.scores.items())
        if adopted is not None:
            message += f", gate {'adopted' if adopted else 'kept the best'}"
        if kept:
            message += f", kept (selection score {score:.3f})"
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
            forward = make_forward(config.inference, self.net_config, params, self.device.name)
            evaluator = NetworkEvaluator(self.game, forward, self.encoder)
            rng = np.random.default_rng(seeds[0])
            return play_games(self.game, self.encoder, evaluator, config.games, config.selfplay, rng, self.on_game)
        tasks = selfplay_tasks(
            self.game, self.net_config, params, config.selfplay, config.inference, config.games, seeds
        )
        results = pool.run(tasks)
        summaries = [summary for _, part in results for summary in part]
        if self.on_game is not None:
            for summary in summaries:
                self.on_game(summary)
        return Samples.concat([samples for samples, _ in results]), summaries

    def train_steps(self, steps: int) -> tuple[float, float]:
        """Run ``steps`` gradient steps on random augmented batches of the window; return the mean losses."""
        config, torch = self.config, self.torch
        self.model.train()
        # Summed on the device in float64 (as Python floats sum), read once: a read per step would wait for the
        # device every step, so the next batch could not be prepared while the device works.
        totals = torch.zeros(2, dtype=torch.float64, device=self.device.name)
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
            totals += torch.stack([p_loss.detach(), v_loss.detach()])
        self.model.eval()
        total_p, total_v = totals.tolist()
        return total_p / steps, total_v / steps

    def loss(self, planes: np.ndarray, policies: np.ndarray, values: np.ndarray) -> tuple[Any, Any]:
        """Return AlphaGo Zero's policy loss ``-pi . log p`` and value loss ``(z - v)^2``, batch means."""
        torch, device = self.torch, self.device.name
        logits, v = self.model(torch.from_numpy(planes).to(device))
        log_p = torch.log_softmax(logits, dim=1)
        policy_loss = -(torch.from_numpy(policies).to(device) * log_p).sum(dim=1).mean()
        value_loss = ((torch.from_numpy(values).to(device) - v) ** 2).mean()
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
        from agents.matches.arena import play_match

        new = self.agent(config.eval_simulations, seed=1)
        best = self.agent(config.eval_simulations, self.best_params, 2)
        result = play_match(self.game, new, best, config.gate_games, seed=config.seed).total
        score = (result.win + result.draw / 2) / config.gate_games
        if score >= config.gate_threshold:
            self.best_params = self.params()
            return True
        return False

    def _evaluate(self, point: CurvePoint) -> None:
        from agents.alphazero.evaluation import greedy_moves
        from agents.matches.arena import play_match
        from agents.matches.perfect_play import grade
        from agents.search.mcts import MCTSAgent

        config = self.config
        for name, labels in self._label_sets.items():
            report = grade(labels, greedy_moves(self.agent(0).evaluator, self.game)(labels.states()))
            shares = [report["outcome_kept"], report["critical"]["outcome_kept"]]
            if name == "labels":
                point.outcome_kept, point.outcome_kept_critical = shares
            else:
                point.outcome_kept_other[name] = shares
        exact = self._solved_game
        if exact is not None:
            from agents.matches.grading import optimal_move_rate

            point.optimal_rate = optimal_move_rate(exact, greedy_moves(self.agent(0).evaluator, self.game))
        if config.perfect_games:
            point.scores["perfect"] = self._perfect_play_score()
        if config.eval_games:
            mcts = MCTSAgent(config.baseline_simulations, seed=config.seed + self.iteration)
            for name, opponent in {"random": "random", f"mcts{config.baseline_simulations}": mcts}.items():
                player = self.agent(config.eval_simulations, seed=config.seed + self.iteration)
                total = play_match(self.game, player, opponent, config.eval_games, seed=config.seed).total
                point.scores[name] = (total.win + total.draw / 2) / config.eval_games

    def _perfect_play_score(self) -> float:
        """Play ``perfect_games`` games as first player against the exact solver; return wins plus half the draws.

        The solver's seeds start at :data:`PERFECT_SEED_BASE`, apart from the seeds 0-49 that the shipped model
        is graded on (``scripts/eval_perfect_play.py``), so that choosing a network never looks at those games.
        """
        from agents.matches.arena import play_game
        from agents.search.connect_four import PerfectAgent

        config = self.config
        points = 0.0
        for index in range(config.perfect_games):
            player = self.agent(config.eval_simulations, seed=config.seed + index)
            first, _ = play_game(self.game, player, PerfectAgent(PERFECT_SEED_BASE + index))
            points += (first + 1) / 2
        return points / config.perfect_games

    @functools.cached_property
    def _label_sets(self) -> dict[str, Any]:
        """Every shipped Connect Four label set by name if the game is Connect Four 6x7, else none (loaded once)."""
        from agents.matches.perfect_play import SHIPPED, connect_four, load_labels, shipped_labels_path

        on_connect_four = self.game == connect_four()
        return {name: load_labels(shipped_labels_path(name)) for name in SHIPPED if on_connect_four}

    @functools.cached_property
    def _solved_game(self) -> Any:
        """The exact values of the game if it is small enough to solve in seconds (tic-tac-toe), else None."""
        from agents.matches.grading import ExactValues
        from gym_boardgames.rules.registry import family_of

        small = family_of(self.game) == "connect" and self.game.num_cells <= 12
        return ExactValues(self.game) if small else None

    # ---- files ---------------------------------------------------------------------------------

    def save(self, keep: bool = False) -> None:
        """Write the training state and then the model (``out``), each atomically; with ``keep``, the kept model too.

        The kept model (:func:`~agents.alphazero.checkpoint.kept_model_path`) is the evaluated network of best
        :func:`~agents.alphazero.checkpoint.selection_score`; it is written before the state, so a state never
        records a kept network that is not on disk (a resumed run finds its best score in the saved curve).

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
        record = {name: getattr(self, name) for name in RUN_RECORD}
        record.update(rng=self.rng.bit_generator.state, best_params=self.best_params)
        state = TrainingState(
            self.game, self.config, self.net_config, params, self.adam_arrays(), self.replay.ordered(), **record
        )
        model = AlphaZeroAgent(self.game, self.net_config, params, n_simulations=0, meta=state.run_info())
        if keep:
            model.save(kept_model_path(self.out))
        save_training_state(training_state_path(self.out), state)
        model.save(self.out)

    def adam_arrays(self) -> dict[str, np.ndarray]:
        """Return Adam's state as the training state keeps it, by parameter name (:class:`TrainingState`)."""
        arrays: dict[str, np.ndarray] = {}
        for name, param in self.model.named_parameters():
            moments = self.optimizer.state.get(param)
            if moments:  # a parameter Adam has stepped
                arrays[f"exp_avg.{name}"] = moments["exp_avg"].cpu().numpy()
                arrays[f"exp_avg_sq.{name}"] = moments["exp_avg_sq"].cpu().numpy()
                arrays[f"step.{name}"] = np.array(float(moments["step"]), dtype=np.float32)
        return arrays

    def set_adam_arrays(self, arrays: dict[str, np.ndarray]) -> None:
        """Restore Adam's state from :meth:`adam_arrays` (as read back from the training state).

        The moments go to their parameter's device; ``step`` stays a CPU tensor, where AdamW keeps it (unless
        ``fused`` or ``capturable``, which this optimizer is not).
        """
        torch = self.torch
        for name, param in self.model.named_parameters():
            if f"exp_avg.{name}" in arrays:
                self.optimizer.state[param] = {
                    "step": torch.tensor(float(arrays[f"step.{name}"])),
                    "exp_avg": torch.from_numpy(np.array(arrays[f"exp_avg.{name}"])).to(param.device),
                    "exp_avg_sq": torch.from_numpy(np.array(arrays[f"exp_avg_sq.{name}"])).to(param.device),
                }

    @classmethod
    def resume(
        cls,
        path: str | os.PathLike[str],
        out: str | os.PathLike[str] | None = None,
        ray_address: str | None = None,
        log: Callable[[str], None] | None = None,
        on_game: Callable[[GameSummary], None] | None = None,
        device: Device | str = "cpu",
        **changes: Any,
    ) -> Trainer:
        """Continue a run from its training state (``MODEL.train.npz``, or the model path beside it).

        Args:
            path: the training-state file, or the model file it sits beside.
            out: where to keep saving (default: the run's model path).
            ray_address: as for the constructor.
            log: as for the constructor.
            on_game: as for the constructor.
            device: as for the constructor: any device, whichever the run was trained on (the state's arrays
                are copied onto it).
            **changes: new values of settings, by their names in :meth:`TrainConfig.settings`; all but
                :data:`agents.alphazero.config.FIXED_ON_RESUME` may change (:meth:`TrainConfig.resumed`). A
                longer ``iterations`` or ``time_limit`` extends a finished run; the learning rate follows the
                new length, so it rises again from where the old schedule had decayed it (a warm restart).

        Raises:
            SavedFileError: if the file is not a valid training state
                (:func:`agents.alphazero.checkpoint.read_training_state`).
            ValueError: if ``changes`` changes a fixed setting or holds a value outside its bounds, or as for the
                constructor's ``device``.
        """
        state_path = resolve_state_path(path)
        saved = read_training_state(state_path)
        config = saved.config.resumed(changes)
        out = out if out is not None else model_path(state_path)
        trainer = cls(saved.game, config, out, ray_address, log, on_game, device)
        from agents.alphazero.torch_model import load_params

        load_params(trainer.model, saved.params)
        trainer.set_adam_arrays(saved.optimizer)
        trainer.replay.add(saved.replay)
        for name in RUN_RECORD:
            setattr(trainer, name, getattr(saved, name))
        trainer.rng.bit_generator.state = saved.rng  # a PCG64 state, checked when read
        return trainer
