"""Overlay the learning curves of AlphaZero training runs, read from their training states.

Each run is a model file (or its MODEL.train.npz) written by train_alphazero.py; only the state's header is
read. The figure plots, against training minutes, the raw network's share of moves that keep the result on
the Connect Four label set (outcome kept, all positions and critical ones) where the runs recorded it, and
the share of optimal moves where the game is solved (tic-tac-toe). --json prints the points.

    python scripts/plot_training_curves.py runs/puct.npz runs/gumbel.npz --names PUCT Gumbel --out curves.png
"""

from __future__ import annotations

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))  # plumbing/, peers/: also when loaded by path
from plumbing import cli  # first, before the slower imports: a Ctrl-C during them is one line (cli's hook)

# isort: split
import argparse
from typing import Any

from plumbing import figures

from gym_boardgames.utils import require_extra


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    """Parse the command line (bad values exit with status 2 naming the flag)."""
    parser = cli.make_parser(__doc__)
    parser.add_argument("runs", nargs="+", role="input", help="model files (or their .train.npz training states)")
    parser.add_argument("--names", nargs="+", help="a name per run for the legend (default: the file names)")
    cli.add_run_flags(
        parser,
        out="the PNG to write (needs matplotlib, the plot extra)",
        json="print the curves as one JSON line last",
        overwrite=True,
    )
    return cli.parse_checked(parser, argv, _check)


def _check(args: argparse.Namespace) -> None:
    if args.names is not None and len(args.names) != len(args.runs):
        raise ValueError(f"--names needs one name per run ({len(args.runs)}), got {len(args.names)}")
    if args.names is not None and len(set(args.names)) != len(args.names):
        raise ValueError(f"--names must differ from each other (each names a run in the legend), got {args.names}")
    if args.out is None and not args.json:
        raise ValueError("give --out PNG, --json or both")
    if args.out is not None:  # a figure: never a run's model or training state, which are .npz
        figures.check_figure_path(args.out, "--out")
        require_extra("plot", "matplotlib", needed_for="--out")


def curve_points(curve: list[Any]) -> dict[str, list[list[float]]]:
    """Return a run's evaluated points as ``{metric: [[minutes, percent], ...]}``."""
    metrics: dict[str, Any] = {
        "outcome kept": lambda p: p.outcome_kept,
        "outcome kept (critical)": lambda p: p.outcome_kept_critical,
        "optimal moves": lambda p: p.optimal_rate,
    }
    for name in sorted({name for p in curve for name in p.outcome_kept_other}):
        metrics[f"outcome kept, {name} set"] = lambda p, name=name: p.outcome_kept_other.get(name, [None])[0]
    return {
        label: [[round(p.seconds / 60, 2), round(100 * value(p), 2)] for p in curve if value(p) is not None]
        for label, value in metrics.items()
        if any(value(p) is not None for p in curve)
    }


def plot(runs: dict[str, dict[str, list[list[float]]]], path: str, replace: bool = True) -> str:
    """Draw every run's metrics over training minutes (one colour per run, one line style per metric)."""
    plt = figures.pyplot()
    styles = {"outcome kept": "o-", "outcome kept (critical)": "s--", "optimal moves": "o-"}
    fig, ax = plt.subplots(figsize=(8, 4.5))
    for index, (name, metrics) in enumerate(runs.items()):
        colour = f"C{index}"
        for label, points in metrics.items():
            style = styles.get(label, "^:")  # the other label sets
            ax.plot(*zip(*points, strict=True), style, color=colour, markersize=3, label=f"{name}: {label}")
    ax.set_xlabel("training time (minutes)")
    ax.set_ylabel("% of positions (raw network, no search)")
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8)
    fig.tight_layout()
    return figures.save_figure(fig, path, dpi=90, replace=replace)


def main(argv: list[str] | None = None) -> int:
    """Run the command line; return the exit status."""
    args = parse_args(argv)
    from agents.alphazero.checkpoint import read_curve

    names = args.names or args.runs
    runs = {}
    for name, path in zip(names, args.runs, strict=True):
        try:
            runs[name] = curve_points(read_curve(path))
        except (OSError, ValueError) as error:
            cli.fail(str(error))
    if args.out is not None:
        print(f"wrote {plot(runs, args.out, args.overwrite)}")
    for name, metrics in runs.items():
        last = {label: points[-1] for label, points in metrics.items() if points}
        print(f"{name}: " + ", ".join(f"{label} {v:.1f}% at {m:.0f} min" for label, (m, v) in last.items()))
    cli.emit_summary({"runs": runs}, None, args.json)
    return 0


if __name__ == "__main__":
    cli.run(main)
