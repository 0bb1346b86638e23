"""agents.provider: the agent names of the envs' ``opponent=``, registered as an entry point and built for the game."""

import pytest

from agents.dots import EndgameBot
from agents.factory import AGENT_NAMES, DOTS_AGENT_NAMES
from agents.minimax import AlphaBetaAgent
from agents.provider import make_opponent
from gym_boardgames.rules import DotsAndBoxes, TicTacToe


def test_agent_names_come_from_the_provider_agents_registers_as_an_entry_point():
    from importlib.metadata import entry_points

    from agents.provider import make_opponent
    from gym_boardgames.opponents import PROVIDER_GROUP, opponent_provider

    registered = {point.value for point in entry_points(group=PROVIDER_GROUP)}
    assert "agents.provider:make_opponent" in registered, (
        "the entry point of pyproject.toml is not installed: run pip install -e . after editing pyproject.toml"
    )
    assert opponent_provider() is make_opponent
    assert "alphabeta[:DEPTH]" in make_opponent.names and "exact" in make_opponent.names


def test_a_name_is_built_for_the_game_it_plays():
    assert make_opponent.names == AGENT_NAMES + DOTS_AGENT_NAMES
    assert isinstance(make_opponent("alphabeta", TicTacToe(), seed=0), AlphaBetaAgent)
    dots = DotsAndBoxes(1, 2)
    exact = make_opponent("exact", dots, seed=0)
    assert isinstance(exact, EndgameBot) and exact.k == dots.num_edges  # the game's own edge count
    with pytest.raises(ValueError, match="plays Dots and Boxes only"):
        make_opponent("exact", TicTacToe())
    with pytest.raises(ValueError, match="unknown agent 'nobody'"):
        make_opponent("nobody", TicTacToe())
