"""bench.py --resets times a seeded reset against a named opponent and reports it as JSON.

The script runs end to end with no timing asserted; the arithmetic of its report (the mean of each run, the median
of the repeats, the ratios of the medians, new seeds each run) is checked on a fake clock.
"""

import json
import subprocess
import sys
import time
from pathlib import Path
from types import SimpleNamespace

import gymnasium

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "scripts"))  # bench.py's peers package, found as bench.py finds it

from peers.resets import reset_timings  # noqa: E402

# What the fake clock's resets give (see the last test): medians 31, 10 and 5 us.
RESULT = {
    "env": "ConnectFour-v0",
    "opponent": "alphazero:0",
    "resets_per_run": 4,
    "repeats": 3,
    "seeded_reset_us": 31.0,
    "unseeded_reset_us": 10.0,
    "selfplay_seeded_reset_us": 5.0,
    "seeded_over_unseeded": 3.1,
    "seeded_over_selfplay_seeded": 6.2,
}


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
    assert set(summary) == set(RESULT)  # its arithmetic: the fake clock's test below


def test_each_reset_is_timed_as_the_median_over_repeats_of_a_runs_mean_with_new_seeds(monkeypatch):
    # Microseconds a reset costs in repeat 0, 1 and 2: the seeded ones' third run is an outlier that a mean of
    # the runs (50.33) would show and their median (31) does not.
    costs = {"seeded": [30, 31, 90], "unseeded": [10, 10, 10], "selfplay_seeded": [5, 2, 5]}
    resets, warmup = 4, 4  # the warm-up resets min(resets, 100) times each, untimed
    clock, made = [0.0], []

    class FakeEnv:
        def __init__(self, opponent):
            self.opponent, self.seeds = opponent, []

        def reset(self, seed=None):
            kind = "selfplay_seeded" if self.opponent is None else "seeded" if seed is not None else "unseeded"
            timed = [s for s in self.seeds if (s is None) == (seed is None)]  # this workload's resets so far
            self.seeds.append(seed)
            if len(timed) >= warmup:
                clock[0] += costs[kind][(len(timed) - warmup) // resets] * 1e-6

    def make(env_id, opponent):
        made.append((env_id, FakeEnv(opponent)))
        return SimpleNamespace(unwrapped=made[-1][1])

    monkeypatch.setattr(gymnasium, "make", make)
    monkeypatch.setattr(time, "perf_counter", lambda: clock[0])
    assert reset_timings(3, resets) == RESULT
    assert [(env_id, env.opponent) for env_id, env in made] == [
        ("ConnectFour-v0", "alphazero:0"),
        ("ConnectFour-v0", None),
    ]
    named, selfplay = (env for _, env in made)
    seeded = [seed for seed in named.seeds if seed is not None]
    assert seeded == selfplay.seeds == list(range(warmup)) + list(range(3 * resets))  # new seeds in each run
    assert named.seeds.count(None) == warmup + 3 * resets
