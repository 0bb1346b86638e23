"""The PettingZoo AEC adapter: PettingZoo's own API tests, equivalence with the Gymnasium envs (a draw's winner is
-1, actions are refused with the board envs' messages), and the optional import."""

from __future__ import annotations

import re
import subprocess
import sys
import warnings
from typing import Any

import gymnasium as gym
import numpy as np
import pytest

pytest.importorskip("pettingzoo")

with warnings.catch_warnings():
    # pettingzoo.test imports PettingZoo's own classic envs through their deprecated module paths.
    warnings.simplefilter("ignore", DeprecationWarning)
    from pettingzoo.test import api_test, seed_test

from pettingzoo.utils import wrappers  # noqa: E402

import gym_boardgames  # noqa: E402, F401  (registers the Gymnasium ids)
from gym_boardgames import pettingzoo as gp  # noqa: E402
from gym_boardgames.errors import ActionTypeError  # noqa: E402

# AEC game name and keywords -> the Gymnasium id and keywords of the same game.
CASES: dict[str, tuple[str, dict[str, Any], str]] = {
    "tictactoe": ("TicTacToe", {}, "TicTacToe-v0"),
    "mnk-4x5x3": ("ConnectN", {"rows": 4, "cols": 5, "n": 3, "gravity": False}, "ConnectN-v0"),
    "connectfour": ("ConnectFour", {}, "ConnectFour-v0"),
    "dots-2x3": ("DotsAndBoxes", {"rows": 2, "cols": 3}, "DotsAndBoxes-v0"),
}
GAMES = ["TicTacToe", "ConnectN", "ConnectFour", "DotsAndBoxes"]


@pytest.fixture(autouse=True)
def _quiet_api_test_warnings() -> Any:
    # api_test warns about dict observations and negative "graphical" boards; both are by design here.
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        yield


@pytest.mark.parametrize("game", GAMES)
@pytest.mark.parametrize("factory", [gp.env, gp.raw_env], ids=["env", "raw_env"])
def test_pettingzoo_api_test(factory: Any, game: str) -> None:
    api_test(factory(game), num_cycles=200)


@pytest.mark.parametrize("game", GAMES)
def test_pettingzoo_seed_test(game: str) -> None:
    seed_test(lambda: gp.env(game), num_cycles=200)


def _other_side(game: Any, obs: np.ndarray) -> np.ndarray:
    """The same position seen by the other player: pieces (or box owners) change sign, edges do not."""
    flipped = -obs
    if hasattr(game, "num_edges"):
        flipped[: game.num_edges] = obs[: game.num_edges]
    return flipped


def _random_game(aec: Any, genv: gym.Env, rng: np.random.Generator) -> None:
    """Play one random game in both envs and check they agree at every step."""
    aec.reset()
    obs, info = genv.reset()
    while True:
        agent = aec.agent_selection
        assert agent == f"player_{info['current_player']}"
        seen = aec.observe(agent)
        np.testing.assert_array_equal(seen["observation"], obs)
        np.testing.assert_array_equal(seen["action_mask"], info["action_mask"])
        # The agent not to move never sees legal moves.
        other = gp.AGENTS[1 - gp.AGENTS.index(agent)]
        assert not aec.observe(other)["action_mask"].any()
        np.testing.assert_array_equal(aec.observe(other)["observation"], _other_side(aec.game, obs))
        action = int(rng.choice(np.flatnonzero(info["action_mask"])))
        aec.step(action)
        obs, reward, terminated, truncated, info = genv.step(action)
        assert not truncated
        assert aec.rewards[agent] == reward  # in self-play the reward belongs to the mover
        assert aec.rewards[other] == -reward  # zero-sum
        if terminated:
            assert all(aec.terminations.values())
            assert aec.infos[agent]["winner"] == info["winner"] == aec.winner
            np.testing.assert_array_equal(aec.observe(aec.agent_selection)["observation"], obs)
            assert not aec.observe(aec.agent_selection)["action_mask"].any()
            return
        assert reward == 0.0 and not any(aec.terminations.values())


