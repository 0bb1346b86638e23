"""scripts/plot_training_curves.py: reads runs' curves from their training states' headers only."""

import json
import subprocess
import sys
from dataclasses import asdict
from pathlib import Path

import numpy as np

from agents.alphazero.checkpoint import TRAIN_FORMAT, TRAIN_VERSION, CurvePoint, read_curve
from agents.persistence import save_npz

ROOT = Path(__file__).resolve().parents[2]


def _state(path, points, other=None):
    curve = [
        asdict(
            CurvePoint(
                *(i, 60.0 * i, 10 * i, 100 * i, 1.0, 0.5),
                outcome_kept=k,
                outcome_kept_critical=c,
                outcome_kept_other=other or {},
            )
        )
        for i, (k, c) in enumerate(points, 1)
    ]
    # A replay array the reader must not need: the curve is its own array, its JSON's bytes.
    stored = np.frombuffer(json.dumps(curve).encode(), np.uint8)
    save_npz(
        path,
        {"replay.values": np.zeros(10, np.float32), "curve": stored},
        format=TRAIN_FORMAT,
        version=TRAIN_VERSION,
        meta={},
    )


def test_curves_of_two_runs_become_points_and_a_figure(tmp_path):
    _state(tmp_path / "a.train.npz", [(0.8, 0.6), (0.9, 0.75)])
    _state(tmp_path / "b.train.npz", [(0.85, 0.7)], other={"random": [0.75, 0.5]})
    assert [p.outcome_kept for p in read_curve(tmp_path / "a.npz")] == [0.8, 0.9]
    out = tmp_path / "curves.png"
    done = subprocess.run(
        [
            sys.executable,
            str(ROOT / "scripts" / "plot_training_curves.py"),
            str(tmp_path / "a.npz"),
            str(tmp_path / "b.train.npz"),
            "--names",
            "A",
            "B",
            "--out",
            str(out),
            "--json",
        ],
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stderr
    runs = json.loads(done.stdout.splitlines()[-1])["runs"]
    assert runs["A"]["outcome kept"] == [[1.0, 80.0], [2.0, 90.0]]
    assert runs["B"]["outcome kept (critical)"] == [[1.0, 70.0]]
    assert runs["B"]["outcome kept, random set"] == [[1.0, 75.0]] and "outcome kept, random set" not in runs["A"]
    assert out.read_bytes()[:4] == b"\x89PNG"


def test_a_file_that_is_not_a_training_state_is_one_line(tmp_path):
    bad = tmp_path / "x.train.npz"
    bad.write_bytes(b"junk")
    done = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "plot_training_curves.py"), str(bad), "--json"],
        capture_output=True,
        text=True,
    )
    assert done.returncode == 2 and "error:" in done.stderr and "Traceback" not in done.stderr
