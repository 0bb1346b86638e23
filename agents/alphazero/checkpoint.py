"""The training state of a run, ``MODEL.train.npz``: what it holds, how it is written, read and checked.

The file (format ``gym_boardgames.alphazero.training``, version 4, an :func:`agents.persistence.save_npz`
file; versions 1 to 3 are still read) sits beside the model and holds everything a run needs to continue:

- arrays: the network's parameters (``model.NAME``), Adam's moments (``adam.exp_avg.NAME``,
  ``adam.exp_avg_sq.NAME`` and ``adam.step.NAME``, for every parameter Adam has stepped), the gating's best
  network (``best.NAME``, when gating; written for the record, not read back) and the replay window, oldest
  first (``replay.planes`` as ``uint8`` quarters, ``replay.policies``, ``replay.values``), and the learning
  curve (:class:`CurvePoint`) as the UTF-8 bytes of its JSON (``curve``, ``uint8``; version 1 kept it in the
  metadata, where the header's size limit stopped every save after about 4,100 iterations);
- metadata: the game, the network's shape, the training settings, the counters (iteration, seconds, games,
  positions, self-play seconds) and the random generator's state.

Reading checks everything before the run uses it: the settings and the network's shape against each other,
the replay window's memory against :data:`agents.alphazero.replay.MAX_REPLAY_BYTES`, every array's shape,
dtype and finiteness, Adam's second moments (never negative), the replay arrays' lengths and the run record's
numbers. Any problem raises :class:`agents.persistence.SavedFileError` naming the file. No PyTorch here: the
trainer turns its optimizer into arrays and back.
"""

from __future__ import annotations

import contextlib
import json
import math
import os
from collections.abc import Iterator
from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np

from agents.alphazero.config import MAX_SEED, NetConfig, TrainConfig, bounded, check_bounds
from agents.alphazero.encoding import recorded_game
from agents.alphazero.replay import check_replay_window
from agents.alphazero.selfplay import Samples
from agents.persistence import ArraySpec, SavedFileError, check_file, load_npz, parse_json, save_npz
from gym_boardgames.checks import check_int, check_number
from gym_boardgames.rules.registry import game_to_config

TRAIN_FORMAT = "gym_boardgames.alphazero.training"
TRAIN_VERSION = 4
#: Versions read: 1 kept the learning curve in the header, whose 1,000,000 characters a run passed after about
#: 4,100 iterations, after which it could never save again; 2 keeps it as a uint8 array of its JSON, beside
#: the replay, of at most :data:`MAX_CURVE_BYTES` (about 270,000 points); 3 names the setting
#: ``games_per_iteration`` ``games``, as its flag, and 4 the self-play setting ``n_simulations`` ``simulations``
#: (an older file's are renamed when read).
TRAIN_VERSIONS = (1, 2, 3, 4)
MAX_CURVE_BYTES = 64 << 20
#: Largest training-state file accepted on resume (the replay window dominates it).
MAX_TRAIN_FILE_BYTES = 1 << 30
#: The file and data size limits of every read (arrays the schema does not name are skipped, never decompressed).
_LIMITS = {"max_file_bytes": MAX_TRAIN_FILE_BYTES, "max_data_bytes": MAX_TRAIN_FILE_BYTES}
#: The run record's counters (integers) and times (seconds), as the file's metadata names them.
_COUNTERS = ("iteration", "games", "positions")
_SECONDS = ("seconds", "selfplay_seconds")
#: The run record of :class:`TrainingState`: the trainer keeps each as an attribute of the same name.
RUN_RECORD = (*_COUNTERS, *_SECONDS, "curve")


@dataclass
class CurvePoint:
    """One evaluation of a training run (a point of the learning curve)."""

    iteration: int = bounded(0, None)
    seconds: float = bounded(0, None)
    games: int = bounded(0, None)
    positions: int = bounded(0, None)
    policy_loss: float = bounded(0, None)  # a cross-entropy
    value_loss: float = bounded(0, None)  # a squared error
    optimal_rate: float | None = bounded(0, 1, None)  # a share, when measured (likewise below)
    scores: dict[str, float] = field(default_factory=dict)
    #: Connect Four 6x7: the raw network's share of moves that keep the result on the shipped label set
    #: (:mod:`agents.matches.perfect_play`), over all positions and over the critical ones.
    outcome_kept: float | None = bounded(0, 1, None)
    outcome_kept_critical: float | None = bounded(0, 1, None)
    #: The same two shares on each other shipped label set, by name: ``{"heldout": [all, critical], ...}``.
    outcome_kept_other: dict[str, list[float]] = field(default_factory=dict)


