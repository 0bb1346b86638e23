"""scripts/ladder.py: ranks agents, adds a new agent's pairs only, replays a seed exactly, refuses bad input."""

import json
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))  # importlib import mode: put the sibling helper on the path
from script_helpers import load_script, run_script  # noqa: E402

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
        (["--agents", "random", "no_module_here:Bot"], None, "--agents no_module_here:Bot: loading no_module_here raised ModuleNotFoundError"),
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
