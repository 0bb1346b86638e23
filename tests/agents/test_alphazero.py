"""AlphaZero: encodings and symmetries against the rules, the network in numpy and PyTorch, files, the agent,
and a short real training that must reach 90% optimal moves in tic-tac-toe."""

import os

import numpy as np
import pytest

from agents.alphazero.agent import AlphaZeroAgent, NetworkEvaluator, game_from_spec, game_spec
from agents.alphazero.encoding import encoder_for
from agents.alphazero.network import NetConfig, NumpyNet
from agents.alphazero.selfplay import SelfPlayConfig, play_games
from agents.persistence import SavedFileError
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


# ---- encodings and symmetries -----------------------------------------------------------------------


@pytest.mark.parametrize("game", GAMES, ids=IDS)
def test_symmetries_map_positions_legal_moves_and_policies_as_the_rules_do(game):
    """Play a random line and its image under each symmetry through the rules: the encodings and legal moves
    of the two end positions must be each other's images."""
    encoder = encoder_for(game)
    rng = np.random.default_rng(0)
    for _ in range(25):
        moves = random_line(game, rng)
        state = play(game, moves)
        if game.is_terminal(state):
            continue
        planes = encoder.encode([state])
        for sym in encoder.symmetries:
            new_of = np.empty_like(sym.action_perm)
            new_of[sym.action_perm] = np.arange(len(sym.action_perm))  # old action -> new action
            image = play(game, [int(new_of[m]) for m in moves])
            expected_planes, _ = encoder.augment(
                planes, np.zeros((1, encoder.num_actions)), np.array([sym_index(encoder, sym)])
            )
            np.testing.assert_array_equal(encoder.encode([image]), expected_planes, err_msg=sym.name)
            legal = np.zeros(encoder.num_actions)
            legal[game.legal_actions(state)] = 1.0
            _, legal_image = encoder.augment(planes, legal[None, :], np.array([sym_index(encoder, sym)]))
            assert sorted(np.flatnonzero(legal_image[0])) == sorted(game.legal_actions(image)), sym.name
            policy = rng.random(encoder.num_actions)
            _, moved = encoder.augment(planes, policy[None, :], np.array([sym_index(encoder, sym)]))
            for old in range(encoder.num_actions):
                assert moved[0, new_of[old]] == policy[old]


def sym_index(encoder, sym):
    return next(i for i, s in enumerate(encoder.symmetries) if s.name == sym.name)


def test_symmetry_groups_are_the_boards_own():
    names = {repr(g): [s.name for s in encoder_for(g).symmetries] for g in GAMES}
    assert len(names["TicTacToe()"]) == 8
    assert names[repr(ConnectN(6, 7, 4, True))] == ["identity", "mirror"]
    assert len(names[repr(ConnectN(4, 6, 3, False))]) == 4
    assert len(names[repr(DotsAndBoxes(3, 3))]) == 8 and len(names[repr(DotsAndBoxes(2, 3))]) == 4


def test_encoding_is_from_the_movers_side():
    game = TicTacToe()
    encoder = encoder_for(game)
    x_moved = game.apply(game.initial_state(), 4)  # O to move: X's piece is the opponent's
    planes = encoder.encode([game.initial_state(), x_moved])
    assert planes[0, 0].sum() == 0 and planes[0, 2].all()  # empty board, player 0 (X) to move
    assert planes[1, 1, 1, 1] == 1 and planes[1, 0].sum() == 0 and not planes[1, 2].any()


# ---- the network ------------------------------------------------------------------------------------


@pytest.mark.parametrize("game", [TicTacToe(), ConnectN(6, 7, 4, True), DotsAndBoxes(2, 3)], ids=repr)
def test_numpy_forward_pass_equals_pytorch_to_1e_5(game):
    torch = pytest.importorskip("torch", reason="the alphazero extra (PyTorch) is needed to compare")
    from agents.alphazero.torch_model import PolicyValueNet, load_params

    encoder = encoder_for(game)
    config = NetConfig(*encoder.shape, encoder.num_actions, channels=16, blocks=2, value_hidden=32)
    params = random_params(config, seed=1)
    model = PolicyValueNet(config)
    load_params(model, params)
    model.eval()
    rng = np.random.default_rng(0)
    states = [play(game, random_line(game, rng, max_moves=int(rng.integers(0, 6)))) for _ in range(32)]
    planes = encoder.encode(states)
    with torch.no_grad():
        logits, values = model(torch.from_numpy(planes))
    np_logits, np_values = NumpyNet(config, params).forward(planes)
    np.testing.assert_allclose(np_logits, logits.numpy(), atol=1e-5)
    np.testing.assert_allclose(np_values, values.numpy(), atol=1e-5)


@pytest.mark.slow
def test_loss_falls_on_a_fixed_batch():
    pytest.importorskip("torch", reason="the alphazero extra (PyTorch) is needed to train")
    from agents.alphazero.config import TrainConfig
    from agents.alphazero.selfplay import SelfPlayConfig
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


