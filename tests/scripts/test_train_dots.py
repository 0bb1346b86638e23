"""train_dots_boxes_q.py runs every experiment end to end on a small budget and reports what it measured."""

import importlib.util
import json
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))  # importlib import mode: put the sibling helper on the path
import script_helpers  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
BOTS = ["random", "first_available", "always4never3", "endgame:10"]
#: An --out .png needs the 'plot' extra; without it the run is checked without the figure.
HAS_PLOT = importlib.util.find_spec("matplotlib") is not None


def run_script(*args, check=True):
    return script_helpers.run_script("train_dots_boxes_q", *args, "--no-progress", check=check)


def load_script():
    return script_helpers.load_script("train_dots_boxes_q", "test")


@pytest.mark.slow
def test_quick_run_reports_every_experiment(tmp_path):
    md, png, js = tmp_path / "r.md", tmp_path / "r.png", tmp_path / "r.json"
    figure = ["--out", str(png)] if HAS_PLOT else []
    result = run_script("--quick", "--rows", "2", "--cols", "2", "--json", "--out", str(md), *figure, "--out", str(js))
    summary = json.loads(result.stdout.splitlines()[-1])
    assert summary == json.loads(js.read_text())
    assert summary["board"] == "2x2" and summary["tie_break"] == "second"
    # The solve: 2x2 is a first-player win by 2, 2x3 a second-player win by 2.
    values = summary["solve"]["values"]
    assert values["2x2"]["first_player_margin"] == 2 and values["2x3"]["first_player_margin"] == -2
    for table in ("table1", "table2"):
        assert list(summary[table]) == BOTS
        for cells in summary[table].values():
            assert list(cells) == BOTS
            assert all(cell["win"] + cell["loss"] + cell["draw"] == 40 for cell in cells.values())
    lr_study = summary["lr_study"]
    assert [run["lr"] for run in lr_study["runs"]] == [1, 0.5, 0.2, 0.1, 0.05]
    assert all(len(run["wins"]) == 2 and all(0 <= w <= 20 for w in run["wins"]) for run in lr_study["runs"])
    # The exact agent never ends below what it could force, and wins every game it could win.
    for record in summary["exact"].values():
        assert record["violations"] == 0 and record["won_when_could_win"] == record["could_win"]
        assert record["win"] + record["loss"] + record["draw"] == 40
    assert "**Table 1**" in md.read_text()
    if HAS_PLOT:
        assert png.read_bytes().startswith(b"\x89PNG")


@pytest.mark.slow
def test_saves_the_table_and_the_agents_in_a_folder_it_creates(tmp_path):
    folder = tmp_path / "new" / "runs"
    run_script("--quick", "--rows", "1", "--cols", "2", "--experiments", "table1", "--save-dir", str(folder))
    from agents.dots import LayeredValueAgent, LayerTable

    assert LayerTable.load(folder / "dots_1x2_table.npz").last_k == 7
    agent = LayeredValueAgent.load(folder / "q_trained_on_random.npz")
    assert agent.games_trained == 200
    # Run again into the folder it made: the files are there now, and are not replaced by surprise.
    again = run_script(
        "--quick", "--rows", "1", "--cols", "2", "--experiments", "table1", "--save-dir", str(folder), check=False
    )
    assert again.returncode == 2 and "exists: pass --overwrite" in again.stderr


def test_a_missing_save_folder_is_accepted_as_its_help_says_and_a_file_is_refused(tmp_path):
    module = load_script()
    missing = tmp_path / "new" / "runs"
    assert module.parse_args(["--quick", "--save-dir", str(missing)]).save_dir == str(missing)
    (tmp_path / "file").write_text("")
    with pytest.raises(SystemExit):
        module.parse_args(["--quick", "--save-dir", str(tmp_path / "file")])


def test_study_numbers_are_shown_beside_ours_on_3x3():
    module = load_script()
    ours = {t: {s: {"win": 1, "loss": 2} for s in BOTS} for t in BOTS}
    text = module.table_markdown("Table 1", ours, module.STUDY_TABLE1)
    assert "| random | [1, 2] / [985, 15] |" in text and "[1, 2] / [9, 991]" not in text
    assert module.table_markdown("Table 2", ours, module.STUDY_TABLE2).endswith("[1, 2] / [9, 991] |")
    assert module.STUDY_LR["0.1"] == [7, 14, 19, 14, 11, 13, 22]


@pytest.mark.parametrize(
    "args, message",
    [
        (["--out", "x.txt"], "use a .md, .png or .json file"),
        (["--lrs", "2"], "argument --lrs: must be a number in [0, 1], got 2.0"),
        (["--train-games", "0"], "argument --train-games: must be an integer >= 1, got 0"),
        (["--rows", "3", "--cols", "4"], "more than the 26"),
    ],
)
def test_bad_options_are_refused_with_a_message(args, message):
    result = run_script("--quick", *args, check=False)
    assert result.returncode != 0 and message in result.stderr
