"""agents.alphazero.device: auto picks CUDA when PyTorch sees it, cuda without it is refused saying why, speeds add up.

PyTorch's CUDA queries are monkeypatched, so every branch runs on a machine without a GPU; no tensor is moved.
"""

import pytest

torch = pytest.importorskip("torch", reason="the alphazero extra (PyTorch) resolves the device")

from agents.alphazero.device import Device, Throughput, describe_device, resolve_device  # noqa: E402


def _cuda(monkeypatch, available, built="12.4"):
    """Make PyTorch see a CUDA device named 'Fake GPU' (or none), in a build with CUDA ``built`` (None: CPU-only)."""
    monkeypatch.setattr(torch.cuda, "is_available", lambda: available)
    monkeypatch.setattr(torch.cuda, "get_device_name", lambda device=None: "Fake GPU")
    monkeypatch.setattr(torch.version, "cuda", built)


def test_auto_picks_cuda_when_pytorch_sees_a_cuda_device(monkeypatch):
    _cuda(monkeypatch, True)
    assert resolve_device("auto") == Device("cuda", "auto: Fake GPU")
    assert resolve_device() == resolve_device("auto")
    assert str(resolve_device("cuda")) == "cuda (Fake GPU)"
    assert resolve_device("cpu") == Device("cpu", "as asked")  # the CPU when asked for, a GPU or not


def test_auto_falls_back_to_the_cpu_without_a_cuda_device(monkeypatch):
    _cuda(monkeypatch, False)
    assert str(resolve_device("auto")) == "cpu (auto: no CUDA device)"


@pytest.mark.parametrize(
    ("built", "why"), [(None, "built without CUDA"), ("12.4", "built with CUDA 12.4, no device visible")]
)
def test_cuda_without_a_cuda_device_is_refused_in_one_line_saying_why(monkeypatch, built, why):
    _cuda(monkeypatch, False, built)
    with pytest.raises(ValueError) as info:
        resolve_device("cuda", "--device")
    assert str(info.value) == (
        f"--device cuda: PyTorch sees no CUDA device (torch {torch.__version__}, {why}); use --device cpu or auto"
    )


def test_an_unknown_device_is_refused_naming_the_choices():
    with pytest.raises(ValueError, match=r"^device must be one of auto, cpu, cuda, got 'tpu'$"):
        resolve_device("tpu")


def test_the_banner_says_what_runs_on_the_device():
    cuda = Device("cuda", "Fake GPU")
    assert describe_device(Device("cpu", "as asked"), 2, "numpy") == "device: cpu (as asked)"
    assert describe_device(cuda, 0, "torch") == "device: cuda (Fake GPU): the learner and self-play's network"
    assert describe_device(cuda, 0, "numpy").endswith(
        ": the learner; self-play runs its network in numpy on the CPU (inference numpy)"
    )
    assert describe_device(cuda, 2, "torch").endswith(
        ": the learner; self-play runs its network on the CPU in 2 worker(s)"
    )


def test_throughput_adds_up_each_iteration_and_reports_its_speeds():
    done = Throughput("cuda")
    assert done.summary() == {"device": "cuda", "selfplay_positions_per_second": 0.0, "learner_steps_per_second": 0.0}
    done.add(100, 1.5, 10, 0.25)
    done.add(50, 1.5, 5, 0.5)
    assert done.summary() == {"device": "cuda", "selfplay_positions_per_second": 50.0, "learner_steps_per_second": 20.0}
