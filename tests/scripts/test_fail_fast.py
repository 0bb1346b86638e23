"""Every script fails at once, in one line naming the flag or file, before its long work.

Each check runs the script with its default (long) budget, under a budget of Python lines of this project's code
(tests/work_budget.py): a script that ran past ``FAIL_FAST_LINES`` is stopped with a status the checks do not
accept. The count, unlike a time limit, is the same on a busy machine; with the absence of any result line it
shows that no work happened. Each run starts an interpreter, so most are marked slow: ``pytest -m "not slow"``
keeps one run of each kind of refusal and the checks made in process.
"""

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).parent))  # importlib import mode: put the sibling helper on the path
from script_helpers import load_script  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
WORK_BUDGET = ROOT / "tests" / "work_budget.py"
#: Lines of the project's code (agents/, gym_boardgames/, scripts/) a refusal may run. The refusals run some
#: hundreds to about 4,200 (train_blackjack_mc.py's imports and checks); the default runs they precede play
#: thousands of games or episodes, and 20 games of tic-tac-toe alone run about 13,000.
FAIL_FAST_LINES = 20_000


def run(script, *args, env=None, max_lines=FAIL_FAST_LINES):
    """Run ``scripts/<script>`` headless; with ``max_lines``, stopped past that many lines of the project's code."""
    bounded = [str(WORK_BUDGET), str(max_lines)] if max_lines is not None else []
    return subprocess.run(
        [sys.executable, *bounded, str(ROOT / "scripts" / script), *args],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=300,  # a hang guard only: work is bounded by max_lines, whatever the machine's load
        env={**os.environ, "SDL_VIDEODRIVER": "dummy", **(env or {})},
    )


def assert_user_error(result, status, message):
    """Exit ``status``, ``message`` on the last stderr line, no traceback, nothing on stdout.

    A run stopped by the line budget exits with another status (tests/work_budget.py's OVER_BUDGET_STATUS, 97)
    and says so on stderr.
    """
    assert result.returncode == status, result.stderr
    assert "Traceback" not in result.stderr
    assert message in result.stderr.strip().splitlines()[-1], result.stderr
    assert result.stdout == ""


@pytest.fixture(scope="module")
def tictactoe_td_file(tmp_path_factory):
    from agents.tabular.td import TDAgent
    from gym_boardgames.rules import TicTacToe

    path = tmp_path_factory.mktemp("td") / "ttt.npz"
    TDAgent(TicTacToe()).save(path)
    return path


# ---- output paths ---------------------------------------------------------------------------------


def test_arena_refuses_an_out_in_a_missing_folder_before_the_matches():
    result = run("arena.py", "--out", "/nonexistent/dir/x.json")
    assert_user_error(result, 2, "--out /nonexistent/dir/x.json: the folder /nonexistent/dir does not exist")


@pytest.mark.slow
@pytest.mark.parametrize(
    ("script", "args"),
    [
        ("arena.py", ["--agents", "random", "mcts"]),
        ("train_tictactoe_td.py", []),
        ("demo_tictactoe.py", []),
        ("train_gridworld_dp.py", []),
        ("bench.py", []),
    ],
)
def test_an_out_naming_a_folder_is_refused_before_the_work(script, args, tmp_path):
    result = run(script, *args, "--out", str(tmp_path))
    assert_user_error(result, 2, f"--out {tmp_path}: is a folder; give a file name")
    assert list(tmp_path.iterdir()) == []


@pytest.mark.slow
@pytest.mark.parametrize(
    ("script", "flag"),
    [
        ("train_tictactoe_td.py", "--out"),
        ("train_tictactoe_td.py", "--plot"),
        ("arena.py", "--out"),
        ("train_dots_boxes_q.py", "--out"),
    ],
)
def test_an_unwritable_place_is_refused_before_the_work(script, flag):
    # /proc takes no new files, even from root: the same failure as a read-only folder.
    result = run(script, flag, "/proc/out.json" if script != "train_tictactoe_td.py" else "/proc/out.png")
    assert_user_error(result, 2, f"{flag} /proc/out.")
    assert "cannot write in the folder /proc" in result.stderr


@pytest.mark.slow
def test_blackjack_refuses_an_out_that_is_a_file_before_the_experiments(tmp_path):
    existing = tmp_path / "figures"
    existing.write_text("not a folder")
    assert_user_error(run("train_blackjack_mc.py", "--out", str(existing)), 2, "exists and is not a folder")


