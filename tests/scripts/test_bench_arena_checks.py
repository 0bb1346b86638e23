"""bench.py and arena.py turn the library's refusals of their flags into one-line usage errors, before any work.

From the reliability issue: ``bench.py --num-envs 1000000000000`` printed the vector envs' message as a
traceback, and ``arena.py`` with ``alphabeta`` on a 64x64 board failed at the first move, mid-match.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))  # importlib import mode: put the sibling helper on the path
from script_helpers import load_script  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
TOO_MANY = "1000000000000"  # 10^12 games: far past the vector envs' 512 MiB limit for any board
LONG_BOARD = ["--game", "connectn", "--rows", "64", "--cols", "64", "--gravity"]


def run(script, *args):
    return subprocess.run([sys.executable, str(ROOT / "scripts" / script), *args], capture_output=True, text=True)


def assert_usage_error(result, prefix, *words):
    """Exit status 2, no traceback, nothing on stdout, and the last stderr line ``prefix`` with ``words``."""
    assert result.returncode == 2, result.stderr
    assert "Traceback" not in result.stderr
    assert result.stdout == ""
    last = result.stderr.strip().splitlines()[-1]
    assert last.startswith(prefix), last
    assert all(word in last for word in words), last


# ---- bench.py --------------------------------------------------------------------------------------


@pytest.mark.parametrize("flag", ["--num-envs", "--memory-envs"])
def test_bench_refuses_a_vector_size_past_the_limit_while_parsing(flag, capsys):
    with pytest.raises(SystemExit) as info:
        load_script("bench").parse_args(["--games", "TicTacToe-v0", flag, TOO_MANY])
    assert info.value.code == 2
    last = capsys.readouterr().err.strip().splitlines()[-1]
    # In process the program name is pytest's: the command-line tests below check "bench.py: error:".
    assert f"error: {flag} {TOO_MANY} (TicTacToe-v0): num_envs={TOO_MANY}" in last and "MAX_BATCH_BYTES" in last


def test_bench_accepts_sizes_within_the_limit():
    args = load_script("bench").parse_args(["--games", "TicTacToe-v0", "--num-envs", "1", "64", "--memory-envs", "8"])
    assert args.num_envs == [1, 64] and args.memory_envs == 8


def test_bench_command_line_reports_a_huge_num_envs_in_one_line():
    result = run(
        "bench.py", "--games", "TicTacToe-v0", "--moves", "1", "--warmup", "0", "--repeats", "1",
        "--no-agents", "--memory-envs", "0", "--num-envs", TOO_MANY,
    )  # fmt: skip
    assert_usage_error(result, f"bench.py: error: --num-envs {TOO_MANY} (TicTacToe-v0):", "MAX_BATCH_BYTES")


# ---- arena.py --------------------------------------------------------------------------------------


def test_arena_refuses_exact_alphabeta_on_a_64x64_board_in_one_line():
    result = run("arena.py", *LONG_BOARD, "--agents", "random", "alphabeta", "--games", "1")
    assert_usage_error(result, "arena.py: error: --agents alphabeta: exact alpha-beta could search", "MAX_SEARCH_PLIES")


def test_arena_checks_every_agent_before_the_first_match(monkeypatch, capsys):
    arena = load_script("arena")

    def no_match(*args, **kwargs):
        raise AssertionError("a match started before every agent was checked")

    monkeypatch.setattr(arena, "play_match", no_match)
    # The refused agent comes last: "random vs random" would be played first if agents were checked lazily.
    with pytest.raises(SystemExit) as info:
        arena.main([*LONG_BOARD, "--agents", "random", "random", "alphabeta", "--games", "1"])
    assert info.value.code == 2
    assert "--agents alphabeta: exact alpha-beta" in capsys.readouterr().err


def test_arena_plays_a_depth_limited_alphabeta_on_a_long_board(monkeypatch):
    arena = load_script("arena")
    played = []
    monkeypatch.setattr(arena, "play_match", lambda game, a, b, games, **kwargs: played.append((a, b)) or _Record())
    arena.main([*LONG_BOARD, "--agents", "random", "alphabeta:2", "--games", "1"])
    assert len(played) == 1 and played[0][1].agent.depth == 2


class _Record:
    """The part of agents.matches.arena.MatchResult the arena script reads."""

    def as_dict(self):
        side = {"win": 0, "draw": 0, "loss": 0}
        return {"first": side, "second": side, "total": side}
