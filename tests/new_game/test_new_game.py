"""A new game is its rules, its view and its registration: every layer then takes it, with no package change.

The game is one-pile Nim in this folder: ``nim.py`` (rules and text picture) and ``nim_view.py`` (pygame view).
The registration below is the third piece (its rules row and its layers; in the package they would be a row of
``gym_boardgames/rules/registry.py`` and one of ``gym_boardgames/registration.py``), this test the fourth:
docs/tutorials/new_game.md walks through the same files.
"""

import sys
from pathlib import Path

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

sys.path.insert(0, str(Path(__file__).parent))  # importlib import mode: put the game's modules on the path
import nim  # noqa: E402
import nim_view  # noqa: E402

from gym_boardgames.registration import GameLayers, layers_of, register_game, unregister_game  # noqa: E402
from gym_boardgames.rules.registry import BoardGame, BoardStyle, row_of  # noqa: E402

ROW = BoardGame(
    "Nim",
    nim.Nim,
    nim.Nim,
    ("stones", "max_take"),
    family=None,
    style=lambda game: BoardStyle(("First", "Second"), ("1", "2"), "Nim"),
)
LAYERS = GameLayers(view=f"{nim_view.__name__}:NimView", text=f"{nim.__name__}:nim_text")


@pytest.fixture(autouse=True, scope="module")
def registered():
    """The game, registered for this module's tests only (the other tests see the package's games alone)."""
    register_game(ROW, LAYERS)
    yield
    unregister_game("Nim")
    assert row_of(nim.Nim()) is None and layers_of(nim.Nim()) is None and "Nim-v0" not in gym.registry


def test_the_package_itself_does_not_know_the_game():
    root = Path(__file__).parents[2]
    for folder in ("gym_boardgames", "agents"):
        for path in (root / folder).rglob("*.py"):
            assert "Nim" not in path.read_text(encoding="utf-8"), path


def test_gymnasium_makes_it_by_its_id_with_its_sizes_and_any_named_opponent():
    env = gym.make("Nim-v0", stones=9, opponent="alphabeta", agent_player=1, render_mode="ansi")
    check_env(env.unwrapped, skip_render_check=True)
    assert env.unwrapped.game == nim.Nim(9) and row_of(env.unwrapped.game) is ROW
    assert layers_of(env.unwrapped.game) is LAYERS
    obs, info = env.reset(seed=0)
    assert obs.sum() == 8 and list(info["action_mask"]) == [1, 1, 1]  # perfect play opens: 8 left, lost for us
    assert env.render() == "oooooooo. [took 1]\nSecond to move\n"
    _, reward, terminated, _, info = env.step(0)
    while not terminated:
        _, reward, terminated, _, info = env.step(int(np.flatnonzero(info["action_mask"])[0]))
    assert (reward, info["winner"]) == (-1.0, 0)


def test_its_view_draws_frames_and_gymnasium_vectorises_it():
    env = gym.make("Nim-v0", render_mode="rgb_array")
    env.reset(seed=1)
    frame = env.render()
    assert frame.shape == (nim_view.NimView(nim.Nim()).size[1], nim_view.NimView(nim.Nim()).size[0], 3)
    assert len(np.unique(frame.reshape(-1, 3), axis=0)) > 2  # stones and a status bar, not a blank frame
    env.close()
    envs = gym.make_vec("Nim-v0", num_envs=3, vectorization_mode="sync")
    obs, _ = envs.reset(seed=0)
    obs, reward, terminated, truncated, info = envs.step(np.zeros(3, dtype=np.int64))
    assert obs.shape == (3, 9) and reward.shape == (3,)
    envs.close()


def test_a_person_plays_it_by_clicks_in_the_play_session():
    from gym_boardgames.envs import env_for_game
    from gym_boardgames.human.session import PlaySession

    session = PlaySession(env_for_game(nim.Nim(5), opponent=None), agent=None)
    session.click(session.view._centre(2))  # the third of five stones: take three
    assert session.env.state == nim.NimState(2, 1)
    session.click(session.view._centre(0))  # two stones, take both: the second player wins
    assert session.env.episode_over and session.env.winner == 1
    assert session.png()[:4] == b"\x89PNG"


def test_alphazero_encodes_it_from_its_observation_and_saves_a_model_that_loads_it_back(tmp_path):
    from agents.alphazero import AlphaZeroAgent
    from agents.alphazero.config import NetConfig
    from agents.alphazero.encoding import ObservationEncoder, encoder_for

    game = nim.Nim(7)
    encoder = encoder_for(game)
    assert isinstance(encoder, ObservationEncoder) and encoder.shape == (2, 1, 7)
    planes = encoder.encode([game.apply(game.initial_state(), 2)])
    assert planes[0, 0, 0].tolist() == [1, 1, 1, 1, 0, 0, 0] and planes[0, 1, 0].tolist() == [1] * 7
    config = NetConfig(*encoder.shape, encoder.num_actions, channels=4, blocks=1, value_hidden=8)
    params = {name: np.full(shape, 0.1, np.float32) for name, shape in config.param_shapes().items()}
    agent = AlphaZeroAgent(game, config, params, n_simulations=200, seed=0)
    assert agent.act(game, nim.NimState(4, 0)) in (0, 1, 2)
    assert agent.act(game, nim.NimState(3, 0)) == 2  # the search finds the win in one: take all three
    agent.save(tmp_path / "nim.npz")
    assert AlphaZeroAgent.load(tmp_path / "nim.npz").game == game


def test_a_second_game_of_the_same_name_is_refused_and_the_packages_own_stay():
    with pytest.raises(ValueError, match="'Nim' is registered already"):
        register_game(ROW, LAYERS)
    with pytest.raises(ValueError, match="not a game registered with register_game"):
        unregister_game("TicTacToe")
