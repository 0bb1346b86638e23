"""AlphaZero training: the loss falls on a fixed batch; a short real training reaches 90% optimal tic-tac-toe moves."""

import os
import sys
from pathlib import Path

import numpy as np
import pytest

from agents.alphazero.agent import AlphaZeroAgent
from agents.alphazero.config import SelfPlayConfig
from gym_boardgames.rules import TicTacToe

sys.path.insert(0, str(Path(__file__).parent))  # importlib import mode: put the sibling helper on the path
from alphazero_helpers import play, random_line  # noqa: E402


@pytest.mark.slow
def test_loss_falls_on_a_fixed_batch():
    pytest.importorskip("torch", reason="the alphazero extra (PyTorch) is needed to train")
    from agents.alphazero.config import TrainConfig
    from agents.alphazero.training import Trainer

    game = TicTacToe()
    trainer = Trainer(game, TrainConfig(channels=16, blocks=1, selfplay=SelfPlayConfig()), os.devnull)
    encoder = trainer.encoder
    rng = np.random.default_rng(0)
    states = [play(game, random_line(game, rng, max_moves=int(rng.integers(0, 7)))) for _ in range(64)]
    states = [s for s in states if not game.is_terminal(s)]
    planes = encoder.encode(states)
    policies = np.zeros((len(states), encoder.num_actions), dtype=np.float32)
    for i, s in enumerate(states):
        policies[i, game.legal_actions(s)[0]] = 1.0
    values = rng.choice([-1.0, 0.0, 1.0], size=len(states)).astype(np.float32)
    before = [float(x.detach()) for x in trainer.loss(planes, policies, values)]
    trainer.model.train()
    for _ in range(60):
        p_loss, v_loss = trainer.loss(planes, policies, values)
        trainer.optimizer.zero_grad()
        (p_loss + v_loss).backward()
        trainer.optimizer.step()
    after = [float(x.detach()) for x in trainer.loss(planes, policies, values)]
    assert after[0] < 0.5 * before[0] and after[1] < 0.5 * before[1]


@pytest.mark.slow
def test_a_short_tictactoe_training_makes_the_raw_network_optimal_in_90_percent_of_positions(tmp_path):
    pytest.importorskip("torch", reason="the alphazero extra (PyTorch) is needed to train")
    from agents.alphazero.config import TrainConfig
    from agents.alphazero.evaluation import greedy_moves
    from agents.alphazero.training import Trainer
    from agents.matches.grading import ExactValues, optimal_move_rate

    game = TicTacToe()
    config = TrainConfig(
        iterations=8,
        games=64,
        selfplay=SelfPlayConfig(simulations=32, parallel_games=64, temperature_moves=9),
        channels=32,
        blocks=2,
        epochs=24.0,
        replay_window=20_000,
        eval_every=0,
        inference="numpy",
    )
    out = tmp_path / "ttt.npz"
    trainer = Trainer(game, config, out)
    trainer.run()
    agent = AlphaZeroAgent.load(out, n_simulations=0)
    exact = ExactValues(game)
    states = exact.non_terminal_states()
    assert len(states) == 4520
    rate = optimal_move_rate(exact, greedy_moves(agent.evaluator, game), states)
    assert rate >= 0.90, f"the raw network is optimal in only {100 * rate:.1f}% of the 4,520 positions"
    # and the training state resumes where it stopped
    resumed = Trainer.resume(out, iterations=9)
    assert resumed.iteration == 8 and resumed.games == trainer.games and resumed.replay.size == trainer.replay.size
    for name, value in trainer.params().items():
        np.testing.assert_array_equal(resumed.params()[name], value)
    resumed.run()
    assert resumed.iteration == 9
