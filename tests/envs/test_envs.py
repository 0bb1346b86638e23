"""gym_boardgames.envs: the plain env of a registered game (``board_env``) and the env of a rules object
(``env_for_game``), built the way a user reaches them: by the game's name, or from the rules they hold."""

import numpy as np
import pytest

from gym_boardgames.envs import ConnectNEnv, DotsAndBoxesEnv, TicTacToeEnv, TwoPlayerEnv, board_env, env_for_game
from gym_boardgames.rules import ConnectN, DotsAndBoxes, TicTacToe


def test_board_env_builds_the_plain_env_of_a_row_name_from_its_size_options():
    env = board_env("ConnectN", rows=4, cols=5, n=3, opponent=None, agent_player=1)
    assert type(env) is TwoPlayerEnv and env.game == ConnectN(4, 5, 3)
    assert env.action_space.n == 5 and env.agent_player_setting == 1
    assert env.observation_space.shape == env.game.observation(env.game.initial_state(), 0).shape


def test_board_env_of_a_rules_object_plays_a_whole_game_against_its_opponent():
    env = board_env(TicTacToe(), opponent="random")
    _, info = env.reset(seed=3)
    rng, done, steps = np.random.default_rng(3), False, 0
    while not done:
        _, reward, terminated, truncated, info = env.step(int(rng.choice(np.flatnonzero(info["action_mask"]))))
        done, steps = terminated or truncated, steps + 1
    assert reward in (-1.0, 0.0, 1.0) and 3 <= steps <= 5  # the agent moves first: 3 to 5 of the 9 moves


@pytest.mark.parametrize(
    ("game", "cls"),
    [(TicTacToe(), TicTacToeEnv), (ConnectN(5, 6, 4), ConnectNEnv), (DotsAndBoxes(2, 2), DotsAndBoxesEnv)],
    ids=["tictactoe", "connect5x6", "dots2x2"],
)
def test_env_for_game_gives_each_game_its_own_env_with_the_two_player_keywords(game, cls):
    env = env_for_game(game, opponent=None, illegal_action="raise")
    assert isinstance(env, cls) and env.game == game and env.illegal_action == "raise"
    _, info = env.reset(seed=0)
    while info["action_mask"][0]:  # one move for tic-tac-toe and dots, a full column for connect
        _, _, _, _, info = env.step(0)
    with pytest.raises(ValueError, match="illegal"):
        env.step(0)  # refused, and the env stays usable
    env.step(1)


def test_env_for_game_passes_the_dots_reward_on_and_refuses_what_no_board_env_plays():
    env = env_for_game(DotsAndBoxes(1, 1), opponent=None, reward="score")
    env.reset(seed=0)
    rewards = [env.step(edge)[1] for edge in range(4)]
    assert rewards == [0.0, 0.0, 0.0, 1.0]  # the fourth edge closes the box for the player who drew it
    with pytest.raises(ValueError, match="no board env plays 'tic-tac-toe'"):
        env_for_game("tic-tac-toe")
