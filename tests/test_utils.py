"""gym_boardgames.utils: the check that an extra is installed, the progress bars, and atomic writes."""

import os
import subprocess
import sys

import pytest
from tqdm import tqdm

from gym_boardgames.utils import MissingExtraError, progress_bar, require_extra, write_text_atomic


def test_a_missing_extra_is_named_with_the_install_command(monkeypatch):
    monkeypatch.setitem(sys.modules, "matplotlib", None)  # as if it were not installed
    with pytest.raises(MissingExtraError) as info:
        require_extra("plot", "matplotlib", needed_for="--out")
    assert str(info.value) == "--out needs matplotlib, the 'plot' extra: pip install -e \".[plot]\""
    assert isinstance(info.value, ImportError)
    require_extra("plot", "json")  # present: nothing happens


def test_progress_bar_is_a_tqdm_bar_on_stderr_that_counts(capsys):
    with progress_bar(100, "self-play") as bar:
        assert isinstance(bar, tqdm) and bar.total == 100 and bar.desc == "self-play"
        for _ in range(4):
            bar.update(25)
        assert bar.n == 100
    captured = capsys.readouterr()
    assert "self-play:   0%" in captured.err and captured.out == ""
    assert bar.mininterval == 2.0  # stderr is no terminal here: a log gets a redraw at most every 2 s


def test_a_disabled_bar_is_silent_and_neither_it_nor_the_package_imports_tqdm():
    code = (
        "import sys, gym_boardgames, gym_boardgames.utils as utils\n"
        "with utils.progress_bar(10, 'x', enabled=False) as bar:\n"
        "    bar.update(10)\n"
        "print('tqdm' in sys.modules)\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60)
    assert result.stdout == "False\n" and result.stderr == ""


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
