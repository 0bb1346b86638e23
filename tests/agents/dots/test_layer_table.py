"""The exact layered solver against brute force, partial solves, and the table's file format."""

import sys
from pathlib import Path

import numpy as np
import pytest

from agents.dots import LayeredValueAgent, LayerTable, solve_layers
from agents.persistence import save_npz
from agents.search.minimax import alphabeta
from gym_boardgames.rules import DotsAndBoxes

sys.path.insert(0, str(Path(__file__).parent))  # importlib import mode: put the sibling helper on the path
from dots_helpers import bitmask, brute_force_best_moves, brute_force_q, full_3x3_table, random_position  # noqa: E402


@pytest.mark.parametrize("rows, cols", [(1, 1), (1, 2), (2, 2)])
def test_solve_layers_equals_brute_force_minimax_on_every_position(rows, cols):
    game = DotsAndBoxes(rows, cols)
    table = solve_layers(game)
    memo = brute_force_q(game)
    assert len(memo) == 2**game.num_edges - 1  # every edge set but the full board is reachable
    solved = {bitmask(edges): q for edges, q in memo.items()}
    expected = np.array([solved.get(key, 0) for key in range(2**game.num_edges)], dtype=np.int8)
    np.testing.assert_array_equal(table.values, expected)
    # And the moves it calls best are exactly the brute-force maximisers, on every position with a choice.
    state_of = {}
    stack = [game.initial_state()]
    while stack:
        state = stack.pop()
        if state.edges in state_of or game.is_terminal(state):
            continue
        state_of[state.edges] = state
        stack.extend(game.apply(state, a) for a in game.legal_actions(state))
    for state in state_of.values():
        assert table.best_moves(state) == brute_force_best_moves(game, memo, state)
        assert table.value(state) == table.value(bitmask(state.edges)) == memo[state.edges]


def test_known_values_of_the_empty_boards():
    # First-player margins 2 V(empty) - boxes: 1x1 -1, 1x2 0, 2x2 +2 (a first-player win, as in Winning Ways).
    margins = {(1, 1): -1, (1, 2): 0, (2, 2): 2, (2, 3): -2}
    for (rows, cols), margin in margins.items():
        game = DotsAndBoxes(rows, cols)
        assert solve_layers(game).margin(game.initial_state()) == margin
    # Alpha-beta (win/draw/loss, a different algorithm on the full state) agrees on who wins 2x2 and 1x2.
    assert alphabeta(DotsAndBoxes(2, 2), DotsAndBoxes(2, 2).initial_state())[0] == 1.0
    assert alphabeta(DotsAndBoxes(1, 2), DotsAndBoxes(1, 2).initial_state())[0] == 0.0


@pytest.mark.slow
def test_full_3x3_board_solves_and_the_second_player_wins_by_3():
    game = DotsAndBoxes(3, 3)
    table = full_3x3_table()
    assert table.values.shape == (2**24,) and table.last_k == 24
    assert table.value(game.initial_state()) == 3 and table.margin(game.initial_state()) == -3
    assert table.best_moves(game.initial_state()) == list(range(24))  # every opening loses by exactly 3


@pytest.mark.slow
def test_3x3_values_agree_with_brute_force_on_random_endgames():
    game = DotsAndBoxes(3, 3)
    table = full_3x3_table()
    rng = np.random.default_rng(7)
    for _ in range(12):
        state = random_position(game, rng, 13)  # 11 edges left: at most 2**11 sub-positions each
        memo = brute_force_q(game, state)
        for edges, q in memo.items():
            assert table.value(bitmask(edges)) == q
        assert table.best_moves(state) == brute_force_best_moves(game, memo, state)


def test_last_k_solves_only_the_last_layers():
    game = DotsAndBoxes(2, 2)
    full, partial = solve_layers(game), solve_layers(game, last_k=5)
    left = np.array([12 - bin(k).count("1") for k in range(2**12)])
    np.testing.assert_array_equal(partial.values[left <= 5], full.values[left <= 5])
    assert np.all(partial.values[left > 5] == -1)
    with pytest.raises(ValueError, match="at most 5 edges left, not 12"):
        partial.value(game.initial_state())
    # best_moves needs the children only: one layer beyond last_k works, two do not.
    six_left = random_position(game, np.random.default_rng(0), 6)
    assert partial.best_moves(six_left) == full.best_moves(six_left)
    with pytest.raises(ValueError, match="at most 5 edges left"):
        partial.best_moves(random_position(game, np.random.default_rng(0), 5))