@pytest.mark.parametrize("case", CASES.values(), ids=list(CASES))
def test_same_games_as_the_gymnasium_self_play_env(case: tuple[str, dict[str, Any], str]) -> None:
    game, kwargs, env_id = case
    aec = gp.raw_env(game, **kwargs)
    genv = gym.make(env_id, opponent=None, **kwargs)
    rng = np.random.default_rng(1234)
    for _ in range(300):
        _random_game(aec, genv, rng)


@pytest.mark.parametrize("game", GAMES)
def test_wrapped_env_agent_iter_gives_zero_sum_returns(game: str) -> None:
    aec = gp.env(game)
    rng = np.random.default_rng(7)
    for seed in range(20):
        aec.reset(seed=seed)
        returns = dict.fromkeys(gp.AGENTS, 0.0)
        for agent in aec.agent_iter():
            observation, reward, termination, truncation, _ = aec.last()
            returns[agent] += reward
            action = None
            if not (termination or truncation):
                action = int(rng.choice(np.flatnonzero(observation["action_mask"])))
            aec.step(action)
        assert returns["player_0"] == -returns["player_1"]
        assert returns["player_0"] in (-1.0, 0.0, 1.0)


def test_dots_extra_turn_keeps_agent_selection() -> None:
    aec = gp.raw_env("DotsAndBoxes", rows=2, cols=2)
    aec.reset()
    # Box 0 of a 2x2 board has edges 0 (top), 2 (bottom), 6 (left) and 7 (right).
    for action, mover in zip([0, 2, 6], ["player_0", "player_1", "player_0"], strict=True):
        assert aec.agent_selection == mover
        aec.step(action)
    assert aec.agent_selection == "player_1"
    aec.step(7)  # completes box 0: player_1 moves again
    assert aec.agent_selection == "player_1"
    assert aec.observe("player_1")["observation"][12] == 1  # box 0 is its own
    assert aec.observe("player_0")["observation"][12] == -1
    assert aec.rewards == {"player_0": 0.0, "player_1": 0.0}


def test_dots_extra_turns_follow_the_rules_in_random_games() -> None:
    aec = gp.raw_env("DotsAndBoxes", rows=3, cols=3)
    game, rng, extra_turns = aec.game, np.random.default_rng(3), 0
    for _ in range(30):
        aec.reset()
        while not aec.terminations["player_0"]:
            agent = aec.agent_selection
            action = int(rng.choice(game.legal_actions(aec.state)))
            scores = game.boxes_completed_by(aec.state, action)
            aec.step(action)
            if scores and not aec.terminations[agent]:
                extra_turns += 1
                assert aec.agent_selection == agent
            elif not aec.terminations[agent]:
                assert aec.agent_selection != agent
    assert extra_turns > 0


def test_raw_env_raises_on_an_illegal_move_and_keeps_the_game() -> None:
    aec = gp.raw_env("TicTacToe")
    aec.reset()
    aec.step(4)
    before = aec.state
    with pytest.raises(ValueError, match=r"action 4 is an illegal move here: legal actions are \[0, 1, 2, 3, 5, 6"):
        aec.step(4)
    with pytest.raises(ValueError, match=r"^action 9 is not an integer in 0\.\.8$"):
        aec.step(9)  # the Gymnasium envs' message
    assert aec.state == before and aec.agent_selection == "player_1"
    aec.step(0)  # still usable
    assert aec.agent_selection == "player_0"


def test_env_illegal_move_ends_the_game_with_minus_one_for_the_offender() -> None:
    aec = gp.env("ConnectN", rows=2, cols=2, n=2, gravity=True)
    aec.reset(seed=0)
    aec.step(0)
    aec.step(0)  # column 0 is now full
    assert aec.agent_selection == "player_0"
    aec.step(0)  # illegal
    assert all(aec.terminations.values())
    assert aec.rewards["player_0"] == -1
    assert aec.rewards["player_1"] == 0


def test_env_wrappers_are_the_classic_ones() -> None:
    aec = gp.env("TicTacToe")
    assert type(aec).__name__ == "OrderEnforcingWrapper"
    # PettingZoo's own wrapper, subclassed to check the move (the one check, which also stands for
    # AssertOutOfBoundsWrapper) before it indexes the mask with it.
    assert isinstance(aec.env, wrappers.TerminateIllegalWrapper)
    assert type(aec.env.env) is gp.raw_env
    assert isinstance(aec.unwrapped, gp.raw_env)
    with pytest.raises(AssertionError, match="reset"):  # OrderEnforcingWrapper: reset() first
        aec.step(0)


