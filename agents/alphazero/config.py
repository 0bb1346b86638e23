"""A run's settings, each with its bounds: the network's shape, self-play's and the whole run's.

:class:`NetConfig` (the network's shape), :class:`SelfPlayConfig` (how self-play searches and plays) and
:class:`TrainConfig` (everything a training run depends on) are frozen dataclasses whose fields carry their
bounds (:func:`bounded`); every setting is checked when the settings are made (:func:`check_bounds`), so a
flag or a saved file that asks for billions of processes, threads, loop rounds or multiply-adds is refused
before any work. The replay window's memory, which also depends on the game, is checked against
:data:`agents.alphazero.replay.MAX_REPLAY_BYTES`.
"""

from __future__ import annotations

import math
from dataclasses import MISSING, asdict, dataclass, field, fields
from typing import Any

from agents.alphazero.encoding import BoardEncoder
from gym_boardgames.checks import check_int, check_number

#: Upper bounds of the settings that size processes, threads and loops (far above any run on one machine;
#: a larger value is a typo that would otherwise spawn processes or threads until the machine gives out).
MAX_WORKERS = 64
MAX_THREADS = 64
MAX_SEED = 2**63 - 1
#: Most multiply-adds one position may cost (about 80x the shipped Connect Four net's 2.4 million, and 4x a
#: 64-channel, 6-block net on 9x9). The byte limits of a file do not bound compute: a 194 KB file of zeros
#: can describe a 512-channel net on a 64x64 board that takes seconds per call, minutes per move.
MAX_MACS_PER_POSITION = 200_000_000
#: The settings :class:`TrainConfig` passes on to :class:`NetConfig` (the rest of the shape is the game's).
_NET_WIDTHS = ("channels", "blocks", "value_hidden", "policy_channels", "value_channels")
#: The self-play searches: AlphaZero's PUCT, or Gumbel AlphaZero.
ALGORITHMS = ("puct", "gumbel")


def bounded(low: float, high: float | None, default: Any = MISSING) -> Any:
    """Return a dataclass field whose value must lie in ``[low, high]`` (``None``: no upper bound).

    An ``int`` field must be an integer there, a ``float`` field a number (:func:`check_bounds` checks both).
    """
    return field(default=default, metadata={"bounds": (low, high)})


def check_bounds(settings: Any, prefix: str = "") -> None:
    """Check every :func:`bounded` field of the dataclass ``settings``.

    Raises:
        ValueError: naming the first setting (after ``prefix``) outside its bounds, the bounds and the value.
    """
    for setting in fields(settings):
        if "bounds" in setting.metadata:
            low, high = setting.metadata["bounds"]
            value = getattr(settings, setting.name)
            if setting.type == "int":
                check_int(prefix + setting.name, value, low, high)
            else:
                check_number(prefix + setting.name, value, low, math.inf if high is None else high)


