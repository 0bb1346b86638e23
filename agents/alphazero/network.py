"""The policy-value network: its layers, its parameters by name, and a forward pass in plain numpy.

The architecture is AlphaGo Zero's, scaled down for a CPU::

    input (C, H, W)
      -> conv 3x3, `channels` filters, batch norm, ReLU
      -> `blocks` residual blocks: conv 3x3, BN, ReLU, conv 3x3, BN, + input, ReLU
      -> policy head: conv 1x1 (`policy_channels` filters, 2 in AlphaGo Zero), BN, ReLU, linear to
         `num_actions` logits
      -> value head: conv 1x1 (`value_channels` filters, 1 in AlphaGo Zero), BN, ReLU, linear to
         `value_hidden`, ReLU, linear to 1, tanh

On small boards the heads' few filters are a bottleneck (2 x 9 numbers for tic-tac-toe's whole policy), so
their widths are settings too. The shape is :class:`agents.alphazero.config.NetConfig`.

Parameters are a flat ``{name: float32 array}`` dictionary with PyTorch's ``state_dict`` names (batch-norm
running statistics included), so the training library's model (:mod:`agents.alphazero.torch_model`) and
this module read the same saved file. :class:`NumpyNet` folds each batch norm into the convolution before
it (inference mode: ``y = gamma * (conv(x) - mean) / sqrt(var + eps) + beta`` is again a convolution) and
runs the convolutions as one matrix product over 3x3 patches, in NHWC layout. Playing a saved model
therefore needs numpy only.
"""

from __future__ import annotations

import numpy as np

from agents.alphazero.config import NetConfig

#: PyTorch's default batch-norm epsilon; the numpy pass must fold with the same value.
BN_EPS = 1e-5


def _fold(params: dict[str, np.ndarray], prefix: str) -> tuple[np.ndarray, np.ndarray]:
    """Return the ``(k*k*c_in, c_out)`` matrix and bias of conv ``prefix`` with its batch norm folded in."""
    weight = params[f"{prefix}.conv.weight"].astype(np.float64)  # (out, in, k, k)
    gamma, beta = params[f"{prefix}.bn.weight"], params[f"{prefix}.bn.bias"]
    mean, var = params[f"{prefix}.bn.running_mean"], params[f"{prefix}.bn.running_var"]
    if not np.all(var >= 0):  # also refuses NaN; a negative variance makes every output NaN
        raise ValueError(f"network parameter '{prefix}.bn.running_var' has negative entries (a variance is >= 0)")
    scale = gamma / np.sqrt(var.astype(np.float64) + BN_EPS)
    weight = weight * scale[:, None, None, None]
    bias = beta - mean * scale
    # Patches are laid out (dy, dx, channel), matching _patches below.
    matrix = weight.transpose(2, 3, 1, 0).reshape(-1, weight.shape[0])
    with np.errstate(over="ignore"):
        folded = matrix.astype(np.float32), bias.astype(np.float32)
    if not all(np.all(np.isfinite(x)) for x in folded):
        # Finite float32 weights (say 3e38) can overflow once scaled by the batch norm.
        raise ValueError(f"network layer {prefix!r} overflows float32 once its batch norm is folded in")
    return folded


def _patches(x: np.ndarray) -> np.ndarray:
    """Return the 3x3 patches of NHWC ``x`` (zero padded) as ``(B*H*W, 9*C)``."""
    batch, height, width, channels = x.shape
    padded = np.zeros((batch, height + 2, width + 2, channels), dtype=x.dtype)
    padded[:, 1:-1, 1:-1] = x
    views = [padded[:, dy : dy + height, dx : dx + width] for dy in range(3) for dx in range(3)]
    return np.concatenate(views, axis=3).reshape(batch * height * width, 9 * channels)


def _nhwc_matrix(weight: np.ndarray, cells: int) -> np.ndarray:
    """Return the ``(features, out)`` matrix of a linear layer over PyTorch's flattened NCHW features, for NHWC ones."""
    out = weight.shape[0]
    return np.ascontiguousarray(weight.reshape(out, -1, cells).transpose(0, 2, 1).reshape(out, -1).T)


class NumpyNet:
    """Inference with numpy only: the network of ``config`` with ``params`` (see the module docstring).

    Args:
        config: the network's shape.
        params: every parameter of :meth:`NetConfig.param_shapes`, by name.

    Raises:
        ValueError: if a parameter is missing, has the wrong shape or is not finite, a batch-norm variance is
            negative, or a layer overflows float32 once its batch norm is folded in.
    """

    def __init__(self, config: NetConfig, params: dict[str, np.ndarray]) -> None:
        for name, shape in config.param_shapes().items():
            if name not in params:
                raise ValueError(f"network parameter {name!r} is missing")
            if tuple(params[name].shape) != shape:
                raise ValueError(f"network parameter {name!r} has shape {params[name].shape}, expected {shape}")
            if not np.all(np.isfinite(params[name])):
                raise ValueError(f"network parameter {name!r} holds NaN or infinite values")
        self.config = config
        self._stem = _fold(params, "stem")
        self._blocks = [(_fold(params, f"blocks.{b}.a"), _fold(params, f"blocks.{b}.b")) for b in range(config.blocks)]
        self._policy = _fold(params, "policy")
        self._value = _fold(params, "value")
        cells = config.height * config.width
        self._policy_fc = (_nhwc_matrix(params["policy_fc.weight"], cells), params["policy_fc.bias"])
        self._value_fc1 = (_nhwc_matrix(params["value_fc1.weight"], cells), params["value_fc1.bias"])
        self._value_fc2 = (np.ascontiguousarray(params["value_fc2.weight"].T), params["value_fc2.bias"])

    def forward(self, planes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Return ``(policy logits (B, num_actions), values (B,))`` of ``(B, C, H, W)`` input planes."""
        batch = planes.shape[0]
        height, width = self.config.height, self.config.width
        x = np.ascontiguousarray(planes.transpose(0, 2, 3, 1), dtype=np.float32)

        def conv3(t: np.ndarray, folded: tuple[np.ndarray, np.ndarray]) -> np.ndarray:
            matrix, bias = folded
            return (_patches(t) @ matrix + bias).reshape(batch, height, width, -1)

        x = np.maximum(conv3(x, self._stem), 0)
        for a, b in self._blocks:
            h = np.maximum(conv3(x, a), 0)
            x = np.maximum(conv3(h, b) + x, 0)
        flat = x.reshape(batch * height * width, -1)
        p = np.maximum(flat @ self._policy[0] + self._policy[1], 0).reshape(batch, -1)
        logits = p @ self._policy_fc[0] + self._policy_fc[1]
        v = np.maximum(flat @ self._value[0] + self._value[1], 0).reshape(batch, -1)
        v = np.maximum(v @ self._value_fc1[0] + self._value_fc1[1], 0)
        values = np.tanh(v @ self._value_fc2[0] + self._value_fc2[1])[:, 0]
        return logits, values


def masked_softmax(logits: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """Return softmax probabilities of ``logits`` over the entries where ``mask`` is true (0 elsewhere)."""
    masked = np.where(mask, logits, -np.inf)
    masked = masked - masked.max(axis=1, keepdims=True)
    exp = np.exp(masked)
    return exp / exp.sum(axis=1, keepdims=True)
