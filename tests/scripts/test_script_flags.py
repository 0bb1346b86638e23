"""Every script's command line: no abbreviated options, every default in --help, no output replaced by surprise.

The parsers are taken from the scripts themselves: ``ArgumentParser.parse_args`` is replaced by a stub that
hands back the parser, and the script's ``main([])`` is called, so each script is checked as it runs. Every
script in scripts/ is in the list, and none builds its parser without ``plumbing.cli.make_parser``.
"""

import argparse
import importlib.util
import re
import subprocess
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))  # importlib import mode: put the sibling helper on the path
from script_helpers import load_script  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
SCRIPTS = (
    "train_tictactoe_td",
    "train_dots_boxes_q",
    "train_blackjack_mc",
    "train_gridworld_dp",
    "train_sb3",
    "train_rllib",
    "demo_tictactoe",
    "solve",
    "play",
    "bench_alphazero",
    "bench_revisions",
    "train_alphazero",
    "eval_alphazero",
    "eval_perfect_play",
    "label_connectfour",
    "bench",
    "arena",
    "ladder",
    "plot_training_curves",
    "reward_thresholds",
)
HAS_TORCH = importlib.util.find_spec("torch") is not None


class Captured(Exception):
    def __init__(self, parser):
        super().__init__()
        self.parser = parser


def script_parser(name, monkeypatch):
    """The ArgumentParser the script builds, taken at its parse_args call."""

    def capture(self, args=None, namespace=None):
        raise Captured(self)

    module = load_script(name, "flags")
    monkeypatch.setattr(argparse.ArgumentParser, "parse_args", capture)
    with pytest.raises(Captured) as info:
        module.main([])
    return info.value.parser


def has_default(action):
    """Whether --help owes the reader this option's default: an option taking a value, with a default."""
    default = action.default
    if default is None or default is argparse.SUPPRESS or action.nargs == 0:
        return False
    return not (isinstance(default, (list, tuple)) and not default)


def help_entry(parser, action):
    """The option's entry in --help, as the parser's own formatter writes it."""
    formatter = parser.formatter_class(prog=parser.prog)
    formatter.add_argument(action)
    return " ".join(formatter.format_help().split())


def run(script, *args, cwd=ROOT):
    return subprocess.run(
        [sys.executable, str(ROOT / "scripts" / script), *args], capture_output=True, text=True, cwd=cwd, timeout=300
    )


def test_every_script_is_checked_and_builds_its_parser_with_make_parser():
    scripts = sorted(path.stem for path in (ROOT / "scripts").glob("*.py"))
    assert sorted(SCRIPTS) == scripts
    own = [name for name in scripts if "ArgumentParser(" in (ROOT / "scripts" / f"{name}.py").read_text()]
    assert not own, f"{own} build their own ArgumentParser: use plumbing.cli.make_parser"


# ---- abbreviations --------------------------------------------------------------------------------


def _sample(action):
    return str(list(action.choices)[0]) if action.choices else "x"


@pytest.mark.parametrize("name", SCRIPTS)
def test_no_parser_takes_an_abbreviated_option(name, monkeypatch):
    parser = script_parser(name, monkeypatch)
    longs = [option for action in parser._actions for option in action.option_strings if option.startswith("--")]
    positionals = []  # what the parser needs to parse at all: its positionals and required options
    for action in parser._actions:
        if not action.option_strings and action.nargs in (None, 1, "+"):
            positionals.append(_sample(action))
        elif action.required:
            positionals += [action.option_strings[-1], _sample(action)]
    checked = 0
    for action in parser._actions:
        for option in action.option_strings:
            abbreviation = option[:-1]
            # Only a prefix that names this option alone: argparse would take it for the option.
            if not option.startswith("--") or len(abbreviation) < 3 or abbreviation in longs or action.dest == "help":
                continue  # (--hel for --help would print the help and exit)
            if [other for other in longs if other.startswith(abbreviation)] != [option]:
                continue
            value = [] if action.nargs == 0 else [str(list(action.choices)[0]) if action.choices else "1"]
            _, unknown = parser.parse_known_args([*positionals, abbreviation, *value])
            assert abbreviation in unknown, f"{name}: {abbreviation} was taken as {option}"
            checked += 1
    assert checked >= 3


@pytest.mark.slow  # a subprocess run of the script
def test_an_abbreviation_stops_the_td_script_before_it_trains(tmp_path):
    result = run("train_tictactoe_td.py", "--episode", "100", cwd=tmp_path)
    assert result.returncode == 2
    assert result.stderr.strip().splitlines()[-1] == (
        "train_tictactoe_td.py: error: unrecognized arguments: --episode 100"
    )
    assert list(tmp_path.iterdir()) == []  # no td_tictactoe.npz written or replaced


