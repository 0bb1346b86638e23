"""bench.py --resets times a seeded reset against a named opponent and reports it as JSON (no timing asserted)."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def test_the_resets_section_reports_the_three_resets_and_their_ratios(tmp_path):
    out = tmp_path / "resets.json"
    result = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "bench.py"), "--resets", "--quick", "--repeats", "1", "--json",
         "--out", str(out)],
        capture_output=True, text=True, cwd=ROOT,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    summary = json.loads(result.stdout.splitlines()[-1])
    assert json.loads(out.read_text()) == summary
    assert (summary["env"], summary["opponent"], summary["resets_per_run"]) == ("ConnectFour-v0", "alphazero:0", 200)
    seeded, unseeded, floor = (summary[f"{name}_reset_us"] for name in ("seeded", "unseeded", "selfplay_seeded"))
    assert min(seeded, unseeded, floor) > 0
    assert summary["seeded_over_unseeded"] == pytest.approx(seeded / unseeded, rel=0.02)
    assert summary["seeded_over_selfplay_seeded"] == pytest.approx(seeded / floor, rel=0.02)