@dataclass(frozen=True)
class NetConfig:
    """The shape of a policy-value network (:mod:`agents.alphazero.network`).

    Attributes:
        in_planes: input planes (the encoder's).
        height: board grid height.
        width: board grid width.
        num_actions: policy size.
        channels: filters of the trunk's convolutions.
        blocks: residual blocks.
        value_hidden: width of the value head's hidden layer.
        policy_channels: filters of the policy head's 1x1 convolution.
        value_channels: filters of the value head's 1x1 convolution.

    Raises:
        ValueError: on a size outside its bounds, or a network costing more than
            :data:`MAX_MACS_PER_POSITION` multiply-adds per position.
    """

    in_planes: int = bounded(1, 64)
    height: int = bounded(1, 256)
    width: int = bounded(1, 256)
    num_actions: int = bounded(1, 65536)
    channels: int = bounded(1, 512, default=32)
    blocks: int = bounded(0, 64, default=3)
    value_hidden: int = bounded(1, 4096, default=64)
    policy_channels: int = bounded(1, 256, default=2)
    value_channels: int = bounded(1, 256, default=1)

    def __post_init__(self) -> None:
        check_bounds(self, "network ")
        if self.macs() > MAX_MACS_PER_POSITION:
            raise ValueError(
                f"network of {self.channels} channels x {self.blocks} blocks on a {self.height}x{self.width} board "
                f"costs {self.macs():,} multiply-adds per position, more than the limit of "
                f"{MAX_MACS_PER_POSITION:,}: use fewer channels or blocks"
            )

    def macs(self) -> int:
        """Return the multiply-adds of one position's forward pass (convolutions and linear layers)."""
        cells, c = self.height * self.width, self.channels
        convs = cells * (
            9 * self.in_planes * c + self.blocks * 2 * 9 * c * c + c * (self.policy_channels + self.value_channels)
        )
        linear = cells * (self.policy_channels * self.num_actions + self.value_channels * self.value_hidden)
        return int(convs + linear + self.value_hidden)

    def to_dict(self) -> dict[str, int]:
        """Return the configuration as plain ints (for a file's JSON metadata)."""
        return {k: int(v) for k, v in asdict(self).items()}

    @staticmethod
    def from_dict(meta: Any) -> NetConfig:
        """Return the :class:`NetConfig` stored in a file's metadata (:meth:`to_dict`), validated.

        Raises:
            ValueError: if the metadata does not describe a valid network.
        """
        if not isinstance(meta, dict):
            raise ValueError(f"network configuration must be an object, got {type(meta).__name__}")
        names = set(NetConfig.__dataclass_fields__)
        if set(meta) - names or not {"in_planes", "height", "width", "num_actions"} <= set(meta):
            raise ValueError(f"network configuration must have the keys {sorted(names)}, got {sorted(meta)}")
        return NetConfig(**meta)

    def param_shapes(self) -> dict[str, tuple[int, ...]]:
        """Return every parameter's name and shape, in PyTorch's ``state_dict`` naming."""
        c, cells = self.channels, self.height * self.width
        shapes: dict[str, tuple[int, ...]] = {}

        def conv_bn(prefix: str, c_in: int, c_out: int, k: int) -> None:
            shapes[f"{prefix}.conv.weight"] = (c_out, c_in, k, k)
            for stat in ("weight", "bias", "running_mean", "running_var"):
                shapes[f"{prefix}.bn.{stat}"] = (c_out,)

        conv_bn("stem", self.in_planes, c, 3)
        for b in range(self.blocks):
            conv_bn(f"blocks.{b}.a", c, c, 3)
            conv_bn(f"blocks.{b}.b", c, c, 3)
        conv_bn("policy", c, self.policy_channels, 1)
        shapes["policy_fc.weight"] = (self.num_actions, self.policy_channels * cells)
        shapes["policy_fc.bias"] = (self.num_actions,)
        conv_bn("value", c, self.value_channels, 1)
        shapes["value_fc1.weight"] = (self.value_hidden, self.value_channels * cells)
        shapes["value_fc1.bias"] = (self.value_hidden,)
        shapes["value_fc2.weight"] = (1, self.value_hidden)
        shapes["value_fc2.bias"] = (1,)
        return shapes