@pytest.mark.slow
def test_dots_refuses_bad_save_dir_and_out_before_the_experiments(tmp_path):
    a_file = tmp_path / "file"
    a_file.write_text("x")
    assert_user_error(run("train_dots_boxes_q.py", "--save-dir", str(a_file)), 2, "--save-dir")
    assert_user_error(run("train_dots_boxes_q.py", "--out", "/nonexistent/r.md"), 2, "the folder /nonexistent does")


def test_play_refuses_a_screenshot_in_a_missing_folder():
    result = run("play.py", "tictactoe", "--screenshot", "/nonexistent/x.png")
    assert_user_error(result, 2, "--screenshot /nonexistent/x.png: the folder /nonexistent does not exist")


@pytest.mark.parametrize(("script", "name"), [("train_sb3", "model.zip"), ("bench", "bench.json")])
def test_parse_args_refuses_a_folder_as_out(script, name, tmp_path, capsys):
    (tmp_path / name).mkdir()
    with pytest.raises(SystemExit) as info:
        load_script(script).parse_args(["--out", str(tmp_path / name)])
    assert info.value.code == 2
    assert f"--out {tmp_path / name}: is a folder" in capsys.readouterr().err


def test_blackjack_checks_the_files_it_will_write_in_out(tmp_path, capsys):
    (tmp_path / "figure_5_2.png").mkdir()  # a folder where a figure is to go: savefig would fail at the end
    with pytest.raises(SystemExit) as info:
        load_script("train_blackjack_mc").parse_args(["--out", str(tmp_path)])
    assert info.value.code == 2
    assert f"--out {tmp_path / 'figure_5_2.png'}: is a folder" in capsys.readouterr().err


# ---- missing extras -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("script", "argv", "needed_for"),
    [
        ("train_blackjack_mc", ["--out", "OUT"], "--out"),
        ("train_dots_boxes_q", ["--out", "OUT/x.png"], "--out .png"),
        ("train_tictactoe_td", ["--plot", "OUT/x.png", "--out", "OUT/x.npz"], "--plot"),
    ],
)
def test_a_missing_plot_extra_is_reported_before_any_experiment(
    script, argv, needed_for, tmp_path, monkeypatch, capsys
):
    module = load_script(script)
    monkeypatch.setitem(sys.modules, "matplotlib", None)  # as if the 'plot' extra were not installed
    with pytest.raises(SystemExit) as info:
        module.parse_args([arg.replace("OUT", str(tmp_path)) for arg in argv])
    assert info.value.code == 2  # refused before any work: one status and one line style for every refusal
    line = capsys.readouterr().err.strip()
    assert line.endswith(f": error: {needed_for} needs matplotlib, the 'plot' extra: pip install -e \".[plot]\"")
    assert list(tmp_path.iterdir()) == []


# ---- agents and games -----------------------------------------------------------------------------


@pytest.mark.slow
def test_arena_plays_exact_on_dots():
    result = run("arena.py", "--game", "dotsandboxes", "--rows", "2", "--cols", "2", "--agents", "exact", "random",
                 "--games", "4", "--json", max_lines=None)  # fmt: skip
    assert result.returncode == 0, result.stderr
    record = json.loads(result.stdout.splitlines()[-1])["results"]["exact vs random"]
    assert record["first"]["loss"] == 0  # 2x2 is a first-player win: exact never loses moving first


@pytest.mark.slow
def test_arena_refuses_a_dots_bot_on_tictactoe_before_any_match():
    result = run("arena.py", "--game", "tictactoe", "--agents", "random", "always4never3")
    assert_user_error(result, 2, "error: --agents always4never3: 'always4never3' plays Dots and Boxes only")


@pytest.mark.slow
def test_arena_refuses_a_td_file_of_another_game_naming_its_game(tictactoe_td_file):
    result = run("arena.py", "--game", "connectfour", "--agents", "random", f"td:{tictactoe_td_file}")
    assert_user_error(result, 2, "holds tables for TicTacToe(), not for ConnectN(rows=6, cols=7, n=4, gravity=True)")


@pytest.mark.slow
def test_arena_reports_a_missing_td_file_in_one_line():
    assert_user_error(run("arena.py", "--agents", "random", "td:/nonexistent.npz"), 2, "--agents td:/nonexistent.npz")


@pytest.mark.slow
def test_arena_help_lists_the_dots_bots():
    result = run("arena.py", "--help")
    assert all(name in result.stdout for name in ("first_available", "always4never3", "endgame:K", "exact"))


