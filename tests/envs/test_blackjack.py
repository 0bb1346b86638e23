"""TabularBlackjack-v0: the env around Gymnasium's game.

Its transitions have the frequencies of the exact model P (:mod:`gym_boardgames.rules.blackjack`, tested in
tests/rules/test_blackjack.py); it is an env of this package (``unwrapped.P``, one wrapper tower), starts in any
state, draws the end of a hand (the dealer's cards face up, the result), refuses booleans as the board envs do,
and reads the dealing game's generator through Gymnasium's public API only.
"""

import warnings
from collections import Counter

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

import gym_boardgames  # noqa: F401  (registers the ids)
from gym_boardgames.envs.blackjack import TabularBlackjackEnv
from gym_boardgames.errors import ActionTypeError
from gym_boardgames.rules import blackjack
from gym_boardgames.rules.blackjack import HIT, N_STATES, STICK, TERMINAL, decode, encode, is_natural_state

# ---------------------------------------------------------------- the model agrees with Gymnasium's game


def sample_outcomes(env, start, action, n):
    """Counter of (next_s, reward) over n one-step episodes from ``start``."""
    counts = Counter()
    for _ in range(n):
        env.reset(options={"start_state": start})
        next_s, reward, *_ = env.step(action)
        counts[next_s, reward] += 1
    return counts


def assert_frequencies_match(counts, row, n):
    expected = {}
    for p, next_s, reward, _ in row:
        expected[next_s, reward] = expected.get((next_s, reward), 0.0) + p
    assert set(counts) <= set(expected), f"outcomes the model does not have: {set(counts) - set(expected)}"
    for outcome, p in expected.items():
        # Five standard errors (plus one count) for each outcome: a wrong probability of a few percent
        # fails, sampling noise with this fixed seed does not.
        assert abs(counts[outcome] / n - p) <= 5 * np.sqrt(p * (1 - p) / n) + 1 / n, (outcome, counts[outcome] / n, p)


@pytest.mark.parametrize(
    ("observation", "natural", "action"),
    [
        ((16, 10, 0), False, STICK),
        ((20, 1, 0), False, STICK),
        ((21, 1, 1), True, STICK),
        ((21, 10, 1), True, STICK),
        ((21, 10, 1), False, STICK),
        ((21, 1, 0), False, STICK),
        ((4, 6, 0), False, STICK),
        ((11, 6, 0), False, HIT),
        ((17, 2, 1), False, HIT),
        ((21, 10, 1), True, HIT),
        ((6, 9, 0), False, HIT),
    ],
)
def test_gymnasium_transitions_from_a_chosen_state_have_the_frequencies_of_P(observation, natural, action):
    env = gym.make("TabularBlackjack-v0")
    P = env.unwrapped.P
    env.reset(seed=2024)
    start = encode(*observation, natural=natural)
    n = 2000
    assert_frequencies_match(sample_outcomes(env, start, action, n), P[start][action], n)


@pytest.mark.slow
def test_whole_episodes_from_the_deal_follow_P():
    """Random play from Gymnasium's deal: the start states and every well-sampled transition match P."""
    env = gym.make("TabularBlackjack-v0")
    P, mu = env.unwrapped.P, env.unwrapped.initial_state_distrib
    rng = np.random.default_rng(7)
    starts, transitions = Counter(), {}
    episodes = 20_000
    s, _ = env.reset(seed=11)
    for _ in range(episodes):
        starts[s] += 1
        terminated = False
        while not terminated:
            a = int(rng.integers(2))
            next_s, reward, terminated, truncated, _ = env.step(a)
            transitions.setdefault((s, a), Counter())[next_s, reward] += 1
            assert not truncated
            s = next_s
        s, _ = env.reset()
    for state, count in starts.items():
        assert abs(count / episodes - mu[state]) <= 5 * np.sqrt(mu[state] / episodes) + 1 / episodes
    assert sum(mu[list(starts)]) > 0.999  # the deal reached (nearly) all of its probability mass
    checked = 0
    for (state, action), counts in transitions.items():
        n = sum(counts.values())
        if n >= 100:
            assert_frequencies_match(counts, P[state][action], n)
            checked += 1
    assert checked >= 30  # (state, action) pairs with at least 100 samples


def test_a_dealt_soft_21_is_the_natural_and_a_drawn_one_is_not():
    env = gym.make("TabularBlackjack-v0")
    seen_natural = seen_drawn = False
    s, info = env.reset(seed=3)
    for _ in range(3000):
        if info["raw_obs"][0] == 21 and info["raw_obs"][2] == 1:
            assert is_natural_state(s)
            seen_natural = True
        terminated = False
        while not terminated:
            s, _, terminated, _, info = env.step(HIT if info["raw_obs"][0] < 21 else STICK)
            if not terminated and info["raw_obs"][0] == 21 and info["raw_obs"][2] == 1:
                assert s == encode(21, info["raw_obs"][1], 1) and not is_natural_state(s)
                seen_drawn = True
        s, info = env.reset()
    assert seen_natural and seen_drawn


