"""The shipped models' known positions: what a retrained model must keep getting right."""

import pytest

from gym_boardgames.rules import ConnectN

# Issue 19's blind spot (columns played, 0-based; the first player to move). The exact solver (BitBully, via
# scripts/label_connectfour.py's SolverPlayer) scores the moves 2 and 4 as wins and 6 as a loss; the 0.2.0
# network put 0.43 of its prior on 6 with a value of +0.94 and played 6 at 0, 100, 800 and 3,200 simulations.
BLIND_SPOT = "333330244442"
BLIND_SPOT_WINS = {2, 4}


@pytest.mark.parametrize("simulations", [0, 100])
def test_the_shipped_connect_four_model_wins_its_old_blind_spot(simulations):
    from agents.alphazero import load_pretrained

    game = ConnectN(6, 7, 4, True)
    state = game.initial_state()
    for column in BLIND_SPOT:
        state = game.apply(state, int(column))
    assert game.current_player(state) == 0
    agent = load_pretrained("connectfour", n_simulations=simulations, seed=0)
    assert agent.act(game, state) in BLIND_SPOT_WINS
