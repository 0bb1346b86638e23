"""The arena alternates seats and counts results per seat."""

import pytest

from agents.matches.arena import play_game, play_match
from agents.search.minimax import AlphaBetaAgent
from gym_boardgames.opponents import Opponent
from gym_boardgames.rules import DotsAndBoxes, TicTacToe


def test_seats_alternate_and_counts_add_up():
    result = play_match(TicTacToe(), "random", "random", 101, seed=0)
    assert result.first.games == 51 and result.second.games == 50
    assert result.total.games == 101
    # Random play: the first player wins more often than the second.
    assert result.first.win > result.second.win


def test_perfect_play_against_itself_draws_every_game():
    result = play_match(TicTacToe(), AlphaBetaAgent(seed=0), AlphaBetaAgent(seed=1), 10, seed=0)
    assert result.total.as_dict() == {"win": 0, "draw": 10, "loss": 0}


def test_perfect_player_never_loses_to_random_from_either_seat():
    result = play_match(TicTacToe(), AlphaBetaAgent(seed=0), "random", 40, seed=3)
    assert result.first.loss == 0 and result.second.loss == 0
    assert result.first.win > 15


def test_works_on_dots_and_boxes_with_extra_turns():
    # 2x2 Dots and Boxes is a first-player win, so perfect play wins every game from the first seat.
    result = play_match(DotsAndBoxes(2, 2), AlphaBetaAgent(seed=0), "random", 20, seed=1)
    assert result.first.as_dict() == {"win": 10, "draw": 0, "loss": 0}
    assert result.second.win > result.second.loss


def test_a_move_outside_the_game_or_illegal_is_refused_naming_the_agent():
    with pytest.raises(ValueError, match=r"^agent .*<lambda> played 99, which is not an integer in 0\.\.8$"):
        play_game(TicTacToe(), lambda game, state: 99, "random")
    first_cell = Opponent(lambda game, state: 0, "first-cell")  # as scripts/arena.py builds agents: named by spec
    with pytest.raises(ValueError, match=r"^agent first-cell played 0, which is an illegal move here: legal actions"):
        play_game(TicTacToe(), first_cell, first_cell)


def test_bad_arguments():
    with pytest.raises(ValueError, match="games must be an integer >= 1, got 0"):
        play_match(TicTacToe(), "random", "random", 0)
    with pytest.raises(ValueError, match="unknown agent name"):
        play_match(TicTacToe(), "minimax", "random", 1)
    with pytest.raises(ValueError, match="is not an agent"):
        play_match(TicTacToe(), 42, "random", 1)


def test_on_move_sees_every_move_in_order():
    game = DotsAndBoxes(1, 1)
    moves = []
    first_free = lambda g, s: g.legal_actions(s)[0]  # noqa: E731
    payoff = play_game(game, first_free, first_free, lambda *move: moves.append(move))
    assert [action for _, action, _ in moves] == [0, 1, 2, 3]
    state = game.initial_state()
    for before, action, after in moves:
        assert before == state and after == game.apply(state, action)
        state = after
    # Players alternate (0, 1, 0, 1); the fourth edge completes the box for player 1.
    assert payoff == game.returns(state) == (-1.0, 1.0)


# ---- scripts/arena.py with a user's agent that fails or holds the GIL ---------------------------------------


def _arena_script(tmp_path, body, *extra):
    """Run scripts/arena.py as a user does, ``random`` against the ``Bot`` of a file holding ``body``."""
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parents[3]
    (tmp_path / "bot.py").write_text(body)
    spec = f"{tmp_path / 'bot.py'}:Bot"
    argv = [sys.executable, str(root / "scripts" / "arena.py"), "--agents", "random", spec, "--games", "2", *extra]
    done = subprocess.run(argv, cwd=root, capture_output=True, text=True, timeout=30)  # a hang fails here
    lines = [line for line in done.stderr.replace("\r", "\n").splitlines() if line.strip() and "arena:" not in line]
    return spec, done, lines


def test_a_users_agent_raising_its_own_base_exception_is_one_line_in_the_arena(tmp_path):
    body = (
        "class Mine(BaseException):\n    pass\nclass Bot:\n    def act(self, game, state):\n        raise Mine('no')\n"
    )
    spec, done, lines = _arena_script(tmp_path, body)
    assert done.returncode == 1 and "Traceback" not in done.stderr, done.stderr
    assert lines == [f"arena.py: error: agent {spec}: its act() raised Mine: no"]


def test_a_gil_holding_users_agent_ends_the_arena_at_its_move_time(tmp_path):
    body = "import re\nclass Bot:\n    def act(self, game, state):\n        re.match(r'(a+)+$', 'a' * 40 + 'b')\n"
    spec, done, lines = _arena_script(tmp_path, body, "--move-time", "1")
    assert done.returncode == 1 and "Traceback" not in done.stderr, done.stderr
    assert lines == [f"arena.py: error: agent {spec}: its act() did not answer within 1 s (--move-time)"]
