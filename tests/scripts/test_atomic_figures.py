"""Figures and screenshots are written atomically: a save that fails or is killed leaves the earlier file whole.

Every script's figure goes through ``plumbing.figures.save_figure`` (rendered in memory, then a temporary
file in the same folder and a rename), and the play window's ``--screenshot`` through the same atomic write.
"""

import os
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))  # importlib import mode: put the sibling helper on the path
from script_helpers import load_script  # noqa: E402  (it puts scripts/, where plumbing is, on the path)

# isort: split
from plumbing.figures import pyplot  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
OLD = b"the figure of an earlier run"


def td_curve(path):
    module = load_script("train_tictactoe_td", "atomic")
    curve = [{"episodes": n, "win": 0.5, "draw": 0.2, "loss": 0.3, "optimal_share": 0.7, "met_optimal_share": 0.8}
             for n in (100, 200)]  # fmt: skip
    module.plot_curve(pyplot(), curve, str(path), "TD")


def blackjack_errors(path):
    module = load_script("train_blackjack_mc", "atomic")
    curve = {"episodes": [100, 1000], "first_visit": [0.3, 0.1], "every_visit": [0.3, 0.1], "slope": -0.48}
    module.error_figure(pyplot(), curve, {"curve": [(100, -0.1), (200, -0.05)]}, -0.043, str(path))


def alphazero_curve(path):
    from agents.alphazero.checkpoint import CurvePoint

    module = load_script("train_alphazero", "atomic")
    module.plot_curve([CurvePoint(1, 10.0, 4, 30, 2.2, 0.9, 0.6, {"random": 1.0})], str(path), "AlphaZero")


def training_curves(path):
    load_script("plot_training_curves", "atomic").plot({"A": {"outcome kept": [[1.0, 80.0], [2.0, 90.0]]}}, str(path))


def dots_study(path):
    load_script("train_dots_boxes_q", "atomic").write_png(str(path), {})


FIGURES = [td_curve, blackjack_errors, alphazero_curve, training_curves, dots_study]
pytestmark = pytest.mark.filterwarnings("ignore:No artists with labels")  # the dots figure of an empty study


@pytest.mark.parametrize("draw", FIGURES, ids=lambda draw: draw.__name__)
def test_a_figure_whose_save_fails_leaves_the_earlier_file_whole(draw, tmp_path, monkeypatch):
    pytest.importorskip("matplotlib")
    from matplotlib.figure import Figure

    def half_then_fail(self, fname, **kwargs):
        if isinstance(fname, (str, os.PathLike)):  # a save straight to the path (as the scripts once did)
            Path(fname).write_bytes(b"\x89PNG half a figure")
        else:
            fname.write(b"\x89PNG half a figure")  # what a save cut short has written so far
        raise OSError(28, "No space left on device")

    target = tmp_path / "figure.png"
    target.write_bytes(OLD)
    monkeypatch.setattr(Figure, "savefig", half_then_fail)
    with pytest.raises(OSError, match="No space left"):
        draw(target)
    assert target.read_bytes() == OLD
    assert os.listdir(tmp_path) == ["figure.png"]  # no temporary file left


@pytest.mark.parametrize("draw", FIGURES, ids=lambda draw: draw.__name__)
def test_each_figure_is_written_whole_in_the_format_of_its_name(draw, tmp_path):
    pytest.importorskip("matplotlib")
    target = tmp_path / "figure.png"
    target.write_bytes(OLD)
    draw(target)
    assert target.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert os.listdir(tmp_path) == ["figure.png"]


def test_a_screenshot_whose_save_fails_leaves_the_earlier_file_whole(tmp_path, monkeypatch):
    pygame = pytest.importorskip("pygame")
    from gym_boardgames.envs import TicTacToeEnv
    from gym_boardgames.human.window import PlayApp

    shot = tmp_path / "shot.png"
    shot.write_bytes(OLD)
    app = PlayApp(TicTacToeEnv(opponent=None), lambda game, state: 0, side=0, screenshot=str(shot))
    real_save = pygame.image.save

    def half_then_fail(surface, file, namehint=""):
        if isinstance(file, (str, os.PathLike)):
            Path(file).write_bytes(b"\x89PNG half a screenshot")
        else:
            file.write(b"\x89PNG half a screenshot")
        raise pygame.error("disk full")

    monkeypatch.setattr(pygame.image, "save", half_then_fail)
    with pytest.raises(pygame.error, match="disk full"):
        app.close()
    assert shot.read_bytes() == OLD and os.listdir(tmp_path) == ["shot.png"]
    monkeypatch.setattr(pygame.image, "save", real_save)
    app = PlayApp(TicTacToeEnv(opponent=None), lambda game, state: 0, side=0, screenshot=str(shot))
    app.close()
    assert pygame.image.load(str(shot)).get_size() == (app.view.size[0], app.view.size[1] + 26)
    assert os.listdir(tmp_path) == ["shot.png"]
