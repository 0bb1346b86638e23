"""The board envs' ``opponent`` takes the agent names every script takes (``agents.factory.make_agent``)."""

from __future__ import annotations

import subprocess
import sys

import gymnasium as gym
import numpy as np
import pytest

import gym_boardgames  # noqa: F401  (registers the ids)


def _play(env: gym.Env, seed: int, agent_seed: int) -> list[tuple]:
    """Play one episode with uniformly random agent moves; return the trace of observations and rewards."""
    rng = np.random.default_rng(agent_seed)
    obs, info = env.reset(seed=seed)
    trace = [obs.tobytes()]
    terminated = False
    while not terminated:
        action = int(rng.choice(np.flatnonzero(info["action_mask"])))
        obs, reward, terminated, _, info = env.step(action)
        trace.append((obs.tobytes(), reward))
    return trace


def test_alphabeta_by_name_never_loses_at_tictactoe() -> None:
    env = gym.make("TicTacToe-v0", opponent="alphabeta")
    rewards = [_play(env, seed, seed)[-1][1] for seed in range(4)]
    assert max(rewards) <= 0.0  # perfect play: the random agent never wins
    assert env.unwrapped.agent_player == 0


@pytest.mark.parametrize(
    ("env_id", "kwargs", "name"),
    [
        ("TicTacToe-v0", {}, "alphabeta:2"),
        ("TicTacToe-v0", {"agent_player": 1}, "mcts:20"),
        ("ConnectFour-v0", {}, "mcts:8"),
        ("ConnectN-v0", {"rows": 3, "cols": 4, "n": 3}, "alphabeta:3"),
        ("DotsAndBoxes-v0", {"rows": 2, "cols": 2}, "always4never3"),
        ("DotsAndBoxes-v0", {"rows": 1, "cols": 2}, "exact"),  # needs the game: the env passes it
        ("DotsAndBoxes-v0", {"rows": 2, "cols": 2}, "endgame:4"),
    ],
)
def test_named_opponents_play_whole_games(env_id: str, kwargs: dict, name: str) -> None:
    env = gym.make(env_id, opponent=name, **kwargs)
    trace = _play(env, 0, 0)
    assert len(trace) > 1


def test_a_named_opponent_is_reproducible_from_the_env_seed() -> None:
    first = gym.make("ConnectFour-v0", opponent="mcts:10")
    second = gym.make("ConnectFour-v0", opponent="mcts:10")
    assert _play(first, 7, 1) == _play(second, 7, 1)
    # The same seed again on the same env replays the same games, whatever was played in between.
    _play(first, 8, 2)
    assert _play(first, 7, 1) == _play(second, 7, 1)
    # A different seed changes the opponent's choices (MCTS breaks ties and rolls out from the seed).
    traces = {tuple(_play(first, seed, 1)) for seed in range(4)}
    assert len(traces) > 1


def test_random_stays_the_envs_own_np_random_opponent() -> None:
    env = gym.make("TicTacToe-v0", opponent="random")
    assert env.unwrapped._opponent_name == "random"
    assert "agents" not in type(env.unwrapped._opponent.__self__).__module__


@pytest.mark.parametrize("name", ["alphabeta:0", "mcts:x", "nonsense", "td:", "Random"])
def test_a_bad_name_lists_the_valid_opponents(name: str) -> None:
    with pytest.raises(ValueError, match=r"opponent") as caught:
        gym.make("TicTacToe-v0", opponent=name)
    message = str(caught.value)
    assert repr(name) in message
    for valid in ("'random'", "None", "alphabeta", "mcts", "td:FILE"):
        assert valid in message


def test_a_dots_bot_on_another_game_is_refused_with_the_valid_names() -> None:
    with pytest.raises(ValueError, match=r"Dots and Boxes.*alphabeta"):
        gym.make("TicTacToe-v0", opponent="always4never3")


def test_a_named_opponent_works_in_gymnasium_sync_vector_envs() -> None:
    envs = gym.make_vec("TicTacToe-v0", num_envs=3, vectorization_mode="sync", opponent="alphabeta")
    envs.reset(seed=0)
    agents_seen = {id(env.unwrapped._opponent.__self__) for env in envs.envs}
    assert len(agents_seen) == 3  # one agent per sub-env, not one object shared by all
    for _ in range(12):
        masks = np.stack([env.unwrapped.action_masks() for env in envs.envs])
        envs.step(np.array([int(np.flatnonzero(m)[0]) if m.any() else 0 for m in masks]))
    envs.close()


