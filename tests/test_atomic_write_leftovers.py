"""Atomic writes clean up after writers killed mid-save (kill -9 skips every cleanup), never after live ones."""

import os
import subprocess
import sys

from gym_boardgames.utils import write_bytes_atomic


def _dead_pid():
    done = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    return int(done.stdout)


def test_a_save_removes_the_temporary_files_of_killed_writers_only(tmp_path):
    target = tmp_path / "model.npz"
    dead = tmp_path / f".model.npz.{_dead_pid()}.abcd1234.tmp"
    sleeper = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        live = tmp_path / f".model.npz.{sleeper.pid}.efgh5678.tmp"
        foreign = tmp_path / ".model.npz.k3j4h5.tmp"  # no process id: not ours to judge
        other = tmp_path / f".other.npz.{_dead_pid()}.ijkl9012.tmp"  # another file's leftover
        for path in (dead, live, foreign, other):
            path.write_bytes(b"half a save")
        write_bytes_atomic(target, b"whole")
        assert target.read_bytes() == b"whole"
        assert not dead.exists()
        assert live.exists() and foreign.exists() and other.exists()
    finally:
        sleeper.kill()
        sleeper.wait()


def test_a_killed_writer_leaves_a_file_the_next_save_removes(tmp_path):
    target = tmp_path / "state.npz"
    # A writer killed between creating its temporary file and the rename.
    code = (
        "import os, tempfile, signal;"
        f"fd, tmp = tempfile.mkstemp(dir={str(tmp_path)!r}, prefix=f'.state.npz.{{os.getpid()}}.', suffix='.tmp');"
        "os.write(fd, b'partial'); os.kill(os.getpid(), signal.SIGKILL)"
    )
    subprocess.run([sys.executable, "-c", code])
    assert len([n for n in os.listdir(tmp_path) if n.endswith(".tmp")]) == 1
    write_bytes_atomic(target, b"whole")
    assert sorted(os.listdir(tmp_path)) == ["state.npz"]
