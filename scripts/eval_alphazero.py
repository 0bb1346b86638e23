"""Measure a saved (or shipped) AlphaZero model: its raw network against the solver, its search player in matches.

For each opponent (--against), --games games with alternating seats (half as first player) between the
search player (--simulations per move) and the opponent; results per seat. Opponents are agent names
(random, alphabeta, mcts:2000, ...) or "exact", a perfect player on boards the layered solver can solve
(a random move among those that keep the game value).

On solvable boards (tic-tac-toe, Connect Four up to about 20 cells) it also reports the share of positions
where the raw network's most probable move (no search) keeps the game value: over every reachable
non-terminal position (--all-positions, the default for boards of at most 12 cells) and over the distinct
positions the search player met in the matches.
"""

from __future__ import annotations

import os

for _name in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_name, "1")  # one BLAS thread (see train_alphazero.py)

import sys  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))  # plumbing/, peers/: also when loaded by path
from plumbing import cli  # noqa: E402  (first, before the slower imports: a Ctrl-C during them is one line (cli's hook))

# isort: split
import argparse  # noqa: E402

from gym_boardgames.utils import progress_bar  # noqa: E402

#: Largest board (cells) the layered solver handles in seconds to a minute here.
SOLVABLE_CELLS = 20


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    """Parse the command line (bad values exit with status 2 naming the flag)."""
    parser = cli.make_parser(__doc__)
    parser.add_argument("model", help="a model file, or the name of a shipped one: tictactoe, connectfour")
    from agents.alphazero.agent import MAX_SIMULATIONS

    simulations = cli.int_type(0, MAX_SIMULATIONS)
    parser.add_argument("--simulations", type=simulations, default=50, help="search player's simulations")
    parser.add_argument("--against", nargs="+", default=["random"], help="opponents: agent names or 'exact'")
    parser.add_argument("--games", type=cli.positive_int, default=100, help="games per opponent (seats alternate)")
    parser.add_argument(
        "--all-positions",
        action="store_true",
        default=None,
        help="score every position (default: on boards of at most 12 cells)",
    )
    cli.add_run_flags(parser, seed="seed of the players' tie-breaks")
    parser.add_argument("--quiet", action="store_true", help="no progress bar")
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    """Run the command line; return the exit status."""
    args = parse_args(argv)
    from agents.alphazero.agent import PRETRAINED, AlphaZeroAgent, load_pretrained
    from agents.alphazero.evaluation import ExactPlayer, RecordingAgent, greedy_moves
    from agents.factory import make_agent
    from agents.matches.arena import play_match
    from agents.matches.grading import ExactValues, optimal_move_rate

    load = load_pretrained if args.model in PRETRAINED and not os.path.exists(args.model) else AlphaZeroAgent.load
    try:
        agent = load(args.model, n_simulations=args.simulations, seed=args.seed)
        game = agent.game
        cells = getattr(game, "num_cells", None)
        solvable = cells is not None and cells <= SOLVABLE_CELLS
        if "exact" in args.against and not solvable:
            raise ValueError(f"--against exact needs a board of at most {SOLVABLE_CELLS} cells")
        opponents = cli.build_named(
            "--against",
            args.against,
            # "exact" is made once the game is solved, below; its place in the order is kept.
            lambda i, name: None if name == "exact" else make_agent(name, seed=args.seed + 1 + i, game=game),
        )
    except (OSError, ValueError) as error:  # SavedFileError is a ValueError naming the file
        cli.fail(str(error))
    print(f"{agent!r}", flush=True)
    exact = None
    summary: dict = {"model": args.model, "game": repr(game), "simulations": args.simulations, "matches": {}}
    if solvable:
        exact, seconds = cli.timed(ExactValues, game)
        print(f"solved {len(exact.values):,} positions in {seconds:.1f} s", flush=True)
        if "exact" in args.against:
            opponents["exact"] = ExactPlayer(exact, seed=args.seed + 100)
        score_all = args.all_positions if args.all_positions is not None else cells <= 12
        if score_all:
            states = exact.non_terminal_states()
            rate = optimal_move_rate(exact, greedy_moves(agent.evaluator, game), states)
            count = len(states)
            summary["raw_network_optimal_all"] = {"positions": count, "rate": rate}
            print(f"raw network: optimal move in {100 * rate:.2f}% of all {count:,} non-terminal positions")
    met: dict = {}
    for name, opponent in opponents.items():
        player = RecordingAgent(agent)
        with progress_bar(args.games, f"vs {name}", enabled=not args.quiet) as bar:
            result, seconds = cli.timed(
                play_match, game, player, opponent, args.games, seed=args.seed, progress=bar.update
            )
        summary["matches"][name] = {**result.as_dict(), "seconds": round(seconds, 1)}
        first, second = result.first, result.second
        print(
            f"vs {name}: as first {first.win}/{first.draw}/{first.loss}, as second {second.win}/{second.draw}/"
            f"{second.loss} (win/draw/loss) in {seconds:.0f} s",
            flush=True,
        )
        for state in player.states:
            met[state] = None
    if exact is not None and met:
        states = list(met)
        rate = optimal_move_rate(exact, greedy_moves(agent.evaluator, game), states)
        summary["raw_network_optimal_met"] = {"positions": len(states), "rate": rate}
        print(f"raw network: optimal move in {100 * rate:.2f}% of the {len(states):,} positions met in these games")
    summary["load_average"] = cli.load_average()
    cli.emit_summary(summary, None, args.json)
    return 0


if __name__ == "__main__":
    cli.run(main)
