"""Scripts name the file they actually wrote, and a run lock that cannot be taken is one line.

A race is staged in the script's own interpreter: just before the writer publishes ``$RACE_NAME`` (at its
``os.fsync``), another "program" creates that name, so the output goes to the next free name (``race_2``).
"""

import json
import os
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))  # importlib import mode: put the sibling helper on the path
from script_helpers import ROOT, run_script  # noqa: E402

#: Runs ``scripts/argv[1]`` with the rest as its arguments; $RACE_NAME appears while the script saves it.
RACE = """
import os, runpy, sys
fsync, name = os.fsync, os.environ["RACE_NAME"]
def racing_fsync(fd):
    if not os.path.exists(name):
        with open(name, "w") as other:
            other.write("the other run's")
    fsync(fd)
os.fsync = racing_fsync
sys.argv = sys.argv[1:]
runpy.run_path(sys.argv[0], run_name="__main__")
"""


def run_racing(script, name, *args, cwd):
    """Run ``scripts/SCRIPT.py ARGS`` in ``cwd`` while another program takes ``name`` during the save."""
    command = [sys.executable, "-c", RACE, str(ROOT / "scripts" / f"{script}.py"), *map(str, args)]
    env = {**os.environ, "RACE_NAME": name, "PYTHONPATH": str(ROOT)}
    result = subprocess.run(command, capture_output=True, text=True, cwd=cwd, env=env, timeout=300)
    assert result.returncode == 0, result.stderr
    return result


def test_td_names_the_file_it_wrote_when_another_run_took_the_name(tmp_path):
    td = ["--episodes", "200", "--eval-games", "2", "--alphabeta-games", "1", "--no-progress"]
    result = run_racing("train_tictactoe_td", "race.npz", *td, "--out", "race.npz", "--json", cwd=tmp_path)
    assert (tmp_path / "race.npz").read_text() == "the other run's" and (tmp_path / "race_2.npz").exists()
    assert "both seats' tables saved to race_2.npz" in result.stdout
    assert json.loads(result.stdout.splitlines()[-1])["out"] == "race_2.npz"


def test_arena_names_the_file_it_wrote_when_another_run_took_the_name(tmp_path):
    result = run_racing(
        "arena", "race.json", "--agents", "random", "random", "--games", "2", "--out", "race.json", cwd=tmp_path
    )
    assert (tmp_path / "race.json").read_text() == "the other run's"
    assert json.loads((tmp_path / "race_2.json").read_text())["games_per_pair"] == 2
    assert "summary written to race_2.json" in result.stdout


def test_a_folder_named_like_the_lock_is_one_line(tmp_path):
    (tmp_path / "results.json.lock").mkdir()
    result = run_script("ladder", "--agents", "random", "alphabeta:1", "--results", "results.json", cwd=tmp_path)
    assert result.returncode == 2 and "Traceback" not in result.stderr, result.stderr
    assert result.stderr.strip().splitlines() == [
        "ladder.py: error: --results results.json: cannot open its lock results.json.lock: Is a directory"
    ]
