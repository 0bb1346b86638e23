"""Ctrl-C while a script is still importing (before ``cli.run``) ends it with one line and status 130.

A sitecustomize in the child makes the script's first import after :mod:`plumbing.cli` is loaded slow
(it creates a marker file, then sleeps), standing in for the slow imports (torch, numba, pygame) a user presses
Ctrl-C during; the test sends SIGINT once the marker is there. A second sitecustomize pauses inside one named
import (the plumbing's own first import, numpy's core, ``import gym_boardgames``, torch's compiled core), so
the Ctrl-C lands at that moment of the start. The child gets the default SIGINT handling back (the suite may
run with SIGINT ignored, as under ``nohup``: Python then raises no KeyboardInterrupt).
"""

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))  # importlib import mode: put the sibling helper on the path
from script_helpers import ROOT  # noqa: E402

#: Sleeps in the script's first import statement run after plumbing.cli is fully imported (a module
#: loaded already included: a script may import nothing new after it, yet a slow import is what is stood in for).
SLOW_IMPORT = """
import builtins, os, sys, time
_import = builtins.__import__
def _slow_import(name, globals=None, *args, **kwargs):
    cli = sys.modules.get("plumbing.cli")
    if (globals or {}).get("__name__") == "__main__" and hasattr(cli, "emit_summary"):
        if not os.path.exists(os.environ["MARKER"]):
            open(os.environ["MARKER"], "w").close()
            time.sleep(120)
    return _import(name, globals, *args, **kwargs)
builtins.__import__ = _slow_import
"""
#: Pauses when the module named by $PAUSE_IN is first looked for, i.e. inside the import statement that loads it.
PAUSE_INSIDE_IMPORT = """
import os, sys, time
class _Pause:
    def find_spec(self, name, path=None, target=None):
        if name == os.environ["PAUSE_IN"] and not os.path.exists(os.environ["MARKER"]):
            open(os.environ["MARKER"], "w").close()
            time.sleep(120)
        return None
sys.meta_path.insert(0, _Pause())
"""
SCRIPTS = sorted(path.stem for path in (ROOT / "scripts").glob("*.py"))
#: Generous: the marker comes after the package's own imports, on a busy machine.
HANG_GUARD_S = 120


def _default_sigint():
    signal.signal(signal.SIGINT, signal.SIG_DFL)


@pytest.mark.parametrize("script", SCRIPTS)
def test_ctrl_c_during_imports_is_one_line_and_status_130(script, tmp_path):
    _interrupt_at_marker(script, ["--help"], SLOW_IMPORT, {}, tmp_path)


@pytest.mark.slow  # two fresh interpreters a script
@pytest.mark.parametrize("inside", ["plumbing.cli", "numpy._core", "gym_boardgames.registration"])
@pytest.mark.parametrize("script", SCRIPTS)
def test_ctrl_c_inside_the_first_imports_is_one_line_and_status_130(script, inside, tmp_path):
    # plumbing.cli: the first moment after the plumbing's own import; numpy's core and the package's registration,
    # imported by plumbing.cli, before the hook was installed when it was cli's to install.
    _interrupt_at_marker(script, ["--help"], PAUSE_INSIDE_IMPORT, {"PAUSE_IN": inside}, tmp_path)


@pytest.mark.slow  # imports PyTorch
def test_ctrl_c_inside_torchs_import_is_one_line_and_status_130(tmp_path):
    pytest.importorskip("torch")
    args = ["--game", "tictactoe", "--iterations", "1", "--out", str(tmp_path / "net.npz")]
    _interrupt_at_marker("train_alphazero", args, PAUSE_INSIDE_IMPORT, {"PAUSE_IN": "torch._C"}, tmp_path)
    assert not (tmp_path / "net.npz").exists()


def _interrupt_at_marker(script, args, sitecustomize, extra_env, tmp_path):
    """Run ``script`` with ``sitecustomize``, send SIGINT once it made its marker, expect one line and 130."""
    (tmp_path / "site").mkdir()
    (tmp_path / "site" / "sitecustomize.py").write_text(sitecustomize)
    marker = tmp_path / "importing"
    paths = os.pathsep.join([str(tmp_path / "site"), str(ROOT)])
    env = {**os.environ, **extra_env, "MARKER": str(marker), "PYTHONPATH": paths}
    child = subprocess.Popen(
        [sys.executable, str(ROOT / "scripts" / f"{script}.py"), *args],
        cwd=tmp_path, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, preexec_fn=_default_sigint,
    )  # fmt: skip
    try:
        deadline = time.monotonic() + HANG_GUARD_S
        while not marker.exists() and child.poll() is None and time.monotonic() < deadline:
            time.sleep(0.05)
        assert marker.exists(), f"no pause in its imports: {child.communicate(timeout=HANG_GUARD_S)}"
        child.send_signal(signal.SIGINT)
        _, err = child.communicate(timeout=HANG_GUARD_S)
    finally:
        if child.poll() is None:
            child.kill()
            child.communicate()
    assert child.returncode == 130 and err.strip().splitlines() == [f"{script}.py: interrupted"], err