def test_solver_rejects_boards_it_cannot_hold_and_foreign_games():
    with pytest.raises(ValueError, match="more than the 26"):
        solve_layers(DotsAndBoxes(3, 4))
    with pytest.raises(ValueError, match="last_k must be"):
        solve_layers(DotsAndBoxes(1, 1), last_k=-1)
    with pytest.raises(ValueError, match="play Dots and Boxes"):
        solve_layers(object())
    with pytest.raises(ValueError, match="has 12"):
        solve_layers(DotsAndBoxes(1, 1)).value(DotsAndBoxes(2, 2).initial_state())


def test_table_save_load_round_trip(tmp_path):
    table = solve_layers(DotsAndBoxes(2, 2), last_k=7)
    table.save(tmp_path / "t.npz")
    loaded = LayerTable.load(tmp_path / "t.npz")
    assert (loaded.rows, loaded.cols, loaded.last_k) == (2, 2, 7)
    np.testing.assert_array_equal(loaded.values, table.values)


def test_corrupt_and_foreign_table_files_raise_clear_errors(tmp_path):
    table = solve_layers(DotsAndBoxes(1, 1))
    table.save(tmp_path / "t.npz")
    agent = LayeredValueAgent(seed=0)
    agent.train(DotsAndBoxes(1, 1), "random", 3)
    agent.save(tmp_path / "q.npz")

    raw = (tmp_path / "t.npz").read_bytes()
    (tmp_path / "cut.npz").write_bytes(raw[: len(raw) // 2])
    with pytest.raises(ValueError, match="cut.npz: .*(corrupt|truncated)"):
        LayerTable.load(tmp_path / "cut.npz")
    np.savez(tmp_path / "foreign.npz", q=np.zeros(16, np.int8))
    with pytest.raises(ValueError, match="not a gym_boardgames file"):
        LayerTable.load(tmp_path / "foreign.npz")
    with pytest.raises(ValueError, match="expected 'gym_boardgames.dots.layer_table'"):
        LayerTable.load(tmp_path / "q.npz")

    # Right header, impossible content.
    meta = {"rows": 1, "cols": 1, "last_k": 4}
    bad = table.values.copy()
    bad[0] = 7
    save_npz(tmp_path / "bad.npz", {"q": bad}, format=LayerTable.FORMAT, version=1, meta=meta)
    with pytest.raises(ValueError, match=r"bad.npz: .q. must hold 0..1 in the solved layers"):
        LayerTable.load(tmp_path / "bad.npz")
    save_npz(tmp_path / "short.npz", {"q": bad[:8]}, format=LayerTable.FORMAT, version=1, meta=meta)
    with pytest.raises(ValueError, match="shape \\(8,\\), expected \\(16,\\)"):
        LayerTable.load(tmp_path / "short.npz")
    with pytest.raises(FileNotFoundError):
        LayerTable.load(tmp_path / "missing.npz")


def test_the_shipped_3x3_table_is_the_solved_one():
    from agents.dots.layer_table import SHIPPED_TABLES

    shipped = LayerTable.load(SHIPPED_TABLES[3, 3])
    assert (shipped.rows, shipped.cols, shipped.last_k) == (3, 3, 24)
    np.testing.assert_array_equal(shipped.values, full_3x3_table().values)


def test_solved_table_reads_the_shipped_table_and_solves_other_boards_once(monkeypatch):
    from agents.dots import layer_table

    layer_table.solved_table.cache_clear()
    solves = []
    real_solve = layer_table.solve_layers

    def counted(game, last_k=None, **kwargs):
        solves.append((game.rows, game.cols, last_k))
        return real_solve(game, last_k, **kwargs)

    monkeypatch.setattr(layer_table, "solve_layers", counted)
    try:
        assert layer_table.solved_table(3, 3).last_k == 24 and solves == []  # read, not solved
        first = layer_table.solved_table(2, 2)
        assert layer_table.solved_table(2, 2) is first and solves == [(2, 2, None)]
    finally:
        layer_table.solved_table.cache_clear()


def test_tables_are_saved_with_lzma(tmp_path):
    import zipfile

    solve_layers(DotsAndBoxes(1, 2)).save(tmp_path / "t.npz")
    with zipfile.ZipFile(tmp_path / "t.npz") as archive:
        assert {info.compress_type for info in archive.infolist()} == {zipfile.ZIP_LZMA}
