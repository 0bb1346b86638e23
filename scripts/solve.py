"""Solve a small board game exactly: its value with perfect play, the reachable positions, the time.

Positions are counted once however they are reached, the empty board and terminal positions
included; play stops at a win. ConnectN boards of up to 39 cells are solved layer by layer with numpy
(4x4 with k=4: 9,722,011 positions); other games by a memoised search.

Before any work the script bounds the positions from the board's size and prints the estimate. It
refuses (exit status 2, one line) a game whose bound is over the solver's limit, 30 million positions
for the layered solver and 5 million for the memoised search (a few minutes and a couple of GB on a
2-core machine), or whose memory estimate is over the memory available; --force solves anyway. Connect
Four (6x7, 42 cells: up to 7e13 positions) is refused. Long solves show a progress bar on stderr.

Examples:
  python scripts/solve.py tictactoe
  python scripts/solve.py connectn --rows 4 --cols 4 --n 4 --no-gravity
  python scripts/solve.py connectn --rows 4 --cols 5 --n 4
  python scripts/solve.py dotsandboxes --rows 2 --cols 2
"""

from __future__ import annotations

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))  # plumbing/, peers/: also when loaded by path
from plumbing import cli  # first, before the slower imports: a Ctrl-C during them is one line (cli's hook)

# isort: split
import argparse
import math

from agents.search.solver import SolveEstimate, estimate_solve, solve
from gym_boardgames.utils import peak_rss_mb

RESULT_NAMES = {1.0: "first player wins", 0.0: "draw", -1.0: "second player wins"}
#: Solves estimated to take longer than this show a progress bar.
PROGRESS_SECONDS = 2.0


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    """Parse the command line."""
    parser = cli.make_parser(__doc__)
    cli.add_game_flags(parser, positional=True)
    cli.add_run_flags(parser, seed="unused (solving is deterministic); kept for uniformity", out=cli.OUT_HELP)
    parser.add_argument(
        "--force",
        action="store_true",
        help="solve even when the estimate is over the limit (it may run for hours or exhaust memory)",
    )
    return cli.parse_checked(parser, argv, _check_size)


def _check_size(args: argparse.Namespace) -> None:
    """Build the game (``args.made_game``) and its estimate; refuse what cannot finish, unless --force."""
    args.made_game = cli.game_from_args(args)
    args.estimate = estimate_solve(args.made_game)
    args.over_limit = refusal(args.estimate, available_memory())
    if args.over_limit is not None and not args.force:
        raise ValueError(f"{args.made_game!r} {args.over_limit}: refusing to solve (--force to try anyway)")


def _count(number: int) -> str:
    """``1,234,567`` for readable counts, ``7.1e13`` for astronomical ones (no float overflow)."""
    if number < 10**12:
        return f"{number:,}"
    exponent = int(math.log10(number))  # math.log10 takes ints of any size
    return f"{number / 10**exponent:.2g}e{exponent}"


def _size(nbytes: int) -> str:
    """Bytes as MB, GB or TB, or a power of ten past a petabyte."""
    for unit, power, digits in (("MB", 20, 0), ("GB", 30, 1), ("TB", 40, 1)):
        if nbytes < 2 ** (power + 10):
            return f"{nbytes / 2**power:,.{digits}f} {unit}"
    return f"{_count(nbytes)} bytes"


def _duration(seconds: float) -> str:
    """Seconds as s, min, h, days or years."""
    for unit, scale, top in (("s", 1, 120), ("min", 60, 120), ("h", 3600, 48), ("days", 86400, 730)):
        if seconds < top * scale:
            return f"{seconds / scale:.0f} {unit}"
    if not math.isfinite(seconds):
        return "forever"
    years = seconds / 31_557_600
    return f"{years:.0f} years" if years < 10**6 else f"{_count(int(years))} years"


def available_memory() -> int | None:
    """Return the memory the kernel says is available (``MemAvailable``, Linux), or None if unknown."""
    try:
        with open("/proc/meminfo", encoding="ascii") as meminfo:
            for line in meminfo:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    return None


def refusal(estimate: SolveEstimate, available: int | None) -> str | None:
    """Return why the solve should not start (one line, without the game), or None if it may.

    Args:
        estimate: the solve's estimate.
        available: bytes of memory available, or None if unknown.
    """
    if estimate.positions is None:
        return f"has no position bound for the {estimate.method} solver"
    if estimate.positions > estimate.limit:
        return (
            f"may have up to {_count(estimate.positions)} positions (about {_size(estimate.bytes)} and "
            f"{_duration(estimate.seconds)}); the {estimate.method} solver's limit is {estimate.limit:,}"
        )
    if available is not None and estimate.bytes > available:
        return f"may need about {_size(estimate.bytes)} of memory, and {_size(available)} is available"
    return None


def main(argv: list[str] | None = None) -> dict:
    """Solve the game and return the summary (exit status 2 on a bad option or a refused size)."""
    args = parse_args(argv)
    game, estimate, why = args.made_game, args.estimate, args.over_limit
    if estimate.positions is not None:
        print(
            f"estimate: up to {_count(estimate.positions)} positions, about {_size(estimate.bytes)} and "
            f"{_duration(estimate.seconds)} ({estimate.method} solver)"
            + (" [--force: over the limit]" if why is not None else "")
        )
    sys.stdout.flush()  # the estimate shows before a long solve, even when stdout is a pipe
    progress = why is not None or estimate.seconds is None or estimate.seconds > PROGRESS_SECONDS
    (value, positions), seconds = cli.timed(solve, game, progress=progress)
    peak_mb = peak_rss_mb()
    summary = {
        "game": repr(game),
        "value": value,
        "result": RESULT_NAMES[value],
        "positions": positions,
        "seconds": round(seconds, 3),
        "peak_memory_mb": None if peak_mb is None else round(peak_mb),
    }
    print(f"{game!r}: {summary['result']} (value {value:+g} for the first player)")
    memory = "" if peak_mb is None else f", peak memory {peak_mb:,.0f} MB"
    print(f"{positions:,} reachable positions, solved in {seconds:.2f} s{memory}")
    cli.emit_summary(summary, args.out, args.json)
    return summary


if __name__ == "__main__":
    cli.run(main)
