"""render() and close() of every env (render/modes.py): ansi before reset, no render mode, a headless human window."""

import gymnasium as gym
import pytest

import gym_boardgames  # noqa: F401


def test_ansi_before_reset_says_to_reset():
    env = gym.make("TicTacToe-v0", render_mode="ansi").unwrapped
    assert "reset()" in env.render()


# (id, an action that plays in its first position): a board, and the two tabular tasks with their own views.
HUMAN_MODE_ENVS = [("TicTacToe-v0", 4), ("GridWorld-v0", 0), ("TabularBlackjack-v0", 0)]


@pytest.mark.parametrize(("env_id", "action"), HUMAN_MODE_ENVS, ids=[env_id for env_id, _ in HUMAN_MODE_ENVS])
def test_human_mode_opens_a_window_headless_and_close_releases_it(env_id, action):
    pygame = pytest.importorskip("pygame")
    env = gym.make(env_id, render_mode="human")
    env.unwrapped.metadata = {**env.unwrapped.metadata, "render_fps": 1000}  # keep the test fast
    env.reset(seed=0)
    canvas = env.unwrapped._canvas
    assert canvas.window_open and pygame.display.get_init()
    assert pygame.display.get_surface().get_size() == canvas.size
    env.step(action)
    env.close()
    assert env.unwrapped._canvas is None and not pygame.display.get_init()
    env.close()  # a second close is harmless


def test_render_without_mode_warns_and_returns_none():
    env = gym.make("TicTacToe-v0").unwrapped
    env.reset(seed=0)
    with pytest.warns(UserWarning, match="render_mode"):
        assert env.render() is None
