"""gym_boardgames.utils: the check that an extra is installed, progress without tqdm, and atomic writes."""

import io
import os
import sys

import pytest

from gym_boardgames import utils
from gym_boardgames.utils import MissingExtraError, progress_bar, require_extra, write_text_atomic


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
