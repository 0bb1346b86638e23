"""No file is replaced without being asked: a script without --overwrite, a library save with replace=False.

A race is staged in the script's own interpreter: just before the writer publishes ``$RACE_NAME`` (at its
``os.fsync``), another "program" creates that name, after the up-front check passed. The publish (a hard link)
refuses the taken name: the other program's file is kept whole, and the script ends in one line. And what a
library save does depends on its arguments alone, never on what a script parsed earlier in the process.
"""

import errno
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))  # importlib import mode: put the sibling helper on the path
from script_helpers import ROOT, load_script, run_script  # noqa: E402

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
    return subprocess.run(command, capture_output=True, text=True, cwd=cwd, env=env, timeout=300)


def test_td_keeps_a_file_another_program_made_during_the_run_and_says_it_in_one_line(tmp_path):
    td = ["--episodes", "200", "--eval-games", "2", "--alphabeta-games", "1", "--no-progress"]
    result = run_racing("train_tictactoe_td", "race.npz", *td, "--out", "race.npz", "--json", cwd=tmp_path)
    assert result.returncode == 1 and "Traceback" not in result.stderr, result.stderr
    assert result.stderr.strip().splitlines() == [
        "train_tictactoe_td.py: error: race.npz exists: pass --overwrite to replace it"
    ]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["race.npz"]  # no temporary file, no other name
    assert (tmp_path / "race.npz").read_text() == "the other run's"


def test_with_overwrite_the_run_replaces_a_file_made_during_it(tmp_path):
    td = ["--episodes", "200", "--eval-games", "2", "--alphabeta-games", "1", "--no-progress", "--overwrite"]
    result = run_racing("train_tictactoe_td", "race.npz", *td, "--out", "race.npz", "--json", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout.splitlines()[-1])["out"] == "race.npz"
    from agents.tabular.td import TDAgent

    TDAgent.load(tmp_path / "race.npz")


def test_arena_prints_its_summary_when_another_program_took_its_out_during_the_run(tmp_path):
    result = run_racing(
        "arena", "race.json", "--agents", "random", "random", "--games", "2", "--out", "race.json", cwd=tmp_path
    )
    assert result.returncode == 1 and "Traceback" not in result.stderr, result.stderr
    assert json.loads(result.stdout.splitlines()[-1])["games_per_pair"] == 2  # the summary is not lost
    assert result.stderr.strip().splitlines()[-1] == (
        "error: --out race.json exists: pass --overwrite to replace it (the summary is printed above)"
    )
    assert (tmp_path / "race.json").read_text() == "the other run's"


# ---- the library's saves: replace is an argument, and nothing else changes what a save does ---------


def _td_agent():
    from agents.tabular.td import TDAgent
    from gym_boardgames.rules import TicTacToe

    return TDAgent(TicTacToe(), seed=0)


def test_a_library_save_with_replace_false_refuses_an_existing_file_and_leaves_it_whole(tmp_path):
    from gym_boardgames.outputs import SaveError

    out = tmp_path / "td.npz"
    out.write_bytes(b"an earlier player")
    with pytest.raises(SaveError) as info:
        _td_agent().save(out, replace=False)
    assert info.value.errno == errno.EEXIST and str(info.value) == f"could not save {out}: File exists"
    assert out.read_bytes() == b"an earlier player"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["td.npz"]  # no temporary file left
    assert _td_agent().save(tmp_path / "new.npz", replace=False) == str(tmp_path / "new.npz")  # a new name: saved


def test_no_script_parsed_earlier_in_the_process_changes_what_a_save_does(tmp_path, monkeypatch):
    """A script's flags (with or without --overwrite) set nothing a later library save reads."""
    monkeypatch.chdir(tmp_path)
    td = load_script("train_tictactoe_td", "saved")
    out = tmp_path / "td.npz"
    for flags in ([], ["--overwrite"]):
        td.parse_args(["--out", str(tmp_path / "other.npz"), *flags])
        out.write_bytes(b"an earlier player")
        assert _td_agent().save(out) == str(out)  # the default replaces, whatever the script parsed
        assert out.read_bytes() != b"an earlier player"
        out.write_bytes(b"an earlier player")
        with pytest.raises(OSError):
            _td_agent().save(out, replace=False)  # and replace=False refuses, whatever it parsed
        assert out.read_bytes() == b"an earlier player"


def test_a_folder_named_like_the_lock_is_one_line(tmp_path):
    (tmp_path / "results.json.lock").mkdir()
    result = run_script("ladder", "--agents", "random", "alphabeta:1", "--results", "results.json", cwd=tmp_path)
    assert result.returncode == 2 and "Traceback" not in result.stderr, result.stderr
    assert result.stderr.strip().splitlines() == [
        "ladder.py: error: --results results.json: cannot open its lock results.json.lock: Is a directory"
    ]
