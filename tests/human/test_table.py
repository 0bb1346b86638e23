"""gym_boardgames.human.table: the one builder of the play doors resolves a game, an opponent, a side, the hints and a
seed once, into the Table every door makes its sessions from."""

import pytest

pytest.importorskip("pygame")

from gym_boardgames.human.table import resolve  # noqa: E402
from gym_boardgames.rules.registry import make_game  # noqa: E402


def test_size_options_go_with_a_name_not_a_rules_object():
    with pytest.raises(ValueError, match=r"^size options \(rows\) go with a game's name, not a rules object$"):
        resolve(make_game("connectfour"), rows=5)


def test_the_builder_offers_the_chosen_opponent_first_then_the_suggested_ones():
    table = resolve("connectfour", "mcts:10", seed=3)
    assert table.opponent == "mcts:10" and table.title == "Connect Four" and table.seed == 3
    assert list(table.opponents)[1:] and len(set(table.opponents)) == len(table.opponents)
    default = resolve("tictactoe")
    assert default.opponent == "alphabeta" and default.side == "first"


def test_an_object_opponent_is_offered_under_its_name_and_played_as_it_is():
    class Last:
        def act(self, game, state):
            return game.legal_actions(state)[-1]

    agent = Last()
    table = resolve("tictactoe", agent, side="second")
    session = table.session()
    try:
        assert table.opponent == "Last" and session.agent.agent is agent and session.side == 1
    finally:
        session.close()


def test_a_person_on_both_sides_gets_no_agent():
    session = resolve("tictactoe", side="both").session()
    assert session.both_sides and session.agent is None and session.name == ""
    session.close()
