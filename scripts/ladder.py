"""A rating ladder: every pair of agents plays from both seats; Elo ratings with 95% intervals, random at 0.

Pairs play in blocks (--block games, seats alternating) until every agent's interval is narrower than
--target-width Elo, or a pair has played --max-games, or the run has played --max-total. --results FILE keeps
every block: run again with one more agent and only its pairs are played (agents are named as in arena.py, or
a class of yours: module:Class or path/to/file.py:Class, called with seed= if it takes one). The same file
and --seed give the same games. Games run on --workers processes, or as Ray tasks with --ray-address (the
rllib extra); --plot draws the ladder (the plot extra). A refusal is one line, exit status 2, nothing written.

Example:
  python scripts/ladder.py --game tictactoe --agents random alphabeta:1 alphabeta mcts:50 --results ttt.jsonl
"""

from __future__ import annotations

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))  # plumbing/, peers/: also when loaded by path
from plumbing import cli  # first, before the slower imports: a Ctrl-C during them is one line (cli's hook)

# isort: split
import argparse
import math

from plumbing import figures

from agents.matches.ladder import (
    ANCHOR,
    MAX_BLOCK,
    Budget,
    block_runner,
    build_agent,
    pairs,
    read_results,
    run_ladder,
    write_results,
)
from agents.matches.rating import Ratings
from gym_boardgames.utils import progress_bar, require_extra


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    """Parse the command line and check it all before the first game: agents, --results, --plot, extras."""
    parser = cli.make_parser(__doc__)
    cli.add_game_flags(parser, default="tictactoe")
    cli.add_agent_flags(parser, [ANCHOR, "alphabeta:1", "alphabeta"], f", {ANCHOR} among them")
    parser.add_argument(
        "--results", metavar="FILE", role="extended", help="the ladder's results (JSON lines), read and extended"
    )
    width = cli.number_type(0, math.inf, low_open=True)
    parser.add_argument("--target-width", type=width, default=100.0, help="stop at 95%% intervals this narrow (Elo)")
    parser.add_argument("--max-games", type=cli.positive_int, default=200, help="games per pair at most, all runs'")
    parser.add_argument("--max-total", type=cli.positive_int, help="games this run at most (default: no limit)")
    parser.add_argument("--block", type=cli.int_type(1, MAX_BLOCK), default=10, help="games a pair plays between fits")
    parser.add_argument("--workers", type=cli.positive_int, help="processes playing games (default: one per core)")
    parser.add_argument("--ray-address", help="play the games as Ray tasks on this cluster (rllib extra)")
    parser.add_argument("--plot", metavar="PNG", role="output", help="draw the ladder with its intervals (plot extra)")
    cli.add_run_flags(parser, seed="seed of every agent (with the pair's names and block number)", overwrite=True)
    return cli.parse_checked(parser, argv, check_agents, check_files, build_players)


def check_agents(args: argparse.Namespace) -> None:
    """Refuse fewer than two agents, a name given twice, and a ladder without its anchor."""
    if len(args.agents) < 2:
        raise ValueError("--agents needs at least two agents")
    if twice := sorted({name for name in args.agents if args.agents.count(name) > 1}):
        raise ValueError(f"--agents names {', '.join(twice)} more than once")
    if ANCHOR not in args.agents:
        raise ValueError(f"--agents needs {ANCHOR}: it is the ladder's 0 Elo")


def check_files(args: argparse.Namespace) -> None:
    """Check the extras and --plot's format before any game (cli.parse_checked checks the files themselves)."""
    if args.plot is not None:
        require_extra("plot", "matplotlib", needed_for="--plot")
        figures.check_figure_path(args.plot, "--plot")
    if args.ray_address is not None:
        require_extra("rllib", "ray", needed_for="--ray-address")


def build_players(args: argparse.Namespace) -> None:
    """Build the game and every agent against it (each refusal names the agent); read --results for that game."""
    args.made_game = cli.game_from_args(args)
    cli.build_named(
        "--agents", args.agents, lambda _, name: build_agent(name, args.seed, args.made_game, args.move_time)
    )
    args.blocks = read_results(args.results, args.made_game) if args.results else []


def plot(path: str, r: Ratings, order: list[int], replace: bool = True) -> str:
    """Draw each agent's rating and 95% interval, the strongest on top, and save it to ``path``."""
    plt = figures.pyplot()
    fig, ax = plt.subplots(figsize=(7, 1 + 0.4 * len(order)))
    y = range(len(order))[::-1]
    elo = [r.elo[i] for i in order]
    ax.errorbar(elo, y, xerr=[[r.elo[i] - r.low[i] for i in order], [r.high[i] - r.elo[i] for i in order]], fmt="o")
    ax.set_yticks(list(y), [r.names[i] for i in order])
    ax.set_xlabel(f"Elo ({ANCHOR} = 0), 95% intervals")
    ax.grid(axis="x", alpha=0.3)
    fig.tight_layout()
    return figures.save_figure(fig, path, replace=replace)


def main(argv: list[str] | None = None) -> dict:
    """Run the ladder, print the table and return the summary."""
    args = parse_args(argv)
    game, names = args.made_game, args.agents
    budget = Budget(args.target_width, args.max_games, args.max_total, args.block)
    played = {pair: sum(b.games for b in args.blocks if (b.a, b.b) == pair) for pair in pairs(names)}
    bar_total = sum(max(0, args.max_games - games) for games in played.values())  # the most this run can play
    bar_total = min(bar_total, args.max_total or bar_total)
    workers = args.workers or os.cpu_count() or 1

    def save(blocks: list) -> None:
        if args.results:
            write_results(args.results, game, blocks)  # the run's own file (locked): replaced block by block

    try:
        with (
            progress_bar(bar_total, "ladder") as bar,
            block_runner(game, workers, args.ray_address, args.move_time) as run,
        ):
            ratings, new = run_ladder(game, names, args.blocks, budget, args.seed, run, save, bar.update)
    except ConnectionError as error:
        cli.fail(str(error))
    except (ValueError, OSError) as error:  # an agent's illegal move, a full disk: the finished rounds are saved
        cli.fail(str(error), cli.EXIT_FAILED)
    order = sorted(range(len(names)), key=lambda i: -ratings.elo[i])
    games, this_run = int(ratings.games.sum()) // 2, sum(block.games for block in new)
    print(f"{game!r}: {games:,} games ({this_run:,} this run), {ANCHOR} at 0 Elo")
    width = max(len("agent"), *map(len, names))
    print(f"rank  {'agent':<{width}}  {'Elo':>6}  {'95% interval':>15}  games")
    for rank, i in enumerate(order, start=1):
        interval = f"[{ratings.low[i]:.0f}, {ratings.high[i]:.0f}]"
        print(f"{rank:>4}  {names[i]:<{width}}  {ratings.elo[i]:>6.0f}  {interval:>15}  {ratings.games[i]:>5.0f}")
    if args.plot:
        plot(args.plot, ratings, order, args.overwrite)
    summary = {
        "game": repr(game),
        "seed": args.seed,
        "games": games,
        "played": this_run,
        "ratings": {names[i]: ratings.as_dict()[names[i]] for i in order},
    }
    cli.emit_summary(summary, None, args.json)
    return summary


if __name__ == "__main__":
    cli.run(main)
