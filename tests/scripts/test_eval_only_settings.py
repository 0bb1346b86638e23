"""A setting only evaluation needs is not required when nothing is evaluated (``--eval-every 0``)."""

import importlib.util
import json
import os
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))  # importlib import mode: put the sibling helper on the path
from script_helpers import ROOT, run_script  # noqa: E402

HAS_TORCH = importlib.util.find_spec("torch") is not None
#: A sitecustomize that makes ``import numba`` fail, as where the ``solver`` extra is not installed.
NO_NUMBA = """
import sys
class _NoNumba:
    def find_spec(self, name, path=None, target=None):
        if name == "numba" or name.startswith("numba."):
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)
sys.meta_path.insert(0, _NoNumba())
"""
TINY = ["--iterations", "1", "--games", "2", "--parallel-games", "2", "--simulations", "2", "--quiet", "--json"]


@pytest.mark.skipif(not HAS_TORCH, reason="the train extra (torch) is not installed")
def test_connectfour_without_evaluation_trains_without_numba(tmp_path):
    (tmp_path / "site").mkdir()
    (tmp_path / "site" / "sitecustomize.py").write_text(NO_NUMBA)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(tmp_path / "site"), str(ROOT)])}
    out = tmp_path / "az.pt"
    refused = run_script("train_alphazero", "--game", "connectfour", *TINY, "--out", out, env=env, timeout=300)
    assert refused.returncode == 2 and "numba" in refused.stderr, refused.stderr  # it evaluates: the solver is due
    result = run_script(
        "train_alphazero", "--game", "connectfour", *TINY, "--eval-every", "0", "--out", out, env=env, timeout=300
    )
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout.splitlines()[-1])["iterations"] == 1 and out.exists()
