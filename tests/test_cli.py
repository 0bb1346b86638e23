"""gym_boardgames.cli, the scripts' shared pieces: up-front checks, flag types, the summary, atomic figures and
the TensorBoard check.

The scripts' own command lines (no abbreviations, defaults in --help, --overwrite) are checked script by script
in tests/scripts/test_script_flags.py.
"""

import argparse
import os
import signal
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from gym_boardgames import cli, outputs
from gym_boardgames.cli import (
    TENSORBOARD_MISSING,
    check_output_path,
    check_tensorboard,
    emit_summary,
    nonnegative_int,
    number_type,
    positive_int,
)

ROOT = Path(__file__).resolve().parents[1]
OLD = b"the figure of an earlier run"


# ---- up-front checks, flag types and the summary ----------------------------------------------


def test_a_file_in_a_writable_folder_passes_and_nothing_is_left_behind(tmp_path):
    check_output_path(tmp_path / "x.json", "--out")
    check_output_path(tmp_path / "existing.json", "--out")
    assert list(tmp_path.iterdir()) == []  # the probe file is removed


@pytest.mark.parametrize(
    ("path", "message"),
    [
        ("/nonexistent/dir/x.json", "--out /nonexistent/dir/x.json: the folder /nonexistent/dir does not exist"),
        ("", "--out: the path is empty"),
        ("/dev/null", "--out /dev/null: exists and is not a regular file"),
    ],
)
def test_bad_output_files_are_refused_naming_the_flag(path, message):
    with pytest.raises(ValueError) as info:
        check_output_path(path, "--out")
    assert str(info.value) == message


def test_a_folder_given_for_a_file_is_refused(tmp_path):
    with pytest.raises(ValueError, match=r"^--out .*: is a folder; give a file name$"):
        check_output_path(tmp_path, "--out")
    with pytest.raises(ValueError, match="is a folder"):
        check_output_path(f"{tmp_path}/new/", "--out")


def test_a_file_in_a_read_only_place_is_refused_before_any_work():
    # /proc refuses new files even to root, so this holds whoever runs the tests.
    with pytest.raises(ValueError, match=r"^--plot /proc/x\.png: cannot write in the folder /proc"):
        check_output_path("/proc/x.png", "--plot")


@pytest.mark.skipif(os.name != "posix" or os.geteuid() == 0, reason="root writes into read-only folders")
def test_a_read_only_folder_is_refused(tmp_path):
    folder = tmp_path / "ro"
    folder.mkdir()
    folder.chmod(0o555)
    try:
        with pytest.raises(ValueError, match="cannot write in the folder"):
            check_output_path(folder / "x.json", "--out")
    finally:
        folder.chmod(0o755)


def test_an_unwritable_folder_is_reported_with_the_reason(tmp_path, monkeypatch):
    def refuse(**kwargs):
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(tempfile, "mkstemp", refuse)
    with pytest.raises(ValueError) as info:
        check_output_path(tmp_path / "x.json", "--out")
    assert str(info.value) == f"--out {tmp_path}/x.json: cannot write in the folder {tmp_path} (Permission denied)"


def test_output_folders(tmp_path):
    check_output_path(tmp_path, "--out", kind="dir")
    check_output_path(tmp_path / "a" / "b", "--out", kind="dir")  # created later, under a writable folder
    assert list(tmp_path.iterdir()) == []
    a_file = tmp_path / "file"
    a_file.write_text("x")
    with pytest.raises(ValueError, match="exists and is not a folder"):
        check_output_path(a_file, "--out", kind="dir")
    with pytest.raises(ValueError, match=f"cannot create the folder, {a_file} is not a folder"):
        check_output_path(a_file / "sub", "--out", kind="dir")
    with pytest.raises(ValueError, match="kind must be 'file' or 'dir'"):
        check_output_path(tmp_path, "--out", kind="folder")


def test_integer_flags_name_the_flag_in_the_error(capsys):
    parser = argparse.ArgumentParser(prog="p")
    parser.add_argument("--seed", type=nonnegative_int, default=0)
    parser.add_argument("--rows", type=positive_int)
    assert parser.parse_args(["--seed", "0", "--rows", "1"]).rows == 1
    for args, message in (
        (["--seed", "-1"], "argument --seed: must be an integer >= 0, got -1"),
        (["--rows", "0"], "argument --rows: must be an integer >= 1, got 0"),
        (["--rows", "six"], "argument --rows: must be an integer >= 1, got 'six'"),
    ):
        with pytest.raises(SystemExit) as info:
            parser.parse_args(args)
        assert info.value.code == 2
        assert capsys.readouterr().err.splitlines()[-1] == f"p: error: {message}"


def test_number_flags_take_the_interval_of_check_number(capsys):
    parser = argparse.ArgumentParser(prog="p")
    parser.add_argument("--alpha", type=number_type(0, 1, low_open=True))
    assert parser.parse_args(["--alpha", "1"]).alpha == 1.0
    for text, shown in (("0", "0.0"), ("nan", "nan"), ("half", "'half'")):
        with pytest.raises(SystemExit):
            parser.parse_args(["--alpha", text])
        assert (
            capsys.readouterr().err.splitlines()[-1]
            == f"p: error: argument --alpha: must be a number in (0, 1], got {shown}"
        )


