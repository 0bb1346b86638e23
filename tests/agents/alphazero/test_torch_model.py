"""The PyTorch policy-value network computes what the numpy forward pass computes, to 1e-5."""

import sys
from pathlib import Path

import numpy as np
import pytest

from agents.alphazero.config import NetConfig
from agents.alphazero.encoding import encoder_for
from agents.alphazero.network import NumpyNet
from gym_boardgames.rules import ConnectN, DotsAndBoxes, TicTacToe

sys.path.insert(0, str(Path(__file__).parent))  # importlib import mode: put the sibling helper on the path
from alphazero_helpers import play, random_line, random_params  # noqa: E402


@pytest.mark.parametrize("game", [TicTacToe(), ConnectN(6, 7, 4, True), DotsAndBoxes(2, 3)], ids=repr)
def test_numpy_forward_pass_equals_pytorch_to_1e_5(game):
    torch = pytest.importorskip("torch", reason="the alphazero extra (PyTorch) is needed to compare")
    from agents.alphazero.torch_model import PolicyValueNet, load_params

    encoder = encoder_for(game)
    config = NetConfig(*encoder.shape, encoder.num_actions, channels=16, blocks=2, value_hidden=32)
    params = random_params(config, seed=1)
    model = PolicyValueNet(config)
    load_params(model, params)
    model.eval()
    rng = np.random.default_rng(0)
    states = [play(game, random_line(game, rng, max_moves=int(rng.integers(0, 6)))) for _ in range(32)]
    planes = encoder.encode(states)
    with torch.no_grad():
        logits, values = model(torch.from_numpy(planes))
    np_logits, np_values = NumpyNet(config, params).forward(planes)
    np.testing.assert_allclose(np_logits, logits.numpy(), atol=1e-5)
    np.testing.assert_allclose(np_values, values.numpy(), atol=1e-5)
