"""The pygame canvas: human frames keep the frame rate only on a real display; fonts survive pygame.quit()."""

import time

import gymnasium as gym
import numpy as np
import pytest

import gym_boardgames  # noqa: F401  (registers the ids)

pygame = pytest.importorskip("pygame")


@pytest.fixture
def dummy_display(monkeypatch):
    monkeypatch.setenv("SDL_VIDEODRIVER", "dummy")
    yield
    pygame.display.quit()


def test_human_frames_on_the_dummy_driver_do_not_wait_for_the_frame_rate(dummy_display, monkeypatch):
    # Every way to wait is recorded instead of timed: the frame-rate clock and pygame's and Python's sleeps.
    waits = []

    class Clock:
        def tick(self, fps):
            waits.append(("Clock.tick", fps))

    monkeypatch.setattr(pygame.time, "Clock", Clock)
    monkeypatch.setattr(pygame.time, "wait", lambda ms: waits.append(("pygame.time.wait", ms)))
    monkeypatch.setattr(pygame.time, "delay", lambda ms: waits.append(("pygame.time.delay", ms)))
    monkeypatch.setattr(time, "sleep", lambda seconds: waits.append(("time.sleep", seconds)))
    env = gym.make("GridWorld-v0", render_mode="human")  # 4 frames per second: 20 frames would wait 5 s
    env.reset(seed=0)
    for _ in range(20):
        env.render()
    # The frames went to a window (the path that would wait), on the dummy driver.
    shown_on = pygame.display.get_driver() if pygame.display.get_surface() is not None else None
    env.close()
    assert shown_on == "dummy"
    assert waits == []


def test_a_real_display_keeps_the_frame_rate(dummy_display, monkeypatch):
    from gym_boardgames.render.pygame_canvas import Canvas

    ticks = []

    class Clock:
        def tick(self, fps):
            ticks.append(fps)

    canvas = Canvas((40, 30), title="pacing", fps=7)
    monkeypatch.setattr(canvas.pygame.time, "Clock", Clock)
    monkeypatch.setattr(canvas.pygame.display, "get_driver", lambda: "x11")
    canvas.show()
    canvas.show()
    canvas.close()
    assert ticks == [7, 7]


# ---- fonts ------------------------------------------------------------------------------------


def test_rendering_survives_another_library_calling_pygame_quit():
    pygame = pytest.importorskip("pygame")
    env = gym.make("TicTacToe-v0", opponent=None, render_mode="rgb_array")
    env.reset(seed=0)
    before = env.render()
    pygame.quit()  # what Gymnasium's toy_text envs do in close(); it invalidates loaded fonts
    env.step(4)
    after = env.render()
    assert after.shape == before.shape and not np.array_equal(before, after)
