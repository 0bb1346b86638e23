"""``info["winner"]`` is 0, 1 or -1 for a draw, so Gymnasium's vector envs can stack it.

A None for a draw beside an int for a win in the same step made Gymnasium's ``_add_info`` raise
``TypeError`` in sync and async mode.
"""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest

import gym_boardgames  # noqa: F401  (registers the ids)
from agents.minimax import AlphaBetaAgent

# X completes 0-4-8 on the ninth move; the other sequence fills the board with no line (a draw).
WIN_SEQUENCE = [0, 1, 2, 3, 4, 5, 7, 6, 8]
DRAW_SEQUENCE = [0, 1, 2, 3, 4, 6, 5, 8, 7]


def _play_win_and_draw_side_by_side(envs: gym.vector.VectorEnv) -> dict:
    envs.reset(seed=0)
    info: dict = {}
    for a, b in zip(WIN_SEQUENCE, DRAW_SEQUENCE, strict=True):
        _, _, terminated, _, info = envs.step(np.array([a, b]))
    assert terminated.tolist() == [True, True]
    return info


@pytest.mark.parametrize("mode", ["sync", "async"])
def test_gymnasium_vector_envs_over_the_single_envs_stack_a_win_beside_a_draw(mode: str) -> None:
    envs = gym.make_vec("TicTacToe-v0", num_envs=2, vectorization_mode=mode, opponent=None)
    try:
        info = _play_win_and_draw_side_by_side(envs)
    finally:
        # A failed async step leaves the workers waiting; terminate them so a failure cannot hang the test.
        if mode == "async":
            envs.close(terminate=True)
        else:
            envs.close()
    assert info["winner"].tolist() == [0, -1]
    assert info["_winner"].tolist() == [True, True]


def test_native_vector_env_agrees_with_the_single_envs_on_a_win_and_a_draw() -> None:
    native = gym.make_vec("TicTacToe-v0", num_envs=2, opponent=None)
    info = _play_win_and_draw_side_by_side(native)
    assert info["winner"].tolist() == [0, -1] and info["_winner"].tolist() == [True, True]
    for sequence, expected in ((WIN_SEQUENCE, 0), (DRAW_SEQUENCE, -1)):
        env = gym.make("TicTacToe-v0", opponent=None)
        env.reset(seed=0)
        for move in sequence:
            _, _, terminated, _, single = env.step(move)
        assert terminated and single["winner"] == expected and env.unwrapped.winner == expected


def test_eight_sync_envs_against_alphabeta_run_through_autoresets() -> None:
    envs = gym.make_vec("TicTacToe-v0", num_envs=8, vectorization_mode="sync", opponent=AlphaBetaAgent(seed=0))
    envs.reset(seed=0)
    rng = np.random.default_rng(0)
    ended = 0
    for _ in range(30):
        masks = np.stack([env.unwrapped.action_masks() for env in envs.envs])
        actions = np.array([rng.choice(np.flatnonzero(m)) if m.any() else 0 for m in masks])
        _, _, terminated, _, info = envs.step(actions)
        if terminated.any():
            ended += int(terminated.sum())
            assert set(info["winner"][terminated].tolist()) <= {-1, 0, 1}
    envs.close()
    assert ended > 8  # many games ended, draws among them, and nothing crashed


def test_single_env_draw_is_minus_one_and_winner_is_none_only_while_the_game_goes_on() -> None:
    env = gym.make("TicTacToe-v0", opponent=None)
    env.reset(seed=0)
    assert env.unwrapped.winner is None
    for move in DRAW_SEQUENCE[:-1]:
        env.step(move)
        assert env.unwrapped.winner is None
    _, reward, terminated, _, info = env.step(DRAW_SEQUENCE[-1])
    assert terminated and reward == 0.0
    assert info["winner"] == -1 and type(info["winner"]) is int
    assert env.unwrapped.winner == -1
    assert env.unwrapped.status_text() == "Draw"
    env.reset()
    assert env.unwrapped.winner is None


def test_connectn_draw_is_minus_one() -> None:
    env = gym.make("ConnectN-v0", rows=1, cols=2, n=2, opponent=None)
    env.reset(seed=0)
    env.step(0)
    _, reward, terminated, _, info = env.step(1)  # the board is full, no line of two
    assert terminated and reward == 0.0 and info["winner"] == -1 == env.unwrapped.winner


def test_dots_draw_is_minus_one() -> None:
    env = gym.make("DotsAndBoxes-v0", rows=1, cols=2, opponent=None)
    env.reset(seed=0)
    game = env.unwrapped.game
    state = game.initial_state()
    found = None
    stack = [(state, [])]
    while stack and found is None:  # a depth-first search for a drawn game (7 edges: quick)
        state, moves = stack.pop()
        if game.is_terminal(state):
            if game.returns(state) == (0.0, 0.0):
                found = moves
            continue
        for action in game.legal_actions(state):
            stack.append((game.apply(state, action), [*moves, action]))
    assert found is not None
    for move in found:
        _, reward, terminated, _, info = env.step(move)
    assert terminated and info["winner"] == -1 and info["scores"] == [1, 1]
