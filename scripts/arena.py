"""Round-robin matches between named agents on any board game, with seats alternating.

Agents: random, alphabeta[:DEPTH], mcts[:SIMULATIONS], td:FILE (a file saved for the same game), and on
dots also first_available, always4never3, endgame:K, exact. Each pair plays --games games (the row agent
moves first in half of them); the table gives the row agent's wins/draws/losses. Every agent and --out are
checked before the first match.

Example:
  python scripts/arena.py --game tictactoe --agents random alphabeta mcts:200 --games 50
"""

from __future__ import annotations

import argparse
import itertools
import sys

from agents.arena import play_match
from agents.factory import AGENT_NAMES, DOTS_AGENT_NAMES, make_agent
from gym_boardgames.rules.registry import GAME_NAMES, make_game
from gym_boardgames.utils import check_output_path, emit_summary, nonnegative_int, positive_int, progress_bar


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    """Parse the command line."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--game", default="tictactoe", choices=GAME_NAMES, help="the game")
    parser.add_argument("--rows", type=positive_int, help="board rows (connectn) or box rows (dots)")
    parser.add_argument("--cols", type=positive_int, help="board columns (connectn) or box columns (dots)")
    parser.add_argument("--n", type=positive_int, help="pieces in a row to win (connectn)")
    parser.add_argument("--gravity", action=argparse.BooleanOptionalAction, default=None, help="connectn only")
    parser.add_argument(
        "--agents",
        nargs="+",
        default=["random", "alphabeta"],
        help=f"agents: {', '.join(AGENT_NAMES)}; on dots also {', '.join(DOTS_AGENT_NAMES)}",
    )
    parser.add_argument("--games", type=int, default=100, help="games per pair (seats alternate)")
    parser.add_argument("--seed", type=nonnegative_int, default=0, help="seed of the agents and the random players")
    parser.add_argument("--out", help="also write the JSON summary to this file")
    parser.add_argument("--json", action="store_true", help="print a one-line JSON summary last")
    args = parser.parse_args(argv)
    if args.games < 1:
        parser.error("--games must be >= 1")
    if len(args.agents) < 2:
        parser.error("--agents needs at least two agents")
    if args.out:
        try:
            check_output_path(args.out, "--out")
        except ValueError as error:
            parser.error(str(error))
    return args


def main(argv: list[str] | None = None) -> dict:
    """Run the round robin and return the summary."""
    args = parse_args(argv)
    try:
        game = make_game(args.game, args.rows, args.cols, args.n, args.gravity)
    except ValueError as error:
        sys.exit(f"error: {error}")
    agents = {}
    for i, name in enumerate(args.agents):
        # Every agent is built against the game before any match: a Dots bot on another game, a TD file
        # for another board, or 'exact' (which needs the board size) fail here, naming the agent.
        try:
            agents[name] = make_agent(name, seed=args.seed + i, game=game)
        except ValueError as error:
            sys.exit(f"error: --agents {name}: {error}")
        except OSError as error:
            reason = f"cannot read {error.filename}: {error.strerror}" if error.strerror else str(error)
            sys.exit(f"error: --agents {name}: {reason}")
    pairs = list(itertools.combinations(args.agents, 2))
    results = {}
    with progress_bar(len(pairs) * args.games, "arena") as bar:
        for a, b in pairs:
            record = play_match(game, agents[a], agents[b], args.games, seed=args.seed, progress=bar.update)
            results[f"{a} vs {b}"] = record.as_dict()
    print(f"{game!r}, {args.games} games per pair; row agent's win/draw/loss (as first | as second)")
    for key, record in results.items():
        first, second = record["first"], record["second"]
        print(
            f"{key:<32} {first['win']:>4}/{first['draw']}/{first['loss']:<6}| "
            f"{second['win']:>4}/{second['draw']}/{second['loss']}"
        )
    summary = {"game": repr(game), "games_per_pair": args.games, "seed": args.seed, "results": results}
    emit_summary(summary, args.out, args.json)
    return summary


if __name__ == "__main__":
    main()
