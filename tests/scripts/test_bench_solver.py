"""bench.py --solver: the exact solver timed beside BitBully by ply band, every position's scores compared.

No timing is asserted. The summary must count every disagreement (with the label file, with BitBully, between
the pure-Python and the compiled path), divide the right medians, and say "not installed" without BitBully.
"""

from __future__ import annotations

import importlib.util
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
NO_MOVE = -128


@pytest.fixture(scope="module")
def bench():
    return load_script("bench")


@pytest.fixture(scope="module")
def solver(bench):
    """The section's module, scripts/peers/solver.py (loading bench.py put its folder on the path)."""
    import peers.solver

    return peers.solver


def position(band, ours_ms, bitbully_ms=None, python_ms=None, wrong=()):
    """A timed position whose scores agree everywhere except in the sources named in ``wrong``."""
    scores = [1, 0, -1, NO_MOVE, 2, 0, -3]
    entry = {"band": band, "moves": [3] * len(band), "labels": list(scores), "ours": list(scores), "ours_ms": ours_ms}
    for name, ms in (("bitbully", bitbully_ms), ("python", python_ms)):
        if ms is not None:
            entry[name], entry[f"{name}_ms"] = list(scores), ms
    for name in wrong:
        entry[name] = [s + 1 if s != NO_MOVE else s for s in scores]
    return entry


def test_summary_counts_every_disagreement_and_divides_the_medians(solver):
    positions = [
        position("0-5", 10.0, 5.0, wrong=("bitbully",)),
        position("0-5", 30.0, 10.0),
        position("0-5", 2_500.0, 20.0, wrong=("labels",)),
        position("24+", 1.0, 2.0, python_ms=50.0, wrong=("python",)),
        position("24+", 3.0, 2.0, python_ms=70.0),
    ]
    summary = solver.summarise_solver(positions)
    assert summary["disagreements"] == {"ours_vs_labels": 1, "ours_vs_bitbully": 1, "python_vs_compiled": 1}
    assert summary["over_2s"] == {"ours": 1, "bitbully": 0}
    opening = summary["bands"]["0-5"]
    assert opening["ours"] == {"positions": 3, "median_ms": 30.0, "max_ms": 2_500.0}
    assert opening["bitbully"] == {"positions": 3, "median_ms": 10.0, "max_ms": 20.0}
    assert (opening["ours_over_bitbully_median"], opening["ours_over_bitbully_max"]) == (3.0, 125.0)
    assert opening["python"] == {"positions": 0}
    late = summary["bands"]["24+"]
    assert late["python"]["median_ms"] == 60.0 and late["python"]["over_compiled_median"] == 30.0
    assert summary["bands"]["12-17"] == {"positions": 0, "ours": {"positions": 0}, "python": {"positions": 0}}
    assert summary["overall"]["ours"]["median_ms"] == 10.0 and summary["overall"]["bitbully"]["median_ms"] == 5.0
    assert summary["overall"]["ours_over_bitbully_median"] == 2.0
    assert [p["ours_ms"] for p in summary["slowest"]] == [2_500.0, 30.0, 10.0]


def test_summary_without_bitbully_has_no_ratio_and_no_bitbully_count(solver):
    summary = solver.summarise_solver([position("6-11", 1.0), position("6-11", 2.0)])
    assert summary["disagreements"]["ours_vs_bitbully"] is None
    assert "bitbully" not in summary["bands"]["6-11"] and "ours_over_bitbully_median" not in summary["overall"]


BANDS = [(0, "0-5"), (5, "0-5"), (6, "6-11"), (17, "12-17"), (23, "18-23"), (41, "24+")]


@pytest.mark.parametrize(("ply", "band"), BANDS)
def test_plies_fall_in_their_band(solver, ply, band):
    assert solver.band_of(ply) == band


def test_the_pure_python_sample_takes_cheap_positions_of_every_band_late_bands_first(solver):
    positions = [{"band": band, "ours_nodes": nodes} for band in ("6-11", "12-17", "24+") for nodes in (10, 10**6, 20)]
    order = solver._python_order(positions, per_band=2, seed=0)
    bands = [positions[i]["band"] for i in order]
    assert bands == ["24+", "12-17", "6-11", "24+", "12-17", "6-11"]  # late bands first, one of each in turn
    assert all(positions[i]["ours_nodes"] <= solver.PYTHON_MAX_NODES for i in order)


