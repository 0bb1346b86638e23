"""Solve a small board game exactly: its value with perfect play, the reachable positions, the time.

Positions are counted once however they are reached, the empty board and terminal positions
included; play stops at a win. ConnectN boards of up to 39 cells are solved layer by layer with numpy
(4x4 with k=4: 9,722,011 positions); other games by a memoised search.

Examples:
  python scripts/solve.py tictactoe
  python scripts/solve.py connectn --rows 4 --cols 4 --n 4 --no-gravity
  python scripts/solve.py connectn --rows 4 --cols 5 --n 4
  python scripts/solve.py dots --rows 2 --cols 2
"""

from __future__ import annotations

import argparse
import json
import resource
import sys
import time

from agents.minimax import solve
from gym_boardgames.rules.registry import GAME_NAMES, make_game
from gym_boardgames.utils import write_text_atomic

RESULT_NAMES = {1.0: "first player wins", 0.0: "draw", -1.0: "second player wins"}


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    """Parse the command line."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("game", choices=GAME_NAMES, help="the game to solve")
    parser.add_argument("--rows", type=int, help="board rows (connectn) or box rows (dots)")
    parser.add_argument("--cols", type=int, help="board columns (connectn) or box columns (dots)")
    parser.add_argument("--n", type=int, help="pieces in a row to win (connectn)")
    parser.add_argument("--gravity", action=argparse.BooleanOptionalAction, default=None, help="connectn only")
    parser.add_argument("--tie-break", default="draw", choices=["draw", "second"], help="dots only")
    parser.add_argument("--seed", type=int, default=0, help="unused (solving is deterministic); kept for uniformity")
    parser.add_argument("--out", help="also write the JSON summary to this file")
    parser.add_argument("--json", action="store_true", help="print a one-line JSON summary last")
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> dict:
    """Solve the game and return the summary."""
    args = parse_args(argv)
    try:
        game = make_game(args.game, args.rows, args.cols, args.n, args.gravity, args.tie_break)
    except ValueError as error:
        sys.exit(f"error: {error}")
    start = time.perf_counter()
    value, positions = solve(game)
    seconds = time.perf_counter() - start
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # Linux reports KiB
    summary = {
        "game": repr(game),
        "value": value,
        "result": RESULT_NAMES[value],
        "positions": positions,
        "seconds": round(seconds, 3),
        "peak_memory_mb": round(peak_mb),
    }
    print(f"{game!r}: {summary['result']} (value {value:+g} for the first player)")
    print(f"{positions:,} reachable positions, solved in {seconds:.2f} s, peak memory {peak_mb:,.0f} MB")
    if args.out:
        write_text_atomic(args.out, json.dumps(summary) + "\n")
    if args.json:
        print(json.dumps(summary))
    return summary


if __name__ == "__main__":
    main()
