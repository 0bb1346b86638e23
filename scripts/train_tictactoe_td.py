"""Train the Sutton & Barto chapter-1 tic-tac-toe player (TD afterstate values, self-play), test it, save it.

Both seats learn in the same epsilon-greedy self-play games (agents.tabular.td.train_self_play). The greedy
player is then measured:
  * against the uniformly random player and against perfect alpha-beta play, from each side;
  * against the solved game: the share of all reachable non-terminal positions where its greedy move
    keeps the game-theoretic value, and, per seat, every position it can meet (following only its own
    greedy moves and every opponent reply): no losing move there proves it can never lose from that seat.
Both seats' tables are saved to one .npz file (load it with agents.tabular.td.TDAgent.load). The learning curve
(--curve-points points over the run) goes to a PNG with --plot and to TensorBoard with --tensorboard DIR.

Defaults (alpha 0.8 -> 0.05 and epsilon 0.5 -> 0.1, both decaying linearly over 100,000 episodes) were
chosen by that per-seat check: with them none of 20 seeds left a losing move for either seat (nor any of
10 seeds at 50,000 episodes), while the book's constant alpha = epsilon = 0.1 left one in 4 of 6 seeds.
A large early step size learns fast while values are far off; the small final one averages out the
noise of the opponent's exploration. Exploration never stops (0.1 at the end), because positions off
the greedy path are only reached, and their values only corrected, through exploratory moves.
"""

from __future__ import annotations

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))  # plumbing/, peers/: also when loaded by path
from plumbing import cli  # first, before the slower imports: a Ctrl-C during them is one line (cli's hook)

# isort: split
import argparse
import time

from plumbing import figures

from agents.matches.arena import MatchResult, play_match
from agents.matches.grading import audit_all_positions, audit_seat
from agents.search.minimax import AlphaBetaAgent
from agents.search.solver import position_values
from agents.tabular.td import TDAgent, train_self_play
from gym_boardgames.rules import TicTacToe
from gym_boardgames.utils import progress_bar, require_extra

SIDES = (("X (first)", "first"), ("O (second)", "second"))
DEFAULT_OUT = "td_tictactoe.npz"


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    """Parse and check the command line (bad values exit with status 2 and a message)."""
    parser = cli.make_parser(__doc__)
    step, share = cli.number_type(0, 1, low_open=True), cli.number_type(0, 1)
    for flag, kind, default, text in (
        ("--episodes", cli.positive_int, 100_000, "self-play training games"),
        ("--alpha", step, 0.8, "step size at the first episode, in (0, 1]"),
        ("--alpha-final", step, 0.05, "step size at the last episode (linear decay; = --alpha: constant)"),
        ("--epsilon", share, 0.5, "exploration probability at the first episode"),
        ("--epsilon-final", share, 0.1, "exploration at the last episode (linear; = --epsilon: constant)"),
    ):
        parser.add_argument(flag, type=kind, default=default, help=text)
    cli.add_run_flags(
        parser,
        seed="seed of training, of tie-breaks and of the evaluation",
        out=f"where to save both seats' tables (.npz) (default: {DEFAULT_OUT}; an earlier run's is kept: a file "
        "that exists is replaced only with --overwrite)",
        json=None,
    )
    parser.add_argument(
        "--plot",
        metavar="FILE",
        role="output",
        help="write the learning curve (a PNG, or as its suffix says: .pdf, .svg)",
    )
    figures.add_tensorboard_flag(parser, "the learning curve (by episode)")
    for flag, default, text in (
        ("--curve-points", 20, "learning-curve points over the run (with --plot or --tensorboard)"),
        ("--curve-games", 200, "games against random per curve point"),
        ("--eval-games", 1000, "games against random from each side"),
        ("--alphabeta-games", 200, "games against alpha-beta from each side"),
    ):
        parser.add_argument(flag, type=cli.positive_int, default=default, help=text)
    parser.add_argument("--no-progress", action="store_true", help="no progress bars")
    cli.add_run_flags(parser, overwrite=True)
    # Everything that would fail after training fails now: the output paths and the plot extra.
    return cli.parse_checked(parser, argv, _check_outputs)


