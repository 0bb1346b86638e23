"""scripts/ladder.py: ranks agents, adds a new agent's pairs only, replays a seed exactly, refuses bad input."""

import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))  # importlib import mode: put the sibling helper on the path
from script_helpers import ROOT, children, ignores_ctrl_c, load_script, run_script  # noqa: E402

LADDER = load_script("ladder")


def ladder(*args):
    """Run the script in this process (one worker) and return its summary."""
    return LADDER.main([*map(str, args), "--workers", "1"])


def test_tictactoe_ranks_random_below_alphabeta_1_below_alphabeta(tmp_path, capsys):
    summary = ladder("--agents", "alphabeta", "random", "alphabeta:1", "--max-games", "40")
    assert list(summary["ratings"]) == ["alphabeta", "alphabeta:1", "random"]
    ratings = summary["ratings"]
    assert ratings["alphabeta"]["low"] > ratings["alphabeta:1"]["high"] and ratings["alphabeta:1"]["low"] > 0
    assert summary["games"] == summary["played"] == 120
    assert ratings["random"] == {"elo": 0.0, "low": 0.0, "high": 0.0, "games": 80}
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == "TicTacToe(): 120 games (120 this run), random at 0 Elo"
    assert lines[2].split()[:2] == ["1", "alphabeta"] and len({len(line) for line in lines[1:5]}) == 1


def test_a_new_agent_plays_only_its_own_pairs_and_a_finished_ladder_plays_nothing(tmp_path):
    results = tmp_path / "ladder.jsonl"
    budget = ["--results", results, "--target-width", "250", "--max-games", "1000"]
    first = ladder("--agents", "random", "alphabeta:1", "mcts:5", *budget)
    assert first["played"] < 3 * 1000  # stopped by the intervals' width, not by the budget
    before = results.read_text()
    joined = ladder("--agents", "mcts:5", "random", "alphabeta:2", "alphabeta:1", *budget)
    after = results.read_text()
    assert after.startswith(before)  # the earlier blocks are kept as they were
    new = [json.loads(line) for line in after[len(before) :].splitlines()]
    assert new and all("alphabeta:2" in (block["a"], block["b"]) for block in new)
    assert {(block["a"], block["b"]) for block in new} == {
        ("alphabeta:1", "alphabeta:2"),
        ("alphabeta:2", "mcts:5"),
        ("alphabeta:2", "random"),
    }
    assert joined["played"] == sum(sum(block["first"]) + sum(block["second"]) for block in new)
    assert joined["games"] == first["played"] + joined["played"]
    again = ladder("--agents", "random", "alphabeta:1", "mcts:5", "alphabeta:2", *budget)
    assert again["played"] == 0 and results.read_text() == after and again["ratings"] == joined["ratings"]


def test_the_same_seed_gives_the_same_games_and_another_seed_others(tmp_path):
    runs = {}
    for name, seed in [("a", 4), ("b", 4), ("c", 5)]:
        ladder("--agents", "random", "mcts:5", "--max-games", "30", "--seed", seed, "--results", tmp_path / name)
        runs[name] = (tmp_path / name).read_text()
    assert runs["a"] == runs["b"] and runs["a"] != runs["c"]


def test_max_total_caps_the_run(tmp_path):
    summary = ladder("--agents", "random", "alphabeta:1", "mcts:5", "--max-total", "25", "--block", "4")
    assert summary["played"] == 25


RESULTS = '{"format": "gym-boardgames ladder 1", "game": "TicTacToe()"}\n'


@pytest.mark.parametrize(
    ("argv", "results", "message"),
    [
        (["--agents", "random"], None, "--agents needs at least two agents"),
        (["--agents", "random", "mcts", "random"], None, "--agents names random more than once"),
        (["--agents", "alphabeta", "mcts"], None, "--agents needs random: it is the ladder's 0 Elo"),
        (["--agents", "random", "stockfish"], None, "--agents stockfish: unknown agent 'stockfish'"),
        (
            ["--agents", "random", "no_module_here:Bot"],
            None,
            "--agents no_module_here:Bot: loading no_module_here raised ModuleNotFoundError",
        ),
        (
            ["--game", "connectfour", "--agents", "random", "mcts"],
            RESULTS,
            "is a ladder of TicTacToe(), not of ConnectN",
        ),
        ([], RESULTS + '{"a": "alphabeta", "b": "random", "ind', "line 2 is not a ladder block"),
        ([], "game,winner\n", "is not a ladder results file"),
    ],
)
def test_bad_input_is_one_line_status_2_and_nothing_written(tmp_path, capsys, argv, results, message):
    path = tmp_path / "ladder.jsonl"
    if results is not None:
        path.write_text(results)
    plot = tmp_path / "ladder.png"
    with pytest.raises(SystemExit) as stop:
        ladder(*argv, "--results", path, "--plot", plot)
    assert stop.value.code == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and message in err[0], err
    assert (path.read_text() if path.exists() else None) == results and not plot.exists()


