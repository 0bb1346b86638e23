"""Helpers of the AlphaZero tests: the games, random lines of play, and small untrained agents."""

import numpy as np

from agents.alphazero.agent import AlphaZeroAgent
from agents.alphazero.config import NetConfig
from agents.alphazero.encoding import encoder_for
from gym_boardgames.rules import ConnectN, DotsAndBoxes, TicTacToe

GAMES = [
    TicTacToe(),
    ConnectN(6, 7, 4, True),
    ConnectN(4, 5, 4, True),
    ConnectN(4, 6, 3, False),
    ConnectN(6, 6, 4, False),
    DotsAndBoxes(3, 3),
    DotsAndBoxes(2, 3),
]


IDS = [repr(g) for g in GAMES]


def random_line(game, rng, max_moves=None):
    """A random legal move sequence from the start (may end the game)."""
    state, moves = game.initial_state(), []
    limit = max_moves if max_moves is not None else int(rng.integers(0, game.num_actions))
    while not game.is_terminal(state) and len(moves) < limit:
        legal = game.legal_actions(state)
        move = legal[int(rng.integers(len(legal)))]
        moves.append(move)
        state = game.apply(state, move)
    return moves


def play(game, moves):
    state = game.initial_state()
    for move in moves:
        state = game.apply(state, move)
    return state


def random_params(config, seed=0):
    rng = np.random.default_rng(seed)
    params = {}
    for name, shape in config.param_shapes().items():
        if name.endswith("running_var"):
            params[name] = rng.uniform(0.5, 2.0, shape).astype(np.float32)
        elif name.endswith("bn.weight"):
            params[name] = rng.uniform(0.5, 1.5, shape).astype(np.float32)
        else:
            params[name] = (0.2 * rng.standard_normal(shape)).astype(np.float32)
    return params


def small_agent(game, n_simulations=50, seed=0):
    encoder = encoder_for(game)
    config = NetConfig(*encoder.shape, encoder.num_actions, channels=8, blocks=1, value_hidden=16)
    return AlphaZeroAgent(game, config, random_params(config, seed), n_simulations=n_simulations, seed=seed)
