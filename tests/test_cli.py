"""scripts/plumbing/, the scripts' shared pieces: up-front checks, flag types, the summary, atomic figures and
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

from gym_boardgames import outputs

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "scripts"))  # the scripts' plumbing package, found as the scripts find it
from plumbing import cli  # noqa: E402
from plumbing.cli import emit_summary, nonnegative_int, number_type, positive_int  # noqa: E402
from plumbing.figures import TENSORBOARD_MISSING, check_tensorboard  # noqa: E402
from plumbing.paths import check_output_path  # noqa: E402

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
import gym_boardgames.outputs as outputs
sys.path.insert(0, {scripts!r})
from plumbing.figures import save_figure

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
    outputs.os.replace = outputs.os.link = slow_replace
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
    code = KILLED_SAVE.replace("{scripts!r}", repr(str(ROOT / "scripts")))
    child = subprocess.Popen(
        [sys.executable, "-c", code, str(target), stage], stdout=subprocess.PIPE, text=True, cwd=ROOT
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
    from plumbing.figures import save_figure

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


# ---- path roles: every script's outputs, inputs and extended files checked alike ---------------------


def _parser():
    """A script's parser: --labels (input), --out and --plot (outputs), --resume (extended), --overwrite."""
    parser = cli.make_parser()
    parser.add_argument("--labels", role="input")
    parser.add_argument("--out", role="output")
    parser.add_argument("--plot", role="output")
    parser.add_argument("--resume", role="extended")
    cli.add_overwrite_flag(parser)
    return parser


def test_a_path_option_without_a_role_is_a_programming_error():
    parser = cli.make_parser()
    with pytest.raises(TypeError, match="--save-dir is a path: add it with role= one of"):
        parser.add_argument("--save-dir")
    with pytest.raises(TypeError, match="role must be one of .*got 'written'"):
        parser.add_argument("--x", role="written")


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (
            ["--labels", "IN", "--out", "IN"],
            "--out IN is also --labels: writing it would replace the script's own input",
        ),
        (["--labels", "IN", "--out", "DIR/./in.npz"], "is also --labels: writing it would replace the script's own"),
        (["--out", "DIR/a.png", "--plot", "DIR/a.png"], "--plot DIR/a.png is also --out: one would replace the other"),
        (["--resume", "IN", "--plot", "IN"], "--resume IN is also --plot: one would replace the other"),
    ],
)
def test_an_output_naming_an_input_or_another_output_is_refused_even_with_overwrite(tmp_path, capsys, argv, message):
    (tmp_path / "in.npz").write_bytes(b"an input")
    paths = {"IN": str(tmp_path / "in.npz"), "DIR": str(tmp_path)}
    argv = [paths.get(arg, arg).replace("DIR", str(tmp_path)) for arg in argv]
    with pytest.raises(SystemExit) as info:
        cli.parse_checked(_parser(), [*argv, "--overwrite"])
    assert info.value.code == 2
    line = capsys.readouterr().err.strip()
    assert "\n" not in line and message.replace("IN", paths["IN"]).replace("DIR", str(tmp_path)) in line
    assert (tmp_path / "in.npz").read_bytes() == b"an input"


def test_outputs_are_new_unless_overwrite_and_a_claimed_output_is_checked_alike(tmp_path, capsys):
    old = tmp_path / "old.npz"
    old.write_bytes(OLD)
    for argv, claim in ((["--out", str(old)], None), (["--out", str(tmp_path / "new.npz")], old)):
        checks = [] if claim is None else [lambda args, claim=claim: cli.claim_output(args, claim, "--out")]
        with pytest.raises(SystemExit):
            cli.parse_checked(_parser(), argv, *checks)
        assert capsys.readouterr().err.strip().endswith(f"error: --out {old} exists: pass --overwrite to replace it")
        assert cli.parse_checked(_parser(), [*argv, "--overwrite"], *checks).out == argv[1]
    # A resumed run's own file may be there: it is the run's to replace.
    own = [lambda args: cli.claim_output(args, old, "--out", may_exist=True)]
    assert cli.parse_checked(_parser(), ["--out", str(tmp_path / "new.npz")], *own).out == str(tmp_path / "new.npz")
    assert old.read_bytes() == OLD and sorted(p.name for p in tmp_path.iterdir()) == ["old.npz"]


