"""scripts/arena.py runs a round robin end to end and refuses unknown agents."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "arena.py"
sys.path.insert(0, str(Path(__file__).parent))  # importlib import mode: put the sibling helper on the path
from script_helpers import load_script  # noqa: E402


def run_arena(*args, check=True):
    return subprocess.run(
        [sys.executable, str(SCRIPT), *args], capture_output=True, text=True, check=check, cwd=SCRIPT.parents[1]
    )


def test_round_robin_table():
    stdout = run_arena("--agents", "random", "alphabeta", "--games", "10", "--json").stdout
    summary = json.loads(stdout.splitlines()[-1])
    record = summary["results"]["random vs alphabeta"]
    assert record["total"]["win"] == 0 and sum(record["total"].values()) == 10


def test_unknown_agents_are_refused():
    result = run_arena("--agents", "random", "stockfish", check=False)
    assert result.returncode != 0 and "unknown agent 'stockfish'" in result.stderr


def test_a_full_disk_at_out_ends_in_one_line_and_keeps_the_results(tmp_path, monkeypatch, capsys):
    """The round robin's results are printed and the script exits 1 naming the file, not with a traceback."""
    import errno

    from plumbing import cli

    def full_disk(path, text, **_):
        raise OSError(errno.ENOSPC, "No space left on device", str(path))

    monkeypatch.setattr(cli, "write_text_atomic", full_disk)
    arena = load_script("arena")
    out = tmp_path / "results.json"
    try:
        arena.main(["--agents", "random", "alphabeta", "--games", "4", "--out", str(out)])
    except SystemExit as stop:
        assert stop.code == 1
    else:
        raise AssertionError("a full disk must end the script with status 1")
    captured = capsys.readouterr()
    summary = json.loads(captured.out.splitlines()[-1])
    assert sum(summary["results"]["random vs alphabeta"]["total"].values()) == 4
    assert captured.err.strip().splitlines()[-1] == (
        f"error: cannot write --out {out}: No space left on device (the summary is printed above)"
    )
    assert not out.exists()


def test_the_table_lines_up_and_a_written_summary_is_said(tmp_path):
    out = tmp_path / "arena.json"
    stdout = run_arena("--agents", "random", "alphabeta:1", "mcts:20", "--games", "12", "--out", str(out)).stdout
    lines = stdout.splitlines()
    header = next(i for i, line in enumerate(lines) if line.startswith("pair"))
    table = lines[header : header + 4]
    assert len({len(line) for line in table}) == 1  # every row as wide as the header: the columns line up
    assert lines[-1] == f"summary written to {out}" and out.stat().st_size > 0


# ---- a user's agent in its child process (--move-time) that misbehaves: one line, no process left ------------

LOWEST = "game.legal_actions(state)[0]"
#: name: (the agent's act body, the error line's end or None where the run completes).
MISBEHAVING = {
    "prints": (f"print('hello from the agent')\n        return {LOWEST}", None),
    "closes its standard streams": (
        f"if not hasattr(Bot, 'closed'):\n            Bot.closed = os.close(0), os.close(1)\n        return {LOWEST}",
        None,
    ),
    "forks a process that sleeps": (
        f"if os.fork() == 0:\n            os.execvp('sleep', ['sleep', '1000'])\n        return {LOWEST}",
        None,
    ),
    "forks, and the fork plays on": (f"os.fork()\n        return {LOWEST}", None),
    "forks a sleeper orphan, then dies": (
        "if os.fork() == 0:\n            if os.fork() == 0:\n                time.sleep(1000)\n"
        "            os._exit(0)\n        time.sleep(0.5)\n        os._exit(3)",
        ": its process ended during its act() (exit status 3)",
    ),
    "exits": ("os._exit(3)", ": its process ended during its act() (exit status 3)"),
    "kills itself": ("os.kill(os.getpid(), 9)", ": its process ended during its act() (exit status -9)"),
    "returns a 5,000,000-character string": (
        "return 'a' * 5_000_000",
        "... (5,000,002 characters), which is not an integer in 0..8",
    ),
    "raises with a 5,000,000-character message": (
        "raise ValueError('m' * 5_000_000)",
        "... (5,000,000 characters)",
    ),
    "returns 10**5000": (
        "return 10**5000",
        " played an integer of about 5,001 digits, which is not an integer in 0..8",
    ),
    "returns an object whose repr is huge": (
        "return type('Huge', (), {'__repr__': lambda self: 'x' * 5_000_000})()",
        "... (5,000,000 characters), which is not an integer in 0..8",
    ),
    "returns an object whose repr raises": (
        "return type('Bad', (), {'__repr__': lambda self: 1 / 0})()",
        " played <Bad object whose repr() failed>, which is not an integer in 0..8",
    ),
    "returns a generator": ("yield 1", ", which is not an integer in 0..8"),
    "returns a value whose int() raises": (
        "return type('NoInt', (), {'__int__': lambda self: 1 / 0, '__index__': lambda self: 1 / 0})()",
        ", which is not an integer in 0..8",
    ),
    "writes into its reply pipe": (
        "for fd in range(3, 10):\n            try:\n                os.write(fd, b'x' * 200_000)\n"
        f"            except OSError:\n                pass\n        return {LOWEST}",
        ": its process sent a reply of more than 65,536 bytes during its act()",
    ),
}


def _processes_marked(marker):
    """The processes whose environment holds ``marker``: every one the run started, and theirs."""
    found = []
    for entry in Path("/proc").iterdir():
        try:
            if entry.name.isdigit() and marker in (entry / "environ").read_bytes().split(b"\0"):
                found.append(int(entry.name))
        except OSError:
            pass  # ended meanwhile, or not ours
    return found


@pytest.mark.skipif(not Path("/proc/self/environ").exists(), reason="finds the processes left through /proc")
@pytest.mark.parametrize("name", MISBEHAVING)
def test_a_misbehaving_child_agent_ends_the_run_in_one_line_and_leaves_no_process(tmp_path, name):
    import time
    import uuid

    body, ending = MISBEHAVING[name]
    (tmp_path / "bot.py").write_text(f"import os, time\nclass Bot:\n    def act(self, game, state):\n        {body}\n")
    spec = f"{tmp_path / 'bot.py'}:Bot"
    marker = f"ARENA_TEST_RUN={uuid.uuid4().hex}"
    done = subprocess.run(
        [sys.executable, str(SCRIPT), "--agents", "random", spec, "--games", "2", "--move-time", "20"],
        capture_output=True,
        text=True,
        cwd=SCRIPT.parents[1],
        env={**os.environ, marker.split("=")[0]: marker.split("=")[1]},
        timeout=120,  # a fork holding the output pipes open would hang here
    )
    lines = [line for line in done.stderr.replace("\r", "\n").splitlines() if line.strip() and "arena:" not in line]
    assert "Traceback" not in done.stderr, done.stderr[-2000:]
    if ending is None:  # the agent plays on: the run completes (an agent's prints go to stderr)
        assert done.returncode == 0 and "random vs" in done.stdout, done.stderr[-2000:]
        assert all(line == "hello from the agent" for line in lines), lines
    else:
        assert done.returncode == 1 and len(lines) == 1, lines
        assert lines[0].startswith(f"arena.py: error: agent {spec}") and lines[0].endswith(ending), lines[0][:500]
        assert len(lines[0]) < 600
    for _ in range(600):  # SIGKILL is delivered at once, the exit may take a moment: waited for, never timed
        if not (left := _processes_marked(marker.encode())):
            break
        time.sleep(0.05)
    assert not left, f"processes left behind: {left}"
