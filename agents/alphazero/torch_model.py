"""The policy-value network in PyTorch, for training (the ``alphazero`` extra).

Same architecture and parameter names as :mod:`agents.alphazero.network`, whose numpy forward pass plays
the trained weights without PyTorch. Import this module only when training: it imports torch.
"""

from __future__ import annotations

import numpy as np

from agents.alphazero.config import NetConfig
from agents.alphazero.network import BN_EPS
from gym_boardgames.utils import require_extra

require_extra("alphazero", "torch", needed_for="training an AlphaZero network")
import torch  # noqa: E402  (after the check, so a missing extra gives the one-line message)

nn = torch.nn


class _ConvBN(nn.Module):
    def __init__(self, c_in: int, c_out: int, k: int) -> None:
        super().__init__()
        self.conv = nn.Conv2d(c_in, c_out, k, padding=k // 2, bias=False)
        self.bn = nn.BatchNorm2d(c_out, eps=BN_EPS)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.bn(self.conv(x))


class _Block(nn.Module):
    def __init__(self, channels: int) -> None:
        super().__init__()
        self.a = _ConvBN(channels, channels, 3)
        self.b = _ConvBN(channels, channels, 3)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.relu(self.b(torch.relu(self.a(x))) + x)


class PolicyValueNet(nn.Module):
    """AlphaGo Zero's residual policy-value network of ``config`` (see :mod:`agents.alphazero.network`)."""

    def __init__(self, config: NetConfig) -> None:
        super().__init__()
        self.config = config
        c, cells = config.channels, config.height * config.width
        self.stem = _ConvBN(config.in_planes, c, 3)
        self.blocks = nn.Sequential(*[_Block(c) for _ in range(config.blocks)])
        self.policy = _ConvBN(c, config.policy_channels, 1)
        self.policy_fc = nn.Linear(config.policy_channels * cells, config.num_actions)
        self.value = _ConvBN(c, config.value_channels, 1)
        self.value_fc1 = nn.Linear(config.value_channels * cells, config.value_hidden)
        self.value_fc2 = nn.Linear(config.value_hidden, 1)

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """Return ``(policy logits (B, A), values (B,))`` of input planes ``(B, C, H, W)``."""
        x = self.blocks(torch.relu(self.stem(x)))
        p = torch.relu(self.policy(x)).flatten(1)
        v = torch.relu(self.value(x)).flatten(1)
        v = torch.tanh(self.value_fc2(torch.relu(self.value_fc1(v))))
        return self.policy_fc(p), v[:, 0]


def params_of(model: PolicyValueNet) -> dict[str, np.ndarray]:
    """Return the model's parameters and batch-norm statistics as float32 numpy arrays by name."""
    return {
        name: tensor.detach().cpu().numpy().astype(np.float32)
        for name, tensor in model.state_dict().items()
        if not name.endswith("num_batches_tracked")
    }


def load_params(model: PolicyValueNet, params: dict[str, np.ndarray]) -> None:
    """Copy named numpy arrays into the model (every parameter must be present)."""
    state = {name: torch.from_numpy(np.asarray(params[name], dtype=np.float32)) for name in params_of(model)}
    model.load_state_dict(state, strict=False)
