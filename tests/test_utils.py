"""gym_boardgames.utils, the scripts' shared up-front checks: output paths, extras, numeric flags, progress without
tqdm, and atomic writes."""

import argparse
import io
import os
import sys
import tempfile

import pytest

from gym_boardgames import utils
from gym_boardgames.utils import (
    MissingExtraError,
    check_output_path,
    nonnegative_int,
    positive_int,
    progress_bar,
    require_extra,
    write_text_atomic,
)


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
        (["--seed", "-1"], "argument --seed: must be an integer >= 0, got '-1'"),
        (["--rows", "0"], "argument --rows: must be an integer >= 1, got '0'"),
        (["--rows", "six"], "argument --rows: must be an integer >= 1, got 'six'"),
    ):
        with pytest.raises(SystemExit) as info:
            parser.parse_args(args)
        assert info.value.code == 2
        assert capsys.readouterr().err.splitlines()[-1] == f"p: error: {message}"


def test_a_missing_extra_is_named_with_the_install_command(monkeypatch):
    monkeypatch.setitem(sys.modules, "matplotlib", None)  # as if it were not installed
    with pytest.raises(MissingExtraError) as info:
        require_extra("plot", "matplotlib", needed_for="--out")
    assert str(info.value) == "--out needs matplotlib, the 'plot' extra: pip install -e \".[plot]\""
    assert isinstance(info.value, ImportError)
    require_extra("plot", "json")  # present: nothing happens


def test_without_tqdm_progress_still_shows_on_stderr(monkeypatch, capsys):
    monkeypatch.setitem(sys.modules, "tqdm", None)
    bar = progress_bar(100, "self-play")
    bar.interval = 0.0  # no throttling for the test
    with bar:
        for _ in range(4):
            bar.update(25)
    err = capsys.readouterr().err
    assert "self-play: 100/100 (100%)" in err and "25/100 (25%)" in err


def test_the_text_progress_is_throttled_and_silent_when_disabled(monkeypatch):
    stream = io.StringIO()
    bar = utils._TextProgress(10**6, "work", interval=3600.0, stream=stream)
    for _ in range(10**5):
        bar.update()
    bar.close()
    assert stream.getvalue() == ""  # nothing within the interval, and no final line for a quick job
    monkeypatch.setitem(sys.modules, "tqdm", None)
    assert not isinstance(progress_bar(10, "x", enabled=False), utils._TextProgress)


def test_atomic_writes_keep_the_usual_file_mode_and_leave_no_temp_files(tmp_path):
    target = tmp_path / "out.json"
    write_text_atomic(target, "{}")
    umask = os.umask(0o022)
    os.umask(umask)
    assert target.stat().st_mode & 0o777 == 0o666 & ~umask
    os.chmod(target, 0o640)
    write_text_atomic(target, "[]")
    assert target.read_text() == "[]" and target.stat().st_mode & 0o777 == 0o640
    assert [p.name for p in tmp_path.iterdir()] == ["out.json"]


def test_emit_summary_writes_the_json_line_and_prints_it_last(tmp_path, capsys):
    from gym_boardgames.utils import emit_summary

    out = tmp_path / "summary.json"
    emit_summary({"wins": 3, "seed": 0}, out, print_json=True)
    assert out.read_text() == '{"wins": 3, "seed": 0}\n'
    assert capsys.readouterr().out.splitlines()[-1] == '{"wins": 3, "seed": 0}'
    emit_summary({"wins": 4}, None, print_json=False)  # neither flag: nothing written, nothing printed
    assert capsys.readouterr().out == "" and out.read_text() == '{"wins": 3, "seed": 0}\n'