@dataclass(frozen=True)
class SelfPlayConfig:
    """How self-play games are searched and played (:mod:`agents.alphazero.selfplay`).

    Attributes:
        n_simulations: PUCT simulations per move.
        parallel_games: games played at once (the network's batch size).
        c_puct: PUCT's exploration constant.
        dirichlet_alpha: concentration of the root noise (AlphaZero: about 10 / typical legal moves).
        dirichlet_epsilon: weight of the noise in the root priors.
        temperature_moves: moves per game drawn from the visit counts; later moves are greedy (PUCT only).
        algorithm: ``"puct"`` (AlphaZero: noise, visit counts, tree reuse) or ``"gumbel"`` (Gumbel AlphaZero:
            sequential halving at the root, the improved policy as target; ``c_puct`` and the noise unused).
        max_considered: Gumbel: moves sampled at the root (Gumbel-top-k; mctx's ``max_num_considered_actions``),
            at most the legal moves.
        random_opening_moves: each game starts after 0..this many uniformly random moves (not recorded).
    """

    n_simulations: int = bounded(1, 1_000_000, default=50)
    parallel_games: int = bounded(1, 65_536, default=64)
    c_puct: float = bounded(0, 1e6, default=1.5)
    dirichlet_alpha: float = bounded(1e-6, 1e6, default=0.5)
    dirichlet_epsilon: float = bounded(0, 1, default=0.25)
    temperature_moves: int = bounded(0, 1_000_000, default=8)
    algorithm: str = "puct"
    max_considered: int = bounded(1, 65_536, default=16)
    random_opening_moves: int = bounded(0, 1_000_000, default=0)

    def __post_init__(self) -> None:
        check_bounds(self)
        if self.algorithm not in ALGORITHMS:
            raise ValueError(f"algorithm must be one of {', '.join(ALGORITHMS)}, got {self.algorithm!r}")

    def to_dict(self) -> dict[str, Any]:
        """Return the settings as a JSON-ready dict."""
        return asdict(self)


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

    iterations: int = bounded(1, 10_000_000, default=20)
    games_per_iteration: int = bounded(1, 100_000, default=64)
    selfplay: SelfPlayConfig = field(default_factory=SelfPlayConfig)
    channels: int = bounded(1, None, default=32)
    blocks: int = bounded(0, None, default=3)
    value_hidden: int = bounded(1, None, default=64)
    policy_channels: int = bounded(1, None, default=2)
    value_channels: int = bounded(1, None, default=1)
    lr: float = bounded(1e-8, 10.0, default=2e-3)
    weight_decay: float = bounded(0.0, 10.0, default=1e-4)
    batch_size: int = bounded(1, 65_536, default=256)
    epochs: float = bounded(0.0, 1e6, default=4.0)
    replay_window: int = bounded(1, 100_000_000, default=50_000)  # and MAX_REPLAY_BYTES, with the game's encoding
    workers: int = bounded(1, MAX_WORKERS, default=1)
    eval_every: int = bounded(0, 10_000_000, default=1)
    eval_games: int = bounded(0, 100_000, default=10)
    eval_simulations: int = bounded(0, 1_000_000, default=50)
    baseline_simulations: int = bounded(1, 1_000_000, default=200)
    gate_games: int = bounded(0, 100_000, default=0)
    gate_threshold: float = bounded(0.0, 1.0, default=0.55)
    time_limit: float = bounded(0.0, 1e9, default=0.0)
    threads: int = bounded(1, MAX_THREADS, default=1)
    inference: str = "torch"
    seed: int = bounded(0, MAX_SEED, default=0)

    def __post_init__(self) -> None:
        if not isinstance(self.selfplay, SelfPlayConfig):
            raise ValueError(f"selfplay must be a SelfPlayConfig, got {self.selfplay!r}")
        check_bounds(self)
        if self.inference not in ("torch", "numpy"):
            raise ValueError(f"inference must be 'torch' or 'numpy', got {self.inference!r}")

    def net_config(self, encoder: BoardEncoder) -> NetConfig:
        """Return the shape of the network these settings train on ``encoder``'s game."""
        widths = {name: getattr(self, name) for name in _NET_WIDTHS}
        return NetConfig(*encoder.shape, encoder.num_actions, **widths)

    def describe(self, game: Any) -> str:
        """Return the run's settings on ``game`` as a few readable lines (the full settings are :meth:`to_dict`)."""
        sp = self.selfplay
        search = (
            f"Gumbel AlphaZero, {sp.n_simulations} simulations, {sp.max_considered} root moves considered"
            if sp.algorithm == "gumbel"
            else f"PUCT, {sp.n_simulations} simulations, c_puct {sp.c_puct:g}, Dirichlet({sp.dirichlet_alpha:g}) "
            f"x {sp.dirichlet_epsilon:g}, {sp.temperature_moves} moves at temperature 1"
        )
        stop = f"{self.iterations:,} iterations" + (
            f" or {self.time_limit:,.0f} s of training, whichever comes first" if self.time_limit else ""
        )
        lines = [
            f"training AlphaZero on {game!r} until {stop}",
            f"  self-play: {self.games_per_iteration} games per iteration, {sp.parallel_games} at once, "
            f"{self.workers} worker(s); {search}"
            + (f"; openings of up to {sp.random_opening_moves} random moves" if sp.random_opening_moves else ""),
            f"  network: {self.channels} channels x {self.blocks} blocks; AdamW lr {self.lr:g} "
            f"(to 10%), weight decay {self.weight_decay:g}, batch {self.batch_size}, "
            f"{self.epochs:g} samples per new position, window {self.replay_window:,}",
            f"  evaluation every {self.eval_every} iterations" if self.eval_every else "  no evaluation",
        ]
        return "\n".join(lines)

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