def test_emit_summary_writes_the_json_line_and_prints_it_last(tmp_path, capsys):
    out = tmp_path / "summary.json"
    emit_summary({"wins": 3, "seed": 0}, out, print_json=True)
    assert out.read_text() == '{"wins": 3, "seed": 0}\n'
    assert capsys.readouterr().out.splitlines()[-1] == '{"wins": 3, "seed": 0}'
    emit_summary({"wins": 4}, None, print_json=False)  # neither flag: nothing written, nothing printed
    assert capsys.readouterr().out == "" and out.read_text() == '{"wins": 3, "seed": 0}\n'


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


# ---- two runs in one folder ------------------------------------------------------------------------


@pytest.fixture
def reservations():
    yield
    cli.release_reservations()


def test_free_names_are_reserved_so_two_runs_never_share_one(tmp_path, reservations):
    default = str(tmp_path / "td_tictactoe.npz")
    first, second = cli.free_path(default), cli.free_path(default)
    assert (first, second) == (default, str(tmp_path / "td_tictactoe_2.npz"))
    assert all(os.path.getsize(p) == 0 for p in (first, second))  # held by empty files until written
    cli.write_text_atomic(first, "the first run's output")
    cli.release_reservations()  # at exit: the unwritten name is freed, the written output kept
    assert os.path.exists(first) and not os.path.exists(second)


def test_an_explicit_out_reserved_by_another_run_is_refused(tmp_path, reservations):
    out = tmp_path / "model.npz"
    cli.check_new_output(out, "--out", overwrite=False)  # this run takes it
    cli.check_new_output(out, "--out", overwrite=False)  # and may check it again
    outputs._RESERVED.clear()  # as seen from another process
    with pytest.raises(ValueError, match="--out .*model.npz exists: pass --overwrite"):
        cli.check_new_output(out, "--out", overwrite=False)


def test_a_refused_run_leaves_no_name_taken(tmp_path):
    parser = cli.make_parser()
    parser.add_argument("--out")
    cli.add_overwrite_flag(parser)

    def refuse(args):
        raise ValueError("a later check fails")

    with pytest.raises(SystemExit):
        cli.parse_checked(parser, ["--out", str(tmp_path / "x.npz")], refuse)
    assert list(tmp_path.iterdir()) == []


def test_two_td_runs_started_together_keep_both_models(tmp_path):
    script = Path(__file__).resolve().parents[1] / "scripts" / "train_tictactoe_td.py"
    runs = [
        subprocess.Popen(
            [sys.executable, str(script), "--episodes", "300", "--seed", str(seed), "--no-progress"],
            cwd=tmp_path,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for seed in (1, 2)
    ]
    outputs = [run.communicate(timeout=600) for run in runs]
    assert [run.returncode for run in runs] == [0, 0], outputs
    saved = sorted(p.name for p in tmp_path.iterdir())
    assert saved == ["td_tictactoe.npz", "td_tictactoe_2.npz"]
    assert all((tmp_path / name).stat().st_size > 0 for name in saved)


def test_a_locked_run_is_refused_until_its_holder_ends(tmp_path):
    state = tmp_path / "run.train.npz"
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            f"from gym_boardgames import cli; cli.lock_run({str(state)!r}); print('held', flush=True); input()",
        ],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout.readline().strip() == "held"
        check = f"from gym_boardgames import cli; cli.lock_run({str(state)!r}, 'training run')"
        refused = subprocess.run([sys.executable, "-c", check], capture_output=True, text=True)
        assert refused.returncode != 0 and "run.train.npz is in use by another training run" in refused.stderr
    finally:
        holder.communicate("\n", timeout=600)
    assert subprocess.run([sys.executable, "-c", check], capture_output=True, text=True).returncode == 0


@pytest.mark.parametrize("kind", ["file", "dir"])
@pytest.mark.parametrize(
    "make, path, message",
    [
        (lambda d: (os.symlink(d / "b", d / "a"), os.symlink(d / "a", d / "b")), "a", "leads nowhere"),
        (lambda d: os.symlink(d / "nowhere", d / "link"), "link", "leads nowhere"),
        (lambda d: os.symlink(d / "nowhere", d / "link"), "link/inside.npz", "leads nowhere"),
        (lambda d: None, "x" * 300 + ".npz", r"a name in it is too long \(304 bytes, at most 255\)"),
        (lambda d: None, "/".join(["y" * 200] * 25), "the path is too long"),
    ],
)
def test_paths_a_write_would_fail_on_are_refused_before_any_work(tmp_path, kind, make, path, message):
    make(tmp_path)
    with pytest.raises(ValueError, match=message):
        cli.check_output_path(tmp_path / path, "--out", kind=kind)