def test_spaces() -> None:
    aec = gp.raw_env("DotsAndBoxes", rows=2, cols=3)
    space = aec.observation_space("player_1")
    assert space["observation"].shape == (17 + 6,) and space["observation"].dtype == np.int8
    assert space["action_mask"].shape == (17,) and space["action_mask"].dtype == np.int8
    assert aec.action_space("player_0").n == 17
    assert gp.raw_env("ConnectFour").observation_space("player_0")["observation"].shape == (6, 7)


def test_unknown_game_lists_the_choices() -> None:
    with pytest.raises(
        ValueError, match="game must be one of .*ConnectFour.*ConnectN.*DotsAndBoxes.*TicTacToe.*, got 'Chess'"
    ):
        gp.env("Chess")


def test_bad_game_parameters_and_render_mode() -> None:
    with pytest.raises(ValueError, match=r"n \(on a 3x3 board\) must be an integer in \[1, 3\], got 9"):
        gp.raw_env("ConnectN", rows=3, cols=3, n=9)
    with pytest.raises(ValueError, match="render_mode"):
        gp.raw_env("TicTacToe", render_mode="svg")


@pytest.mark.parametrize("case", CASES.values(), ids=list(CASES))
def test_render_modes_reuse_the_gymnasium_views(case: tuple[str, dict[str, Any], str]) -> None:
    game, kwargs, env_id = case
    moves = [0, 1, 2]
    for mode in ("ansi", "rgb_array"):
        aec = gp.env(game, render_mode=mode, **kwargs)
        genv = gym.make(env_id, opponent=None, render_mode=mode, **kwargs)
        aec.reset(seed=0)
        genv.reset(seed=0)
        for action in moves:
            aec.step(action)
            genv.step(action)
        frame, expected = aec.render(), genv.render()
        if mode == "ansi":
            assert isinstance(frame, str) and frame == expected
        else:
            assert frame.dtype == np.uint8 and frame.ndim == 3 and frame.shape[2] == 3
            np.testing.assert_array_equal(frame, expected)
        aec.close()
        genv.close()


def test_human_render_is_headless_safe() -> None:
    aec = gp.env("DotsAndBoxes", render_mode="human", rows=1, cols=1)
    aec.reset()
    aec.step(0)
    assert aec.render() is None
    aec.close()
    aec.close()


def test_render_without_mode_warns_and_returns_none() -> None:
    aec = gp.raw_env("TicTacToe")
    aec.reset()
    with pytest.warns(UserWarning, match="render_mode"):
        assert aec.render() is None


# Nine tic-tac-toe moves that fill the board with no line.
DRAW_SEQUENCE = [0, 1, 2, 3, 4, 6, 5, 8, 7]


@pytest.mark.parametrize("factory", [gp.env, gp.raw_env], ids=["env", "raw_env"])
def test_a_draw_reports_winner_minus_one_to_both_agents(factory: Any) -> None:
    aec = factory("TicTacToe")
    aec.reset()
    for move in DRAW_SEQUENCE:
        aec.step(move)
    assert all(aec.terminations.values())
    assert aec.unwrapped.winner == -1
    assert [aec.infos[agent]["winner"] for agent in gp.AGENTS] == [-1, -1]
    aec.reset()
    assert aec.unwrapped.winner is None


def _board_env_message(value: object) -> str:
    env = gym.make("TicTacToe-v0")
    env.reset(seed=0)
    with pytest.raises(ActionTypeError) as caught:
        env.step(value)
    return str(caught.value)


@pytest.mark.parametrize("value", [True, False, np.True_, np.array(True)], ids=repr)
@pytest.mark.parametrize("factory", [gp.env, gp.raw_env], ids=["env", "raw_env"])
def test_a_boolean_action_is_refused_with_the_board_envs_message(factory: Any, value: object) -> None:
    aec = factory("TicTacToe")
    aec.reset()
    before = aec.unwrapped.state
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no "illegal move" warning either: the action is refused, not played
        with pytest.raises((ActionTypeError, AssertionError)) as caught:
            aec.step(value)
    if isinstance(caught.value, AssertionError):
        # AssertOutOfBoundsWrapper already refuses what Discrete(9).contains refuses (numpy booleans).
        assert factory is gp.env and not isinstance(value, bool)
    else:
        assert str(caught.value) == _board_env_message(value)
    assert aec.unwrapped.state == before and aec.agent_selection == "player_0"
    assert not any(aec.terminations.values())
    aec.step(1)  # still usable: the integer 1 plays cell 1
    assert aec.agent_selection == "player_1"


