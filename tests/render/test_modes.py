"""render() and close() of every env: ansi before reset, no render mode, and a headless human window."""

import gymnasium as gym
import pytest

import gym_boardgames  # noqa: F401


def test_ansi_before_reset_says_to_reset():
    env = gym.make("TicTacToe-v0", render_mode="ansi").unwrapped
    assert "reset()" in env.render()


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