@dataclass
class TrainingState:
    """Everything a training-state file holds (see the module docstring).

    Attributes:
        game: the rules object the run learns.
        config: the run's settings.
        net: the network's shape (``config.net_config`` of the game's encoding).
        params: the network's parameters by name.
        optimizer: Adam's state as arrays (:meth:`Trainer.adam_arrays`): ``exp_avg.NAME``, ``exp_avg_sq.NAME``
            and ``step.NAME`` (a 0-d float32) for each parameter Adam has stepped.
        replay: the replay window's samples, oldest first.
        iteration: iterations done.
        seconds: training seconds so far (self-play and gradient steps, evaluations not counted).
        games: self-play games so far.
        positions: self-play positions so far.
        selfplay_seconds: the part of ``seconds`` spent in self-play.
        rng: the run's ``numpy`` generator state (``bit_generator.state``); as read, a PCG64 state that
            :func:`read_training_state` has checked, so the trainer restores it as it is.
        curve: the learning curve.
        best_params: the gating's best network, if any (written only: a resumed run gates afresh).
    """

    game: Any
    config: TrainConfig
    net: NetConfig
    params: dict[str, np.ndarray]
    optimizer: dict[str, np.ndarray]
    replay: Samples
    iteration: int = 0
    seconds: float = 0.0
    games: int = 0
    positions: int = 0
    selfplay_seconds: float = 0.0
    rng: Any = None
    curve: list[CurvePoint] = field(default_factory=list)
    best_params: dict[str, np.ndarray] | None = None

    def run_info(self) -> dict[str, Any]:
        """Return the settings and counters a saved model records in its metadata (and the state too)."""
        return {
            "training": self.config.to_dict(),
            "iteration": self.iteration,
            "seconds": round(self.seconds, 3),
            "games": self.games,
            "positions": self.positions,
        }


def training_state_path(model_path: str) -> str:
    """Return where the training state of the model at ``model_path`` is kept (``X.npz`` -> ``X.train.npz``)."""
    root, ext = os.path.splitext(os.fspath(model_path))
    return f"{root}.train{ext or '.npz'}"


def kept_model_path(model_path: str) -> str:
    """Return where a run keeps its best evaluated network: ``X.npz`` -> ``X.kept.npz`` (:func:`selection_score`)."""
    root, ext = os.path.splitext(os.fspath(model_path))
    return f"{root}.kept{ext or '.npz'}"


def selection_score(point: CurvePoint) -> float | None:
    """Return the score by which a run keeps its best evaluated network, or None if the point measured nothing.

    The sum of what the evaluation measured, each a share in [0, 1]: the score against the exact solver as first
    player (``scores["perfect"]``: wins plus half the draws), the mean over the shipped Connect Four label sets of
    the raw network's outcome-kept shares (all positions and critical ones), and the optimal-move rate on
    solved games. Games against the solver come first on purpose: the label sets grade single moves, and a
    network can gain on them while it loses whole games against perfect defence.
    """
    parts = []
    if "perfect" in point.scores:
        parts.append(point.scores["perfect"])
    shares = [] if point.outcome_kept is None else [point.outcome_kept, point.outcome_kept_critical]
    shares += [share for pair in point.outcome_kept_other.values() for share in pair]
    if shares:
        parts.append(sum(shares) / len(shares))
    if point.optimal_rate is not None:
        parts.append(point.optimal_rate)
    return sum(parts) if parts else None


def kept_point(curve: list[CurvePoint]) -> tuple[float, CurvePoint] | None:
    """Return the best :func:`selection_score` of ``curve`` and its point (the kept network's), or None."""
    scored = [(score, point) for point in curve if (score := selection_score(point)) is not None]
    return max(scored, key=lambda pair: pair[0], default=None)


