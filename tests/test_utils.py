"""gym_boardgames.utils: the check that an extra is installed, the progress bars, the process pool; atomic writes."""

import os
import signal
import subprocess
import sys

import pytest
from tqdm import tqdm

from gym_boardgames.outputs import write_text_atomic
from gym_boardgames.utils import MissingExtraError, process_pool, progress_bar, require_extra


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


def test_a_pools_workers_ignore_ctrl_c_and_run_the_initializer(tmp_path):
    # Ctrl-C reaches every process of the terminal's group: only the main process may answer it.
    with process_pool(2, os.chdir, (str(tmp_path),)) as pool:
        handlers = pool.map(signal.getsignal, [signal.SIGINT] * 2)
        folders = pool.starmap(os.getcwd, [()] * 2)
    assert handlers == [signal.SIG_IGN] * 2 and folders == [str(tmp_path)] * 2
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler  # this process still answers it
