"""A run's settings, each with its bounds: the network's shape, self-play's and the whole run's.

:class:`NetConfig` (the network's shape), :class:`SelfPlayConfig` (how self-play searches and plays) and
:class:`TrainConfig` (everything a training run depends on) are frozen dataclasses whose fields carry their
bounds (:func:`bounded`); every setting is checked when the settings are made (:func:`check_bounds`), so a
flag or a saved file that asks for billions of processes, threads, loop rounds or multiply-adds is refused
before any work. The replay window's memory, which also depends on the game, is checked against
:data:`agents.alphazero.replay.MAX_REPLAY_BYTES`.

Each setting has one name, from the training script's flag (the name with dashes) to the saved file, and its
help beside its bounds; :data:`PRESETS` holds each game's settings, :data:`FIXED_ON_RESUME` those a resumed
run cannot change.
"""

from __future__ import annotations

import dataclasses
import functools
import math
import typing
from collections.abc import Callable
from dataclasses import MISSING, Field, asdict, dataclass, field, fields
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


def bounded(low: float, high: float | None, default: Any = MISSING, help: str = "") -> Any:
    """Return a dataclass field whose value must lie in ``[low, high]`` (``None``: no upper bound).

    An ``int`` field must be an integer there, a ``float`` field a number (:func:`check_bounds` checks both);
    ``help`` says what the setting is (the training script's ``--help`` shows it).
    """
    return field(default=default, metadata={"bounds": (low, high), "help": help})


def one_of(choices: tuple[str, ...], default: str, help: str) -> Any:
    """Return a dataclass field whose value must be one of ``choices`` (checked by :func:`check_bounds`)."""
    return field(default=default, metadata={"choices": choices, "help": help})


@functools.cache
def _annotations(settings_class: type) -> dict[str, Any]:
    """The fields' types of a settings class, resolved (this module's postponed annotations are strings)."""
    return typing.get_type_hints(settings_class)


