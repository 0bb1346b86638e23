"""agents.matches.ladder: rounds stop by width and budget, the results file round-trips and refuses damage."""

import json

import pytest

from agents.matches.ladder import (
    Block,
    Budget,
    block_runner,
    build_agent,
    plan_round,
    play_block,
    read_results,
    run_ladder,
    write_results,
)
from gym_boardgames.rules import TicTacToe
from gym_boardgames.rules.registry import make_game

GAME = TicTacToe()
NAMES = ["random", "x", "y"]


def block(a, b, wins, draws, losses, index=0):
    """A block of ``a`` against ``b`` with ``a``'s results, all from the first seat."""
    return Block(a, b, index, 0, (wins, draws, losses), (0, 0, 0))


def test_the_first_round_opens_every_pair_with_one_block():
    tasks = plan_round(NAMES, [], Budget(block=6), seed=3, played=0)
    assert tasks == [("random", "x", 0, 3, 6), ("random", "y", 0, 3, 6), ("x", "y", 0, 3, 6)]


def test_pairs_close_when_both_intervals_are_narrow_or_the_pair_has_its_games():
    close = [block("random", "x", 400, 200, 400), block("random", "y", 400, 200, 400)]
    assert plan_round(NAMES, close, Budget(target_width=150, max_games=2000), 0, 0) == [
        ("x", "y", 0, 0, 10)
    ]  # x-y never met
    assert plan_round(NAMES, close, Budget(target_width=40, max_games=2000), 0, 0)[0] == ("random", "x", 1, 0, 10)
    full = Budget(target_width=1, max_games=1005)
    assert plan_round(NAMES, close, full, 0, 0) == [
        ("random", "x", 1, 0, 5),
        ("random", "y", 1, 0, 5),
        ("x", "y", 0, 0, 10),
    ]


def test_the_run_total_caps_the_round():
    assert plan_round(NAMES, [], Budget(max_total=25), 0, played=12) == [
        ("random", "x", 0, 0, 10),
        ("random", "y", 0, 0, 3),
    ]
    assert plan_round(NAMES, [], Budget(max_total=25), 0, played=25) == []


def test_the_results_file_round_trips_and_an_empty_or_missing_one_is_a_new_ladder(tmp_path):
    path = tmp_path / "ladder.jsonl"
    assert read_results(path, GAME) == []
    blocks = [block("random", "x", 1, 2, 3), Block("x", "y", 4, 7, (1, 0, 0), (0, 1, 1))]
    write_results(path, GAME, blocks)
    assert read_results(path, GAME) == blocks
    assert json.loads(path.read_text().splitlines()[0]) == {"format": "gym-boardgames ladder 1", "game": "TicTacToe()"}
    path.write_text("")
    assert read_results(path, GAME) == []


@pytest.mark.parametrize(
    ("damage", "message"),
    [
        (lambda text: text[:-9], "line 3 is not a ladder block"),  # a torn last line
        (lambda text: text.replace('"a": "random"', '"a": "zzz"'), "line 2 is not a ladder block"),  # a > b
        (lambda text: text.replace("[1, 2, 3]", "[1, -2, 3]"), "line 2 is not a ladder block"),
        (lambda text: text.replace('"index": 0', '"index": 0, "extra": 1'), "line 2 is not a ladder block"),
        (lambda text: "col1,col2\n" + text, "is not a ladder results file"),
        (lambda text: text.replace("TicTacToe()", "ConnectN(rows=4)"), "is a ladder of ConnectN"),
    ],
)
def test_a_damaged_or_foreign_results_file_is_refused_naming_the_line(tmp_path, damage, message):
    path = tmp_path / "ladder.jsonl"
    write_results(path, GAME, [block("random", "x", 1, 2, 3), block("x", "y", 1, 0, 0)])
    path.write_text(damage(path.read_text()))
    with pytest.raises(ValueError, match=message):
        read_results(path, GAME)


def test_a_block_is_the_same_from_the_same_seed_and_counts_both_seats():
    task = ("alphabeta:1", "random", 2, 7, 9)
    played = play_block(GAME, task)
    assert play_block(GAME, task) == played and played.games == 9 and sum(played.first) == 5
    assert (played.a, played.b, played.index, played.seed) == ("alphabeta:1", "random", 2, 7)


def test_the_ladder_ranks_alphabeta_above_its_depth_one_cut_above_random():
    names = ["random", "alphabeta:1", "alphabeta"]
    saved = []
    with block_runner(GAME) as run:
        ratings, new = run_ladder(GAME, names, [], Budget(max_games=40), 0, run, saved.append)
    assert ratings.low[1] > ratings.high[0] and ratings.low[2] > ratings.high[1]  # intervals apart: 0 < d1 < exact
    assert sum(b.games for b in new) == 120 and saved[-1] == new  # three pairs of 40, every round saved


AGENT_FILE = """
class First:
    def __init__(self, seed=None):
        self.seed = seed

    def act(self, game, state):
        return min(game.legal_actions(state))
"""


def test_a_users_class_joins_by_file_path_or_module(tmp_path, monkeypatch):
    (tmp_path / "my_agents.py").write_text(
        AGENT_FILE
        + "\nclass NoAct:\n    pass\n\nclass Broken:\n    def __init__(self):\n        raise OSError('x')\n"
        + "\ndef lowest(game, state):\n    return int(game.legal_actions(state)[0])\n"
    )
    # With no move time the agent is built in this process, where its seed can be read.
    agent = build_agent(f"{tmp_path}/my_agents.py:First", 5, GAME, None)
    assert agent.agent.seed == 5 and agent.act(GAME, GAME.initial_state()) == 0
    assert build_agent(f"{tmp_path}/my_agents.py:First", 5, GAME).act(GAME, GAME.initial_state()) == 0  # its child
    monkeypatch.syspath_prepend(str(tmp_path))
    assert build_agent("my_agents:First", 6, GAME, None).agent.seed == 6
    assert build_agent("my_agents:lowest", 6, GAME).act(GAME, GAME.initial_state()) == 0  # a function is a policy
    for spec, message in [
        ("my_agents:Missing", r"^agent my_agents:Missing: my_agents has no class or function 'Missing'$"),
        ("my_agents:NoAct", r"^agent my_agents:NoAct is <my_agents.NoAct object .*>: it needs act\(game, state\)"),
        ("my_agents:Broken", r"^agent my_agents:Broken: its constructor raised OSError: x$"),
        ("no_such_module:First", r"^agent no_such_module:First: loading no_such_module raised ModuleNotFoundError"),
        (f"{tmp_path}/none.py:First", r"no file .*none\.py$"),
    ]:
        with pytest.raises(ValueError, match=message):
            build_agent(spec, 0, GAME)


def test_factory_names_with_colons_stay_the_factorys():
    assert type(build_agent("mcts:5", 0, GAME).agent).__name__ == "MCTSAgent"
    with pytest.raises(ValueError, match="plays Dots and Boxes only"):
        build_agent("endgame:3", 0, GAME)
    assert type(build_agent("endgame:3", 0, make_game("dotsandboxes", rows=2, cols=2)).agent).__name__ == "EndgameBot"
