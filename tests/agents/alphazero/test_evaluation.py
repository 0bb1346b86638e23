"""agents.alphazero.evaluation: greedy moves in batches, the perfect opponent, and the recorder of positions."""

import numpy as np

from agents.alphazero.evaluation import ExactPlayer, RecordingAgent, greedy_moves
from agents.matches.grading import ExactValues
from gym_boardgames.rules import TicTacToe

GAME = TicTacToe()


class FavouriteCell:
    """Puts most of the prior on the first free cell from the end of the board; records each batch's size."""

    def __init__(self):
        self.batches = []

    def evaluate(self, game, states):
        self.batches.append(len(states))
        priors = np.full((len(states), game.num_actions), 0.01)
        for row, state in zip(priors, states, strict=True):
            row[max(game.legal_actions(state))] = 1.0
        return priors, np.zeros(len(states))


def positions(count):
    state, states = GAME.initial_state(), []
    for move in range(count):
        states.append(state)
        state = GAME.apply(state, move)
    return states


def test_greedy_moves_are_the_evaluators_argmax_evaluated_in_batches():
    evaluator = FavouriteCell()
    states = positions(5)
    assert greedy_moves(evaluator, GAME, batch=2)(states) == [8] * 5
    assert evaluator.batches == [2, 2, 1]


def test_the_exact_player_keeps_the_game_value_and_varies_among_the_best_moves():
    exact = ExactValues(GAME)
    start = GAME.initial_state()
    moves = {ExactPlayer(exact, seed=seed).act(GAME, start) for seed in range(40)}
    assert all(exact.is_optimal(start, move) for move in moves)
    assert len(moves) > 1  # every opening of tic-tac-toe keeps the draw: the choice is random among them
    # X in two opposite corners, O in the centre: O must take an edge, as a corner loses to a double threat.
    trap = GAME.apply(GAME.apply(GAME.apply(start, 0), 4), 8)
    assert {ExactPlayer(exact, seed=seed).act(GAME, trap) for seed in range(40)} == {1, 3, 5, 7}


def test_the_recorder_keeps_every_position_it_was_asked_and_passes_on_moves_and_resets():
    class Lowest:
        resets = 0

        def act(self, game, state):
            return min(game.legal_actions(state))

        def reset(self):
            self.resets += 1

        def __repr__(self):
            return "Lowest()"

    inner = Lowest()
    recorder = RecordingAgent(inner)
    states = positions(3)
    assert [recorder.act(GAME, s) for s in states] == [0, 1, 2]
    assert recorder.states == states and repr(recorder) == "Lowest()"
    recorder.reset()
    assert inner.resets == 1
    RecordingAgent(lambda game, state: 0).reset()  # an agent without reset is fine
