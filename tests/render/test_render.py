"""Rendering: ansi text, rgb_array frames and a headless human window."""

import gymnasium as gym
import numpy as np
import pytest

import gym_boardgames  # noqa: F401
from gym_boardgames.render.connect_view import ConnectView


def test_ansi_shows_pieces_last_move_and_status():
    env = gym.make("TicTacToe-v0", opponent=None, render_mode="ansi")
    env.reset(seed=0)
    assert env.render().splitlines()[-1] == "X to move"
    env.step(4)
    env.step(0)
    text = env.render()
    assert text == ("[O]| . | . \n---+---+---\n . | X | . \n---+---+---\n . | . | . \nX to move\n")


def test_ansi_shows_the_result_of_an_illegal_move():
    env = gym.make("TicTacToe-v0", opponent=None, render_mode="ansi")
    env.reset(seed=0)
    env.step(4)
    env.step(4)
    assert env.render().splitlines()[-1] == "O made an illegal move: X wins"


def test_ansi_before_reset_says_to_reset():
    env = gym.make("TicTacToe-v0", render_mode="ansi").unwrapped
    assert "reset()" in env.render()


def test_rgb_array_is_uint8_hwc_and_changes_after_a_move():
    env = gym.make("TicTacToe-v0", opponent=None, render_mode="rgb_array")
    env.reset(seed=0)
    first = env.render()
    assert first.dtype == np.uint8 and first.ndim == 3 and first.shape[2] == 3
    assert first.shape[0] > first.shape[1]  # a status bar under a square board
    env.step(4)
    second = env.render()
    assert second.shape == first.shape and not np.array_equal(first, second)
    assert not np.shares_memory(first, second)


def test_rgb_array_marks_the_end_with_a_result_bar():
    env = gym.make("TicTacToe-v0", opponent=None, render_mode="rgb_array")
    env.reset(seed=0)
    playing = env.render()
    for move in [0, 3, 1, 4, 2]:
        env.step(move)
    finished = env.render()
    # The bottom rows hold the status bar, drawn dark once the game is over.
    assert finished[-5:].mean() < playing[-5:].mean() - 50


def test_rgb_array_highlights_the_last_move():
    env = gym.make("TicTacToe-v0", opponent=None, render_mode="rgb_array")
    env.reset(seed=0)
    env.step(0)
    env.step(8)
    frame = env.render()
    view = ConnectView(env.unwrapped.game)
    corner = lambda cell: tuple(frame[view.cell_rect(cell).top + 3, view.cell_rect(cell).left + 3])  # noqa: E731
    assert corner(8) != corner(0)  # only the last move (cell 8) has the highlight behind it
    assert corner(0) == corner(5)  # the first move's cell looks like an empty one


def test_human_mode_opens_a_window_headless_and_close_releases_it():
    pygame = pytest.importorskip("pygame")
    env = gym.make("TicTacToe-v0", render_mode="human")
    env.unwrapped.metadata = {**env.unwrapped.metadata, "render_fps": 1000}  # keep the test fast
    env.reset(seed=0)
    canvas = env.unwrapped._canvas
    assert canvas.window_open and pygame.display.get_init()
    assert pygame.display.get_surface().get_size() == canvas.size
    env.step(4)
    env.close()
    assert env.unwrapped._canvas is None and not pygame.display.get_init()
    env.close()  # a second close is harmless


def test_render_without_mode_warns_and_returns_none():
    env = gym.make("TicTacToe-v0").unwrapped
    env.reset(seed=0)
    with pytest.warns(UserWarning, match="render_mode"):
        assert env.render() is None


def test_rendering_survives_another_library_calling_pygame_quit():
    pygame = pytest.importorskip("pygame")
    env = gym.make("TicTacToe-v0", opponent=None, render_mode="rgb_array")
    env.reset(seed=0)
    before = env.render()
    pygame.quit()  # what Gymnasium's toy_text envs do in close(); it invalidates loaded fonts
    env.step(4)
    after = env.render()
    assert after.shape == before.shape and not np.array_equal(before, after)


def test_views_and_text_never_import_the_envs():
    import ast
    from pathlib import Path

    import gym_boardgames.render as render

    for path in Path(render.__file__).parent.glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom):
                names = [node.module or ""]
            elif isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            else:
                continue
            assert not any(name.startswith("gym_boardgames.envs") for name in names), path
