"""scripts/eval_perfect_play.py and scripts/label_connectfour.py end to end.

The solver parts need the `solver` extra (numba and the opening book: our solver at full speed); --crosscheck
needs the `crosscheck` extra (BitBully).
"""

import importlib.util
import json
import subprocess
import sys
from pathlib import Path

import pytest

from agents.matches.perfect_play import connect_four, load_labels

sys.path.insert(0, str(Path(__file__).parent))  # importlib import mode: put the sibling helper on the path
from script_helpers import load_script, run_script  # noqa: E402
from test_eval_perfect_play_testsets import BAD_AGENTS, BAD_MOVES  # noqa: E402  (the same agents on both doors)

ROOT = Path(__file__).resolve().parents[2]
HAS_SOLVER = all(importlib.util.find_spec(name) for name in ("numba", "bitbully_databases"))
HAS_BITBULLY = importlib.util.find_spec("bitbully") is not None


def run(script, *args):
    return subprocess.run(
        [sys.executable, str(ROOT / "scripts" / script), *args], capture_output=True, text=True, cwd=ROOT
    )


def test_grades_players_by_stage_as_a_table_and_json(tmp_path):
    out = tmp_path / "grades.json"
    done = run(
        "eval_perfect_play.py", "alphazero:0", "random", "--per-stage", "10", "--quiet", "--json", "--out", str(out)
    )
    assert done.returncode == 0, done.stderr
    summary = json.loads(done.stdout.splitlines()[-1])
    assert summary["positions"] == 40 and set(summary["players"]) == {"alphazero:0", "random"}
    raw, random = summary["players"]["alphazero:0"], summary["players"]["random"]
    assert raw["outcome_kept"] > random["outcome_kept"]
    assert set(raw["stages"]) == {"0-7", "8-15", "16-23", "24+"}
    assert "| `alphazero:0` |" in done.stdout and "| player | outcome kept | critical |" in done.stdout
    assert json.loads(out.read_text()) == summary


@pytest.mark.slow
def test_bad_players_and_label_files_fail_in_one_line(tmp_path):
    done = run("eval_perfect_play.py", "minimax")
    assert done.returncode == 2 and "error: minimax: unknown agent" in done.stderr
    bad = tmp_path / "labels.npz"
    bad.write_bytes(b"not a zip")
    done = run("eval_perfect_play.py", "random", "--labels", str(bad))
    assert done.returncode == 2 and "error: --labels:" in done.stderr and "Traceback" not in done.stderr
    done = run("eval_perfect_play.py", "random", "--solver-games", "100000")
    assert done.returncode == 2 and "must be an integer in [0, 1000], got" in done.stderr


@pytest.mark.skipif(HAS_SOLVER, reason="checks the message shown without the solver extra")
def test_solver_games_need_the_solver_extra():
    done = run("eval_perfect_play.py", "random", "--solver-games", "1")
    assert done.returncode == 2 and "--solver-games needs" in done.stderr and "'solver' extra" in done.stderr
    done = run("label_connectfour.py", "--out", "never.npz")
    assert done.returncode == 2 and "'solver' extra" in done.stderr and "Traceback" not in done.stderr


