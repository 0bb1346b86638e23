"""scripts/train_blackjack_mc.py runs end to end on a tiny budget, writes its figures and a JSON summary last."""

import importlib.util
import json
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))  # importlib import mode: put the sibling helper on the path
import script_helpers  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
#: --out writes the figures, which need the 'plot' extra; without it the run is checked without --out.
HAS_PLOT = importlib.util.find_spec("matplotlib") is not None


def run(*args):
    return script_helpers.run_script("train_blackjack_mc", *args)


@pytest.fixture(scope="module")
def smoke(tmp_path_factory):
    out = tmp_path_factory.mktemp("blackjack") if HAS_PLOT else None
    result = run(
        "--episodes", "1500", "--curve-episodes", "300", "--es-episodes", "2000", "--es-every", "500",
        "--seed", "1", *(["--out", str(out)] if out else []), "--json", "--no-progress",
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    return out, result.stdout, json.loads(result.stdout.splitlines()[-1])


@pytest.mark.slow
def test_the_summary_is_the_last_line_and_holds_the_exact_optimum(smoke):
    _, _, summary = smoke
    assert round(summary["optimal_return_from_deal"], 6) == -0.043113
    assert round(summary["stick_on_20_return_from_deal"], 4) == -0.3501
    assert summary["figure_5_1_episodes"] == [1500]


@pytest.mark.slow
def test_every_budget_has_an_error_for_both_visit_rules_and_they_coincide_on_blackjack(smoke):
    _, _, summary = smoke
    assert set(summary["rms_error"]["first_visit"]) == {"300", "1500"}
    assert summary["rms_error"]["first_visit"] == summary["rms_error"]["every_visit"]
    assert summary["first_every_identical"] is True
    curve = summary["error_curve"]
    assert curve["episodes"] == [300, 1500] and curve["first_visit"][1] < curve["first_visit"][0]


@pytest.mark.slow
def test_timing_and_exploring_starts_are_reported(smoke):
    _, _, summary = smoke
    timing = summary["timing"]
    assert timing["episodes"] == 1500 and timing["ratio"] > 0
    assert timing["tabular_mc_cpu_s"] >= 0 and timing["bare_blackjack_v1_cpu_s"] > 0
    es = summary["es"]
    assert es["episodes"] == 2000 and es["evaluations"] == 4
    assert es["gap_to_optimum"] == pytest.approx(summary["optimal_return_from_deal"] - es["expected_return"])
    assert 0 <= es["gap_to_optimum"] < 0.3


@pytest.mark.slow
@pytest.mark.skipif(not HAS_PLOT, reason="the figures need the 'plot' extra (matplotlib): pip install -e '.[plot]'")
def test_the_figures_and_the_full_summary_are_written(smoke):
    out, stdout, summary = smoke
    for name in ("figure_5_1.png", "figure_5_2.png", "error_vs_episodes.png"):
        assert (out / name).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    written = json.loads((out / "summary.json").read_text())
    assert len(written["es_curve"]) == 4 and written["rms_error"] == summary["rms_error"]
    assert "RMS error" in stdout


def load_script():
    return script_helpers.load_script("train_blackjack_mc", "test")


def test_the_run_is_reproducible_from_its_seed(capsys):
    script = load_script()
    args = ["--episodes", "300", "--curve-episodes", "--es-episodes", "300", "--no-timing", "--no-progress"]
    one, two = script.main(args), script.main(args)
    for summary in (one, two):
        del summary["timing"], summary["es"]["seconds"]
    assert one == two
    assert one != script.main([*args, "--seed", "1"]) | {"timing": None}


@pytest.mark.parametrize("args", [["--episodes", "0"], ["--es-every", "0"], ["--es-episodes", "-5"]])
def test_bad_budgets_are_refused_with_a_usage_error(args, capsys):
    with pytest.raises(SystemExit) as exit_info:
        load_script().parse_args(args)
    assert exit_info.value.code == 2 and "must be" in capsys.readouterr().err


def test_help_describes_the_figures(capsys):
    with pytest.raises(SystemExit) as exit_info:
        load_script().parse_args(["--help"])
    help_text = capsys.readouterr().out
    assert exit_info.value.code == 0 and "Figure 5.1" in help_text and "--es-episodes" in help_text