def test_the_section_counts_the_disagreements_of_its_own_runs(bench, solver, monkeypatch):
    """The section itself, with a BitBully and a pure-Python child that each get one position wrong."""
    pytest.importorskip("numba", reason="the solver extra: the compiled path")

    def bitbully(state):
        scores = fake_scores(state)
        return scores if sum(state.board) else {column: score + 1 for column, score in scores.items()}

    def fake_scores(state):
        from agents.matches.perfect_play import connect_four
        from agents.search.connect_four import score_moves

        return score_moves(connect_four(), state)

    def child(mode, moves, env, budget_s=0.0):
        if mode == "start":
            return {"compiled": True, "import_s": 0.1, "solver_s": 0.1, "first_call_s": 0.1}
        assert env == {"NUMBA_DISABLE_JIT": "1"}
        rows = [solver._as_row(fake_scores(solver._state(m))) for m in moves]
        rows[0] = [s - 1 if s != NO_MOVE else s for s in rows[0]]
        return {"compiled": False, "positions": [{"ms": 1.0, "scores": row} for row in rows]}

    monkeypatch.setattr(solver, "_bitbully", lambda: (bitbully, "fake"))
    monkeypatch.setattr(solver, "_run_child", child)
    args = bench.parse_args(["--solver", "--solver-positions", "12", "--solver-python", "1", "--num-envs"])
    real_positions = solver.solver_positions
    empty_board = {"set": "test", "moves": [], "ply": 0, "labels": [-2, -1, 0, 1, 0, -1, -2]}
    monkeypatch.setattr(solver, "solver_positions", lambda *a: [empty_board, *real_positions(*a)])
    summary = solver.solver_timings(args)
    assert summary["positions"] == 13 and sum(b["positions"] for b in summary["bands"].values()) == 13
    assert summary["disagreements"] == {"ours_vs_labels": 0, "ours_vs_bitbully": 1, "python_vs_compiled": 1}
    assert summary["bitbully"] == "fake" and summary["overall"]["bitbully"]["positions"] == 13
    assert summary["python_path"]["jit_disabled"] is True


@pytest.mark.slow
def test_the_command_line_section_without_bitbully(tmp_path):
    """A tiny run in a fresh interpreter, BitBully hidden: the compile, the cached start, the pure-Python path."""
    hidden = tmp_path / "hide"
    hidden.mkdir()
    (hidden / "bitbully.py").write_text("raise ImportError('hidden by the test')\n")
    out = tmp_path / "solver.json"
    path = os.pathsep.join([str(hidden), str(ROOT)])  # this checkout's package, not an installed one
    result = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "bench.py"), "--solver", "--solver-positions", "6",
         "--solver-python", "1", "--solver-python-budget", "5", "--num-envs", "--json", "--out", str(out)],
        capture_output=True, text=True, cwd=ROOT, env={**os.environ, "PYTHONPATH": path},
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    summary = json.loads(result.stdout.splitlines()[-1])
    assert json.loads(out.read_text()) == summary
    assert summary["bitbully"] == "not installed" and summary["disagreements"]["ours_vs_bitbully"] is None
    assert summary["positions"] == 6 and summary["disagreements"]["ours_vs_labels"] == 0
    assert summary["disagreements"]["python_vs_compiled"] == 0 and summary["python_path"]["jit_disabled"] is True
    assert summary["overall"]["python"]["positions"] >= 1
    assert set(summary["start"]) == {"compile", "cached"}
    assert all(entry["first_call_s"] > 0 for entry in summary["start"].values())
    assert summary["load_average_start"] and summary["load_average_end"]


# ---- --solver --testsets DIR: Pons' sets (synthetic files here: his are fetched data, not the project's) ----------

#: A position whose score is known by hand: the first player has three in the bottom row and wins with its 4th
#: stone, 22 - 4 = 18.
THREE_IN_A_ROW = "112233 18"


def synthetic_lines(count, plies, seed):
    """``count`` lines ``MOVES SCORE`` of seeded random games of ``plies`` moves, scored by our solver."""
    from agents.matches.perfect_play import connect_four
    from agents.search.connect_four import score_moves

    game, rng, lines = connect_four(), np.random.default_rng(seed), []
    while len(lines) < count:
        state, moves = game.initial_state(), []
        while len(moves) < plies and not game.is_terminal(state):
            column = int(rng.choice(game.legal_actions(state)))
            state, moves = game.apply(state, column), [*moves, column]
        if not game.is_terminal(state):
            best = max(score_moves(game, state).values())
            lines.append("".join(str(c + 1) for c in moves) + f" {best}")
    return lines