def test_make_agent_refuses_a_td_file_for_another_game(tictactoe_td_file):
    from agents.factory import make_agent
    from agents.persistence import SavedFileError
    from gym_boardgames.rules import ConnectN, TicTacToe

    with pytest.raises(SavedFileError, match=r"holds tables for TicTacToe\(\), not for ConnectN"):
        make_agent(f"td:{tictactoe_td_file}", game=ConnectN())
    agent = make_agent(f"td:{tictactoe_td_file}", seed=3, game=TicTacToe())
    assert agent.game == TicTacToe()


# ---- arguments ------------------------------------------------------------------------------------


@pytest.mark.slow
@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["connectn", "--rows", "0"], "argument --rows: must be an integer >= 1, got 0"),
        (["connectn", "--n", "0"], "argument --n: must be an integer >= 1, got 0"),
        (["tictactoe", "--seed", "-1"], "argument --seed: must be an integer >= 0, got -1"),
        (["tictactoe", "--max-frames", "0"], "argument --max-frames: must be an integer >= 1"),
    ],
)
def test_play_refuses_bad_numbers_naming_the_flag(args, message):
    assert_user_error(run("play.py", *args, "--screenshot", "x.png"), 2, message)


@pytest.mark.slow
def test_play_refuses_options_the_game_does_not_take():
    assert_user_error(run("play.py", "tictactoe", "--rows", "4"), 2, "tictactoe does not take --rows")


@pytest.mark.slow
@pytest.mark.parametrize(
    "script",
    ["arena.py", "demo_tictactoe.py", "train_tictactoe_td.py", "train_gridworld_dp.py", "train_blackjack_mc.py"],
)
def test_a_negative_seed_names_the_flag(script):
    assert_user_error(run(script, "--seed", "-1"), 2, "argument --seed: must be an integer >= 0, got -1")


@pytest.mark.slow
def test_gridworld_refuses_a_binary_map_in_one_line(tmp_path):
    binary = tmp_path / "map.bin"
    binary.write_bytes(bytes(range(256)))
    result = run("train_gridworld_dp.py", "--map", str(binary))
    assert_user_error(result, 2, f"--map: map file {binary}: ")
    assert "UTF-8" in result.stderr


def test_gridworld_refuses_a_device_as_map_without_reading_it():
    result = run("train_gridworld_dp.py", "--map", "/dev/zero")
    assert_user_error(result, 2, "--map: map file /dev/zero: ")
    assert "not a regular file" in result.stderr


# ---- headless play --------------------------------------------------------------------------------


@pytest.mark.slow
def test_play_screenshot_works_headless_by_itself(tmp_path):
    shot = tmp_path / "x.png"
    result = run("play.py", "tictactoe", "--screenshot", str(shot))
    assert result.returncode == 0, result.stderr
    assert shot.stat().st_size > 1000  # and it ended by itself within FAIL_FAST_LINES lines


@pytest.mark.slow
def test_play_headless_without_a_screenshot_says_what_to_do():
    assert_user_error(run("play.py", "tictactoe"), 2, "save the position headless (--screenshot FILE)")


@pytest.mark.slow
def test_play_help_shows_max_frames():
    assert "--max-frames N" in run("play.py", "--help").stdout


def test_a_draw_reported_as_minus_one_reads_as_a_draw(monkeypatch):
    from gym_boardgames.envs.tictactoe import TicTacToeEnv
    from gym_boardgames.human.window import PlayApp

    class Never:
        def act(self, game, state):
            raise AssertionError("the agent is not asked in this test")

    app = PlayApp(TicTacToeEnv(opponent=None), Never(), side=0)
    try:
        for action in (0, 1, 2, 4, 3, 5, 7, 6, 8):  # a drawn game, both sides played here
            app.env.step(action)
        assert app.env.episode_over
        for winner in (-1, None):  # -1 from the envs of 0.1 on, None before
            monkeypatch.setattr(TicTacToeEnv, "winner", property(lambda self, w=winner: w))
            app.message_until = 0.0
            assert app.status() == "Draw"  # said once, not "Draw - Draw"
    finally:
        app.close()


# ---- the demo's summary ---------------------------------------------------------------------------


