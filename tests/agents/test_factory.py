"""agents.factory.make_agent: every agent name the scripts and the envs' ``opponent`` take."""

import gymnasium as gym
import pytest

import gym_boardgames  # noqa: F401  (registers the ids)
from agents.dots import Always4Never3Bot, EndgameBot, FirstAvailableBot
from agents.factory import AGENT_KINDS, agent_forms, default_opponent, make_agent, suggested_opponents
from agents.random_agent import RandomAgent
from agents.search.mcts import MCTSAgent
from agents.search.minimax import AlphaBetaAgent
from gym_boardgames.rules import ConnectN, DotsAndBoxes, TicTacToe


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
    assert "alphabeta[:DEPTH]" in agent_forms(dots=False) and "exact" not in agent_forms(dots=False)
    assert agent_forms(dots=True)[-3:] == ["exact", "module:Class", "file.py:Class"]
    assert all(form.startswith(kind) for kind, form in ((k, v.form) for k, v in AGENT_KINDS.items()))
    with pytest.raises(ValueError, match="alphabeta\\[:DEPTH\\]"):
        make_agent("minimax")
    with pytest.raises(ValueError, match=r"the depth must be an integer in \[1, 400\], got 'x'"):
        make_agent("alphabeta:x")
    with pytest.raises(ValueError, match="plays Dots and Boxes only"):
        make_agent("always4never3", game=TicTacToe())
    with pytest.raises(ValueError, match="'exact' needs the game"):
        make_agent("exact")
    with pytest.raises(ValueError, match=r"K \(the last moves played exactly\) must be an integer >= 1, got 'x'"):
        make_agent("endgame:x", game=DotsAndBoxes(1, 1))


# ---- bounds on the counts in names ---------------------------------------------------------------
# From the reliability issue: ``opponent="mcts:99999999999999999999"`` hung the first ``step()``.


HUGE = "99999999999999999999"


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        (f"mcts:{HUGE}", r"the simulations must be an integer in \[1, 10000000\], got 9+$"),
        ("mcts:10000001", r"the simulations must be an integer in \[1, 10000000\], got 10000001"),
        ("alphabeta:401", r"the depth must be an integer in \[1, 400\], got 401"),
        (f"alphabeta:{HUGE}", r"the depth must be an integer in \[1, 400\], got 9+$"),
        ("alphazero:1000001", r"the simulations must be an integer in \[0, 1000000\], got 1000001"),
    ],
)
def test_agent_names_refuse_counts_past_their_bounds_naming_the_range(spec, message):
    with pytest.raises(ValueError, match=rf"bad agent '{spec}': {message}"):
        make_agent(spec)


def test_agent_names_at_their_bounds_are_built():
    assert make_agent("mcts:10000000").n_simulations == 10**7
    assert make_agent("alphabeta:400").depth == 400


def test_an_env_refuses_a_huge_mcts_opponent_when_made_not_at_its_first_step():
    with pytest.raises(ValueError, match=r"bad opponent 'mcts:9+'.*in \[1, 10000000\], got 9+;"):
        gym.make("TicTacToe-v0", opponent=f"mcts:{HUGE}")


@pytest.mark.parametrize(
    "game, expected",
    [
        (TicTacToe(), "alphabeta"),
        (ConnectN(6, 7, 4, gravity=True), "alphazero"),
        (DotsAndBoxes(3, 3), "exact"),
        (DotsAndBoxes(2, 2), "alphabeta"),
        (DotsAndBoxes(4, 4), "mcts"),
        (ConnectN(9, 9, 5, gravity=False), "mcts"),
    ],
)
def test_the_default_opponent_is_one_that_answers_at_once(game, expected):
    assert default_opponent(game) == expected
    offered = suggested_opponents(game)
    assert offered[0] == expected and "random" in offered and len(offered) == len(set(offered))
    for name in offered:
        make_agent(name, seed=0, game=game)  # every offered name builds for the game


def test_the_default_dots_opponent_plays_from_the_shipped_table_without_solving(monkeypatch):
    from agents.dots import layer_table

    layer_table.solved_table.cache_clear()
    monkeypatch.setattr(layer_table, "solve_layers", lambda *a, **k: pytest.fail("solved instead of read"))
    try:
        game = DotsAndBoxes(3, 3)
        agent = make_agent(default_opponent(game), seed=0, game=game)
        state = game.apply(game.initial_state(), 0)
        assert game.is_legal(state, agent.act(game, state))
    finally:
        layer_table.solved_table.cache_clear()