# ---- defaults in --help ---------------------------------------------------------------------------


@pytest.mark.parametrize("name", SCRIPTS)
def test_help_shows_every_default(name, monkeypatch):
    parser = script_parser(name, monkeypatch)
    missing = [
        action.option_strings[-1] if action.option_strings else action.dest
        for action in parser._actions
        if has_default(action) and "default" not in help_entry(parser, action).lower()
    ]
    assert not missing, f"{name}: --help shows no default for {missing}"


def test_help_shows_the_default_values_themselves(monkeypatch):
    help_text = " ".join(script_parser("train_blackjack_mc", monkeypatch).format_help().split())
    assert "(default: 10000 500000)" in help_text and "(default: 500000)" in help_text
    help_text = " ".join(script_parser("train_tictactoe_td", monkeypatch).format_help().split())
    assert "(default: 100000)" in help_text and "(default: td_tictactoe.npz;" in help_text


def test_play_help_lists_alphazero_among_the_opponents(monkeypatch):
    entry = next(
        help_entry(parser, action)
        for parser in [script_parser("play", monkeypatch)]
        for action in parser._actions
        if "--opponent" in action.option_strings
    )
    for name in ("alphazero", "alphabeta", "mcts", "td:FILE", "exact"):
        assert name in entry


@pytest.mark.parametrize(
    ("game", "options", "said", "default"),
    [
        ("dotsandboxes", {}, "exact on dotsandboxes 3x3", "exact"),
        ("tictactoe", {}, "alphabeta on boards of at most 9 cells or 12 edges", "alphabeta"),
        ("connectn", {"rows": 3, "cols": 3, "n": 3}, "alphabeta on boards of at most 9 cells", "alphabeta"),
        ("dotsandboxes", {"rows": 2, "cols": 2}, "12 edges (tictactoe, connectn 3x3, dotsandboxes 2x2", "alphabeta"),
        ("dotsandboxes", {"rows": 1, "cols": 3}, "dotsandboxes 2x2 and 1x3)", "alphabeta"),
        ("connectfour", {}, "alphazero on the 6x7 Connect Four board", "alphazero"),
        ("connectn", {}, "alphazero on the 6x7 Connect Four board", "alphazero"),  # connectn's default board is it
        ("connectn", {"rows": 5, "cols": 5}, "mcts on every other board", "mcts"),
        ("connectn", {"rows": 2, "cols": 5, "n": 2}, "mcts on every other board", "mcts"),  # 10 cells
        ("dotsandboxes", {"rows": 2, "cols": 3}, "mcts on every other board", "mcts"),  # 17 edges
        ("dotsandboxes", {"rows": 4, "cols": 4}, "mcts on every other board", "mcts"),
    ],
)
def test_play_help_names_the_default_opponent_of_every_board(game, options, said, default, monkeypatch):
    from agents.factory import default_opponent
    from gym_boardgames.rules.registry import make_game

    (entry,) = [
        help_entry(parser, action)
        for parser in [script_parser("play", monkeypatch)]
        for action in parser._actions
        if "--opponent" in action.option_strings
    ]
    assert said in entry and "elsewhere" not in entry
    assert default_opponent(make_game(game, **options)) == default


# ---- no output replaced without --overwrite -------------------------------------------------------

# (script, arguments with OUT for the folder, the file that exists, the flag named in the refusal)
OUTPUTS = [
    ("train_tictactoe_td", ["--out", "OUT/td.npz"], "td.npz", "--out"),
    ("train_tictactoe_td", ["--out", "OUT/new.npz", "--plot", "OUT/curve.png"], "curve.png", "--plot"),
    ("train_sb3", ["--out", "OUT/model.zip"], "model.zip", "--out"),
    ("train_dots_boxes_q", ["--out", "OUT/study.md"], "study.md", "--out"),
    ("train_dots_boxes_q", ["--rows", "2", "--cols", "2", "--save-dir", "OUT"], "dots_2x2_table.npz", "--save-dir"),
    ("train_dots_boxes_q", ["--experiments", "lr", "--lrs", "0.5", "--save-dir", "OUT"], "q_lr_0.5.npz", "--save-dir"),
    ("train_blackjack_mc", ["--out", "OUT"], "summary.json", "--out"),
    ("train_gridworld_dp", ["--out", "OUT/gridworld.png"], "gridworld.png", "--out"),
    ("train_alphazero", ["--out", "OUT/model.npz"], "model.npz", "--out"),
    ("train_alphazero", ["--out", "OUT/model.npz"], "model.train.npz", "--out"),
    ("train_alphazero", ["--out", "OUT/model.npz"], "model_curve.png", "--plot"),  # --plot's default
    ("train_alphazero", ["--out", "OUT/new.npz", "--plot", "OUT/curve.png"], "curve.png", "--plot"),
    ("label_connectfour", ["--out", "OUT/labels.npz"], "labels.npz", "--out"),
    ("eval_perfect_play", ["random", "--out", "OUT/grades.json"], "grades.json", "--out"),
    ("arena", ["--out", "OUT/arena.json"], "arena.json", "--out"),
    ("ladder", ["--plot", "OUT/ladder.png"], "ladder.png", "--plot"),
    ("bench", ["--num-envs", "--memory-envs", "0", "--out", "OUT/bench.json"], "bench.json", "--out"),
    ("plot_training_curves", ["run.npz", "--out", "OUT/curves.png"], "curves.png", "--out"),
]