def check_bounds(settings: Any, prefix: str = "") -> None:
    """Check every :func:`bounded` and :func:`one_of` field of the dataclass ``settings``.

    Raises:
        ValueError: naming the first setting (after ``prefix``) outside its bounds, the bounds and the value.
    """
    for setting in fields(settings):
        value = getattr(settings, setting.name)
        if "choices" in setting.metadata and value not in setting.metadata["choices"]:
            raise ValueError(f"{setting.name} must be one of {', '.join(setting.metadata['choices'])}, got {value!r}")
        if "bounds" in setting.metadata and not (value is None and setting.default is None):  # None: unmeasured
            low, high = setting.metadata["bounds"]
            if _annotations(type(settings))[setting.name] is int:
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

    Each field's meaning is its ``help`` (the field's metadata, also the training script's ``--help``).
    """

    simulations: int = bounded(1, 1_000_000, 50, "search simulations per self-play move")
    parallel_games: int = bounded(1, 65_536, 64, "games played at once (the network's batch)")
    c_puct: float = bounded(0, 1e6, 1.5, "PUCT exploration constant")
    dirichlet_alpha: float = bounded(
        1e-6, 1e6, 0.5, "concentration of the root noise (AlphaZero: about 10 / typical legal moves)"
    )
    dirichlet_epsilon: float = bounded(0, 1, 0.25, "weight of the root noise in the priors")
    temperature_moves: int = bounded(0, 1_000_000, 8, "moves per game drawn from visit counts, then greedy (puct)")
    algorithm: str = one_of(
        ALGORITHMS,
        "puct",
        "self-play search: AlphaZero's PUCT (root noise, visit counts, tree reuse) or Gumbel AlphaZero "
        "(sequential halving at the root, improved-policy targets; c_puct and the noise unused)",
    )
    max_considered: int = bounded(1, 65_536, 16, "gumbel: root moves sampled (Gumbel-top-k), at most the legal")
    random_opening_moves: int = bounded(0, 1_000_000, 0, "start each game after 0..K random moves (not recorded)")

    def __post_init__(self) -> None:
        check_bounds(self)

    def to_dict(self) -> dict[str, Any]:
        """Return the settings as a JSON-ready dict."""
        return asdict(self)


@dataclass(frozen=True)
class TrainConfig:
    """Everything a training run depends on (saved with every checkpoint).

    Each field's meaning is its ``help`` (the field's metadata, also the training script's ``--help``);
    :meth:`settings` and :meth:`replace` see :attr:`selfplay`'s fields beside the others, by the same names.
    """

    iterations: int = bounded(1, 10_000_000, 20, "self-play + training rounds")
    games: int = bounded(1, 100_000, 64, "self-play games per iteration")
    selfplay: SelfPlayConfig = field(default_factory=SelfPlayConfig)
    channels: int = bounded(1, None, 32, "network trunk width")
    blocks: int = bounded(0, None, 3, "residual blocks")
    value_hidden: int = bounded(1, None, 64, "width of the value head's hidden layer")
    policy_channels: int = bounded(1, None, 2, "filters of the policy head's 1x1 conv")
    value_channels: int = bounded(1, None, 1, "filters of the value head's 1x1 conv")
    lr: float = bounded(1e-8, 10.0, 2e-3, "AdamW learning rate at the start (decays linearly to 10% over the run)")
    weight_decay: float = bounded(0.0, 10.0, 1e-4, "AdamW weight decay (the loss's L2 term)")
    batch_size: int = bounded(1, 65_536, 256, "samples per gradient step")
    epochs: float = bounded(0.0, 1e6, 4.0, "gradient samples per new position (steps = epochs * new / batch_size)")
    # The window is bounded here and by its memory with the game's encoding (replay.check_replay_window).
    replay_window: int = bounded(1, 100_000_000, 50_000, "positions kept for training (the most recent)")
    workers: int = bounded(1, MAX_WORKERS, 1, "self-play processes (1: in this process)")
    eval_every: int = bounded(0, 10_000_000, 1, "iterations between evaluations (0: never)")
    eval_games: int = bounded(0, 100_000, 10, "games against each baseline per evaluation")
    eval_simulations: int = bounded(0, 1_000_000, 50, "the search player's simulations at evaluation and gating")
    baseline_simulations: int = bounded(1, 1_000_000, 200, "simulations of the MCTS baseline (random rollouts)")
    perfect_games: int = bounded(
        0,
        1000,
        0,
        "first-player games of the search player (eval_simulations) against the exact solver per evaluation "
        "(Connect Four and smaller gravity boards; needs the solver extra)",
    )
    gate_games: int = bounded(0, 100_000, 0, "games against the best network before adopting a new one (0: off)")
    gate_threshold: float = bounded(0.0, 1.0, 0.55, "score (wins + draws / 2) a new network needs to be adopted")
    # The run ends with the iteration that crosses the limit (an iteration is never cut short).
    time_limit: float = bounded(0.0, 1e9, 0.0, "stop after this many seconds of training (0: none)")
    # 1 by default: on a 2-core machine with anything else running, 2 threads measured 4-30x slower per step
    # than 1 (threads spin waiting for each other).
    threads: int = bounded(1, MAX_THREADS, 1, "PyTorch threads for training")
    inference: str = one_of(
        ("torch", "numpy"), "torch", "what runs the network in self-play (numpy: faster on small, cheap batches)"
    )
    seed: int = bounded(0, MAX_SEED, 0, "the run's seed")

    def __post_init__(self) -> None:
        if not isinstance(self.selfplay, SelfPlayConfig):
            raise ValueError(f"selfplay must be a SelfPlayConfig, got {self.selfplay!r}")
        check_bounds(self)

    def net_config(self, encoder: BoardEncoder) -> NetConfig:
        """Return the shape of the network these settings train on ``encoder``'s game."""
        widths = {name: getattr(self, name) for name in _NET_WIDTHS}
        return NetConfig(*encoder.shape, encoder.num_actions, **widths)

    def describe(self, game: Any) -> str:
        """Return the run's settings on ``game`` as a few readable lines (the full settings are :meth:`to_dict`)."""
        sp = self.selfplay
        search = (
            f"Gumbel AlphaZero, {sp.simulations} simulations, {sp.max_considered} root moves considered"
            if sp.algorithm == "gumbel"
            else f"PUCT, {sp.simulations} simulations, c_puct {sp.c_puct:g}, Dirichlet({sp.dirichlet_alpha:g}) "
            f"x {sp.dirichlet_epsilon:g}, {sp.temperature_moves} moves at temperature 1"
        )
        stop = f"{self.iterations:,} iterations" + (
            f" or {self.time_limit:,.0f} s of training, whichever comes first" if self.time_limit else ""
        )
        lines = [
            f"training AlphaZero on {game!r} until {stop}",
            f"  self-play: {self.games} games per iteration, {sp.parallel_games} at once, "
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

    def settings(self) -> dict[str, Any]:
        """Return every setting by its one name, :attr:`selfplay`'s beside the others (see :func:`setting_fields`)."""
        return {f.name: getattr(self.selfplay if f.name in _SELFPLAY else self, f.name) for f in setting_fields()}

    def replace(self, **changes: Any) -> TrainConfig:
        """Return these settings with ``changes`` (by the names of :meth:`settings`) applied, checked.

        Raises:
            ValueError: on an unknown name or a value outside its bounds.
        """
        unknown = set(changes) - {f.name for f in setting_fields()}
        if unknown:
            raise ValueError(f"unknown training settings {sorted(unknown)}")
        selfplay = {k: v for k, v in changes.items() if k in _SELFPLAY}
        others = {k: v for k, v in changes.items() if k not in _SELFPLAY}
        return dataclasses.replace(self, selfplay=dataclasses.replace(self.selfplay, **selfplay), **others)

    def resumed(self, changes: dict[str, Any], name: Callable[[str], str] = str) -> TrainConfig:
        """Return these (a saved run's) settings with ``changes`` applied, for the run's continuation.

        Every setting may change but those of :data:`FIXED_ON_RESUME`.

        Args:
            changes: new values by the names of :meth:`settings`.
            name: how a refusal names the setting (the script: its flag).

        Raises:
            ValueError: one line naming a fixed setting that ``changes`` changes and why it cannot (or a
                value outside its bounds).
        """
        saved = self.settings()
        for key, value in changes.items():
            if key in FIXED_ON_RESUME and value != saved[key]:
                raise ValueError(
                    f"{name(key)} {value}: cannot change on resume: {FIXED_ON_RESUME[key]} (the saved run has "
                    f"{saved[key]})"
                )
        return self.replace(**changes)


#: The settings a resumed run keeps, and why: the network's shape (its saved parameters and Adam's moments
#: have that shape) and the seed (the run's random state is restored, so a new seed would change nothing).
FIXED_ON_RESUME = {
    **dict.fromkeys(_NET_WIDTHS, "the saved parameters and Adam's moments have the network's shape"),
    "seed": "the run's random state is restored from its file, so a new seed would not take effect",
}
_SELFPLAY = {f.name for f in fields(SelfPlayConfig)}


def setting_fields() -> list[Field[Any]]:
    """Return the fields of every setting: :class:`TrainConfig`'s, with :class:`SelfPlayConfig`'s in its place.

    No name is in both: each setting has one name, from the flag to the file.
    """
    train = list(fields(TrainConfig))
    at = [f.name for f in train].index("selfplay")
    return [*train[:at], *fields(SelfPlayConfig), *train[at + 1 :]]


def is_integer_setting(name: str) -> bool:
    """Return whether the setting ``name`` (one of :func:`setting_fields`) holds an ``int``, by its annotation."""
    return _annotations(SelfPlayConfig if name in _SELFPLAY else TrainConfig)[name] is int


# Per-game presets, chosen by the runs recorded in docs/agents/alphazero.md; a flag given overrides one setting.
_CONNECTFOUR = TrainConfig(
    iterations=10_000,
    games=128,
    selfplay=SelfPlayConfig(
        simulations=50, parallel_games=128, dirichlet_alpha=1.0, temperature_moves=12, random_opening_moves=16
    ),
    blocks=3,
    policy_channels=4,
    value_channels=2,
    replay_window=100_000,
    workers=2,
    time_limit=7200.0,
    eval_every=10,
    eval_games=0,
    eval_simulations=200,
    perfect_games=8,
)
# Connect Four's progress is graded against perfect play (the label sets) at each evaluation, so it plays no
# baseline games; its games start after up to 16 random moves, so that the network also learns the positions of
# the off-path label set (positions of random games). The other boards start from its settings: a 20-minute
# budget, games against the baselines (they have no label set), no random openings (not measured there), and
# for Dots and Boxes' many moves (24 edges on 3x3) less concentrated root noise and fewer exploratory moves.
_OTHER_BOARDS = _CONNECTFOUR.replace(
    time_limit=1200.0, eval_games=10, eval_simulations=50, perfect_games=0, random_opening_moves=0
)
#: The training script's settings for each game before any flag: every setting a 2-core CPU runs well.
PRESETS: dict[str, TrainConfig] = {
    "tictactoe": TrainConfig(
        iterations=600,
        games=16,
        selfplay=SelfPlayConfig(simulations=48, parallel_games=16, temperature_moves=9, random_opening_moves=4),
        blocks=2,
        policy_channels=16,
        value_channels=8,
        epochs=24.0,
        replay_window=20_000,
        inference="numpy",
        time_limit=170.0,
        eval_every=50,
        eval_games=0,
    ),
    "connectfour": _CONNECTFOUR,
    "connectn": _OTHER_BOARDS,
    "dotsandboxes": _OTHER_BOARDS.replace(dirichlet_alpha=0.5, temperature_moves=6),
}
