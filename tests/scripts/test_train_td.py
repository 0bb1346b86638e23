"""train_tictactoe_td.py trains, evaluates and saves the TD player on a tiny budget, and checks its arguments."""

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from agents.tabular.td import TDAgent
from gym_boardgames.rules import TicTacToe

sys.path.insert(0, str(Path(__file__).parent))  # importlib import mode: put the sibling helper on the path
import script_helpers  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "scripts" / "train_tictactoe_td.py"
TINY = ["--episodes", "2000", "--eval-games", "20", "--alphabeta-games", "5", "--no-progress"]


def run_script(*args, check=True):
    return script_helpers.run_script("train_tictactoe_td", *args, check=check, timeout=120)


def load_script():
    return script_helpers.load_script("train_tictactoe_td", "test")


@pytest.fixture(scope="module")
def tiny_run(tmp_path_factory):
    out = tmp_path_factory.mktemp("td") / "td.npz"
    result = run_script(*TINY, "--seed", "3", "--out", str(out), "--json")
    return result, out


@pytest.mark.slow
def test_prints_the_evaluation_table_and_a_json_summary_last(tiny_run):
    result, out = tiny_run
    lines = result.stdout.splitlines()
    summary = json.loads(lines[-1])
    assert summary["episodes"] == 2000 and summary["seed"] == 3 and summary["out"] == str(out)
    for opponent, games in (("vs_random", 20), ("vs_alphabeta", 5)):
        for side in ("first", "second"):
            record = summary[opponent][side]
            assert record["win"] + record["draw"] + record["loss"] == games
    # Perfect play never loses, so the TD player can at best draw against alpha-beta.
    assert summary["vs_alphabeta"]["first"]["win"] == summary["vs_alphabeta"]["second"]["win"] == 0
    assert summary["positions"] == 4520 and 0.5 < summary["optimal_move_share"] <= 1
    assert summary["optimal_positions"] == round(summary["optimal_move_share"] * 4520)
    assert set(summary["seat_audit"]) == {"first", "second"}
    assert summary["train_seconds"] > 0  # recorded; the work is bounded by the 2,000 episodes checked above
    assert any(line.startswith("alpha-beta") and "O (second)" in line for line in lines)
    assert "reachable non-terminal positions" in result.stdout


@pytest.mark.slow
def test_saved_file_loads_as_an_agent_for_both_sides(tiny_run):
    _, out = tiny_run
    agent = TDAgent.load(out)
    assert agent.training["episodes"] == 2000 and agent.training["seed"] == 3
    assert np.any(agent.values[0] != 0.5) and np.any(agent.values[1] != 0.5)
    game = agent.game
    state = game.apply(game.initial_state(), agent.act(game, game.initial_state()))
    assert agent.act(game, state) in game.legal_actions(state)  # now O to move


@pytest.mark.slow
def test_same_seed_saves_the_same_tables(tiny_run, tmp_path):
    _, out = tiny_run
    again = tmp_path / "again.npz"
    run_script(*TINY, "--seed", "3", "--out", str(again))
    np.testing.assert_array_equal(TDAgent.load(again).values, TDAgent.load(out).values)


@pytest.mark.slow
def test_plot_writes_a_learning_curve_png(tmp_path):
    pytest.importorskip("matplotlib")
    png, out = tmp_path / "curve.png", tmp_path / "td.npz"
    result = run_script(
        *TINY, "--curve-points", "4", "--curve-games", "10", "--plot", str(png), "--out", str(out), "--json"
    )
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    curve = json.loads(result.stdout.splitlines()[-1])["curve"]
    assert [point["episodes"] for point in curve] == [500, 1000, 1500, 2000]
    assert all(abs(p["win"] + p["draw"] + p["loss"] - 1) < 1e-9 and 0 < p["optimal_share"] <= 1 for p in curve)


def test_names_of_250_characters_are_written_and_the_plot_takes_the_format_its_suffix_names(tmp_path):
    # Such names passed the up-front check, then failed at the save: the temporary name was the output's, longer.
    pytest.importorskip("matplotlib")
    out, plot = tmp_path / ("o" * 246 + ".npz"), tmp_path / ("p" * 246 + ".svg")
    result = run_script(
        *TINY, "--episodes", "50", "--curve-points", "1", "--curve-games", "2", "--out", out, "--plot", plot
    )
    assert result.returncode == 0, result.stderr
    assert TDAgent.load(out).game == TicTacToe() and plot.read_bytes().startswith(b"<?xml")
    assert sorted(tmp_path.iterdir()) == sorted([out, plot])


