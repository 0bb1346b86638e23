"""The AlphaZero agent: its evaluations, its search, its files, the game they record and its bounds."""

import json
import sys
from pathlib import Path

import numpy as np
import pytest

from agents.alphazero.agent import AlphaZeroAgent, NetworkEvaluator, pretrained_path
from agents.alphazero.encoding import recorded_game
from agents.persistence import SavedFileError
from gym_boardgames.rules import ConnectN, DotsAndBoxes, TicTacToe
from gym_boardgames.rules.registry import connect_four, game_to_config

sys.path.insert(0, str(Path(__file__).parent))  # importlib import mode: put the sibling helper on the path
from alphazero_helpers import GAMES, play, random_line, small_agent  # noqa: E402


@pytest.mark.parametrize("game", [TicTacToe(), ConnectN(4, 5, 4, True), DotsAndBoxes(2, 2)], ids=repr)
def test_evaluate_gives_distributions_over_legal_moves_and_values_in_range(game):
    agent = small_agent(game)
    rng = np.random.default_rng(0)
    states = [play(game, random_line(game, rng, max_moves=int(rng.integers(0, 5)))) for _ in range(20)]
    states = [s for s in states if not game.is_terminal(s)]
    priors, values = agent.evaluate(game, states)
    assert priors.shape == (len(states), game.num_actions) and values.shape == (len(states),)
    for row, state in zip(priors, states, strict=True):
        illegal = np.setdiff1d(np.arange(game.num_actions), game.legal_actions(state))
        assert np.all(row[illegal] == 0) and row.sum() == pytest.approx(1.0)
    assert np.all(np.abs(values) <= 1.0)


def test_the_search_takes_a_win_and_blocks_a_loss_in_one_even_with_an_untrained_network():
    game = ConnectN(6, 7, 4, True)
    win = play(game, [0, 6, 1, 6, 2, 5])  # X has 0-2 on the bottom row: 3 wins
    block = play(game, [0, 6, 0, 6, 1, 6])  # O has three in column 6: only 6 saves X
    for seed in range(3):
        assert small_agent(game, 200, seed).act(game, win) == 3
        assert small_agent(game, 400, seed).act(game, block) == 6


def test_save_and_load_round_trip_gives_identical_outputs(tmp_path):
    game = ConnectN(4, 5, 4, True)
    agent = small_agent(game)
    path = tmp_path / "model.npz"
    agent.save(path)
    loaded = AlphaZeroAgent.load(path, n_simulations=50, seed=0)
    assert game_to_config(loaded.game) == game_to_config(game)
    states = [play(game, [0, 1, 2]), play(game, [4])]
    for got, want in zip(loaded.evaluate(game, states), agent.evaluate(game, states), strict=True):
        np.testing.assert_array_equal(got, want)
    assert loaded.act(game, states[0]) == small_agent(game).act(game, states[0])


def test_loading_checks_the_game_and_refuses_damaged_files(tmp_path):
    game = TicTacToe()
    path = tmp_path / "model.npz"
    small_agent(game).save(path)
    with pytest.raises(SavedFileError, match="not of"):
        AlphaZeroAgent.load(path, game=ConnectN(6, 7, 4, True))
    raw = path.read_bytes()
    damaged = tmp_path / "damaged.npz"
    damaged.write_bytes(raw[: len(raw) // 2])
    with pytest.raises(SavedFileError, match="damaged.npz"):
        AlphaZeroAgent.load(damaged)
    flipped = bytearray(raw)
    for i in range(200, len(flipped), 97):
        flipped[i] ^= 0xFF
    damaged.write_bytes(bytes(flipped))
    with pytest.raises(SavedFileError, match="damaged.npz"):
        AlphaZeroAgent.load(damaged)


def test_a_model_file_naming_a_huge_board_is_refused_before_building_it(tmp_path):
    from agents.persistence import save_npz

    path = tmp_path / "huge.npz"
    meta = {"game": {"class": "ConnectN", "config": [10**6, 10**6, 4, True]}, "net": {}}
    save_npz(path, {"x": np.zeros(1, np.float32)}, format="gym_boardgames.alphazero", version=1, meta=meta)
    with pytest.raises(SavedFileError, match="rows"):
        AlphaZeroAgent.load(path)


def header_game(path):
    with np.load(path, allow_pickle=False) as data:
        return json.loads(str(data["__header__"]))["meta"]["game"]


def test_a_model_records_its_game_as_every_saved_file_does_and_the_shipped_models_too(tmp_path):
    for game in GAMES:
        small_agent(game).save(tmp_path / "model.npz")
        assert header_game(tmp_path / "model.npz") == game_to_config(game)
        assert recorded_game(game_to_config(game))[0] == game
    assert header_game(pretrained_path("tictactoe")) == game_to_config(TicTacToe())
    assert recorded_game(header_game(pretrained_path("connectfour")))[0] == connect_four()
    with pytest.raises(ValueError, match="'class' and 'config'"):  # the older record {"name": ...} is gone
        recorded_game({"name": "tictactoe"})
    with pytest.raises(ValueError, match="no AlphaZero encoder"):
        recorded_game({"class": "GridWorld", "config": None})


def test_network_evaluator_refuses_another_game():
    agent = small_agent(TicTacToe())
    with pytest.raises(ValueError, match="plays"):
        NetworkEvaluator(TicTacToe(), agent.evaluator.net).evaluate(ConnectN(6, 7, 4, True), [])


def test_shipped_models_play_without_pytorch():
    """Right after `pip install -e .` (no deep-learning library) the shipped models load and play."""
    import subprocess
    import sys

    code = (
        "import sys; sys.modules['torch'] = None  # as if PyTorch were not installed\n"
        "from agents.alphazero import load_pretrained\n"
        "from agents.factory import make_agent\n"
        "from gym_boardgames.rules import ConnectN, TicTacToe\n"
        "for name, game in (('tictactoe', TicTacToe()), ('connectfour', ConnectN(6, 7, 4, True))):\n"
        "    agent = load_pretrained(name, n_simulations=20, seed=0)\n"
        "    assert agent.act(game, game.initial_state()) in game.legal_actions(game.initial_state())\n"
        "    assert make_agent('alphazero:5', game=game).n_simulations == 5\n"
        "print('ok')\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert result.returncode == 0 and result.stdout.strip() == "ok", result.stderr


def test_the_raw_network_never_plays_an_illegal_move_and_never_searches_on_nan(monkeypatch):
    game = TicTacToe()
    agent = small_agent(game, n_simulations=0)
    state = play(game, [4, 0])  # cells 4 and 0 are taken

    def favours_a_taken_cell(_game, states):
        priors = np.zeros((len(states), 9))
        priors[:, 4] = 1.0  # whatever the network says about an occupied cell
        priors[:, 8] = 0.1
        return priors, np.zeros(len(states))

    monkeypatch.setattr(agent, "evaluate", favours_a_taken_cell)
    assert agent.act(game, state) == 8
    broken = small_agent(game, n_simulations=0)
    monkeypatch.setattr(
        broken.evaluator.net, "forward", lambda planes: (np.full((len(planes), 9), np.nan), np.zeros(len(planes)))
    )
    with pytest.raises(ValueError, match="not finite"):
        broken.act(game, state)


def test_simulations_are_bounded():
    with pytest.raises(ValueError, match=r"n_simulations .* in \[0, 1000000\]"):
        small_agent(TicTacToe(), n_simulations=10**12)