@pytest.mark.parametrize(("name", "argv", "existing", "flag"), OUTPUTS)
def test_an_existing_output_is_refused_without_overwrite(name, argv, existing, flag, tmp_path, capsys):
    pytest.importorskip("matplotlib")  # --plot and blackjack's --out check the 'plot' extra first
    if name == "train_alphazero":
        pytest.importorskip("torch", reason="train_alphazero.py checks the alphazero extra before it trains")
    kept = tmp_path / existing
    kept.write_bytes(b"an earlier run's file")
    argv = [arg.replace("OUT", str(tmp_path)) for arg in argv]
    module = load_script(name, "flags")
    with pytest.raises(SystemExit) as info:
        module.parse_args(argv)
    assert info.value.code == 2
    last = capsys.readouterr().err.strip().splitlines()[-1]
    assert last.endswith(f": error: {flag} {kept} exists: pass --overwrite to replace it"), last
    args = module.parse_args([*argv, "--overwrite"])  # accepted with --overwrite
    assert args.overwrite
    assert kept.read_bytes() == b"an earlier run's file"


# ---- no output naming an input or another output --------------------------------------------------

#: Per script, command lines whose output names the script's input or another output of the run (IN: an
#: existing file, a valid GridWorld map; DIR: the test's folder). Each run, were it to start, would take minutes.
SAME_PATH = {
    "train_tictactoe_td": [["--out", "DIR/a.png", "--plot", "DIR/a.png"]],
    "train_dots_boxes_q": [["--out", "DIR/study.md", "--out", "DIR/./study.md"]],
    "train_gridworld_dp": [["--map", "IN", "--out", "IN"]],
    "train_alphazero": [["--out", "DIR/m.png", "--plot", "DIR/m.png"]],
    "eval_perfect_play": [["alphazero:0", "--labels", "IN", "--out", "IN"]],
    "label_connectfour": [["--exclude", "DIR/other.npz", "IN", "--out", "IN"]],
    "plot_training_curves": [["DIR/run.npz", "DIR/curves.png", "--out", "DIR/curves.png"]],
    "bench_alphazero": [["--model", "IN", "--out", "IN"]],
    "ladder": [["--results", "DIR/new.svg", "--plot", "DIR/new.svg"]],
}
#: The scripts with one path option, which nothing can collide with (checked below).
ONE_PATH = {"arena", "bench", "bench_revisions", "demo_tictactoe", "eval_alphazero", "reward_thresholds"}
ONE_PATH |= {"solve", "train_blackjack_mc", "train_rllib", "train_sb3"}
#: The scripts whose path options no run takes together (play.py: --screenshot is the window's, --token-file the
#: page's), with a command line giving both, which is refused in one line before the paths could meet.
APART = {"play": ["--web", "--token-file", "IN", "--screenshot", "IN"]}


def test_every_script_with_two_paths_is_checked_for_one_naming_the_other(monkeypatch):
    assert sorted(SCRIPTS) == sorted({*SAME_PATH, *ONE_PATH, *APART})
    for name in ONE_PATH:
        parser = script_parser(name, monkeypatch)
        actions = [action for action in parser._actions if action.dest in parser.roles]
        assert len(actions) <= 1 and all(action.nargs is None and action.default is None for action in actions), name


@pytest.mark.parametrize(("name", "argv"), APART.items())
def test_path_options_no_run_takes_together_are_refused_together(name, argv, tmp_path, capsys):
    (tmp_path / "in.npz").write_bytes(b"kept")
    with pytest.raises(SystemExit) as info:
        load_script(name, "flags").parse_args([arg.replace("IN", str(tmp_path / "in.npz")) for arg in argv])
    assert info.value.code == 2 and len(capsys.readouterr().err.strip().splitlines()) == 1
    assert (tmp_path / "in.npz").read_bytes() == b"kept"