def test_stepping_on_from_the_terminal_state_needs_a_reset_while_the_model_stays_absorbing():
    # step() after the end raises ResetNeeded, as in the board envs; P keeps the self-loop dynamic programming reads.
    env = gym.make("TabularBlackjack-v0")
    env.reset(seed=0, options={"start_state": encode(20, 5, 0)})
    assert env.step(STICK)[0] == TERMINAL
    with pytest.raises(gym.error.ResetNeeded, match="reset"):
        env.step(HIT)
    assert env.unwrapped.P[TERMINAL][HIT] == [(1.0, TERMINAL, 0.0, True)]


def test_step_before_reset_names_reset():
    with pytest.raises(gym.error.ResetNeeded, match="reset"):
        TabularBlackjackEnv().step(STICK)


def test_reset_to_a_state_shows_gymnasium_that_hand():
    env = gym.make("TabularBlackjack-v0")
    for state in range(TERMINAL):
        s, info = env.reset(seed=state, options={"start_state": state})
        assert s == state and info["raw_obs"] == decode(state)
        assert env.unwrapped.gymnasium_env._get_obs() == decode(state)


@pytest.mark.parametrize(
    "options", [{"start_state": TERMINAL}, {"start_state": -1}, {"start_state": "12"}, {"start": 3}]
)
def test_reset_rejects_bad_options(options):
    env = gym.make("TabularBlackjack-v0")
    message = r"options\[\"start_state\"\] \(a non-terminal state index\) must be an integer in \[0, 289\]"
    with pytest.raises(ValueError, match=message if "start_state" in options else "start"):
        env.reset(options=options)


@pytest.mark.parametrize("action", [2, -1, "hit", 0.5])
def test_step_rejects_actions_outside_the_space(action):
    env = gym.make("TabularBlackjack-v0")
    env.reset(seed=0)
    with pytest.raises(ValueError, match="stick"):
        env.step(action)


def test_the_model_is_reachable_through_gymnasium_make_wrappers():
    env = gym.make("TabularBlackjack-v0")
    P, mu = blackjack.blackjack_model()
    assert env.get_wrapper_attr("P") == P
    np.testing.assert_array_equal(env.get_wrapper_attr("initial_state_distrib"), mu)
    assert env.observation_space == gym.spaces.Discrete(N_STATES)
    assert env.get_wrapper_attr("encode")(15, 7, 0) == encode(15, 7, 0)


def test_sab_false_is_refused_because_the_model_is_of_the_book_rules():
    with pytest.raises(ValueError, match="sab"):
        TabularBlackjackEnv(sab=False)


def test_check_env_passes_on_the_wrapper_and_its_render_modes():
    env = gym.make("TabularBlackjack-v0")  # check_env also makes and renders one env per declared mode
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        # The wrapper is the env here, so this note about make()'s wrappers is expected.
        warnings.filterwarnings("ignore", message=".*different from the unwrapped version.*")
        check_env(env)
    env.close()


def test_rendering_draws_a_frame_and_ansi_is_a_line_of_text():
    env = gym.make("TabularBlackjack-v0", render_mode="rgb_array")
    env.reset(seed=0, options={"start_state": encode(21, 1, 1, natural=True)})
    frame = env.render()
    assert frame.dtype == np.uint8 and frame.ndim == 3
    text_env = gym.make("TabularBlackjack-v0", render_mode="ansi")
    text_env.reset(seed=0, options={"start_state": encode(21, 1, 1, natural=True)})
    assert text_env.render() == "player 21 (usable ace) (natural), dealer shows A"
    text_env.step(STICK)
    assert "reward" in text_env.render()


# ---------------------------------------------------------------- an env of this package


def test_unwrapped_is_this_packages_env_and_holds_the_model():
    env = gym.make("TabularBlackjack-v0")
    P, mu = blackjack.blackjack_model()
    assert isinstance(env.unwrapped, TabularBlackjackEnv)
    assert env.unwrapped.P == P
    np.testing.assert_array_equal(env.unwrapped.initial_state_distrib, mu)
    assert env.get_wrapper_attr("P") == P  # what agents.tabular.dp and agents.tabular.mc look up still works


def test_the_repr_shows_each_wrapper_once():
    env = gym.make("TabularBlackjack-v0")
    assert str(env) == "<OrderEnforcing<PassiveEnvChecker<TabularBlackjackEnv<TabularBlackjack-v0>>>>"


def test_the_cards_are_dealt_by_the_env_generator():
    env = gym.make("TabularBlackjack-v0").unwrapped
    env.reset(seed=5)
    assert env.np_random is env.gymnasium_env.np_random and env.np_random_seed == 5
    assert env.game is blackjack  # the rules and model, as a board env's game is its rules object


