"""gym_boardgames.cli, the scripts' shared pieces: atomic figures and the TensorBoard check.

The scripts' own command lines (no abbreviations, defaults in --help, --overwrite) are checked script by script
in tests/scripts/test_script_flags.py.
"""

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from gym_boardgames.cli import TENSORBOARD_MISSING, check_tensorboard

ROOT = Path(__file__).resolve().parents[1]
OLD = b"the figure of an earlier run"


# ---- atomic figures -------------------------------------------------------------------------------


KILLED_SAVE = """
import sys, time
import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt
from matplotlib.figure import Figure
import gym_boardgames.utils as utils
from gym_boardgames.cli import save_figure

stage = sys.argv[2]
if stage == "rendering":
    def slow_savefig(self, fname, **kwargs):
        fname.write(b"\\x89PNG half a figure")
        print("saving", flush=True)
        time.sleep(600)
    Figure.savefig = slow_savefig
else:  # killed after the temporary file is written, before the rename
    def slow_replace(src, dst):
        print("saving", flush=True)
        time.sleep(600)
    utils.os.replace = slow_replace
fig, ax = plt.subplots()
ax.plot([0, 1], [1, 0])
save_figure(fig, sys.argv[1], dpi=50)
"""


@pytest.mark.slow  # a subprocess that imports matplotlib
@pytest.mark.parametrize("stage", ["rendering", "writing"])
def test_a_save_killed_midway_leaves_the_earlier_figure_and_no_temporary_file(stage, tmp_path):
    pytest.importorskip("matplotlib")
    target = tmp_path / "figure.png"
    target.write_bytes(OLD)
    child = subprocess.Popen(
        [sys.executable, "-c", KILLED_SAVE, str(target), stage], stdout=subprocess.PIPE, text=True, cwd=ROOT
    )
    try:
        assert child.stdout.readline().strip() == "saving"
    finally:
        os.kill(child.pid, signal.SIGKILL)
        child.wait(timeout=60)
    assert target.read_bytes() == OLD
    # kill -9 skips every clean-up: the writer's temporary file may stay until the next save removes it.
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from gym_boardgames.cli import save_figure

    fig, _ = plt.subplots()
    save_figure(fig, target, dpi=50)
    plt.close(fig)
    assert target.read_bytes()[:4] == b"\x89PNG"
    assert os.listdir(tmp_path) == ["figure.png"]


# ---- the TensorBoard check ----------------------------------------------------------------------


@pytest.fixture
def no_tensorboard(monkeypatch):
    """Make every ``import tensorboard...`` fail, as it does where the package is not installed."""
    for name in [name for name in sys.modules if name == "tensorboard" or name.startswith("tensorboard.")]:
        monkeypatch.setitem(sys.modules, name, None)
    monkeypatch.setitem(sys.modules, "tensorboard", None)


def test_check_names_the_extra_when_the_package_is_missing(no_tensorboard, tmp_path):
    with pytest.raises(ValueError) as info:
        check_tensorboard(tmp_path / "tb")
    assert str(info.value) == TENSORBOARD_MISSING
    check_tensorboard(None)  # no --tensorboard: nothing to check
