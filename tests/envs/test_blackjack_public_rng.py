"""TabularBlackjack-v0 reads the dealing game's generator through Gymnasium's public API only.

From the reliability issue: ``envs/blackjack.py`` read ``BlackjackEnv._np_random_seed``, a private attribute
a Gymnasium release may rename. Here the dealing game hides its private ``_np_random*`` attributes, as such
a release would, and the env must still seed, deal and report its seed (``np_random`` and
``np_random_seed`` are public properties of ``gymnasium.Env`` since Gymnasium 1.0).
"""

from __future__ import annotations

import numpy as np

from gym_boardgames.envs.blackjack import TERMINAL, TabularBlackjackEnv


class PublicOnly:
    """A proxy of Gymnasium's ``BlackjackEnv`` that refuses every ``_np_random*`` name, and passes the rest on."""

    def __init__(self, game) -> None:
        object.__setattr__(self, "_game", game)

    def __getattr__(self, name):
        if name.startswith("_np_random"):
            raise AttributeError(f"{name} is private to Gymnasium: use np_random / np_random_seed")
        return getattr(self._game, name)

    def __setattr__(self, name, value) -> None:
        if name.startswith("_np_random"):
            raise AttributeError(f"{name} is private to Gymnasium: use np_random / np_random_seed")
        setattr(self._game, name, value)


def public_only_env() -> TabularBlackjackEnv:
    env = TabularBlackjackEnv()
    env.game = PublicOnly(env.game)
    return env


def test_reset_with_a_seed_needs_only_the_public_generator_api():
    env = public_only_env()
    state, info = env.reset(seed=5)
    assert env.np_random_seed == 5 and env.np_random is env.game.np_random
    # Gymnasium's env checker reads env.unwrapped._np_random: it is the generator that deals.
    assert env._np_random is env.game.np_random
    reference_state, reference_info = TabularBlackjackEnv().reset(seed=5)  # the same deal as without the proxy
    assert state == reference_state and info["raw_obs"] == reference_info["raw_obs"]
    assert env.step(0)[0] == TERMINAL


def test_setting_the_generator_needs_only_the_public_api():
    env = public_only_env()
    generator = np.random.default_rng(3)
    env.np_random = generator
    assert env.np_random is generator and env._np_random is generator
    assert env.np_random_seed == -1  # Gymnasium's value for a generator set directly