@pytest.fixture(scope="module")
def testsets(tmp_path_factory):
    """A folder with two of the six files (End-Easy, Middle-Easy) and a third the runs leave out (Begin-Easy)."""
    pytest.importorskip("numba", reason="the solver extra: --testsets refuses to time the pure-Python path")
    folder = tmp_path_factory.mktemp("testsets")
    (folder / "Test_L3_R1").write_text("\n".join([THREE_IN_A_ROW, *synthetic_lines(3, 32, seed=1)]) + "\n")
    (folder / "Test_L2_R1").write_text("\n".join(synthetic_lines(3, 24, seed=2)) + "\n")
    (folder / "Test_L1_R1").write_text(THREE_IN_A_ROW + "\n")
    return folder


def run_testsets(bench, capsys, *flags):
    """bench.py --solver --testsets ... in this process: (exit status, the JSON summary, the rest of stdout, stderr)."""
    status = 0
    try:
        bench.main(["--solver", *map(str, flags), "--num-envs"])
    except SystemExit as end:
        status = end.code
    out, err = capsys.readouterr()
    lines = out.splitlines()
    return status, json.loads(lines[-1]), lines[:-1], err


def test_the_testsets_mode_times_each_named_set_and_agrees_with_the_files(bench, testsets, capsys):
    from agents.matches.testsets import PONS_MEAN_NODES

    flags = ["--testsets", testsets, "--testset-names", "Middle-Easy", "Test_L3_R1", "--testset-positions", 3]
    status, summary, table, _ = run_testsets(bench, capsys, *flags, "--json")
    assert status == 0 and table == []  # --json: the JSON line alone
    assert [row["name"] for row in summary["sets"]] == ["End-Easy", "Middle-Easy"]  # in Pons' order, not the flag's
    assert [row["path"] for row in summary["sets"]] == [str(testsets / "Test_L3_R1"), str(testsets / "Test_L2_R1")]
    for row in [*summary["sets"], summary["all"]]:
        assert row["disagreements"] == 0 and set(row["disagreements_by"].values()) == {0}
        assert row["ours"]["mean_nodes"] > 0 and row["ours"]["over_1s"] == 0
        assert row["ours"]["max_ms"] >= row["ours"]["median_ms"] > 0 and row["ours"]["mean_ms"] > 0
    assert [row["positions"] for row in summary["sets"]] == [3, 3] and summary["all"]["positions"] == 6
    pons = [PONS_MEAN_NODES["End-Easy"], PONS_MEAN_NODES["Middle-Easy"]]
    assert [row["pons_mean_nodes"] for row in summary["sets"]] == pons  # copied, for the table's comparison
    assert summary["all"]["pons_mean_nodes"] == round(sum(pons) / 2, 2)  # weighted by the positions timed
    assert summary["disagreements"] == 0 and summary["first_disagreements"] == []
    assert summary["command"].startswith("scripts/bench.py --solver --testsets ") and summary["compiled"] is True
    assert len(summary["load_average_start"]) == 3 and len(summary["load_average_end"]) == 3
    if importlib.util.find_spec("bitbully") is not None:
        assert not summary["bitbully"].startswith("not installed")
        for row in [*summary["sets"], summary["all"]]:
            assert set(row["disagreements_by"]) == {"ours_vs_file", "bitbully_vs_file", "ours_vs_bitbully"}
            assert row["bitbully"]["mean_nodes"] > 0 and row["bitbully"]["median_ms"] > 0
            assert row["ours_over_bitbully_median"] > 0 and row["ours_over_bitbully_mean"] > 0


def test_the_testsets_table_has_a_row_per_set_and_an_all_row(bench, testsets, capsys):
    status, summary, table, _ = run_testsets(bench, capsys, "--testsets", testsets, "--testset-positions", 2)
    assert status == 0 and [row["name"] for row in summary["sets"]] == ["End-Easy", "Middle-Easy", "Begin-Easy"]
    assert summary["sets"][-1]["positions"] == 1  # a set shorter than N: all of it
    assert table[0] == f"command: scripts/bench.py --solver --testsets {testsets} --testset-positions 2 --num-envs"
    assert table[1].startswith("load average [")
    header = next(i for i, line in enumerate(table) if line.startswith("set "))
    rows = [line.split()[0] for line in table[header + 1 : header + 5]]
    assert rows == ["End-Easy", "Middle-Easy", "Begin-Easy", "all"]
    bitbully = importlib.util.find_spec("bitbully") is not None
    assert ("BB med" in table[header]) == bitbully and ("ours med" in table[header])


