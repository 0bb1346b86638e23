"""Each script's save on a full disk: one line naming the file and the cause, status 1, the earlier file whole.

The disk is faked in the script's own interpreter: ``os.fsync``, which the one writer
(:func:`gym_boardgames.outputs.write_bytes_atomic`) calls on every file before publishing it, raises ENOSPC
or EDQUOT, as a write to a full file system or a spent quota does. The script is then run as a user runs it
(``python scripts/NAME.py ...``, through ``runpy``).
"""

import errno
import os
import subprocess
import sys
from pathlib import Path

import pytest

from gym_boardgames.outputs import SaveError, write_text_atomic

sys.path.insert(0, str(Path(__file__).parent))  # importlib import mode: put the sibling helper on the path
from script_helpers import ROOT  # noqa: E402

#: Runs ``scripts/argv[1]`` with the rest as its arguments, every fsync failing with the errno in $FAKE_ERRNO.
FULL_DISK = """
import errno, os, runpy, sys
code = getattr(errno, os.environ["FAKE_ERRNO"])
def fsync(fd):
    raise OSError(code, os.strerror(code))
os.fsync = fsync
sys.argv = sys.argv[1:]
runpy.run_path(sys.argv[0], run_name="__main__")
"""


def run_on_full_disk(script, *args, cause="ENOSPC", cwd):
    """Run ``scripts/SCRIPT.py ARGS`` with every save failing with ``cause``; return the finished process."""
    command = [sys.executable, "-c", FULL_DISK, str(ROOT / "scripts" / f"{script}.py"), *map(str, args)]
    env = {**os.environ, "FAKE_ERRNO": cause, "PYTHONPATH": str(ROOT)}
    return subprocess.run(command, capture_output=True, text=True, cwd=cwd, env=env, timeout=300)


def assert_one_line(result, name, cause="No space left on device"):
    """Status 1, no traceback, and the last stderr line names the file and the cause."""
    assert result.returncode == 1, result.stderr
    assert "Traceback" not in result.stderr, result.stderr
    last = result.stderr.strip().splitlines()[-1]
    assert f"could not save {name}: {cause}" in last, result.stderr


def no_temp_files(folder):
    return [name for name in os.listdir(folder) if name.startswith(".gbg.")] == []


TD = ["--episodes", "200", "--eval-games", "2", "--alphabeta-games", "1", "--no-progress"]


@pytest.mark.parametrize(("cause", "text"), [("ENOSPC", "No space left on device"), ("EDQUOT", "Disk quota exceeded")])
def test_td_save_on_a_full_disk_is_one_line_and_keeps_the_earlier_file(tmp_path, cause, text):
    (tmp_path / "td.npz").write_bytes(b"the earlier run's tables")
    result = run_on_full_disk("train_tictactoe_td", *TD, "--out", "td.npz", "--overwrite", cause=cause, cwd=tmp_path)
    assert_one_line(result, "td.npz", text)
    assert (tmp_path / "td.npz").read_bytes() == b"the earlier run's tables"
    assert no_temp_files(tmp_path)


def test_ladder_plot_on_a_full_disk_is_one_line(tmp_path):
    pytest.importorskip("matplotlib")
    result = run_on_full_disk(
        "ladder", "--agents", "random", "alphabeta:1", "--max-games", "4", "--workers", "1", "--plot", "elo.png",
        cwd=tmp_path,
    )  # fmt: skip
    assert_one_line(result, "elo.png")
    assert no_temp_files(tmp_path) and not (tmp_path / "elo.png").exists()


def test_ladder_results_on_a_full_disk_is_one_line(tmp_path):
    result = run_on_full_disk(
        "ladder", "--agents", "random", "alphabeta:1", "--max-games", "4", "--workers", "1",
        "--results", "results.json", cwd=tmp_path,
    )  # fmt: skip
    assert_one_line(result, "results.json")
    assert no_temp_files(tmp_path)


def test_dots_save_dir_and_out_on_a_full_disk_are_one_line(tmp_path):
    base = ["--quick", "--rows", "1", "--cols", "2", "--experiments", "table1", "--no-progress"]
    result = run_on_full_disk("train_dots_boxes_q", *base, "--save-dir", "tables", cwd=tmp_path)
    assert result.returncode == 1 and "Traceback" not in result.stderr, result.stderr
    assert "could not save tables" in result.stderr and "No space left on device" in result.stderr
    result = run_on_full_disk("train_dots_boxes_q", *base, "--out", "report.md", cwd=tmp_path)
    assert_one_line(result, "report.md")
    assert no_temp_files(tmp_path)


def test_blackjack_out_on_a_full_disk_is_one_line(tmp_path):
    pytest.importorskip("matplotlib")
    args = ["--episodes", "300", "--curve-episodes", "--es-episodes", "300", "--no-timing", "--no-progress"]
    result = run_on_full_disk("train_blackjack_mc", *args, "--out", "figures", cwd=tmp_path)
    assert result.returncode == 1 and "Traceback" not in result.stderr, result.stderr
    assert "could not save figures" in result.stderr and "No space left on device" in result.stderr
    assert no_temp_files(tmp_path / "figures")


def test_the_writer_names_the_file_and_the_cause(tmp_path, monkeypatch):
    target = tmp_path / "kept.txt"
    target.write_text("whole")

    def full(fd):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(os, "fsync", full)
    with pytest.raises(SaveError) as raised:
        write_text_atomic(target, "partial")
    assert str(raised.value) == f"could not save {target}: No space left on device"
    assert isinstance(raised.value, OSError) and raised.value.errno == errno.ENOSPC
    assert target.read_text() == "whole" and no_temp_files(tmp_path)
