"""The native vector envs take the scripts' agent names as ``opponent`` too."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest

import gym_boardgames  # noqa: F401  (registers the ids)


def _run(envs: gym.vector.VectorEnv, seed: int, steps: int) -> list[bytes]:
    """Step with the first legal action of each sub-env; return every observation batch."""
    obs, info = envs.reset(seed=seed)
    trace = [obs.tobytes()]
    for _ in range(steps):
        mask = info["action_mask"]
        actions = np.where(mask.any(axis=1), mask.argmax(axis=1), 0)
        obs, rewards, terminated, _, info = envs.step(actions)
        trace.append(obs.tobytes() + rewards.tobytes() + terminated.tobytes())
    return trace


def test_native_vector_env_plays_alphabeta_by_name_and_never_loses() -> None:
    envs = gym.make_vec("TicTacToe-v0", num_envs=4, opponent="alphabeta", agent_player="random")
    envs.reset(seed=0)
    rng = np.random.default_rng(0)
    info = envs.reset(seed=0)[1]
    finished = 0
    for _ in range(40):
        mask = info["action_mask"]
        actions = np.array([rng.choice(np.flatnonzero(m)) if m.any() else 0 for m in mask])
        _, rewards, terminated, _, info = envs.step(actions)
        finished += int(terminated.sum())
        assert (rewards <= 0).all()  # perfect play: the random agent never wins
        # After the step it is the agent's turn in every game still going.
        going = ~terminated
        assert (info["current_player"][going] == envs.unwrapped.agent_player[going]).all()
    assert finished >= 4


@pytest.mark.parametrize(
    ("env_id", "kwargs", "name"),
    [("ConnectFour-v0", {}, "mcts:8"), ("DotsAndBoxes-v0", {"rows": 2, "cols": 2}, "always4never3")],
)
def test_native_named_opponent_is_reproducible_from_the_seed(env_id: str, kwargs: dict, name: str) -> None:
    first = gym.make_vec(env_id, num_envs=3, opponent=name, agent_player=1, **kwargs)
    second = gym.make_vec(env_id, num_envs=3, opponent=name, agent_player=1, **kwargs)
    assert _run(first, 5, 25) == _run(second, 5, 25)
    assert _run(first, 5, 25) == _run(second, 5, 25)  # the same seed on a used env replays the same games


def test_native_vector_env_bad_name_lists_the_valid_opponents() -> None:
    with pytest.raises(ValueError, match=r"unknown opponent 'grandmaster'.*'random', None.*alphabeta"):
        gym.make_vec("TicTacToe-v0", num_envs=2, opponent="grandmaster")


def test_native_vector_env_still_refuses_agent_objects_and_points_to_sync_mode() -> None:
    from agents.minimax import AlphaBetaAgent

    with pytest.raises(ValueError, match="vectorization_mode='sync'"):
        gym.make_vec("TicTacToe-v0", num_envs=2, opponent=AlphaBetaAgent())
