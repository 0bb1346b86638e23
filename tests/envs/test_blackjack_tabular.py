"""TabularBlackjack-v0 is an env of this package (unwrapped.P, one wrapper tower), draws the end of a
hand (the dealer's cards face up, the result), and refuses booleans as the board envs do."""

import gymnasium as gym
import numpy as np
import pytest

import gym_boardgames  # noqa: F401  (registers the ids)
from gym_boardgames.envs.blackjack import HIT, STICK, TERMINAL, TabularBlackjackEnv, blackjack_model, encode
from gym_boardgames.errors import ActionTypeError


def test_unwrapped_is_this_packages_env_and_holds_the_model():
    env = gym.make("TabularBlackjack-v0")
    P, mu = blackjack_model()
    assert isinstance(env.unwrapped, TabularBlackjackEnv)
    assert env.unwrapped.P == P
    np.testing.assert_array_equal(env.unwrapped.initial_state_distrib, mu)
    assert env.get_wrapper_attr("P") == P  # what agents.dp and agents.mc look up still works


def test_the_repr_shows_each_wrapper_once():
    env = gym.make("TabularBlackjack-v0")
    assert str(env) == "<OrderEnforcing<PassiveEnvChecker<TabularBlackjackEnv<TabularBlackjack-v0>>>>"


def test_the_cards_are_dealt_by_the_env_generator():
    env = gym.make("TabularBlackjack-v0").unwrapped
    env.reset(seed=5)
    assert env.np_random is env.game.np_random and env.np_random_seed == 5


def finish(env, state, action, dealer=None):
    """Start in ``state``, optionally set the dealer's cards, play ``action`` to the end; return the reward."""
    env.reset(seed=0, options={"start_state": state})
    if dealer is not None:
        env.unwrapped.game.dealer = list(dealer)
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


def test_human_mode_opens_a_window_headless_and_close_releases_it():
    pygame = pytest.importorskip("pygame")
    env = gym.make("TabularBlackjack-v0", render_mode="human")
    env.unwrapped.metadata = {**env.unwrapped.metadata, "render_fps": 1000}  # keep the test fast
    env.reset(seed=0)
    assert env.unwrapped._canvas.window_open and pygame.display.get_init()
    env.step(STICK)
    env.close()
    assert env.unwrapped._canvas is None and not pygame.display.get_init()
    env.close()


def board_message(action):
    board = gym.make("TicTacToe-v0", opponent=None)
    board.reset(seed=0)
    with pytest.raises(ActionTypeError) as error:
        board.step(action)
    return str(error.value)


@pytest.mark.parametrize("action", [True, False, np.True_, np.bool_(False), np.array(True)])
@pytest.mark.parametrize(("env_id", "n"), [("TabularBlackjack-v0", 2), ("GridWorld-v0", 4)])
def test_booleans_are_refused_with_the_board_envs_message(env_id, n, action):
    expected = board_message(action).replace("0..8 (Discrete(9))", f"0..{n - 1} (Discrete({n}))")
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
