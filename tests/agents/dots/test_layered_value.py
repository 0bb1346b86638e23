"""The layered value learner: estimates of unseen positions, the backward update, play, settings and files."""

import sys
from pathlib import Path

import numpy as np
import pytest

from agents.dots import Always4Never3Bot, FirstAvailableBot, LayeredValueAgent, RandomBot, solve_layers
from agents.matches.arena import play_match
from agents.persistence import save_npz
from gym_boardgames.rules import DotsAndBoxes

sys.path.insert(0, str(Path(__file__).parent))  # importlib import mode: put the sibling helper on the path
from dots_helpers import bitmask, random_position  # noqa: E402


def test_unseen_positions_are_estimated_from_known_siblings_or_half_the_boxes_left():
    game = DotsAndBoxes(1, 2)  # edges: tops 0 1, bottoms 2 3, verticals 4 5 6
    agent = LayeredValueAgent(seed=0)
    state = game.apply(game.apply(game.initial_state(), 0), 2)  # box 0 has top and bottom; 2 boxes left
    # Nothing known: a non-scoring move leaves the opponent half of 2 boxes, so f = 2 - 1 = 1 everywhere.
    assert agent.move_values(game, state) == {1: 1.0, 3: 1.0, 4: 1.0, 5: 1.0, 6: 1.0}
    # One known sibling is not enough for a mean; two are.
    agent.layers[4][bitmask(game.apply(state, 1).edges)] = 2.0
    assert agent.move_values(game, state)[3] == 1.0 and agent.move_values(game, state)[1] == 0.0
    agent.layers[4][bitmask(game.apply(state, 3).edges)] = 1.0
    values = agent.move_values(game, state)
    assert values[1] == 0.0 and values[3] == 1.0 and values[4] == values[5] == values[6] == 2 - 1.5


def test_update_walks_the_game_backwards_with_the_learning_rate():
    game = DotsAndBoxes(1, 1)  # four edges; the last one always takes the box
    agent = LayeredValueAgent(lr=0.5, explore=0.0, seed=0)
    agent.train(game, FirstAvailableBot(), 1)
    layers = agent.layers
    # One game visits one position per layer. Layer 1: f = 1 exactly; old estimate 1/2 -> 1/2 + (1 - 1/2)/2.
    assert [len(layer) for layer in layers] == [1, 1, 1, 1, 1]
    assert list(layers[1].values()) == [0.75]
    # Layer 2 (2 edges left, 1 box): both moves give the box away; the learned child is worth 0.75 to the
    # opponent, the unseen one 0.5 (no two known siblings), so the target is max(1 - 0.75, 1 - 0.5) = 0.5.
    assert list(layers[2].values()) == [0.5 + 0.5 * (0.5 - 0.5)]
    before = [dict(layer) for layer in layers]
    agent.lr = 0.0
    agent.train(game, FirstAvailableBot(), 5)  # lr = 0 learns nothing
    assert [dict(layer) for layer in agent.layers] == before and agent.games_trained == 6


def test_layered_q_agent_after_a_short_run_beats_random_clearly():
    game = DotsAndBoxes(3, 3, tie_break="second")
    agent = LayeredValueAgent(lr=1.0, seed=0)
    training = agent.train(game, RandomBot(seed=1), 500)
    assert training.total.win + training.total.loss == 500 and agent.num_states > 5000
    result = play_match(game, agent, RandomBot(seed=2), 200)
    assert result.total.win >= 185


def test_training_teaches_more_than_greedy_box_taking():
    # Untrained, the agent already takes every box (its estimates favour scoring); learning must add more.
    game = DotsAndBoxes(2, 2, tie_break="second")
    untrained, trained = LayeredValueAgent(seed=0), LayeredValueAgent(lr=1.0, seed=0)
    trained.train(game, RandomBot(seed=1), 1000)
    before = play_match(game, untrained, Always4Never3Bot(seed=3), 200).total.win
    after = play_match(game, trained, Always4Never3Bot(seed=3), 200).total.win
    assert after >= 60 and after >= 2 * before


def test_agent_checks_its_settings_and_board():
    for kwargs in ({"lr": 1.5}, {"lr": -0.1}, {"explore": 2.0}, {"lr": float("nan")}):
        with pytest.raises(ValueError, match="must be a number in \\[0, 1\\]"):
            LayeredValueAgent(**kwargs)
    agent = LayeredValueAgent(seed=0)
    agent.train(DotsAndBoxes(1, 1), "random", 2)
    with pytest.raises(ValueError, match="learned 1x1 boxes, not 2x2"):
        agent.act(DotsAndBoxes(2, 2), DotsAndBoxes(2, 2).initial_state())
    with pytest.raises(ValueError, match="illegal move"):
        LayeredValueAgent(seed=0).train(DotsAndBoxes(1, 1), lambda game, state: 0, 1)


def test_agent_save_load_round_trip(tmp_path):
    game = DotsAndBoxes(2, 2)
    agent = LayeredValueAgent(lr=0.2, explore=0.5, seed=0)
    agent.train(game, RandomBot(seed=1), 50)
    agent.save(tmp_path / "q.npz")
    loaded = LayeredValueAgent.load(tmp_path / "q.npz", seed=9)
    assert (loaded.lr, loaded.explore, loaded.games_trained) == (0.2, 0.5, 50)
    assert loaded.layers == agent.layers
    state = random_position(game, np.random.default_rng(3), 4)
    assert loaded.move_values(game, state) == agent.move_values(game, state)
    with pytest.raises(ValueError, match="nothing to save"):
        LayeredValueAgent().save(tmp_path / "empty.npz")


def test_corrupt_and_foreign_agent_files_raise_clear_errors(tmp_path):
    solve_layers(DotsAndBoxes(1, 1)).save(tmp_path / "t.npz")
    with pytest.raises(ValueError, match="expected 'gym_boardgames.dots.layered_q'"):
        LayeredValueAgent.load(tmp_path / "t.npz")
    arrays = {"keys": np.array([15, 99], np.uint64), "values": np.array([0.0, 0.5])}
    q_meta = {"rows": 1, "cols": 1, "lr": 0.1, "explore": 0.5, "games_trained": 1}
    save_npz(tmp_path / "badq.npz", arrays, format=LayeredValueAgent.FORMAT, version=1, meta=q_meta)
    with pytest.raises(ValueError, match="badq.npz: .keys. must be distinct bitmasks of 4 edges"):
        LayeredValueAgent.load(tmp_path / "badq.npz")
