"""A training run's settings, :class:`TrainConfig`, and the bounds that keep a typo from sizing a run.

Every setting is checked when the settings are made, so a flag or a saved training state that asks for
billions of processes, threads or loop rounds is refused before any work. The replay window's memory,
which also depends on the game, is checked against :data:`agents.alphazero.replay.MAX_REPLAY_BYTES`.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

from agents.alphazero._checks import check_int, check_number
from agents.alphazero.encoding import BoardEncoder
from agents.alphazero.network import NetConfig
from agents.alphazero.selfplay import SelfPlayConfig

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

    def net_config(self, encoder: BoardEncoder) -> NetConfig:
        """Return the shape of the network these settings train on ``encoder``'s game."""
        return NetConfig(
            *encoder.shape,
            encoder.num_actions,
            channels=self.channels,
            blocks=self.blocks,
            value_hidden=self.value_hidden,
            policy_channels=self.policy_channels,
            value_channels=self.value_channels,
        )

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