@pytest.mark.parametrize(
    ("flag", "module", "extra"), [("--plot", "matplotlib", "plot"), ("--ray-address", "ray", "rllib")]
)
def test_a_missing_extra_is_refused_before_any_game(tmp_path, capsys, monkeypatch, flag, module, extra):
    monkeypatch.setitem(sys.modules, module, None)  # import fails as if it were not installed
    with pytest.raises(SystemExit) as stop:
        ladder("--results", tmp_path / "ladder.jsonl", flag, tmp_path / "x.png")
    assert stop.value.code == 2 and not (tmp_path / "ladder.jsonl").exists()
    assert f"{flag} needs {module}, the '{extra}' extra" in capsys.readouterr().err


def test_plot_draws_the_ladder(tmp_path):
    pytest.importorskip("matplotlib")
    ladder("--agents", "random", "alphabeta:1", "--max-games", "10", "--plot", tmp_path / "ladder.png")
    assert (tmp_path / "ladder.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


AGENT = """
class FirstMove:
    def __init__(self, seed=None):
        pass

    def act(self, game, state):
        return min(game.legal_actions(state))
"""


@pytest.mark.slow  # two runs in fresh interpreters, one with two worker processes
def test_worker_processes_play_the_same_games_with_a_users_agent_from_a_file(tmp_path):
    (tmp_path / "mine.py").write_text(AGENT)
    outputs = {}
    for workers in ("1", "2"):
        results = tmp_path / f"w{workers}.jsonl"
        agents = ["random", f"{tmp_path}/mine.py:FirstMove", "mcts:5"]
        run = run_script("ladder", "--agents", *agents, "--max-games", "20", "--workers", workers,
                         "--results", results, "--json", timeout=300)  # fmt: skip
        assert run.returncode == 0, run.stderr
        outputs[workers] = (results.read_text(), json.loads(run.stdout.splitlines()[-1])["ratings"])
    assert outputs["1"] == outputs["2"]
    assert f"{tmp_path}/mine.py:FirstMove" in outputs["2"][1]


# ---- one mechanism per kind of safety (issue 33) ----------------------------------------------------------


def _header_and(blocks):
    lines = [json.dumps({"format": "gym-boardgames ladder 1", "game": "TicTacToe()"})]
    return "\n".join(lines + [json.dumps(block) for block in blocks]) + "\n"


def _block(index=0, first=(3, 1, 1), second=(2, 2, 1)):
    return {"a": "alphabeta:1", "b": "random", "index": index, "seed": 0, "first": list(first), "second": list(second)}


@pytest.mark.parametrize(
    "blocks, message",
    [
        (
            [_block(), _block(1), _block()],
            r"line 4 repeats line 2 \(alphabeta:1 v random, block 0\): a block counts once",
        ),
        ([_block(first=(10**15, 0, 0))], r"line 2 is not a ladder block"),
    ],
)
def test_a_results_file_with_a_block_twice_or_an_impossible_block_is_refused(tmp_path, blocks, message):
    results = tmp_path / "r.jsonl"
    results.write_text(_header_and(blocks))
    done = run_script("ladder", "--agents", "random", "alphabeta:1", "--results", results, "--workers", "1")
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.count("\n") == 1 and re.search(message, done.stderr), done.stderr
    assert results.read_text() == _header_and(blocks)


def test_plot_may_not_name_the_results_file_nor_a_format_matplotlib_cannot_write(tmp_path):
    pytest.importorskip("matplotlib")
    results = tmp_path / "r.svg"  # a results file of any name: the same file as --plot is refused as such
    for plot, message in [(results, "--plot .*r.svg is also --results"), (tmp_path / "x.xyz", "cannot write .xyz")]:
        done = run_script("ladder", "--agents", "random", "alphabeta:1", "--results", results, "--plot", plot)
        assert done.returncode == 2 and done.stderr.count("\n") == 1 and re.search(message, done.stderr), done.stderr
        assert not results.exists()


def test_a_second_ladder_on_the_same_results_file_is_refused_while_the_first_runs(tmp_path):
    results = tmp_path / "r.jsonl"
    argv = [sys.executable, str(ROOT / "scripts" / "ladder.py"), "--agents", "random", "mcts:400", "alphabeta"]
    argv += ["--results", str(results), "--workers", "1", "--max-games", "400", "--target-width", "1"]
    first = subprocess.Popen(argv, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 120
        while not results.exists() and time.monotonic() < deadline:  # the first block is saved: it holds the lock
            time.sleep(0.05)
        second = run_script("ladder", "--agents", "random", "alphabeta", "--results", results, "--workers", "1")
        assert second.returncode == 2 and second.stdout == ""
        assert second.stderr.strip().endswith(
            f"--results {results} is in use by another run (it holds {results}.lock): wait for it to end"
        )
    finally:
        first.send_signal(signal.SIGINT)
        out, err = first.communicate(timeout=60)
    assert (
        first.returncode == 130 and err.strip().splitlines()[-1] == "ladder.py: interrupted" and "Traceback" not in err
    )
    blocks = [json.loads(line) for line in results.read_text().splitlines()[1:]]
    assert blocks  # the finished blocks of the interrupted round are kept, and the file is whole


def test_ctrl_c_with_worker_processes_is_one_line_status_130_and_the_finished_blocks_are_kept(tmp_path):
    results = tmp_path / "r.jsonl"
    argv = [sys.executable, str(ROOT / "scripts" / "ladder.py"), "--agents", "random", "mcts:300", "alphabeta:2"]
    argv += ["--results", str(results), "--workers", "2", "--max-games", "2000", "--target-width", "1"]
    argv += ["--block", "4"]
    run = subprocess.Popen(
        argv, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True
    )
    deadline = time.monotonic() + 180
    # A block is saved and both pool workers are up and ignore Ctrl-C (a worker still importing cannot yet).
    while not (results.exists() and len(kids := children(run.pid)) >= 3 and all(map(ignores_ctrl_c, kids))):
        assert run.poll() is None and time.monotonic() < deadline, run.communicate()
        time.sleep(0.05)
    os.killpg(run.pid, signal.SIGINT)  # as a terminal's Ctrl-C: the whole process group, workers included
    out, err = run.communicate(timeout=60)
    assert run.returncode == 130, err
    assert "Traceback" not in err and "KeyboardInterrupt" not in err
    assert [line for line in err.replace("\r", "\n").splitlines() if "ladder:" not in line and line.strip()] == [
        "ladder.py: interrupted"
    ]
    lines = results.read_text().splitlines()
    assert len(lines) >= 2 and all(json.loads(line) for line in lines)


@pytest.mark.parametrize(
    "body, extra, message, status",
    [
        ("import sys\nsys.exit(0)\n", [], r"--agents .*bot\.py:Bot: loading .*bot\.py raised SystemExit: 0$", 2),
        (
            "class Bot:\n    def act(self, game, state):\n        raise LookupError('lost')\n",
            [],
            r"agent .*bot\.py:Bot: its act\(\) raised LookupError: lost$",
            1,
        ),
        (
            "import time\nclass Bot:\n    def act(self, game, state):\n        time.sleep(60)\n",
            ["--move-time", "0.5"],
            r"agent .*bot\.py:Bot: its act\(\) did not answer within 0\.5 s \(--move-time\)$",
            1,
        ),
    ],
)
def test_a_users_agent_that_exits_raises_or_hangs_ends_the_ladder_with_one_line(tmp_path, body, extra, message, status):
    done, lines = ladder_with_bot(tmp_path, body, ["random"], *extra)
    assert done.returncode == status and len(lines) == 1 and re.search(message, lines[0]), done.stderr
    assert "Traceback" not in done.stderr


def ladder_with_bot(tmp_path, body, others, *extra):
    """Run the ladder on two workers with ``others`` and a user's ``Bot`` of ``body``; its lines but progress."""
    (tmp_path / "bot.py").write_text(body)
    agents = [*others, f"{tmp_path / 'bot.py'}:Bot"]
    done = run_script(
        "ladder", "--agents", *agents, "--results", tmp_path / "r.jsonl", "--workers", "2", *extra, timeout=120
    )
    lines = [line for line in done.stderr.replace("\r", "\n").splitlines() if line.strip() and "ladder:" not in line]
    return done, lines


def test_a_worker_that_dies_ends_the_ladder_with_one_line(tmp_path):
    # The user's agent (in its move-time child) kills the pool worker above it: a pool used to wait forever.
    body = "import os, signal\nclass Bot:\n    def act(self, game, state):\n"
    body += "        os.kill(os.getppid(), signal.SIGKILL)\n        return 0\n"
    done, lines = ladder_with_bot(tmp_path, body, ["random", "alphabeta:1"])
    assert done.returncode == 1 and len(lines) == 1, done.stderr
    assert re.search(r"block \d+ of .* was lost: a worker process died$", lines[0]), done.stderr
    assert "Traceback" not in done.stderr