def _check_outputs(args: argparse.Namespace) -> None:
    cli.default_output(args, DEFAULT_OUT)
    if args.plot is not None:
        figures.check_figure_path(args.plot, "--plot")
        require_extra("plot", "matplotlib", needed_for="--plot")


def plot_curve(plt, curve: list[dict], path: str, title: str, replace: bool = True) -> str:
    """Save a PNG: results against random (top) and agreement with perfect play (bottom) over training."""
    episodes = [point["episodes"] for point in curve]
    fig, (top, bottom) = plt.subplots(2, 1, figsize=(7, 6.5), sharex=True)
    for outcome, style in (("win", "-"), ("draw", "--"), ("loss", ":")):
        top.plot(episodes, [point[outcome] for point in curve], style, marker="o", markersize=3, label=outcome)
    top.set_ylabel("rate against random (both sides)")
    top.set_ylim(-0.02, 1.02)
    top.set_title(title)
    top.legend()
    bottom.plot(episodes, [p["optimal_share"] for p in curve], "-", marker="o", markersize=3, label="all positions")
    bottom.plot(
        episodes, [p["met_optimal_share"] for p in curve], "--", marker="o", markersize=3, label="positions it can meet"
    )
    bottom.set_ylabel("share of optimal greedy moves")
    bottom.set_xlabel("self-play episodes")
    bottom.legend()
    for ax in (top, bottom):
        ax.grid(alpha=0.3)
    fig.tight_layout()
    return figures.save_figure(fig, path, dpi=100, replace=replace)


def match_rows(result: MatchResult) -> dict[str, dict[str, int]]:
    """The agent's record by seat, JSON-ready."""
    return {"first": result.first.as_dict(), "second": result.second.as_dict()}


