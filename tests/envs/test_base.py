"""TwoPlayerEnv (envs/base.py) keeps the two-player contract (docs/design.md) for every board game and shape.

tests/envs/test_contract.py pins the same bullets down with hand-written tic-tac-toe positions; here
each test finds its positions through the rules object, so it runs unchanged on every game.
"""

import re
import sys
from pathlib import Path

import gymnasium as gym
import numpy as np
import pytest

import gym_boardgames  # noqa: F401
from gym_boardgames.errors import ActionTypeError, ResetNeeded

sys.path.insert(0, str(Path(__file__).parent))  # importlib import mode: put the sibling helper on the path
from board_games import GAMES, IDS  # noqa: E402


@pytest.fixture(params=GAMES, ids=IDS)
def spec(request):
    return request.param


def make(spec, **kwargs):
    env_id, game_kwargs = spec
    return gym.make(env_id, **game_kwargs, **kwargs)


def random_legal(info, rng):
    return int(rng.choice(np.flatnonzero(info["action_mask"])))


def play_until_an_illegal_action_exists(env):
    """Self-play the lowest legal action until some in-space action is illegal; return that action."""
    _, info = env.reset(seed=0)
    while info["action_mask"].all():
        _, _, terminated, _, info = env.step(int(np.flatnonzero(info["action_mask"])[0]))
        assert not terminated
    return int(np.flatnonzero(info["action_mask"] == 0)[0])


class Recorder:
    """An opponent object that plays the lowest legal action and records what it was shown."""

    def __init__(self):
        self.seen = []

    def act(self, game, state):
        self.seen.append(state)
        return game.legal_actions(state)[0]


# ---- opponents -----------------------------------------------------------------------------


def test_random_opponent_replies_until_it_is_the_agents_turn(spec):
    env = make(spec)
    rng = np.random.default_rng(0)
    for seed in range(5):
        _, info = env.reset(seed=seed)
        terminated = False
        while not terminated:
            _, _, terminated, _, info = env.step(random_legal(info, rng))
            if not terminated:
                assert info["current_player"] == env.unwrapped.agent_player == 0


def test_opponent_object_sees_the_real_rules_and_states(spec):
    opponent = Recorder()
    env = make(spec, opponent=opponent, agent_player=1)
    env.reset(seed=0)
    game = env.unwrapped.game
    assert opponent.seen[0] == game.initial_state()
    assert env.unwrapped.moves[0] == (0, game.legal_actions(game.initial_state())[0])


def test_plain_callable_opponent_is_called_with_game_and_state(spec):
    calls = []

    def lowest(game, state):
        calls.append(game.current_player(state))
        return game.legal_actions(state)[0]

    env = make(spec, opponent=lowest, agent_player=1)
    _, info = env.reset(seed=0)
    assert calls and set(calls) == {0}
    assert info["current_player"] == 1


def test_self_play_reset_plays_nothing_and_observes_from_the_mover(spec):
    env = make(spec, opponent=None, agent_player=1)
    obs, info = env.reset(seed=0)
    game = env.unwrapped.game
    assert env.unwrapped.state == game.initial_state() and info["current_player"] == 0
    rng = np.random.default_rng(1)
    for _ in range(6):
        obs, _, terminated, _, info = env.step(random_legal(info, rng))
        state = env.unwrapped.state
        assert np.array_equal(obs, game.observation(state, game.current_player(state)))
        if terminated:
            break


def test_unknown_opponent_is_a_value_error(spec):
    with pytest.raises(ValueError, match="unknown opponent"):
        make(spec, opponent="grandmaster")


def test_opponent_illegal_move_is_a_value_error_naming_it_and_rolls_back(spec):
    env = make(spec, opponent=lambda game, state: game.num_actions)  # one past the last action
    _, info = env.reset(seed=0)
    n = env.action_space.n
    state, moves = env.unwrapped.state, list(env.unwrapped.moves)
    with pytest.raises(ValueError, match=rf"^agent .*lambda.* played {n}, which is not an integer in 0\.\.{n - 1}$"):
        # Keep stepping until the opponent has to move (in Dots and Boxes a box may give extra turns).
        while True:
            _, _, terminated, _, info = env.step(random_legal(info, np.random.default_rng(0)))
            state, moves = env.unwrapped.state, list(env.unwrapped.moves)
    assert env.unwrapped.state == state and env.unwrapped.moves == moves


# ---- agent_player -------------------------------------------------------------------------


def test_agent_second_means_the_opponent_opens_inside_reset(spec):
    env = make(spec, agent_player=1)
    obs, info = env.reset(seed=0)
    game = env.unwrapped.game
    assert env.unwrapped.state != game.initial_state()
    assert info["current_player"] == 1
    assert np.array_equal(obs, game.observation(env.unwrapped.state, 1))


def test_agent_player_random_and_reset_option(spec):
    env = make(spec, agent_player="random")
    sides = {env.reset(seed=seed)[1]["current_player"] for seed in range(16)}
    assert sides == {0, 1}
    env = make(spec)
    env.reset(seed=0, options={"agent_player": 1})
    assert env.unwrapped.agent_player == 1
    env.reset(seed=0)
    assert env.unwrapped.agent_player == 0


# ---- illegal actions ----------------------------------------------------------------------