def model_path(state_path: str) -> str:
    """Return the model beside a training state (``X.train.npz`` -> ``X.npz``), the inverse of the above."""
    return state_path[: -len(".train.npz")] + ".npz"


def resolve_state_path(path: str | os.PathLike[str]) -> str:
    """Return the training-state file of ``path``: itself if it is one, else the state beside the model it names."""
    path = os.fspath(path)
    return path if path.endswith(".train.npz") else training_state_path(path)


def save_training_state(path: str | os.PathLike[str], state: TrainingState, *, replace: bool = True) -> str:
    """Write ``state`` to ``path`` atomically (the previous file is kept whole if the write fails); return the path.

    ``replace`` as :func:`agents.persistence.save_npz`'s.

    Raises:
        OSError: if the file cannot be written.
    """
    arrays: dict[str, np.ndarray] = {f"model.{k}": v for k, v in state.params.items()}
    arrays.update({f"adam.{k}": v for k, v in state.optimizer.items()})
    if state.best_params is not None:
        arrays.update({f"best.{k}": v for k, v in state.best_params.items()})
    # Planes hold multiples of 1/4 in [0, 1] (0/1 pieces, Dots' sides drawn / 4): stored exactly as
    # uint8 quarters, a quarter of the bytes, which keeps the per-iteration save short.
    planes, policies, values = state.replay
    arrays.update({"replay.planes": _quarters(planes), "replay.policies": policies, "replay.values": values})
    meta = {"game": game_to_config(state.game), "net": state.net.to_dict(), **state.run_info()}
    meta.update(selfplay_seconds=round(state.selfplay_seconds, 3), rng=state.rng)
    # A point without other label sets (every game but Connect Four) leaves the key out: shorter, as before.
    points = [{k: v for k, v in asdict(p).items() if k != "outcome_kept_other" or v} for p in state.curve]
    curve = json.dumps(points, allow_nan=False, separators=(",", ":")).encode()
    if len(curve) > MAX_CURVE_BYTES:
        raise ValueError(f"the learning curve takes {len(curve):,} bytes, more than MAX_CURVE_BYTES")
    arrays["curve"] = np.frombuffer(curve, dtype=np.uint8)
    return save_npz(path, arrays, format=TRAIN_FORMAT, version=TRAIN_VERSION, meta=meta, replace=replace)


def _quarters(planes: np.ndarray, chunk: int = 65_536) -> np.ndarray:
    """``rint(planes * 4)`` as uint8, a chunk of positions at a time, so no float32 temporary of them all is made."""
    quarters = np.empty(planes.shape, dtype=np.uint8)
    scratch = np.empty((min(chunk, len(planes)), *planes.shape[1:]), dtype=np.float32)
    for start in range(0, len(planes), chunk):
        part = planes[start : start + chunk]
        step = scratch[: len(part)]
        np.multiply(part, 4, out=step)
        np.rint(step, out=step)
        quarters[start : start + chunk] = step
    return quarters


