"""A ladder on worker processes stops when told: Ctrl-C to its group or SIGTERM to its main process ends it in one
line, and no process of the run (worker, user agent's child, resource tracker) is left 2 s later, even one deep
in the solver's compiled search or stuck in a user's agent."""

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))  # importlib import mode: the sibling helper
from script_helpers import ROOT  # noqa: E402

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads processes from /proc (Linux)"),
]

HUNG_AGENT = """
import time


class Hung:
    def act(self, game, state):
        while True:
            time.sleep(0.01)
"""
#: Generous bounds for a busy machine; the 2 s after the ladder's exit is the promise under test.
START_S, EXIT_S, LEFT_S = 240, 60, 2.0


def _alive(pid):
    """Whether ``pid`` runs (a zombie is dead: only its parent may reap it)."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def _tree(root, seen):
    """Add to ``seen`` the processes below ``root`` now (a user's agent runs in a session of its own: by parent)."""
    parents = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                parents[int(entry)] = int(Path(f"/proc/{entry}/stat").read_text().rsplit(")", 1)[1].split()[1])
            except OSError:
                continue
    queue = [root]
    while queue:
        above = queue.pop()
        below = [pid for pid, parent in parents.items() if parent == above]
        seen.update(below)
        queue += below
    return seen


def _agents_playing(pids, agent_child):
    """Whether the run is at its work: a worker is searching, or the user's agent's child process is up."""
    commands = []
    for pid in pids:
        try:
            commands.append(Path(f"/proc/{pid}/cmdline").read_bytes())
        except OSError:
            continue
    if agent_child:
        return any(b"gym_boardgames.agent_child" in command for command in commands)
    return any(b"multiprocessing.spawn" in command for command in commands)


@pytest.mark.parametrize("how", ["ctrl-c", "sigterm"])
@pytest.mark.parametrize("agent", ["perfect", "hung"])
def test_a_ladder_on_workers_stops_at_once_and_leaves_no_process(agent, how, tmp_path):
    (tmp_path / "hung.py").write_text(HUNG_AGENT)
    command = [sys.executable, str(ROOT / "scripts" / "ladder.py"), "--workers", "2", "--results", "run.jsonl"]
    if agent == "perfect":  # 7x7 with gravity: the solver searches for minutes in compiled code
        command += ["--game", "connectn", "--rows", "7", "--cols", "7", "--agents", "random", "perfect"]
    else:
        command += ["--agents", "random", "alphabeta:1", "hung.py:Hung"]
    ladder = subprocess.Popen(
        command, cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )  # fmt: skip
    try:
        deadline, seen, left = time.monotonic() + START_S, set(), []
        results = tmp_path / "run.jsonl"
        while not _agents_playing(_tree(ladder.pid, seen), agent_child=agent == "hung") or (
            agent == "hung" and not (results.exists() and len(results.read_text().splitlines()) >= 2)
        ):
            assert ladder.poll() is None and time.monotonic() < deadline, ladder.communicate()
            time.sleep(0.05)
        time.sleep(1.0)  # into the search, or the hang
        _tree(ladder.pid, seen)
        if how == "ctrl-c":
            os.killpg(ladder.pid, signal.SIGINT)  # what a terminal does
        else:
            ladder.send_signal(signal.SIGTERM)  # the main process alone, as `kill PID` does
        _, stderr = ladder.communicate(timeout=EXIT_S)
        deadline = time.monotonic() + LEFT_S
        while (left := sorted(filter(_alive, seen))) and time.monotonic() < deadline:
            time.sleep(0.05)
    finally:
        if ladder.poll() is None:
            ladder.kill()
            ladder.communicate()
        for pid in filter(_alive, seen):
            os.kill(pid, signal.SIGKILL)
    word, status = ("interrupted", 130) if how == "ctrl-c" else ("terminated", 143)
    assert ladder.returncode == status, stderr
    assert "Traceback" not in stderr
    assert stderr.strip().splitlines()[-1] == f"ladder.py: {word}", stderr  # the line under the progress bar
    assert left == [], f"processes of the run left {LEFT_S} s after it ended"
    if agent == "hung":  # the blocks that finished before the signal (random vs alphabeta:1) are kept
        lines = results.read_text().splitlines()
        blocks = [json.loads(line) for line in lines[1:]]
        assert {(block["a"], block["b"]) for block in blocks} == {("alphabeta:1", "random")}