def test_illegal_action_lose_ends_the_episode_with_the_board_unchanged(spec):
    env = make(spec, opponent=None)
    illegal = play_until_an_illegal_action_exists(env)
    state = env.unwrapped.state
    offender = env.unwrapped.game.current_player(state)
    _, reward, terminated, truncated, info = env.step(illegal)
    assert (reward, terminated, truncated) == (-1.0, True, False)
    assert info["illegal_action"] is True and info["winner"] == 1 - offender
    assert info["current_player"] == offender and env.unwrapped.state == state
    assert not info["action_mask"].any()
    with pytest.raises(ResetNeeded):
        env.step(illegal)


def test_illegal_action_raise_keeps_the_env_usable(spec):
    env = make(spec, opponent=None, illegal_action="raise")
    illegal = play_until_an_illegal_action_exists(env)
    state = env.unwrapped.state
    with pytest.raises(ValueError, match="illegal"):
        env.step(illegal)
    assert env.unwrapped.state == state
    legal = int(env.unwrapped.action_masks().argmax())
    env.step(legal)
    assert env.unwrapped.state != state


# ---- observation and spaces ---------------------------------------------------------------


def test_observations_are_new_int8_arrays_in_the_space_from_the_agents_side(spec):
    env = make(spec, agent_player=1)
    obs, info = env.reset(seed=3)
    rng = np.random.default_rng(3)
    previous = obs
    terminated = False
    while not terminated:
        obs, _, terminated, _, info = env.step(random_legal(info, rng))
        assert obs.dtype == np.int8 and obs in env.observation_space
        assert np.array_equal(obs, env.unwrapped.game.observation(env.unwrapped.state, 1))
        assert not np.shares_memory(obs, previous)
        previous = obs


def test_out_of_space_actions_name_the_valid_range(spec):
    env = make(spec)
    env.reset(seed=0)
    n = env.action_space.n
    for bad in (-1, n):
        with pytest.raises(ValueError, match=rf"^action {bad} is not an integer in 0\.\.{n - 1}$") as caught:
            env.step(bad)
        assert not isinstance(caught.value, ActionTypeError)  # an integer, out of range
    for bad in (0.0, "0", None, False):
        with pytest.raises(ActionTypeError, match=rf"^action {re.escape(repr(bad))} is not an integer in 0..{n - 1}$"):
            env.step(bad)


# ---- info, rewards and the end ----------------------------------------------------------


def test_info_mask_and_final_reward_follow_the_rules(spec):
    env = make(spec)
    game = env.unwrapped.game
    rng = np.random.default_rng(5)
    for seed in range(10):
        _, info = env.reset(seed=seed)
        total, terminated = 0.0, False
        while not terminated:
            state = env.unwrapped.state
            assert info["action_mask"].dtype == np.int8
            assert np.flatnonzero(info["action_mask"]).tolist() == list(game.legal_actions(state))
            assert np.array_equal(env.unwrapped.action_masks(), info["action_mask"])
            assert "winner" not in info
            _, reward, terminated, _, info = env.step(random_legal(info, rng))
            total += reward
        payoff = game.returns(env.unwrapped.state)
        expected_winner = -1 if payoff[0] == payoff[1] else int(np.argmax(payoff))
        assert info["winner"] == expected_winner
        if getattr(env.unwrapped, "reward_mode", "win") == "score":
            scores = game.scores(env.unwrapped.state)
            assert total == scores[0] - scores[1]
        else:
            assert reward == payoff[0]
        assert not info["action_mask"].any()


def test_step_out_of_order_names_reset(spec):
    env = make(spec).unwrapped
    with pytest.raises(ResetNeeded, match=r"reset\(\)"):
        env.step(0)


def test_same_seeds_give_identical_episodes(spec):
    def episode(env, seed):
        rng = np.random.default_rng(seed)
        obs, info = env.reset(seed=seed)
        trace, terminated = [obs.tobytes()], False
        while not terminated:
            obs, reward, terminated, _, info = env.step(random_legal(info, rng))
            trace.append((obs.tobytes(), reward, info.get("winner"), info.get("scores")))
        return trace

    a, b = make(spec, agent_player="random"), make(spec, agent_player="random")
    for seed in range(5):
        assert episode(a, seed) == episode(b, seed)


# ---- rendering -----------------------------------------------------------------------------


def test_ansi_and_rgb_array_show_the_game(spec):
    env = make(spec, opponent=None, render_mode="ansi")
    _, info = env.reset(seed=0)
    first_text = env.render()
    env.step(int(np.flatnonzero(info["action_mask"])[0]))
    text = env.render()
    assert text != first_text and text.endswith(env.unwrapped.status_text() + "\n")

    env = make(spec, opponent=None, render_mode="rgb_array")
    _, info = env.reset(seed=0)
    before = env.render()
    env.step(int(np.flatnonzero(info["action_mask"])[0]))
    after = env.render()
    assert before.dtype == np.uint8 and before.ndim == 3 and before.shape == after.shape
    assert not np.array_equal(before, after)
    env.close()


def test_env_for_game_builds_the_env_of_each_rules_object_with_its_parameters(spec):
    from gym_boardgames.envs import env_for_game

    env = make(spec).unwrapped
    twin = env_for_game(env.game, opponent=None)
    assert isinstance(env, type(twin))  # ConnectFour-v0's env is a ConnectNEnv of its own name
    assert twin.game == env.game and twin.game.config == env.game.config
    with pytest.raises(ValueError, match=r"no board env plays"):
        env_for_game(object())