def test_a_plot_format_matplotlib_cannot_write_is_refused_before_training(tmp_path, capsys):
    with pytest.raises(SystemExit) as info:
        load_script().parse_args(["--out", str(tmp_path / "td.npz"), "--plot", str(tmp_path / "curve.xyz")])
    assert info.value.code == 2
    line = capsys.readouterr().err.strip()
    assert "\n" not in line and f"--plot {tmp_path}/curve.xyz: matplotlib cannot write .xyz; use one of png" in line
    assert list(tmp_path.iterdir()) == []


def test_plot_without_matplotlib_says_which_extra_to_install(tmp_path):
    out = tmp_path / "td.npz"
    # None in sys.modules makes `import matplotlib` raise ImportError, as if it were not installed.
    code = (
        "import runpy, sys; sys.modules['matplotlib'] = None; "
        f"sys.argv = [{str(SCRIPT)!r}, '--plot', 'x.png', '--out', {str(out)!r}]; "
        f"runpy.run_path({str(SCRIPT)!r}, run_name='__main__')"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=tmp_path, timeout=60)
    assert result.returncode == 2
    assert "matplotlib" in result.stderr and "'plot' extra" in result.stderr and "Traceback" not in result.stderr
    assert not out.exists()  # it stopped before training


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--episodes", "0"], "argument --episodes: must be an integer >= 1, got 0"),
        (["--eval-games", "-3"], "argument --eval-games: must be an integer >= 1, got -3"),
        (["--alpha", "0"], "argument --alpha: must be a number in (0, 1], got 0.0"),
        (["--alpha-final", "1.5"], "argument --alpha-final: must be a number in (0, 1], got 1.5"),
        (["--epsilon", "2"], "argument --epsilon: must be a number in [0, 1], got 2.0"),
        (["--episodes", "many"], "argument --episodes: must be an integer >= 1, got 'many'"),
        (["--out", "/no/such/folder/td.npz"], "--out /no/such/folder/td.npz: the folder /no/such/folder does not"),
    ],
)
def test_bad_arguments_exit_2_with_a_message(capsys, args, message):
    with pytest.raises(SystemExit) as info:
        load_script().parse_args(args)
    assert info.value.code == 2
    assert message in capsys.readouterr().err


def test_bad_arguments_on_the_command_line_exit_2_before_any_work(tmp_path):
    result = run_script("--episodes", "0", "--out", str(tmp_path / "td.npz"), check=False)
    assert result.returncode == 2 and "argument --episodes: must be an integer >= 1, got 0" in result.stderr
    assert not (tmp_path / "td.npz").exists()


def test_help_describes_the_options():
    result = run_script("--help")
    for option in ("--episodes", "--alpha", "--epsilon", "--seed", "--out", "--plot", "--eval-games", "--json"):
        assert option in result.stdout


def test_the_training_line_gives_the_self_play_bars_time_and_splits_it(monkeypatch, capsys, tmp_path):
    pytest.importorskip("tensorboard")  # --tensorboard turns the learning curve on without matplotlib
    module = load_script()
    clock = [0.0]  # a stand-in clock: only the work below takes time, so the numbers are exact
    monkeypatch.setattr(module, "time", type("Clock", (), {"perf_counter": staticmethod(lambda: clock[0])}))
    audit = module.audit_all_positions

    def slow_audit(*args):  # one curve point measures 1 s (the evaluation after training too, not printed here)
        clock[0] += 1.0
        return audit(*args)

    class Bar:  # learning takes 0.01 s per chunk; the bar's time is the clock at its last update
        def __init__(self, total, desc, enabled=True):
            self.desc, self.opened, self.last = desc, clock[0], clock[0]
            bars.append(self)

        def update(self, n=1):
            clock[0] += 0.01
            self.last = clock[0]

        def __enter__(self):
            return self

        def __exit__(self, *exc):
            pass

    bars = []
    monkeypatch.setattr(module, "audit_all_positions", slow_audit)
    monkeypatch.setattr(module, "progress_bar", Bar)
    summary = module.main(
        ["--episodes", "200", "--curve-points", "4", "--curve-games", "2", "--eval-games", "2"]
        + ["--alphabeta-games", "1", "--tensorboard", str(tmp_path / "tb"), "--out", str(tmp_path / "t.npz")]
    )
    bar = bars[0]
    assert bar.desc == "self-play" and bar.last - bar.opened == pytest.approx(5.0)  # 100 chunks, 4 curve points
    line = next(line for line in capsys.readouterr().out.splitlines() if line.startswith("TD self-play"))
    assert "200 episodes in 5.0 s (1.0 s learning, 4.0 s measuring the learning curve; alpha" in line
    assert summary["train_seconds"] == pytest.approx(5.0) and summary["curve_seconds"] == pytest.approx(4.0)
