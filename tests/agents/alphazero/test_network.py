"""The numpy network's parameter checks: poisoned batch norms and too costly networks are refused at load."""

import sys
from pathlib import Path

import numpy as np
import pytest

from agents.alphazero.agent import AlphaZeroAgent
from agents.persistence import SavedFileError
from gym_boardgames.rules import TicTacToe
from gym_boardgames.rules.registry import game_to_config

sys.path.insert(0, str(Path(__file__).parent))  # importlib import mode: put the sibling helper on the path
from alphazero_helpers import small_agent  # noqa: E402


def _poisoned(tmp_path, name, change):
    """Save a tic-tac-toe model whose parameters ``change`` edits in place; return its path."""
    agent = small_agent(TicTacToe())
    params = {k: v.copy() for k, v in agent.params.items()}
    change(params)
    path = tmp_path / name
    from agents.alphazero.agent import FORMAT, VERSION
    from agents.persistence import save_npz

    # Written as AlphaZeroAgent.save writes (the constructor itself refuses such parameters).
    meta = {"game": game_to_config(TicTacToe()), "net": agent.config.to_dict(), "info": {}}
    save_npz(path, params, format=FORMAT, version=VERSION, meta=meta)
    return path


def test_poisoned_models_are_refused_at_load_naming_the_file(tmp_path):
    def negative_variance(params):
        params["stem.bn.running_var"][0] = -1.0

    def overflow_when_folded(params):
        params["stem.conv.weight"][:] = 3e38
        params["stem.bn.weight"][:] = 10.0

    for name, change, message in (
        ("var.npz", negative_variance, "running_var"),
        ("huge.npz", overflow_when_folded, "overflows float32"),
    ):
        path = _poisoned(tmp_path, name, change)
        with pytest.raises(SavedFileError, match=f"{name}.*{message}"):
            AlphaZeroAgent.load(path)


def test_a_network_too_costly_per_position_is_refused_from_a_small_file(tmp_path):
    from agents.persistence import save_npz

    # 512 channels on a 64x64 board: a few hundred bytes of metadata, billions of multiply-adds per call.
    meta = {
        "game": {"class": "ConnectN", "config": [64, 64, 5, False]},
        "net": {"in_planes": 4, "height": 64, "width": 64, "num_actions": 4096, "channels": 512, "blocks": 1},
    }
    path = tmp_path / "costly.npz"
    save_npz(path, {"x": np.zeros(1, np.float32)}, format="gym_boardgames.alphazero", version=1, meta=meta)
    with pytest.raises(SavedFileError, match="multiply-adds per position"):
        AlphaZeroAgent.load(path)
