"""Atomic writes clean up after writers killed mid-save (kill -9 skips every cleanup), never after live ones."""

import os
import subprocess
import sys

from gym_boardgames.outputs import write_bytes_atomic


def _dead_pid():
    done = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    return int(done.stdout)


def test_a_save_removes_the_temporary_files_of_killed_writers_only(tmp_path):
    target = tmp_path / "model.npz"
    dead = tmp_path / f".gbg.{_dead_pid()}.abcd1234.tmp"
    sleeper = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        live = tmp_path / f".gbg.{sleeper.pid}.efgh5678.tmp"
        foreign = tmp_path / ".gbg.k3j4h5.tmp"  # no process id: not ours to judge
        unrelated = tmp_path / f".model.npz.{_dead_pid()}.ijkl9012.tmp"  # another program's naming: not ours
        for path in (dead, live, foreign, unrelated):
            path.write_bytes(b"half a save")
        write_bytes_atomic(target, b"whole")
        assert target.read_bytes() == b"whole"
        assert not dead.exists()  # whatever output it was for: the temporary name no longer says
        assert live.exists() and foreign.exists() and unrelated.exists()
    finally:
        sleeper.kill()
        sleeper.wait()


def test_a_killed_writer_leaves_a_file_the_next_save_removes(tmp_path):
    target = tmp_path / "state.npz"
    # A writer killed between creating its temporary file and the rename, while it saved another output.
    code = (
        "import os, signal, gym_boardgames.outputs as outputs;"
        "outputs.os.replace = outputs.os.link = lambda *a: os.kill(os.getpid(), signal.SIGKILL);"
        f"outputs.write_bytes_atomic({str(tmp_path / 'other.npz')!r}, b'partial')"
    )
    subprocess.run([sys.executable, "-c", code])
    assert [name.startswith(".gbg.") and name.endswith(".tmp") for name in os.listdir(tmp_path)] == [True]
    write_bytes_atomic(target, b"whole")
    assert sorted(os.listdir(tmp_path)) == ["state.npz"]


def test_a_name_of_255_bytes_is_written_the_temporary_name_being_short(tmp_path):
    target = tmp_path / ("x" * 251 + ".npz")  # the longest name a folder takes: a temporary name from it would not fit
    assert write_bytes_atomic(target, b"whole") == str(target)
    assert target.read_bytes() == b"whole" and os.listdir(tmp_path) == [target.name]
