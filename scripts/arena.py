"""Round-robin matches between named agents on any board game, with seats alternating.

Agents: any name of the agent table (see --help), or your own class, module:Class or path/to/file.py:Class.
Each pair plays --games games (the row agent moves first in half of them); the table gives the row agent's
wins/draws/losses. Every agent is built and checked against the game (a Dots and Boxes bot elsewhere, a TD
file of another game, exact alpha-beta on a board too long to search), and --out too, before the first
match: a refusal is one line, exit status 2. An agent that fails or takes longer than --move-time for a
move ends the run with one line naming it, exit status 1.

Example:
  python scripts/arena.py --game tictactoe --agents random alphabeta mcts:200 --games 50
"""

from __future__ import annotations

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))  # plumbing/, peers/: also when loaded by path
from plumbing import cli  # first, before the slower imports: a Ctrl-C during them is one line (cli's hook)

# isort: split
import argparse
import itertools

from agents.matches.arena import play_match
from gym_boardgames.opponents import make_opponent
from gym_boardgames.utils import progress_bar


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    """Parse the command line and check it before the first match: the numbers, --out and every agent."""
    parser = cli.make_parser(__doc__)
    cli.add_game_flags(parser, default="tictactoe")
    cli.add_agent_flags(parser, ["random", "alphabeta"], " (the Dots and Boxes bots play dots only)")
    parser.add_argument("--games", type=cli.positive_int, default=100, help="games per pair (seats alternate)")
    cli.add_run_flags(parser, seed="seed of the agents and the random players", out=cli.OUT_HELP, overwrite=True)
    return cli.parse_checked(parser, argv, _two_agents, build_players)


def _two_agents(args: argparse.Namespace) -> None:
    if len(args.agents) < 2:
        raise ValueError("--agents needs at least two agents")


def build_players(args: argparse.Namespace) -> None:
    """Set ``args.made_game`` and ``args.players``, every agent by name, each built and checked against the game.

    Raises:
        ValueError: a board the game refuses (the rules' message names the parameter), or an agent that
            cannot play it, naming ``--agents`` and the agent: e.g. a Dots and Boxes bot on another game, a
            TD file of another game or an unreadable one, or exact alpha-beta on a board longer than its
            search can go.
    """
    args.made_game = game = cli.game_from_args(args)
    # Building with the game checks the agent against it, so every refusal comes here, before the first
    # match, not at some agent's first move.
    args.players = cli.build_named(
        "--agents", args.agents, lambda i, name: make_opponent(name, game, args.seed + i, move_time=args.move_time)
    )


def main(argv: list[str] | None = None) -> dict:
    """Run the round robin and return the summary."""
    args = parse_args(argv)
    game, agents = args.made_game, args.players
    pairs = list(itertools.combinations(args.agents, 2))
    results = {}
    try:
        with progress_bar(len(pairs) * args.games, "arena") as bar:
            for a, b in pairs:
                record = play_match(game, agents[a], agents[b], args.games, seed=args.seed, progress=bar.update)
                results[f"{a} vs {b}"] = record.as_dict()
    except ValueError as error:  # an illegal move, a user's agent that failed or ran out of time
        cli.fail(str(error), cli.EXIT_FAILED)
    print(f"{game!r}, {args.games} games per pair; the first agent's win/draw/loss")
    cells = {
        key: tuple(f"{r[seat]['win']}/{r[seat]['draw']}/{r[seat]['loss']}" for seat in ("first", "second"))
        for key, r in results.items()
    }
    widths = [
        max(len(title), *(len(c[i]) for c in cells.values())) for i, title in enumerate(("as first", "as second"))
    ]
    name = max(len("pair"), *(len(key) for key in cells))
    print(f"{'pair':<{name}}  {'as first':>{widths[0]}}  {'as second':>{widths[1]}}")
    for key, (first, second) in cells.items():
        print(f"{key:<{name}}  {first:>{widths[0]}}  {second:>{widths[1]}}")
    summary = {"game": repr(game), "games_per_pair": args.games, "seed": args.seed, "results": results}
    written = cli.emit_summary(summary, args.out, args.json, replace=args.overwrite)
    if written and not args.json:
        print(f"summary written to {written}")
    return summary


if __name__ == "__main__":
    cli.run(main)