@pytest.mark.skipif(not HAS_SOLVER, reason="the solver extra (numba, bitbully-databases) is not installed")
@pytest.mark.slow
def test_solver_games_and_a_small_label_file(tmp_path):
    done = run("eval_perfect_play.py", "random", "--per-stage", "2", "--solver-games", "2", "--quiet", "--json")
    assert done.returncode == 0, done.stderr
    games = json.loads(done.stdout.splitlines()[-1])["players"]["random"]["solver_games"]
    assert games["games"] == 2 and games["loss"] == 2  # a random first player loses to perfect play
    assert games["solver"] == "perfect"
    assert all(lost["first_mistake_ply"] is not None for lost in games["not_won"])
    assert games["solver_seeds"] == [0, 1] and [lost["seed"] for lost in games["not_won"]] == [0, 1]  # one each
    done = run("eval_perfect_play.py", "alphabeta:4", "--per-stage", "1", "--solver-games", "1", "--quiet", "--json")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout.splitlines()[-1])["players"]["alphabeta:4"]["solver_games"]["win"] == 0
    out = tmp_path / "labels.npz"
    done = run("label_connectfour.py", "--per-stage", "3", "--players", "random", "--out", str(out), "--json")
    assert done.returncode == 0, done.stderr
    summary = json.loads(done.stdout.splitlines()[-1])
    assert summary["positions"] == 12 and summary["solver"].startswith("agents.search.connect_four (numba-compiled)")
    labels = load_labels(out)  # the loader checks every score against the rules
    assert labels.meta["solver"] == summary["solver"] and "BitBully" not in summary["solver"]
    done = run("label_connectfour.py", "--per-stage", "3", "--out", str(out))
    assert done.returncode == 2 and "pass --overwrite" in done.stderr


@pytest.mark.skipif(HAS_BITBULLY, reason="checks the message shown without the crosscheck extra")
def test_crosscheck_needs_the_crosscheck_extra(tmp_path):
    done = run("label_connectfour.py", "--out", str(tmp_path / "labels.npz"), "--crosscheck")
    assert done.returncode == 2 and "--crosscheck needs bitbully, the 'crosscheck' extra" in done.stderr
    assert not (tmp_path / "labels.npz").exists()


@pytest.mark.skipif(not (HAS_SOLVER and HAS_BITBULLY), reason="needs the solver and crosscheck extras")
@pytest.mark.slow
def test_crosscheck_agrees_with_bitbully_and_is_recorded(tmp_path):
    out = tmp_path / "labels.npz"
    done = run(
        "label_connectfour.py", "--per-stage", "3", "--players", "random", "--crosscheck", "--out", str(out), "--json"
    )
    assert done.returncode == 0, done.stderr
    assert "checked against BitBully" in load_labels(out).meta["solver"]


@pytest.mark.skipif(not HAS_SOLVER, reason="the solver extra (numba, bitbully-databases) is not installed")
def test_crosscheck_stops_at_the_first_disagreement(tmp_path, monkeypatch, capsys):
    module = load_script("label_connectfour")

    class WrongBitBully:
        def scores(self, state):
            from agents.matches.perfect_play import connect_four
            from agents.search.connect_four import score_moves

            return {column: score + 1 for column, score in score_moves(connect_four(), state).items()}

    class InProcessPool:  # the workers' code, run here, where the fake BitBully is
        def __init__(self, workers, initializer, initargs):
            initializer(*initargs)

        def __enter__(self):
            return self

        def __exit__(self, *exc):
            return False

        def imap(self, task, items, chunksize):
            return map(task, items)

    monkeypatch.setattr(module, "SolverPlayer", WrongBitBully)
    monkeypatch.setattr(module, "require_extra", lambda *args, **kwargs: None)
    monkeypatch.setattr(module, "process_pool", InProcessPool)
    out = tmp_path / "labels.npz"
    with pytest.raises(SystemExit) as info:
        module.main(["--per-stage", "1", "--players", "random", "--crosscheck", "--out", str(out)])
    assert info.value.code == 1
    error = capsys.readouterr().err
    assert "--crosscheck: the solvers disagree after the moves [" in error and "BitBully [" in error
    assert not out.exists()


def test_tictactoe_grades_every_position_against_the_exact_solver(tmp_path):
    done = run("eval_perfect_play.py", "--game", "tictactoe", "alphabeta", "alphabeta:1", "--quiet", "--json")
    assert done.returncode == 0, done.stderr
    summary = json.loads(done.stdout.splitlines()[-1])
    assert summary["game"] == "tictactoe" and summary["positions"] == 4520
    perfect, shallow = summary["players"]["alphabeta"], summary["players"]["alphabeta:1"]
    assert perfect["optimal_moves"] == 1.0 and perfect["optimal"] == 4520 and perfect["losing"] == 0
    assert shallow["optimal_moves"] < 1 and shallow["losing"] > 0
    assert "| `alphabeta` | 100.0% | 0 |" in done.stdout and "| player | optimal moves | losing moves |" in done.stdout
    done = run("eval_perfect_play.py", "--game", "tictactoe", "random", "--per-stage", "5")
    assert done.returncode == 2 and "--per-stage is for Connect Four" in done.stderr


