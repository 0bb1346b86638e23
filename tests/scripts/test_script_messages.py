"""What the scripts print: in order, within 100%, without "None", and how to get a window when there is no screen."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))  # importlib import mode: put the sibling helper on the path
from script_helpers import load_script  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]


class RecordingBar:
    """Stands in for utils.progress_bar: prints when it opens (so its place among the prints shows) and counts."""

    bars = []

    def __init__(self, total, desc, enabled=True):
        self.total, self.desc, self.n = total, desc, 0
        RecordingBar.bars.append(self)
        print(f"[progress bar: {desc}]")

    def update(self, n=1):
        self.n += n

    def close(self):
        pass

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


@pytest.fixture
def bars(monkeypatch):
    RecordingBar.bars = []
    return RecordingBar


def test_td_prints_its_training_line_before_the_evaluation_starts(bars, monkeypatch, capsys, tmp_path):
    module = load_script("train_tictactoe_td")
    monkeypatch.setattr(module, "progress_bar", bars)
    module.main(["--episodes", "200", "--eval-games", "2", "--alphabeta-games", "1", "--out", str(tmp_path / "t.npz")])
    stdout = capsys.readouterr().out
    assert [bar.desc for bar in bars.bars] == ["self-play", "evaluation"]
    training = stdout.index("TD self-play: 200 episodes")
    assert stdout.index("[progress bar: self-play]") < training < stdout.index("[progress bar: evaluation]")


@pytest.mark.slow  # trains a MaskablePPO model (imports torch)
def test_sb3_progress_never_passes_the_asked_steps(bars, monkeypatch, capsys, tmp_path):
    for extra in ("torch", "stable_baselines3", "sb3_contrib"):
        pytest.importorskip(extra)
    module = load_script("train_sb3")
    monkeypatch.setattr(module, "progress_bar", bars)
    summary = module.main(
        ["--timesteps", "100", "--n-envs", "2", "--eval-games", "2", "--alphabeta-games", "1"]
        + ["--out", str(tmp_path / "m.zip")]
    )
    training = next(bar for bar in bars.bars if bar.desc == "training")
    # MaskablePPO collects whole rollouts (256 steps per env), so it runs past 100 steps; the bar stops at 100.
    assert training.total == 100 and training.n == 100
    assert summary["timesteps"] == 100 and summary["timesteps_done"] == 512
    assert "512 steps (--timesteps 100, rounded up to whole rollouts)" in capsys.readouterr().out


def test_blackjack_says_when_exploring_starts_never_came_within_the_target(capsys):
    module = load_script("train_blackjack_mc")
    module.main(["--episodes", "100", "--curve-episodes", "--es-episodes", "200", "--es-every", "100"]
                + ["--no-timing", "--no-progress"])  # fmt: skip
    line = next(line for line in capsys.readouterr().out.splitlines() if line.startswith("MC exploring starts"))
    assert "None" not in line
    assert "not within 0.005 of it at any of the 2 evaluations" in line


@pytest.mark.parametrize(
    ("first", "stays", "words"),
    [
        (None, None, "not within 0.005 of it at any of the 3 evaluations"),
        (10_000, None, "first within 0.005 at 10,000 episodes, but not at the last evaluation"),
        (10_000, 20_000, "first within 0.005 at 10,000 episodes, within from 20,000 on"),
    ],
)
def test_blackjack_within_text_covers_every_case(first, stays, words):
    es = {"first_within_0.005_at": first, "stays_within_0.005_from": stays, "curve": [(1, 0.0)] * 3}
    assert load_script("train_blackjack_mc").within_text(es) == words


# ---- the play window without a screen -------------------------------------------------------------


def headless_env(**extra):
    env = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "WAYLAND_DISPLAY", "SDL_VIDEODRIVER")}
    return {**env, **extra}


@pytest.mark.slow  # a subprocess run of play.py
@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="DISPLAY and WAYLAND_DISPLAY are Linux's")
def test_play_without_a_display_says_how_to_get_a_window(tmp_path):
    # Before, SDL fell back to its offscreen driver and the window ran where nobody could see it.
    result = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "play.py"), "tictactoe", "--max-frames", "3"],
        capture_output=True,
        text=True,
        env=headless_env(),
        timeout=120,
    )
    assert result.returncode == 2 and result.stdout == ""
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1
    assert "neither DISPLAY nor WAYLAND_DISPLAY is set" in lines[0]
    assert "desktop session" in lines[0] and "xvfb-run" in lines[0] and "--screenshot FILE" in lines[0]


@pytest.mark.slow  # a subprocess run of play.py
@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="DISPLAY and WAYLAND_DISPLAY are Linux's")
def test_play_without_a_display_still_saves_a_screenshot(tmp_path):
    shot = tmp_path / "board.png"
    result = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "play.py"), "tictactoe", "--screenshot", str(shot)],
        capture_output=True,
        text=True,
        env=headless_env(),
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


@pytest.mark.parametrize(
    ("environ", "platform", "reason"),
    [
        ({"SDL_VIDEODRIVER": "dummy", "DISPLAY": ":0"}, "linux", "SDL_VIDEODRIVER=dummy"),
        ({"SDL_VIDEODRIVER": "offscreen"}, "darwin", "SDL_VIDEODRIVER=offscreen"),
        ({}, "linux", "neither DISPLAY nor WAYLAND_DISPLAY is set"),
        ({"DISPLAY": ":0"}, "linux", None),
        ({"WAYLAND_DISPLAY": "wayland-0"}, "linux", None),
        ({"SDL_VIDEODRIVER": "kmsdrm"}, "linux", None),  # the user chose a driver that draws on the console
        ({}, "darwin", None),
        ({}, "win32", None),
    ],
)
def test_no_screen_reason(environ, platform, reason):
    from gym_boardgames.human.window import no_screen_reason

    assert no_screen_reason(environ, platform) == reason