def finish(env, state, action, dealer=None):
    """Start in ``state``, optionally set the dealer's cards, play ``action`` to the end; return the reward."""
    env.reset(seed=0, options={"start_state": state})
    if dealer is not None:
        env.unwrapped.gymnasium_env.dealer = list(dealer)
    _, reward, terminated, _, _ = env.step(action)
    assert terminated
    return reward


@pytest.mark.parametrize(
    ("state", "action", "dealer", "reward", "text", "bar"),
    [
        (encode(20, 10, 0), STICK, (10, 9), 1.0, "dealer 19 [10, 9]: you win, reward +1", "You win (+1)"),
        (encode(20, 10, 0), STICK, (10, 10), 0.0, "dealer 20 [10, 10]: you draw, reward 0", "Draw (0)"),
        (encode(18, 10, 0), STICK, (10, 10), -1.0, "dealer 20 [10, 10]: you lose, reward -1", "You lose (-1)"),
        (encode(21, 3, 0), HIT, None, -1.0, "busts, dealer", "Bust: you lose (-1)"),
        (encode(21, 5, 1, natural=True), STICK, (5, 10, 10), 1.0, "(natural), dealer 25", "Natural: you win (+1)"),
    ],
)
def test_the_end_of_a_hand_shows_the_dealers_cards_and_the_result(state, action, dealer, reward, text, bar):
    env = gym.make("TabularBlackjack-v0", render_mode="ansi")
    assert finish(env, state, action, dealer) == reward
    assert text in env.render()
    base = env.unwrapped
    assert base.hand_over and base.result == reward and base.result_text() == bar
    assert base.outcome() == {1.0: "win", 0.0: "draw", -1.0: "lose"}[reward]


def board_message(action):
    board = gym.make("TicTacToe-v0", opponent=None)
    board.reset(seed=0)
    with pytest.raises(ActionTypeError) as error:
        board.step(action)
    return str(error.value)


@pytest.mark.parametrize("action", [True, False, np.True_, np.bool_(False), np.array(True)])
@pytest.mark.parametrize(("env_id", "n"), [("TabularBlackjack-v0", 2), ("GridWorld-v0", 4)])
def test_booleans_are_refused_with_the_board_envs_message(env_id, n, action):
    expected = board_message(action).replace("0..8", f"0..{n - 1}")
    env = gym.make(env_id)
    env.reset(seed=0)
    with pytest.raises(ActionTypeError) as error:
        env.step(action)
    assert str(error.value).startswith(expected)
    assert isinstance(error.value, TypeError) and isinstance(error.value, ValueError)


@pytest.mark.parametrize("action", [0, 1, np.int64(1), np.uint8(0), np.array(1)])
def test_integer_actions_of_any_integer_type_are_accepted(action):
    env = gym.make("TabularBlackjack-v0")
    env.reset(seed=0, options={"start_state": encode(12, 5, 0)})
    state, *_ = env.step(action)
    assert state == TERMINAL or 0 <= state < TERMINAL


def test_unknown_constructor_arguments_and_render_modes_are_refused():
    with pytest.raises(TypeError, match="colour"):
        TabularBlackjackEnv(colour="red")
    with pytest.raises(ValueError, match="render_mode must be None or one of"):
        TabularBlackjackEnv(render_mode="rgb")


# ---------------------------------------------------------------- only Gymnasium's public generator API
# From the reliability issue: ``envs/blackjack.py`` read ``BlackjackEnv._np_random_seed``, a private attribute
# a Gymnasium release may rename. Here the dealing game hides its private ``_np_random*`` attributes, as such
# a release would, and the env must still seed, deal and report its seed (``np_random`` and
# ``np_random_seed`` are public properties of ``gymnasium.Env`` since Gymnasium 1.0).


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
    env.gymnasium_env = PublicOnly(env.gymnasium_env)
    return env


def test_reset_with_a_seed_needs_only_the_public_generator_api():
    env = public_only_env()
    state, info = env.reset(seed=5)
    assert env.np_random_seed == 5 and env.np_random is env.gymnasium_env.np_random
    # Gymnasium's env checker reads env.unwrapped._np_random: it is the generator that deals.
    assert env._np_random is env.gymnasium_env.np_random
    reference_state, reference_info = TabularBlackjackEnv().reset(seed=5)  # the same deal as without the proxy
    assert state == reference_state and info["raw_obs"] == reference_info["raw_obs"]
    assert env.step(0)[0] == TERMINAL


def test_setting_the_generator_needs_only_the_public_api():
    env = public_only_env()
    generator = np.random.default_rng(3)
    env.np_random = generator
    assert env.np_random is generator and env._np_random is generator
    assert env.np_random_seed == -1  # Gymnasium's value for a generator set directly