#: The labels' and tic-tac-toe's refusals, as on Pons' sets (a full column aside: it needs a position with one).
LABEL_MOVES = {agent: move for agent, move in BAD_MOVES.items() if agent != "FullColumn"}


@pytest.fixture
def script():
    return load_script("eval_perfect_play")


@pytest.fixture
def bad_agents(tmp_path):
    """The file of :data:`BAD_AGENTS`; return a function from an agent's class name to its spec."""
    (tmp_path / "bad.py").write_text(BAD_AGENTS)
    return lambda agent: f"{tmp_path / 'bad.py'}:{agent}"


def failed_line(script, capsys, argv):
    """Run the script on ``argv`` in this process; return its one line on stderr (the status must be 1)."""
    with pytest.raises(SystemExit) as end:
        script.main(argv)
    assert end.value.code == 1  # a failure during the work, not a refusal of the command line
    out, err = capsys.readouterr()
    assert "| player |" not in out
    (line,) = err.strip().splitlines()
    return line


@pytest.mark.parametrize("agent", LABEL_MOVES)
def test_a_move_that_is_no_column_stops_the_label_grading_in_one_line(script, bad_agents, capsys, agent):
    line = failed_line(script, capsys, [bad_agents(agent), "--quiet"])
    first = load_labels().move_lists()[0]  # the first position asked
    says = BAD_MOVES[agent].replace("@", bad_agents(agent))
    assert line.endswith(f"error: position after columns {first}: {says}"), line


@pytest.mark.parametrize("agent", [agent for agent in LABEL_MOVES if agent != "OffBoard"])  # 7 is a cell there
def test_a_move_that_is_no_cell_stops_the_tictactoe_grading_in_one_line(script, bad_agents, capsys, agent):
    line = failed_line(script, capsys, [bad_agents(agent), "--game", "tictactoe", "--quiet"])
    assert line.endswith(f"error: {BAD_MOVES[agent].replace('@', bad_agents(agent)).replace('0..6', '0..8')}"), line


def test_an_occupied_cell_stops_the_tictactoe_grading_naming_the_agent(script, tmp_path, capsys):
    (tmp_path / "taken.py").write_text(
        "class Taken:\n    def act(self, game, state):\n"
        "        return next((cell for cell in range(9) if not game.is_legal(state, cell)), 9)\n"
    )
    spec = f"{tmp_path / 'taken.py'}:Taken"
    line = failed_line(script, capsys, [spec, "--game", "tictactoe", "--quiet"])
    assert f"error: agent {spec} played " in line and ", which is " in line, line


def test_fresh_search_hands_the_move_as_it_is_to_the_game_loops_check(script, bad_agents):
    from agents.matches.arena import play_game
    from gym_boardgames.opponents import make_opponent

    game = connect_four()
    player = script.FreshSearch(make_opponent(bad_agents("Float"), game))
    with pytest.raises(ValueError) as error:  # int() would have made it column 0
        play_game(game, player, "random")
    assert str(error.value) == f"agent {bad_agents('Float')} played 0.7, which is not an integer in 0..6"


@pytest.mark.slow  # subprocesses
def test_a_bad_move_or_a_raising_agent_is_no_traceback_in_either_mode(tmp_path):
    (tmp_path / "bad.py").write_text(BAD_AGENTS)
    for agent, flags in (("Nothing", []), ("Raises", []), ("Array", ["--game", "tictactoe"])):
        done = run_script("eval_perfect_play", f"bad.py:{agent}", *flags, "--quiet", cwd=tmp_path)
        assert done.returncode == 1 and "Traceback" not in done.stderr, done.stderr
        (line,) = done.stderr.strip().splitlines()
        assert f"agent bad.py:{agent}" in line, line