def test_without_bitbully_the_testsets_mode_has_our_columns_only(bench, solver, testsets, capsys, monkeypatch):
    extra = "BitBully's solver needs bitbully, the 'crosscheck' extra: pip install -e \".[crosscheck]\""
    message = f"not installed ({extra})"
    monkeypatch.setattr(solver, "_bitbully_parts", lambda: (None, None, message))
    status, summary, table, _ = run_testsets(bench, capsys, "--testsets", testsets, "--testset-names", "End-Easy")
    assert status == 0 and summary["bitbully"] == message
    assert [line for line in table if "BitBully: not installed" in line and "pip install" in line]
    row = summary["sets"][0]
    assert "bitbully" not in row and "ours_over_bitbully_median" not in row
    assert row["disagreements_by"] == {"ours_vs_file": 0} and row["positions"] == 4
    assert "BB med" not in "\n".join(table)


def test_a_wrong_score_is_counted_shown_and_ends_the_run_with_status_1(bench, testsets, tmp_path, capsys):
    wrong = tmp_path / "wrong"
    wrong.mkdir()
    lines = (testsets / "Test_L3_R1").read_text().splitlines()
    moves, score = lines[2].split()
    lines[2] = f"{moves} {int(score) - 1}"  # one below: one above the top score is refused as out of range
    (wrong / "Test_L3_R1").write_text("\n".join(lines) + "\n")
    status, summary, _, err = run_testsets(bench, capsys, "--testsets", wrong)
    assert status == 1 and err.strip().splitlines()[-1].endswith(": error: 1 position(s) disagree (see above)")
    row = summary["sets"][0]
    assert row["disagreements"] == 1 and row["disagreements_by"]["ours_vs_file"] == 1 and summary["disagreements"] == 1
    if "bitbully" in row:
        assert row["disagreements_by"]["bitbully_vs_file"] == 1 and row["disagreements_by"]["ours_vs_bitbully"] == 0
    [shown] = summary["first_disagreements"]
    assert (shown["set"], shown["line"], shown["moves"], shown["score"]) == ("End-Easy", 3, moves, int(score) - 1)


@pytest.mark.parametrize(
    ("flags", "message"),
    [
        (["--testsets", "@DIR"], "--testsets times the exact solver on Pons' sets: it needs --solver"),
        (["--solver", "--testset-positions", "3"], "--testset-positions needs --testsets DIR"),
        (["--solver", "--testset-names", "End-Easy"], "--testset-names needs --testsets DIR"),
        (["--solver", "--testsets", "@DIR", "--testset-positions", "0"],
         "argument --testset-positions: must be an integer >= 1, got 0"),
        (["--solver", "--testsets", "@DIR", "--testset-names", "Nope"], "--testset-names: unknown test set(s) Nope: "),
        (["--solver", "--testsets", "@DIR/missing"], "--testsets '@DIR/missing' is not a folder"),
        (["--solver", "--testsets", "@DIR", "--testset-names", "Begin-Hard"],
         "--testsets: '@DIR' holds none of Pons' set files (Test_L1_R3)"),
        (["--solver", "--testsets", "@DIR", "--solver-all"],
         "--testsets replaces the label positions: it takes no --solver-all"),
        (["--solver", "--testsets", "@BAD"],
         "--testsets: End-Easy (@BAD/Test_L3_R1), line 2, moves 1111111: move 7 (column 1) is not legal"),
    ],
)  # fmt: skip
def test_the_testsets_refusals_name_their_flag(bench, testsets, tmp_path, capsys, flags, message):
    bad = tmp_path / "bad"
    bad.mkdir()
    (bad / "Test_L3_R1").write_text(f"{THREE_IN_A_ROW}\n1111111 0\n")
    flags = [f.replace("@DIR", str(testsets)).replace("@BAD", str(bad)) for f in flags]
    with pytest.raises(SystemExit) as end:
        bench.parse_args([*flags, "--num-envs"])
    assert end.value.code == 2
    line = capsys.readouterr().err.strip().splitlines()[-1]
    assert message.replace("@DIR", str(testsets)).replace("@BAD", str(bad)) in line, line