@pytest.mark.parametrize("value", [1.0, "1", [1]], ids=repr)
def test_raw_env_refuses_non_integers_with_the_board_envs_message(value: object) -> None:
    aec = gp.raw_env("ConnectFour")
    aec.reset()
    with pytest.raises(ActionTypeError) as caught:
        aec.step(value)
    env = gym.make("ConnectFour-v0")
    env.reset(seed=0)
    with pytest.raises(ActionTypeError) as expected:
        env.step(value)
    assert str(caught.value) == str(expected.value)


def test_numpy_integers_are_still_actions() -> None:
    aec = gp.env("TicTacToe")
    aec.reset()
    aec.step(np.int64(4))
    aec.step(np.array(0))
    assert aec.unwrapped.state.board[4] == 1 and aec.unwrapped.state.board[0] == 2


def _run(code: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)


def test_import_gym_boardgames_does_not_import_pettingzoo() -> None:
    result = _run(
        "import sys, gymnasium as gym, gym_boardgames\n"
        "gym.make('TicTacToe-v0').reset(seed=0)\n"
        "assert 'pettingzoo' not in sys.modules, 'pettingzoo imported'\n"
    )
    assert result.returncode == 0, result.stderr


def test_missing_pettingzoo_names_the_extra() -> None:
    result = _run(
        "import sys\n"
        "sys.modules['pettingzoo'] = None  # what an uninstalled package looks like to import\n"
        "try:\n"
        "    import gym_boardgames.pettingzoo\n"
        "except ImportError as error:\n"
        "    print(error)\n"
    )
    assert result.returncode == 0, result.stderr
    assert 'pip install -e ".[pettingzoo]"' in result.stdout


# ---- unknown agent names -------------------------------------------------------------------------
# The PettingZoo adapter names the valid agents when a method gets another agent name.
#
# From the reliability issue: ``observe("player_9")`` said ``tuple.index(x): x not in tuple``, and
# ``observation_space`` / ``action_space`` raised a bare ``KeyError``.


METHODS = ("observe", "observation_space", "action_space")
MESSAGE = r"^agent must be one of \('player_0', 'player_1'\), got {name}$"


@pytest.mark.parametrize("make", [gp.raw_env, gp.env], ids=["raw_env", "env"])
@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("name", ["player_9", "player_0 ", 0, None, ["player_0"]], ids=repr)
def test_an_unknown_agent_name_is_refused_naming_the_agents(make, method, name):
    aec = make("TicTacToe")
    aec.reset(seed=0)
    with pytest.raises(ValueError, match=MESSAGE.format(name=re.escape(repr(name)))):
        getattr(aec, method)(name)


@pytest.mark.parametrize("make", [gp.raw_env, gp.env], ids=["raw_env", "env"])
def test_each_agents_name_gives_that_agents_view_and_spaces(make):
    aec = make("ConnectFour")
    aec.reset(seed=0)
    aec.step(3)  # player_0's piece lands at the bottom of column 3; player_1 is to move
    genv = gym.make("ConnectFour-v0", opponent=None)
    genv.reset(seed=0)
    genv.step(3)
    game, state = genv.unwrapped.game, genv.unwrapped.state
    for seat, agent in enumerate(("player_0", "player_1")):
        seen = aec.observe(agent)
        np.testing.assert_array_equal(seen["observation"], game.observation(state, seat))
        assert seen["observation"][5, 3] == (1 if seat == 0 else -1)  # each sees the board from its own side
        np.testing.assert_array_equal(seen["action_mask"], game.legal_mask(state) * seat)  # only the mover's
        space = aec.observation_space(agent)
        assert space["observation"] == genv.observation_space and seen in space
        assert space["observation"].shape == (6, 7) and space["action_mask"].shape == (7,)
        assert aec.action_space(agent) == gym.spaces.Discrete(7)
