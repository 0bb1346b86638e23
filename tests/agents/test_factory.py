"""agents.factory.make_agent: every agent name the scripts and the envs' ``opponent`` take."""

import pytest

from agents.dots import Always4Never3Bot, EndgameBot, FirstAvailableBot
from agents.factory import AGENT_NAMES, DOTS_AGENT_NAMES, make_agent
from agents.mcts import MCTSAgent
from agents.minimax import AlphaBetaAgent
from agents.random_agent import RandomAgent
from gym_boardgames.rules import DotsAndBoxes, TicTacToe


def test_names_build_their_agents_with_their_parameters():
    assert isinstance(make_agent("random", seed=0), RandomAgent)
    assert isinstance(make_agent("alphabeta"), AlphaBetaAgent)
    assert isinstance(make_agent("alphabeta:3"), AlphaBetaAgent)
    assert isinstance(make_agent("mcts:20"), MCTSAgent)
    dots = DotsAndBoxes(1, 2)
    assert isinstance(make_agent("first_available", game=dots), FirstAvailableBot)
    assert isinstance(make_agent("always4never3", game=dots), Always4Never3Bot)
    endgame = make_agent("endgame:4", game=dots)
    assert isinstance(endgame, EndgameBot) and endgame.k == 4
    exact = make_agent("exact", game=dots)
    assert isinstance(exact, EndgameBot) and exact.k == dots.num_edges


def test_a_seed_makes_an_agent_replay_its_moves():
    game = TicTacToe()
    state = game.initial_state()
    first = [make_agent("mcts:30", seed=7).act(game, state) for _ in range(2)]
    assert first[0] == first[1]


def test_errors_name_the_valid_forms():
    assert "alphabeta[:DEPTH]" in AGENT_NAMES and "exact" in DOTS_AGENT_NAMES
    with pytest.raises(ValueError, match="alphabeta\\[:DEPTH\\]"):
        make_agent("minimax")
    with pytest.raises(ValueError, match="depth must be a positive integer"):
        make_agent("alphabeta:x")
    with pytest.raises(ValueError, match="plays Dots and Boxes only"):
        make_agent("always4never3", game=TicTacToe())
    with pytest.raises(ValueError, match="'exact' needs the game"):
        make_agent("exact")
    with pytest.raises(ValueError, match="must be a positive integer"):
        make_agent("endgame:x", game=DotsAndBoxes(1, 1))