@pytest.mark.slow
def test_demo_self_play_reports_each_sides_record():
    result = run("demo_tictactoe.py", "--self-play", "--games", "20", "--json", max_lines=None)
    summary = json.loads(result.stdout.splitlines()[-1])
    wins = summary["wins"]
    assert summary["by_side"] == {
        "X": {"win": wins["X"], "draw": wins["draw"], "loss": wins["O"]},
        "O": {"win": wins["O"], "draw": wins["draw"], "loss": wins["X"]},
    }
    assert sum(wins.values()) == 20 and "mean_return" not in summary and "agent" not in summary


@pytest.mark.slow
def test_demo_against_the_opponent_reports_the_agents_record_and_return():
    result = run("demo_tictactoe.py", "--agent-player", "random", "--games", "30", "--json", max_lines=None)
    summary = json.loads(result.stdout.splitlines()[-1])
    agent = summary["agent"]
    assert sum(agent.values()) == 30
    assert summary["mean_return"] == pytest.approx((agent["win"] - agent["loss"]) / 30)


def test_demo_reads_a_draw_as_minus_one():
    module = load_script("demo_tictactoe")

    class DrawEnv:
        def reset(self, seed=None):
            return None, {"action_mask": np.ones(9, np.int8)}

        def step(self, action):
            return None, 0.0, True, False, {"winner": -1, "action_mask": np.zeros(9, np.int8)}

    assert module.play_game(DrawEnv(), np.random.default_rng(0), 0, show=False) == (0.0, -1)


def test_demo_counts_a_minus_one_winner_as_a_draw(monkeypatch, capsys):
    module = load_script("demo_tictactoe")
    monkeypatch.setattr(module, "play_game", lambda env, rng, seed, show: (0.0, -1))
    summary = module.main(["--games", "3"])
    assert summary["wins"] == {"X": 0, "O": 0, "draw": 3} and summary["agent"] == {"win": 0, "draw": 3, "loss": 0}


@pytest.mark.parametrize(
    "script, argv, flag",
    [
        ("eval_perfect_play", ["alphazero:0", "--labels", "IN", "--out", "IN", "--overwrite"], "--labels"),
        ("eval_perfect_play", ["alphazero:0", "--labels", "IN", "--out", "DIR/./in.npz", "--overwrite"], "--labels"),
        ("label_connectfour", ["--exclude", "IN", "--out", "IN", "--overwrite"], "--exclude"),
        ("plot_training_curves", ["RUN.npz", "--out", "RUN.train.npz", "--overwrite"], "a run's model"),
        ("plot_training_curves", ["RUN.train.npz", "--out", "RUN.npz", "--overwrite"], "a run's model"),
    ],
)
def test_out_never_names_the_scripts_own_input(script, argv, flag, tmp_path):
    for name in ("in.npz", "run.npz", "run.train.npz"):
        (tmp_path / name).write_bytes(b"an input the run must not replace")
    paths = {"IN": str(tmp_path / "in.npz"), "DIR": str(tmp_path), "RUN": str(tmp_path / "run")}
    args = [paths.get(arg, arg) for arg in argv]
    args = [arg.replace("DIR", str(tmp_path)).replace("RUN", str(tmp_path / "run")) for arg in args]
    with pytest.raises(SystemExit) as info:
        load_script(script).parse_args(args)
    assert info.value.code == 2
    for name in ("in.npz", "run.npz", "run.train.npz"):
        assert (tmp_path / name).read_bytes() == b"an input the run must not replace"


@pytest.mark.parametrize(
    "script, argv, message",
    [
        ("eval_alphazero", ["tictactoe", "--simulations", "10000000"], "must be an integer in [0, 1000000]"),
        ("label_connectfour", ["--out", "OUT/x.npz", "--per-stage", "100001"], "must be an integer in [1, 100000]"),
        ("plot_training_curves", ["a.npz", "b.npz", "--names", "A", "A", "--json"], "--names must differ"),
    ],
)
def test_smaller_flags_are_bounded_in_one_line(script, argv, message, tmp_path, capsys):
    with pytest.raises(SystemExit) as info:
        load_script(script).parse_args([arg.replace("OUT", str(tmp_path)) for arg in argv])
    assert info.value.code == 2 and message in capsys.readouterr().err


def test_labelling_stops_when_the_players_repeat_the_same_games(monkeypatch):
    module = load_script("label_connectfour")
    monkeypatch.setattr(module, "MAX_STALLED_GAMES", 5)
    # The raw network is deterministic: without noise every game is the first one again.
    with pytest.raises(ValueError, match="5 games in a row gave no new position.*raise --noise"):
        module.sample_positions(["alphazero:0"], 10, 0.0, 0, set(), lambda message: None)