def main(argv: list[str] | None = None) -> dict:
    """Train, evaluate, save; return the summary (printed as JSON with --json)."""
    args = parse_args(argv)
    plt = figures.pyplot() if args.plot else None

    game = TicTacToe()
    show = not args.no_progress
    solved = position_values(game)  # the game-theoretic value of every reachable position (5478)
    curve: list[dict] = []
    curve_seconds = 0.0
    board = figures.TensorBoardLog(args.tensorboard) if args.tensorboard else None

    def record(done: int, agent: TDAgent, _other: TDAgent) -> None:
        nonlocal curve_seconds
        began = time.perf_counter()
        # A separate view of the same tables, so the curve does not move the agent's tie-break rng.
        view = TDAgent(game, agent.values, seed=args.seed + done)
        total = play_match(game, view, "random", args.curve_games, seed=args.seed + done).total
        overall = audit_all_positions(view, game, solved)
        met = [audit_seat(view, game, solved, seat) for seat in (0, 1)]
        point = {
            "episodes": done,
            **{k: v / args.curve_games for k, v in total.as_dict().items()},
            "optimal_share": overall.optimal_share,
            "met_optimal_share": sum(a.optimal for a in met) / sum(a.positions for a in met),
        }
        curve.append(point)
        if board is not None:
            values = {f"vs_random/{outcome}": point[outcome] for outcome in ("win", "draw", "loss")}
            values["optimal_moves/all_positions"] = point["optimal_share"]
            values["optimal_moves/positions_it_can_meet"] = point["met_optimal_share"]
            board.scalars(values, done)
        curve_seconds += time.perf_counter() - began

    every = max(1, args.episodes // args.curve_points)
    with_curve = bool(args.plot or board)
    start = time.perf_counter()
    with progress_bar(args.episodes, "self-play", enabled=show) as bar:
        try:
            agent, _ = train_self_play(
                game,
                args.episodes,
                alpha=args.alpha,
                epsilon=args.epsilon,
                seed=args.seed,
                progress=bar.update,
                alpha_final=args.alpha_final,
                epsilon_final=args.epsilon_final,
                callback=record if with_curve else None,
                callback_every=every if with_curve else 0,
            )
            # The self-play bar's span: learning and the learning curve's points (each measured before the bar
            # advances past its episodes), so the time printed is the bar's, split into those two parts.
            train_seconds = time.perf_counter() - start
        finally:
            if board is not None:
                board.close()
    args.out = agent.save(args.out, replace=args.overwrite)
    # The training line comes before the evaluation's progress bar (on stderr), so flush it: through a pipe
    # or a log file stdout is block-buffered and would otherwise appear after the evaluation.
    parts = f"{train_seconds - curve_seconds:.1f} s learning, {curve_seconds:.1f} s measuring the learning curve; "
    print(
        f"TD self-play: {args.episodes} episodes in {train_seconds:.1f} s ({parts if curve else ''}alpha {args.alpha} "
        f"-> {args.alpha_final}, epsilon {args.epsilon} -> {args.epsilon_final}, seed {args.seed})",
        flush=True,
    )

    total_games = 2 * (args.eval_games + args.alphabeta_games)
    with progress_bar(total_games, "evaluation", enabled=show) as bar:
        vs_random = play_match(game, agent, "random", 2 * args.eval_games, seed=args.seed, progress=bar.update)
        perfect = AlphaBetaAgent(seed=args.seed)
        vs_alphabeta = play_match(game, agent, perfect, 2 * args.alphabeta_games, progress=bar.update)
    overall = audit_all_positions(agent, game, solved)
    seats = {side: audit_seat(agent, game, solved, seat) for seat, (_, side) in enumerate(SIDES)}
    total_seconds = time.perf_counter() - start

    print(f"{'greedy player vs':<18} {'as':<11} {'games':>6} {'win':>6} {'draw':>6} {'loss':>6}")
    for label, result in (("random", vs_random), ("alpha-beta", vs_alphabeta)):
        for side_label, side in SIDES:
            rec = getattr(result, side)
            print(f"{label:<18} {side_label:<11} {rec.games:>6} {rec.win:>6} {rec.draw:>6} {rec.loss:>6}")
    print(
        f"greedy move optimal in {overall.optimal}/{overall.positions} reachable non-terminal positions "
        f"({100 * overall.optimal_share:.1f}%)"
    )
    for side_label, side in SIDES:
        audit = seats[side]
        verdict = "it cannot lose from this side" if audit.losing == 0 else "it can lose from this side"
        print(
            f"as {side_label}: {audit.positions} positions it can meet, {audit.optimal} with an optimal greedy move, "
            f"{audit.losing} with a losing one: {verdict}"
        )
    if args.plot:
        args.plot = plot_curve(plt, curve, args.plot, f"TD self-play tic-tac-toe (seed {args.seed})", args.overwrite)
        print(f"learning curve written to {args.plot}")
    if args.tensorboard:
        print(f"TensorBoard log in {args.tensorboard} (view it: tensorboard --logdir {args.tensorboard})")
    print(f"both seats' tables saved to {args.out} (total {total_seconds:.1f} s)")

    summary = {
        **{key: getattr(args, key) for key in ("episodes", "alpha", "alpha_final", "epsilon", "epsilon_final", "seed")},
        "train_seconds": round(train_seconds, 3),
        "curve_seconds": round(curve_seconds, 3),
        "total_seconds": round(total_seconds, 3),
        "vs_random": match_rows(vs_random),
        "vs_alphabeta": match_rows(vs_alphabeta),
        "optimal_move_share": round(overall.optimal_share, 6),
        "optimal_positions": overall.optimal,
        "positions": overall.positions,
        "seat_audit": {side: audit._asdict() for side, audit in seats.items()},
        "out": args.out,
        "plot": args.plot,
        "curve": curve,
    }
    cli.emit_summary(summary, None, args.json)
    return summary


if __name__ == "__main__":
    cli.run(main)