def read_training_state(path: str | os.PathLike[str]) -> TrainingState:
    """Read and check a training state (``MODEL.train.npz``, or the model path beside it).

    Raises:
        FileNotFoundError: if there is no such file.
        SavedFileError: naming the file, if it is not a valid training state.
    """
    state_path = resolve_state_path(path)
    found: dict[str, Any] = {}

    def schema(version: int, meta: dict[str, Any]) -> dict[str, ArraySpec]:
        game, encoder, config, net = _settings(version, meta)
        found.update(game=game, config=config, net=net, version=version)
        specs = {f"model.{k}": ArraySpec(s, np.float32, finite=True) for k, s in net.param_shapes().items()}
        for name, shape in net.param_shapes().items():
            if not name.endswith(("running_mean", "running_var")):  # batch-norm statistics are not trained
                for moment, moment_shape in (("exp_avg", shape), ("exp_avg_sq", shape), ("step", ())):
                    specs[f"adam.{moment}.{name}"] = ArraySpec(moment_shape, np.float32, finite=True)
        window = config.replay_window
        specs["replay.planes"] = ArraySpec((None, *encoder.shape), np.uint8, max_size=window * math.prod(encoder.shape))
        specs["replay.policies"] = ArraySpec(
            (None, encoder.num_actions), np.float32, finite=True, max_size=window * encoder.num_actions
        )
        specs["replay.values"] = ArraySpec((None,), np.float32, finite=True, max_size=window)
        if version >= 2:
            specs["curve"] = _CURVE_SPEC
        return specs

    loaded = load_npz(state_path, format=TRAIN_FORMAT, versions=set(TRAIN_VERSIONS), schema=schema, **_LIMITS)
    meta, arrays = loaded.meta, loaded.arrays
    negative = [k for k, v in arrays.items() if k.startswith("adam.exp_avg_sq.") and np.any(v < 0)]
    check_file(not negative, state_path, f"optimizer second moments must be >= 0, {', '.join(negative[:1])} is not")
    steps = [k for k, v in arrays.items() if k.startswith("adam.step.") and not (v >= 0 and v == np.floor(v))]
    check_file(
        not steps, state_path, f"optimizer step counts must be whole numbers >= 0, {', '.join(steps[:1])} is not"
    )
    quarters, policies, values = (arrays[f"replay.{k}"] for k in ("planes", "policies", "values"))
    targets = not len(policies) or (policies.min() >= 0 and np.abs(policies.sum(axis=1) - 1).max() <= 1e-3)
    check_file(targets, state_path, "the replay's policy targets must be probability distributions (>= 0, sum 1)")
    aligned = len(quarters) == len(policies) == len(values) and quarters.max(initial=0) <= 4
    check_file(aligned, state_path, "the replay arrays have different lengths or planes above 1")
    problem = _rng_problem(meta.get("rng"))
    check_file(problem is None, state_path, f"bad random generator state: {problem}")
    with _run_record(state_path):
        counters = {k: check_int(f"training state {k}", meta.get(k, 0), 0, MAX_SEED) for k in _COUNTERS}
        seconds = {k: check_number(f"training state {k}", meta.get(k, 0.0), 0, 1e9) for k in _SECONDS}
    curve = _curve(state_path, loaded.version, meta, arrays)
    planes = quarters.astype(np.float32)
    planes *= 0.25  # in place: no second float32 copy of the planes (replay_bytes counts what resuming holds)
    params, optimizer = ({k[len(p) :]: v for k, v in arrays.items() if k.startswith(p)} for p in ("model.", "adam."))
    replay = Samples(planes, policies, values)
    record = {**counters, **seconds, "curve": curve}
    return TrainingState(
        found["game"], found["config"], found["net"], params, optimizer, replay, rng=meta.get("rng"), **record
    )


def read_settings(path: str | os.PathLike[str]) -> tuple[Any, TrainConfig]:
    """Return the game and the settings of a training state (``MODEL.train.npz`` or the model beside it).

    Only the file's header is read (the training script checks its flags against them before resuming).

    Raises:
        FileNotFoundError: if there is no such file.
        SavedFileError: naming the file, if its header is not a valid training state's.
    """
    found: list[Any] = []

    def schema(version: int, meta: dict[str, Any]) -> dict[str, ArraySpec]:
        found.extend(_settings(version, meta))
        return {}

    load_npz(resolve_state_path(path), format=TRAIN_FORMAT, versions=set(TRAIN_VERSIONS), schema=schema, **_LIMITS)
    return found[0], found[2]


def _settings(version: int, meta: dict[str, Any]) -> tuple[Any, Any, TrainConfig, NetConfig]:
    """The game, its encoder, the settings and the network a header records, checked against each other."""
    game, encoder = recorded_game(meta.get("game"))
    training = meta.get("training")
    if version < 3 and isinstance(training, dict) and "games_per_iteration" in training:
        training = {("games" if k == "games_per_iteration" else k): v for k, v in training.items()}
    if version < 4 and isinstance(training, dict) and isinstance(training.get("selfplay"), dict):
        selfplay = {("simulations" if k == "n_simulations" else k): v for k, v in training["selfplay"].items()}
        training = {**training, "selfplay": selfplay}
    config = TrainConfig.from_dict(training)
    net = config.net_config(encoder)
    if meta.get("net") != net.to_dict():
        raise ValueError(f"network {meta.get('net')} does not match the training settings {net.to_dict()}")
    check_replay_window(config.replay_window, encoder)
    return game, encoder, config, net