def test_a_refused_run_leaves_no_file_behind(tmp_path):
    def refuse(args):
        raise ValueError("a later check fails")

    with pytest.raises(SystemExit):
        cli.parse_checked(_parser(), ["--out", str(tmp_path / "x.npz")], refuse)
    assert list(tmp_path.iterdir()) == []


# ---- the writer: never another program's file without --overwrite ---------------------------------


def test_a_name_taken_after_the_up_front_check_is_refused_by_the_write_and_kept_whole(tmp_path, capsys, monkeypatch):
    out = tmp_path / "model.npz"
    args = cli.parse_checked(_parser(), ["--out", str(out)])  # passes: nothing is there yet
    out.write_bytes(b"another program's file, made after the up-front check")
    with pytest.raises(outputs.SaveError) as info:
        outputs.write_bytes_atomic(args.out, b"this run's", replace=args.overwrite)
    assert out.read_bytes() == b"another program's file, made after the up-front check"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["model.npz"]  # no temporary file left
    # The script's entry says it in the up-front check's words, with the failure's status.
    monkeypatch.setattr(sys, "argv", ["train_x.py"])

    def save_refused():
        raise info.value

    with pytest.raises(SystemExit) as ended:
        cli.run(save_refused)
    assert ended.value.code == cli.EXIT_FAILED
    assert capsys.readouterr().err == f"train_x.py: error: {out} exists: pass --overwrite to replace it\n"


# ---- Ctrl-C and the exit status ------------------------------------------------------------------


@pytest.mark.parametrize(("returned", "status"), [(None, 0), (3, 3), ({"summary": 1}, 0)])
def test_run_exits_with_the_status_main_returns(returned, status):
    with pytest.raises(SystemExit) as info:
        cli.run(lambda: returned)
    assert info.value.code == status


def test_ctrl_c_ends_a_script_in_one_line_with_status_130(capsys, monkeypatch):
    monkeypatch.setattr(sys, "argv", ["train_x.py"])

    def interrupted():
        raise KeyboardInterrupt

    with pytest.raises(SystemExit) as info:
        cli.run(interrupted)
    assert info.value.code == 130 and capsys.readouterr().err == "train_x.py: interrupted\n"


def test_of_two_td_runs_started_together_one_saves_and_the_other_is_refused_at_its_save(tmp_path):
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
    ends = [run.communicate(timeout=600) for run in runs]
    # Both pass the up-front check while nothing is there, and the write that publishes second finds the name
    # taken (status 1); on a busy machine the second may start after the first saved (refused up front, 2).
    assert sorted(run.returncode for run in runs) in ([0, 1], [0, 2]), ends
    refused = next(err for run, (_, err) in zip(runs, ends, strict=True) if run.returncode)
    assert refused.strip().splitlines()[-1].endswith(" td_tictactoe.npz exists: pass --overwrite to replace it")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["td_tictactoe.npz"]
    from agents.tabular.td import TDAgent

    TDAgent.load(tmp_path / "td_tictactoe.npz")  # the first run's model, whole


def test_a_locked_run_is_refused_until_its_holder_ends(tmp_path):
    state = tmp_path / "run.train.npz"
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            f"from gym_boardgames import outputs; outputs.lock_run({str(state)!r}, '--resume')"
            "; print('held', flush=True); input()",
        ],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout.readline().strip() == "held"
        check = f"from gym_boardgames import outputs; outputs.lock_run({str(state)!r}, '--resume')"
        refused = subprocess.run([sys.executable, "-c", check], capture_output=True, text=True)
        assert refused.returncode != 0 and f"--resume {state} is in use by another run" in refused.stderr
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
        check_output_path(tmp_path / path, "--out", kind=kind)