# ---- the agent and its files ------------------------------------------------------------------------


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
    assert game_spec(loaded.game) == game_spec(game)
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
    meta = {"game": {"name": "connectn", "rows": 10**6, "cols": 10**6, "n": 4, "gravity": True}, "net": {}}
    save_npz(path, {"x": np.zeros(1, np.float32)}, format="gym_boardgames.alphazero", version=1, meta=meta)
    with pytest.raises(SavedFileError, match="rows"):
        AlphaZeroAgent.load(path)


def test_game_specs_round_trip():
    for game in GAMES:
        assert game_spec(game_from_spec(game_spec(game))) == game_spec(game)
    with pytest.raises(ValueError, match="does not take"):
        game_from_spec({"name": "tictactoe", "rows": 3})


def test_network_evaluator_refuses_another_game():
    agent = small_agent(TicTacToe())
    with pytest.raises(ValueError, match="plays"):
        NetworkEvaluator(TicTacToe(), agent.evaluator.net).evaluate(ConnectN(6, 7, 4, True), [])


# ---- a real (short) training -------------------------------------------------------------------------


@pytest.mark.slow
def test_a_short_tictactoe_training_makes_the_raw_network_optimal_in_90_percent_of_positions(tmp_path):
    pytest.importorskip("torch", reason="the alphazero extra (PyTorch) is needed to train")
    from agents.alphazero.config import TrainConfig
    from agents.alphazero.evaluation import greedy_moves
    from agents.alphazero.selfplay import SelfPlayConfig
    from agents.alphazero.training import Trainer
    from agents.grading import ExactValues, optimal_move_rate

    game = TicTacToe()
    config = TrainConfig(
        iterations=8,
        games_per_iteration=64,
        selfplay=SelfPlayConfig(n_simulations=32, parallel_games=64, temperature_moves=9),
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


class _ZeroEvaluator:
    def evaluate(self, game, states):
        from agents.evaluators import uniform_priors

        return uniform_priors(game, states), np.zeros(len(states))


def test_random_openings_start_games_elsewhere_and_are_not_recorded():
    config = SelfPlayConfig(n_simulations=4, parallel_games=8, random_opening_moves=4)
    encoder = encoder_for(TicTacToe())
    samples, summaries = play_games(TicTacToe(), encoder, _ZeroEvaluator(), 16, config, np.random.default_rng(0))
    first_planes = []
    start = 0
    for summary in summaries:
        first_planes.append(samples.planes[start].tobytes())
        start += summary.moves
    # Games of tic-tac-toe start from the empty board without openings; with them, from several positions.
    assert len(set(first_planes)) > 3
    assert min(s.moves for s in summaries) < 5 <= max(s.moves for s in summaries)


def _poisoned(tmp_path, name, change):
    """Save a tic-tac-toe model whose parameters ``change`` edits in place; return its path."""
    agent = small_agent(TicTacToe())
    params = {k: v.copy() for k, v in agent.params.items()}
    change(params)
    path = tmp_path / name
    from agents.alphazero.agent import FORMAT, VERSION
    from agents.persistence import save_npz

    # Written as AlphaZeroAgent.save writes (the constructor itself refuses such parameters).
    meta = {"game": game_spec(TicTacToe()), "net": agent.config.to_dict(), "info": {}}
    save_npz(path, params, format=FORMAT, version=VERSION, meta=meta)
    return path


def test_poisoned_models_are_refused_at_load_naming_the_file(tmp_path):
    def negative_variance(params):
        params["stem.bn.running_var"][0] = -1.0

    def overflow_when_folded(params):
        params["stem.conv.weight"][:] = 3e38
        params["stem.bn.weight"][:] = 10.0

    for name, change, message in (
        ("var.npz", negative_variance, "running_var"),
        ("huge.npz", overflow_when_folded, "overflows float32"),
    ):
        path = _poisoned(tmp_path, name, change)
        with pytest.raises(SavedFileError, match=f"{name}.*{message}"):
            AlphaZeroAgent.load(path)


def test_a_network_too_costly_per_position_is_refused_from_a_small_file(tmp_path):
    from agents.persistence import save_npz

    # 512 channels on a 64x64 board: a few hundred bytes of metadata, billions of multiply-adds per call.
    meta = {
        "game": {"name": "connectn", "rows": 64, "cols": 64, "n": 5, "gravity": False},
        "net": {"in_planes": 4, "height": 64, "width": 64, "num_actions": 4096, "channels": 512, "blocks": 1},
    }
    path = tmp_path / "costly.npz"
    save_npz(path, {"x": np.zeros(1, np.float32)}, format="gym_boardgames.alphazero", version=1, meta=meta)
    with pytest.raises(SavedFileError, match="multiply-adds per position"):
        AlphaZeroAgent.load(path)


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