def _rng_problem(state: Any) -> str | None:
    """What makes ``state`` a state numpy would take but that no PCG64 generator can be in (a hand edit), or None."""
    if not isinstance(state, dict) or state.get("bit_generator") != "PCG64" or not isinstance(state.get("state"), dict):
        return f"expected numpy's PCG64 state, got {str(state)[:80]}"
    inner, uinteger = state["state"], state.get("uinteger")
    for name in ("state", "inc"):
        value = inner.get(name)
        if not isinstance(value, int) or isinstance(value, bool) or not 0 <= value < 2**128:
            return f"{name} must be an integer in [0, 2**128), got {str(value)[:40]}"
    if inner["inc"] % 2 == 0:
        return "inc must be odd"
    if state.get("has_uint32") not in (0, 1) or not (isinstance(uinteger, int) and 0 <= uinteger < 2**32):
        return "has_uint32 must be 0 or 1 and uinteger an integer in [0, 2**32)"
    return None


@contextlib.contextmanager
def _run_record(state_path: str) -> Iterator[None]:
    """Turn a ``ValueError`` or ``TypeError`` of the run record's checks into a SavedFileError naming the file."""
    try:
        yield
    except (TypeError, ValueError) as error:
        bad = SavedFileError(state_path, f"bad run record: {error}")
        raise error if isinstance(error, SavedFileError) else bad from None


def read_curve(path: str | os.PathLike[str]) -> list[CurvePoint]:
    """Return the learning curve kept in a training state (``MODEL.train.npz`` or the model beside it).

    Only the file's header and the curve are read, not the replay window.

    Raises:
        SavedFileError: naming the file, if it is not a training state or its curve is malformed.
    """
    state_path = resolve_state_path(path)

    def schema(version: int, meta: dict[str, Any]) -> dict[str, ArraySpec]:
        return {"curve": _CURVE_SPEC} if version >= 2 else {}

    loaded = load_npz(state_path, format=TRAIN_FORMAT, versions=set(TRAIN_VERSIONS), schema=schema, **_LIMITS)
    return _curve(state_path, loaded.version, loaded.meta, loaded.arrays)


_CURVE_SPEC = ArraySpec((None,), np.uint8, max_size=MAX_CURVE_BYTES)


def _curve(state_path: str, version: int, meta: dict[str, Any], arrays: dict[str, np.ndarray]) -> list[CurvePoint]:
    """The learning curve (version 1: in the header; 2: an array of its JSON, parsed strictly), checked."""
    if version >= 2:
        try:
            text = arrays["curve"].tobytes().decode("utf-8")
        except UnicodeDecodeError:
            raise SavedFileError(state_path, "the learning curve is not UTF-8 text") from None
        points = parse_json(state_path, text)
    else:
        points = meta.get("curve", [])
    objects = isinstance(points, list) and all(isinstance(p, dict) for p in points)
    check_file(objects, state_path, "bad run record: the learning curve must be a list of objects")
    with _run_record(state_path):
        curve = [CurvePoint(**p) for p in points]
        for point in curve:
            check_bounds(point, "curve ")  # the counters, the seconds, the losses and the shares measured
            for name, value in (("scores", point.scores), ("outcome_kept_other", point.outcome_kept_other)):
                check_file(isinstance(value, dict), state_path, f"bad run record: curve {name} must be an object")
            shares = [(f"score against {opponent}", score) for opponent, score in point.scores.items()]
            for name, pair in point.outcome_kept_other.items():
                pairs = isinstance(pair, list) and len(pair) == 2
                check_file(pairs, state_path, f"bad run record: curve outcome kept on {name} must be [all, critical]")
                shares += [(f"outcome kept on {name}", share) for share in pair]
            for name, share in shares:
                check_number(f"curve {name}", share, 0, 1)
    return curve