def test_importing_the_envs_and_a_random_opponent_never_import_agents() -> None:
    code = (
        "import sys, gymnasium as gym, gym_boardgames\n"
        "import gym_boardgames.envs.tictactoe, gym_boardgames.envs.connectn, gym_boardgames.envs.dots\n"
        "import gym_boardgames.vector.connect, gym_boardgames.vector.dots\n"
        "env = gym.make('TicTacToe-v0', opponent='random'); env.reset(seed=0); env.step(4)\n"
        "envs = gym.make_vec('TicTacToe-v0', num_envs=2); envs.reset(seed=0)\n"
        "print(sorted(m for m in sys.modules if m == 'agents' or m.startswith('agents.')))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_a_saved_td_player_by_name_and_its_file_errors_name_the_file(tmp_path) -> None:
    from agents.persistence import SavedFileError
    from agents.td import train_self_play
    from gym_boardgames.rules import TicTacToe

    agent = train_self_play(TicTacToe(), episodes=50, seed=0)
    agent = agent[0] if isinstance(agent, tuple) else agent
    path = tmp_path / "td.npz"
    agent.save(path)
    env = gym.make("TicTacToe-v0", opponent=f"td:{path}", agent_player=1)
    assert len(_play(env, 0, 0)) > 1
    with pytest.raises(SavedFileError, match=str(path)):
        gym.make("ConnectFour-v0", opponent=f"td:{path}")  # a tic-tac-toe table on another game
    with pytest.raises(FileNotFoundError):
        gym.make("TicTacToe-v0", opponent=f"td:{tmp_path / 'missing.npz'}")


@pytest.fixture
def provider_points(monkeypatch):
    """Replace the installed entry points of the provider group with the list the test sets (then restore)."""
    import importlib.metadata

    from gym_boardgames.opponents import opponent_provider

    points: list = []
    real = importlib.metadata.entry_points
    monkeypatch.setattr(
        importlib.metadata,
        "entry_points",
        lambda **kw: points if kw.get("group") == "gym_boardgames.opponents" else real(**kw),
    )
    opponent_provider.cache_clear()
    yield points
    opponent_provider.cache_clear()


def test_without_a_provider_a_name_is_refused_naming_the_forms_that_work(provider_points) -> None:
    with pytest.raises(ValueError) as caught:
        gym.make("TicTacToe-v0", opponent="alphabeta")
    message = str(caught.value)
    assert message.startswith("unknown opponent 'alphabeta': no agent names are installed")
    assert "'gym_boardgames.opponents'" in message and "pip install -e ." in message
    assert message.endswith(
        "use 'random', None (self-play), an object with act(game, state) -> int, or a callable (game, state) -> int"
    )
    env = gym.make("TicTacToe-v0", opponent="random")  # the other forms need no provider
    env.reset(seed=0)


def test_a_provider_that_cannot_be_imported_says_what_may_shadow_it(provider_points) -> None:
    from importlib.metadata import EntryPoint

    provider_points.append(EntryPoint("agents", "agents.no_such_module:make_opponent", "gym_boardgames.opponents"))
    with pytest.raises(ImportError, match=r"'agents.no_such_module:make_opponent'.*OpenAI Agents SDK"):
        gym.make("TicTacToe-v0", opponent="alphabeta")


def test_another_provider_builds_its_own_names_with_its_own_forms_in_the_errors(provider_points) -> None:
    from importlib.metadata import EntryPoint

    provider_points.append(EntryPoint("mine", f"{__name__}:_lowest_provider", "gym_boardgames.opponents"))
    env = gym.make("TicTacToe-v0", opponent="lowest")
    assert env.reset(seed=0)[1]["current_player"] == 0
    forms = r"'random', None \(self-play\), an agent name of the scripts \(lowest\), an object with act"
    with pytest.raises(ValueError, match=rf"^unknown opponent 'alphabeta': use {forms}"):
        gym.make("TicTacToe-v0", opponent="alphabeta")


class _Lowest:
    def act(self, game, state):
        return game.legal_actions(state)[0]


def _lowest_provider(name, game, seed=None):
    if name != "lowest":
        raise ValueError(f"unknown agent {name!r}")
    return _Lowest()


_lowest_provider.names = ("lowest",)
