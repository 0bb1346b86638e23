"""A training run keeps its best evaluated network (OUT.kept.npz) by a stated selection score, games against the
exact solver included, and plays those games as first player."""

import numpy as np
import pytest

from agents.alphazero.checkpoint import CurvePoint, kept_model_path, selection_score
from agents.alphazero.config import SelfPlayConfig, TrainConfig
from gym_boardgames.rules import TicTacToe
from gym_boardgames.rules.registry import connect_four


def point(**measured):
    return CurvePoint(1, 1.0, 2, 20, 1.0, 0.5, **measured)


def test_kept_model_path_sits_beside_the_model():
    assert kept_model_path("runs/c4.npz") == "runs/c4.kept.npz"
    assert kept_model_path("model") == "model.kept.npz"


def test_the_selection_score_adds_the_games_against_perfect_play_to_the_label_shares():
    assert selection_score(point()) is None  # nothing measured: nothing to choose by
    labels = {"outcome_kept": 0.9, "outcome_kept_critical": 0.8, "outcome_kept_other": {"random": [0.7, 0.6]}}
    assert selection_score(point(**labels)) == pytest.approx(0.75)  # the mean of the four shares
    assert selection_score(point(scores={"perfect": 0.5}, **labels)) == pytest.approx(1.25)
    assert selection_score(point(optimal_rate=0.99)) == pytest.approx(0.99)
    # A network that moves better on the label sets but loses whole games against the solver is not kept over one
    # that wins them: the games weigh as much as all the label shares together.
    sharper = point(scores={"perfect": 0.25}, outcome_kept=0.97, outcome_kept_critical=0.95)
    winning = point(scores={"perfect": 0.75}, outcome_kept=0.93, outcome_kept_critical=0.88)
    assert selection_score(winning) > selection_score(sharper)


def _tiny_trainer(tmp_path, game=None, **settings):
    from agents.alphazero.training import Trainer

    config = TrainConfig(
        iterations=3,
        games=2,
        selfplay=SelfPlayConfig(simulations=2, parallel_games=2),
        channels=4,
        blocks=1,
        value_hidden=8,
        eval_games=0,
        replay_window=64,
        **settings,
    )
    return Trainer(game or TicTacToe(), config, tmp_path / "m.npz")


@pytest.mark.slow
def test_the_run_keeps_the_network_of_its_best_evaluation_not_its_last(tmp_path, monkeypatch):
    pytest.importorskip("torch", reason="the alphazero extra (PyTorch) is needed to train")
    from agents.alphazero.agent import AlphaZeroAgent
    from agents.alphazero.training import Trainer

    trainer = _tiny_trainer(tmp_path)
    rates = iter([0.5, 0.9, 0.7])  # the second evaluation is the best
    params_at = {}

    def evaluate(self, point):
        point.optimal_rate = next(rates)
        params_at[point.iteration] = self.params()

    monkeypatch.setattr(Trainer, "_evaluate", evaluate)
    trainer.run()
    kept = AlphaZeroAgent.load(tmp_path / "m.kept.npz").params
    last = AlphaZeroAgent.load(tmp_path / "m.npz").params
    assert all(np.array_equal(kept[k], params_at[2][k]) for k in kept)
    assert not all(np.array_equal(kept[k], last[k]) for k in kept)
    assert trainer.kept_score() == pytest.approx(0.9)

    # Resumed, the run knows its best score from the saved curve: a worse evaluation leaves the kept network alone,
    # a better one replaces it.
    for rates_after, replaced in (([0.8], False), ([0.95], True)):
        resumed = Trainer.resume(tmp_path / "m.npz", iterations=resumed_iterations(tmp_path) + 1)
        rates = iter(rates_after)
        resumed.run()
        now = AlphaZeroAgent.load(tmp_path / "m.kept.npz").params
        assert all(np.array_equal(now[k], params_at[resumed.iteration][k]) for k in now) is replaced


def resumed_iterations(tmp_path):
    from agents.alphazero.checkpoint import read_training_state

    return read_training_state(tmp_path / "m.train.npz").iteration


@pytest.mark.slow
def test_games_against_perfect_play_are_played_as_first_player_and_scored_as_wins_plus_half_draws(tmp_path):
    """With the perfect player itself in the network's seat, the first player wins Connect Four every time."""
    pytest.importorskip("torch", reason="the alphazero extra (PyTorch) is needed to train")
    pytest.importorskip("numba", reason="the solver extra is needed for games against the solver in training")
    from agents.search.connect_four import PerfectAgent

    trainer = _tiny_trainer(tmp_path, game=connect_four(), perfect_games=2)
    trainer.agent = lambda simulations, seed=0: PerfectAgent(seed)
    assert trainer._perfect_play_score() == 1.0
    # And a player that throws its advantage away (always the leftmost legal column) loses both.
    trainer.agent = lambda simulations, seed=0: lambda game, state: game.legal_actions(state)[0]
    assert trainer._perfect_play_score() == 0.0


def test_perfect_games_are_refused_on_a_board_the_solver_does_not_play(tmp_path):
    pytest.importorskip("torch", reason="the alphazero extra (PyTorch) is needed to train")
    with pytest.raises(ValueError, match="gravity boards with four in a row"):
        _tiny_trainer(tmp_path, perfect_games=1)
