"""The Blackjack view: the hole card is face down during play and face up with the result bar at the end."""

import gymnasium as gym
import numpy as np
import pytest

import gym_boardgames  # noqa: F401  (registers the ids)
from gym_boardgames.rules.blackjack import STICK, encode


def count_colour(frame, colour):
    return int((frame == np.array(colour, dtype=np.uint8)).all(axis=2).sum())


def test_rgb_frames_hide_the_hole_card_during_play_and_show_it_with_the_result_at_the_end():
    pygame = pytest.importorskip("pygame")
    from gym_boardgames.render.blackjack_view import CARD_BACK
    from gym_boardgames.render.primitives import RESULT_BAR

    env = gym.make("TabularBlackjack-v0", render_mode="rgb_array")
    env.reset(seed=0, options={"start_state": encode(20, 10, 0)})
    playing = env.render()
    assert playing.dtype == np.uint8 and playing.ndim == 3
    assert count_colour(playing, CARD_BACK) > 500  # the dealer's second card, face down
    assert count_colour(playing[-10:], RESULT_BAR) == 0
    env.unwrapped.gymnasium_env.dealer = [10, 9]
    env.step(STICK)
    over = env.render()
    assert over.shape == playing.shape
    assert count_colour(over, CARD_BACK) == 0  # every dealer card face up
    assert count_colour(over[-10:], RESULT_BAR) > 0.5 * over.shape[1] * 10  # the result bar
    assert env.unwrapped.result_text() == "You win (+1)"
    # rgb_array frames are drawn off screen: the display (and its XDG_RUNTIME_DIR complaints) is never opened.
    assert not pygame.display.get_init()
    env.close()
