"""Where a training run's PyTorch work runs: ``auto``, ``cpu`` or ``cuda`` resolved once, before any work.

The device is a setting of one process, not of the run: it is not saved (parameters, Adam's moments and the
replay window are written as numpy arrays, so a run trained on CUDA resumes on the CPU and back), and a resumed
run takes whatever device it is given. What runs on it (:class:`agents.alphazero.training.Trainer`): the
learner (the network, AdamW's moments, every gradient step's batch) and, when self-play runs in the trainer's
own process with ``inference="torch"``, the one batched network call per simulation step. Self-play in worker
processes or Ray tasks, numpy inference, evaluation and gating stay on the CPU, as does playing a saved model
(:mod:`agents.alphazero.network`, numpy only). :func:`describe_device` says so in the training script's banner,
and :class:`Throughput` measures what the process did there: self-play positions and gradient steps per second.

PyTorch is imported inside :func:`resolve_device`, so importing this module needs the standard library only.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

#: The choices of a device: ``auto`` is CUDA when PyTorch sees a CUDA device, else the CPU.
DEVICES = ("auto", "cpu", "cuda")
#: What the choice decides, in a line (the training script's ``--device`` help).
DEVICE_HELP = (
    "where the learner runs, and self-play's network when it plays in this process with --inference torch (auto: "
    "CUDA when PyTorch sees a CUDA device; not a saved setting: a resumed run may switch)"
)


@dataclass(frozen=True)
class Device:
    """A resolved device.

    Attributes:
        name: ``"cpu"`` or ``"cuda"``, as ``torch.device`` and ``Tensor.to`` take it (``cuda`` is the current
            CUDA device, the first one ``CUDA_VISIBLE_DEVICES`` leaves).
        note: how it was chosen, or which device it is (``"auto: no CUDA device"``, ``"NVIDIA H200"``).
    """

    name: str
    note: str

    def __str__(self) -> str:
        return f"{self.name} ({self.note})"


def resolve_device(choice: str = "auto", name: str = "device") -> Device:
    """Resolve ``choice`` (one of :data:`DEVICES`) to the device the run uses.

    Args:
        choice: ``"auto"`` (CUDA when ``torch.cuda.is_available()``, else the CPU), ``"cpu"`` or ``"cuda"``.
        name: how a refusal names the setting (the training script: ``--device``).

    Raises:
        ValueError: on a choice not in :data:`DEVICES`, or ``"cuda"`` when PyTorch sees no CUDA device (one
            line saying why: a CPU-only build of PyTorch, or no device visible).
    """
    if choice not in DEVICES:
        raise ValueError(f"{name} must be one of {', '.join(DEVICES)}, got {choice!r}")
    if choice == "cpu":
        return Device("cpu", "as asked")
    import torch

    if torch.cuda.is_available():
        model = torch.cuda.get_device_name()
        return Device("cuda", f"auto: {model}" if choice == "auto" else model)
    if choice == "auto":
        return Device("cpu", "auto: no CUDA device")
    built = torch.version.cuda
    why = "built without CUDA" if built is None else f"built with CUDA {built}, no device visible"
    raise ValueError(
        f"{name} cuda: PyTorch sees no CUDA device (torch {torch.__version__}, {why}); use {name} cpu or auto"
    )


def describe_device(device: Device, workers: int, inference: str) -> str:
    """Return one line naming ``device`` and what runs on it (the training script's banner).

    Args:
        device: the run's device.
        workers: the worker processes (or Ray tasks) that play self-play, 0 when it plays in the trainer's
            process.
        inference: what runs self-play's network (``TrainConfig.inference``: ``"torch"`` or ``"numpy"``).
    """
    line = f"device: {device}"
    if device.name == "cpu":  # everything runs there
        return line
    if workers:
        return f"{line}: the learner; self-play runs its network on the CPU in {workers} worker(s)"
    if inference == "numpy":
        return f"{line}: the learner; self-play runs its network in numpy on the CPU (inference numpy)"
    return f"{line}: the learner and self-play's network"


@dataclass
class Throughput:
    """What one process's training iterations did on its device, and the seconds of each part.

    Not saved with the run, unlike the run record's totals: a resumed run may run on another device, so its
    speeds are measured afresh.

    Attributes:
        device: the device's name (:attr:`Device.name`).
        positions: self-play positions played.
        selfplay_seconds: seconds of self-play.
        steps: gradient steps taken.
        learner_seconds: seconds of those steps (each batch drawn, augmented, moved to the device and stepped,
            and the losses read back, which waits for the device).
    """

    device: str = "cpu"
    positions: int = 0
    selfplay_seconds: float = 0.0
    steps: int = 0
    learner_seconds: float = 0.0

    def add(self, positions: int, selfplay_seconds: float, steps: int, learner_seconds: float) -> None:
        """Count one iteration's self-play positions and gradient steps, and their seconds."""
        self.positions += positions
        self.selfplay_seconds += selfplay_seconds
        self.steps += steps
        self.learner_seconds += learner_seconds

    def summary(self) -> dict[str, Any]:
        """Return ``device``, ``selfplay_positions_per_second`` and ``learner_steps_per_second`` (0.0 before any work).

        The training script's ``--json`` summary has these keys.
        """
        return {
            "device": self.device,
            "selfplay_positions_per_second": round(self.positions / max(self.selfplay_seconds, 1e-9), 1),
            "learner_steps_per_second": round(self.steps / max(self.learner_seconds, 1e-9), 1),
        }
