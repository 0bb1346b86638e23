"""agents.random_agent: a uniformly random legal move, replayed for a seed, refused when the game is over."""

from collections import Counter

import pytest

from agents.random_agent import RandomAgent
from gym_boardgames.rules import TicTacToe

GAME = TicTacToe()


def position(*moves):
    state = GAME.initial_state()
    for move in moves:
        state = GAME.apply(state, move)
    return state


def test_every_legal_move_is_played_about_equally_often_and_no_other():
    state = position(4, 0, 8)  # six free cells
    agent = RandomAgent(seed=0)
    counts = Counter(agent.act(GAME, state) for _ in range(6000))
    assert set(counts) == set(GAME.legal_actions(state))
    assert all(850 < n < 1150 for n in counts.values()), counts  # 1000 each: 150 is about 5 standard deviations


def test_the_same_seed_replays_the_same_moves():
    state = GAME.initial_state()
    first, second = RandomAgent(seed=3), RandomAgent(seed=3)
    assert [first.act(GAME, state) for _ in range(20)] == [second.act(GAME, state) for _ in range(20)]


def test_a_finished_game_has_no_move_to_play():
    won = position(0, 3, 1, 4, 2)  # X has the top row
    with pytest.raises(ValueError, match="no legal action"):
        RandomAgent(seed=0).act(GAME, won)
