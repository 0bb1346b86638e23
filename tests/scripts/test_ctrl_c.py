"""Ctrl-C ends a script in one line and status 130, whatever processes it runs: no traceback, no temporary file."""

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))  # importlib import mode: the sibling helper
from script_helpers import children, ignores_ctrl_c  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]

pytestmark = pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="reads processes from /proc (Linux)")


@pytest.mark.slow  # a subprocess run of the script with two workers
def test_ctrl_c_with_worker_processes_is_one_line_and_status_130(tmp_path):
    # The study's tables on two workers: minutes of work. Ctrl-C in a terminal reaches the whole process group.
    command = [sys.executable, str(ROOT / "scripts" / "train_dots_boxes_q.py"), "--experiments", "table1"]
    command += ["--workers", "2", "--no-progress", "--out", str(tmp_path / "study.md")]
    script = subprocess.Popen(
        command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True
    )
    try:
        deadline = time.monotonic() + 240
        # Working: both pool workers (and multiprocessing's resource tracker) are up and ignore Ctrl-C.
        while not (len(kids := children(script.pid)) >= 3 and all(map(ignores_ctrl_c, kids))):
            assert script.poll() is None and time.monotonic() < deadline, script.communicate()
            time.sleep(0.05)
        os.killpg(script.pid, signal.SIGINT)
        _, stderr = script.communicate(timeout=120)
    finally:
        if script.poll() is None:
            os.killpg(script.pid, signal.SIGKILL)
            script.wait()
    assert script.returncode == 130, stderr
    assert stderr == "train_dots_boxes_q.py: interrupted\n"  # one line; none from the workers, no traceback
    assert list(tmp_path.iterdir()) == []  # no output half written, no temporary file


def test_processes_the_suite_starts_answer_ctrl_c_even_when_it_was_started_with_it_ignored():
    # Under `nohup ... &`, cron or a CI wrapper the suite starts with SIGINT ignored; tests/conftest.py handles it
    # again, so a process started here gets the default and Python's KeyboardInterrupt, as in a terminal. .ci/run
    # runs this file once with SIGINT ignored.
    child = subprocess.run(
        [sys.executable, "-c", "import signal; print(signal.getsignal(signal.SIGINT) is signal.default_int_handler)"],
        capture_output=True, text=True, check=True,
    )  # fmt: skip
    assert child.stdout == "True\n"
    assert not ignores_ctrl_c(os.getpid())