@pytest.mark.parametrize(("name", "argv"), [(name, argv) for name, lines in SAME_PATH.items() for argv in lines])
def test_an_output_naming_an_input_or_another_output_is_refused_before_any_work(name, argv, tmp_path, capsys):
    pytest.importorskip("matplotlib")  # --plot checks the 'plot' extra first
    if name in ("train_alphazero", "bench_alphazero"):
        pytest.importorskip("torch", reason="the script checks the alphazero extra first")
    for file in ("in.npz", "run.npz", "curves.png", "other.npz"):
        (tmp_path / file).write_bytes(b"S..T\n")  # a file the run must not replace (a GridWorld map, too)
    argv = [arg.replace("IN", str(tmp_path / "in.npz")).replace("DIR", str(tmp_path)) for arg in argv]
    before = sorted(tmp_path.iterdir())
    with pytest.raises(SystemExit) as info:
        # Not even --overwrite allows it (bench_alphazero.py has none: it replaces its --out anyway).
        load_script(name, "flags").parse_args([*argv, *(["--overwrite"] if name != "bench_alphazero" else [])])
    assert info.value.code == 2
    lines = capsys.readouterr().err.strip().splitlines()
    assert len(lines) == 1 and re.search(r" is also (--[a-z-]+|RUNS): ", lines[0]), lines
    assert lines[0].endswith(("writing it would replace the script's own input", "one would replace the other"))
    assert sorted(tmp_path.iterdir()) == before and all(p.read_bytes() == b"S..T\n" for p in before)


@pytest.mark.slow  # a subprocess run of the script
def test_the_refusal_comes_before_any_training(tmp_path):
    out = tmp_path / "td.npz"
    out.write_bytes(b"a good player")
    result = run("train_tictactoe_td.py", "--out", str(out))  # the default budget: minutes, were it to start
    assert result.returncode == 2 and result.stdout == ""
    assert result.stderr.strip().splitlines()[-1] == (
        f"train_tictactoe_td.py: error: --out {out} exists: pass --overwrite to replace it"
    )
    assert out.read_bytes() == b"a good player"


@pytest.mark.parametrize(
    ("name", "argv", "default"),
    [
        ("train_tictactoe_td", [], "td_tictactoe.npz"),
        ("train_sb3", ["--algo", "dqn"], "sb3_tictactoe_dqn.zip"),
        pytest.param(
            "train_alphazero",
            [],
            "alphazero_tictactoe.npz",
            marks=pytest.mark.skipif(not HAS_TORCH, reason="the alphazero extra (PyTorch) is needed to train"),
        ),
    ],
)
def test_the_default_output_is_refused_when_it_exists_as_a_given_one(
    name, argv, default, tmp_path, monkeypatch, capsys
):
    monkeypatch.chdir(tmp_path)
    module = load_script(name, "flags")
    assert module.parse_args(argv).out == default
    (tmp_path / default).write_bytes(b"first")
    with pytest.raises(SystemExit) as info:
        module.parse_args(argv)
    assert info.value.code == 2
    assert (
        capsys.readouterr()
        .err.strip()
        .splitlines()[-1]
        .endswith(f": error: --out {default} exists: pass --overwrite to replace it")
    )
    assert module.parse_args([*argv, "--overwrite"]).out == default
    assert (tmp_path / default).read_bytes() == b"first"


@pytest.mark.slow  # a subprocess run of the script
def test_running_the_readme_command_twice_keeps_the_first_player(tmp_path):
    tiny = ["--episodes", "300", "--eval-games", "2", "--alphabeta-games", "1", "--no-progress"]
    first = run("train_tictactoe_td.py", *tiny, cwd=tmp_path)
    assert first.returncode == 0, first.stderr
    saved = (tmp_path / "td_tictactoe.npz").read_bytes()
    second = run("train_tictactoe_td.py", *tiny, "--seed", "1", cwd=tmp_path)
    assert second.returncode == 2 and second.stdout == ""
    assert second.stderr.strip().splitlines() == [
        "train_tictactoe_td.py: error: --out td_tictactoe.npz exists: pass --overwrite to replace it"
    ]
    assert (tmp_path / "td_tictactoe.npz").read_bytes() == saved
    third = run("train_tictactoe_td.py", *tiny, "--seed", "1", "--out", "td_seed1.npz", cwd=tmp_path)
    assert third.returncode == 0 and "saved to td_seed1.npz" in third.stdout, third.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["td_seed1.npz", "td_tictactoe.npz"]
