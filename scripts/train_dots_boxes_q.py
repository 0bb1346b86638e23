"""Reproduce the Dots and Boxes study on 3x3 boxes: the exact solve, the value learner, the learning-rate study.

Experiments (each selectable with --experiments):
  solve   solve_layers on the whole board: the value of the empty board, the time and the memory; the
          values of the 2x2 and 2x3 boards too.
  table1  for each trainer T in {random, first_available, always4never3, endgame(10)}: a fresh
          LayeredValueAgent trains --train-games games against T (exploring with probability --explore),
          then plays --test-games games against each bot S with learning off. Cells: [wins, losses].
  table2  the same agents after --train-games more games against endgame(10), tested again.
  lr      the learning-rate study: --warmup-games games against random at lr 1, then --rounds rounds of
          --round-games games against endgame(10) at each lr of --lrs, testing --round-test-games games
          after each round.
  exact   the exact agent (EndgameBot with k = every edge) against each bot, every game checked against
          the solver: it must never end below the margin it could force at any of its moves.

Games alternate seats (the agent moves first in even games). The study's tie rule is used: the player
who did not start wins ties (DotsAndBoxes(tie_break="second")); on 3x3 boxes (9 boxes) there are no ties.
The study's published numbers are printed beside ours (and written with --out x.md).

Examples:
  python scripts/train_dots_boxes_q.py --out dots_study.md --out dots_lr.png --json
  python scripts/train_dots_boxes_q.py --quick --rows 2 --cols 2
  python scripts/train_dots_boxes_q.py --experiments lr --lrs 0.1 0.05 --rounds 20 --workers 2
"""

from __future__ import annotations

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))  # plumbing/, peers/: also when loaded by path
from plumbing import cli  # first, before the slower imports: a Ctrl-C during them is one line (cli's hook)

# isort: split
import argparse
import json
import time
from pathlib import Path
from typing import Any

from plumbing import figures

from agents.dots.study import run_solve, run_task, saved_files, shared_table, study_summary, study_tasks, table_file
from gym_boardgames.outputs import write_text_atomic
from gym_boardgames.utils import process_pool, progress_bar, require_extra

EXPERIMENTS = ("solve", "table1", "table2", "lr", "exact")

# ---- the study's published numbers (3x3 boxes) -----------------------------------------------------
BOTS = ("random", "first_available", "always4never3", "endgame:10")
# Tables 1 and 2, rows the trainers and columns the test bots (both in BOTS order), cells [wins, losses] of the
# trained agent. Table 1: 5,000 training games against the row's trainer, then 1,000 test games against each
# column. Table 2: the same agents after 5,000 more training games against bot2(10).
STUDY_TABLE1, STUDY_TABLE2 = (
    {trainer: dict(zip(BOTS, cells, strict=True)) for trainer, cells in zip(BOTS, rows, strict=True)}
    for rows in (
        [
            [(985, 15), (1000, 0), (96, 904), (38, 962)],
            [(959, 41), (1000, 0), (39, 961), (20, 980)],
            [(993, 7), (1000, 0), (49, 951), (37, 963)],
            [(987, 13), (1000, 0), (48, 952), (33, 967)],
        ],
        [
            [(991, 9), (1000, 0), (70, 930), (50, 950)],
            [(989, 11), (1000, 0), (48, 952), (32, 968)],
            [(546, 454), (1000, 0), (23, 977), (11, 989)],
            [(559, 441), (1000, 0), (26, 974), (9, 991)],
        ],
    )
)
# Learning-rate study: wins in 100 test games against bot2(10) after each round of 5,000 training games.
STUDY_LR = {
    "1": [5, 1, 0, 1, 2, 0, 0],
    "0.5": [9, 17, 13, 16, 15, 12, 15],
    "0.2": [21, 18, 18, 13, 16, 12, 18],
    "0.1": [7, 14, 19, 14, 11, 13, 22],
}
STUDY_LR_NOTE = "at lr 0.05 the study reports a steady score of about 30 wins in 100 after 14 rounds"

#: The budget options: the study's (and the default) and --quick's.
BUDGETS = ("train_games", "test_games", "warmup_games", "rounds", "round_games", "round_test_games", "exact_games")
FULL = dict(zip(BUDGETS, (5000, 1000, 5000, 14, 5000, 100, 1000), strict=True))
QUICK = dict(zip(BUDGETS, (200, 40, 200, 2, 200, 20, 40), strict=True))


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    """Parse the command line."""
    parser = cli.make_parser(__doc__)
    parser.add_argument("--rows", type=int, default=3, help="box rows (the study: 3)")
    parser.add_argument("--cols", type=int, default=3, help="box columns (the study: 3)")
    parser.add_argument(
        "--experiments", nargs="+", choices=EXPERIMENTS, default=list(EXPERIMENTS), help="which experiments to run"
    )
    parser.add_argument(
        "--endgame-k", type=cli.nonnegative_int, default=10, help="k of the strongest bot, endgame(k) (study: 10)"
    )
    games = cli.positive_int
    parser.add_argument("--train-games", type=games, help="training games per table (default and study: 5000)")
    parser.add_argument("--test-games", type=games, help="test games per table cell (default and study: 1000)")
    rate = cli.number_type(0, 1)
    parser.add_argument("--lr", type=rate, default=1.0, help="learning rate for tables 1 and 2 (study: 1)")
    parser.add_argument(
        "--explore", type=rate, default=2 / 3, help="random-move probability in training (default: 2/3)"
    )
    parser.add_argument("--lrs", type=rate, nargs="+", default=[1, 0.5, 0.2, 0.1, 0.05], help="learning rates")
    parser.add_argument("--warmup-games", type=games, help="lr study: games against random at lr 1 (default 5000)")
    parser.add_argument("--rounds", type=games, help="lr study: rounds against endgame(k) (default 14)")
    parser.add_argument("--round-games", type=games, help="lr study: training games per round (default 5000)")
    parser.add_argument("--round-test-games", type=games, help="lr study: test games after each round (default 100)")
    parser.add_argument("--exact-games", type=games, help="games of the exact agent against each bot (default 1000)")
    quick_help = "small budgets for a smoke test (budget options given still win): " + json.dumps(QUICK)
    parser.add_argument("--quick", action="store_true", help=quick_help)
    parser.add_argument("--workers", type=cli.positive_int, default=1, help="processes for the independent runs")
    parser.add_argument(
        "--save-dir",
        metavar="DIR",
        role="folder",
        help="save the solved table and the trained agents (.npz) in this folder (created if missing)",
    )
    cli.add_run_flags(parser, seed="seed of every agent, bot and match", json=None)
    parser.add_argument(
        "--out",
        action="append",
        default=[],
        role="output",
        help="write results: .md (tables beside the study's), .png, .json",
    )
    cli.add_run_flags(parser)
    parser.add_argument("--no-progress", action="store_true", help="no progress bars")
    cli.add_overwrite_flag(parser)
    # Everything that would fail after the experiments (minutes) fails now: the paths and the plot extra.
    return cli.parse_checked(parser, argv, _fill_budgets, _check_outputs)


def _fill_budgets(args: argparse.Namespace) -> None:
    for name, value in (QUICK if args.quick else FULL).items():
        if getattr(args, name) is None:
            setattr(args, name, value)


def _check_outputs(args: argparse.Namespace) -> None:
    for out in args.out:
        if Path(out).suffix.lower() not in (".md", ".png", ".json"):
            raise ValueError(f"--out {out}: use a .md, .png or .json file")
    if args.save_dir is not None and Path(args.save_dir).is_dir():  # a folder still to be made holds nothing
        for name in saved_files(vars(args)):
            cli.claim_output(args, Path(args.save_dir) / name, "--save-dir")
    if any(Path(out).suffix.lower() == ".png" for out in args.out):
        require_extra("plot", "matplotlib", needed_for="--out .png")


# ---- reporting ---------------------------------------------------------------------------------


def _study_name(name: str) -> str:
    return "endgame:10" if name.startswith("endgame:") else name


def _markdown_table(header: list[str], rows: list[list[Any]]) -> list[str]:
    """The lines of a markdown table: the header, the rule under it, one line per row."""
    lines = ["| " + " | ".join(header) + " |", "|---" * len(header) + "|"]
    return lines + ["| " + " | ".join(str(cell) for cell in row) + " |" for row in rows]


def table_markdown(title: str, ours: dict[str, dict], study: dict | None) -> str:
    """A markdown table: rows are trainers, columns test opponents, cells ours (and the study's)."""
    columns = list(next(iter(ours.values())))

    def cell(trainer: str, column: str) -> str:
        text = "[{win}, {loss}]".format(**ours[trainer][column])
        reference = (study or {}).get(_study_name(trainer), {}).get(_study_name(column))
        return f"{text} / [{reference[0]}, {reference[1]}]" if reference else text

    rows = [[trainer, *(cell(trainer, column) for column in columns)] for trainer in ours]
    caption = f"**{title}** (cells: [wins, losses] of the trained agent" + ("; ours / study)" if study else ")")
    return "\n".join([caption, *_markdown_table(["T \\ S", *columns], rows)])


def lr_markdown(lr_study: dict[str, Any], study: bool) -> str:
    """The learning-rate study as a markdown table (rounds down, learning rates across)."""
    runs = lr_study["runs"]
    header = ["round"] + [f"{run['lr']:g}" for run in runs] + ([f"study {n}" for n in STUDY_LR] if study else [])
    columns = [run["wins"] for run in runs] + (list(STUDY_LR.values()) if study else [])
    rounds = max(len(run["wins"]) for run in runs)
    rows = [[i + 1] + [wins[i] if i < len(wins) else "" for wins in columns] for i in range(rounds)]
    rows.append(["mean of the last 5"] + [f"{run['last5_mean']:g}" for run in runs])
    games, opponent = lr_study["round_test_games"], lr_study["opponent"]
    lines = [f"**Learning-rate study**: wins in {games} test games against {opponent} after each round"]
    return "\n".join(lines + _markdown_table(header, rows) + ([f"\nThe study: {STUDY_LR_NOTE}."] if study else []))


def exact_markdown(exact: dict[str, Any]) -> str:
    """The exact agent's record against each bot."""
    header = "opponent, win, loss, as first (w-l), as second (w-l), could force a win, won those, violations"
    keys = ("win", "loss", "first", "second", "could_win", "won_when_could_win", "violations")
    rows = [
        [name] + ["{win}-{loss}".format(**r[key]) if key in ("first", "second") else r[key] for key in keys]
        for name, r in exact.items()
    ]
    lines = ["**Exact agent** (EndgameBot with k = all edges) against each bot"]
    return "\n".join(lines + _markdown_table(header.split(", "), rows))


def markdown_report(summary: dict[str, Any]) -> str:
    """Everything measured, as markdown, with the study's numbers beside ours on 3x3 boxes."""
    study = summary["board"] == "3x3" and summary["endgame_k"] == 10
    parts = [f"# Dots and Boxes study reproduced on {summary['board']} boxes (seed {summary['seed']})"]
    solve = summary.get("solve")
    if solve:
        values = ", ".join(f"{b}: {v['first_player_margin']:+d}" for b, v in solve["values"].items())
        parts.append(
            f"Exact solve of {solve['board']}: Q(empty) = {solve['q_empty']}, first-player margin "
            f"{solve['first_player_margin']:+d}; {solve['positions']:,} positions in {solve['seconds']} s "
            f"({solve['cpu_seconds']} s CPU), "
            f"peak RSS {solve['peak_rss_mb']} MB. First-player margins: {values}."
        )
    for key, title, published in (("table1", "Table 1", STUDY_TABLE1), ("table2", "Table 2", STUDY_TABLE2)):
        if key in summary:
            parts.append(table_markdown(title, summary[key], published if study else None))
    if "lr_study" in summary:
        parts.append(lr_markdown(summary["lr_study"], study))
    if "exact" in summary:
        parts.append(exact_markdown(summary["exact"]))
    return "\n\n".join(parts) + "\n"


def write_png(path: str, summary: dict[str, Any], replace: bool = True) -> str:
    """Plot the learning-rate study (ours solid, the study's dashed) and table 1's win rates."""
    plt = figures.pyplot()  # parse_args has checked the 'plot' extra
    fig, axes = plt.subplots(1, 2, figsize=(12, 4.5))
    lr_study = summary.get("lr_study")
    ax = axes[0]
    if lr_study:
        # One colour per learning rate, shared by our run (solid) and the study's (dashed).
        names = [f"{run['lr']:g}" for run in lr_study["runs"]] + list(STUDY_LR)
        colour = {name: f"C{i % 10}" for i, name in enumerate(dict.fromkeys(names))}
        for run in lr_study["runs"]:
            name = f"{run['lr']:g}"
            rounds = range(1, len(run["wins"]) + 1)
            ax.plot(rounds, run["wins"], marker="o", color=colour[name], label=f"lr {name}")
        if summary["board"] == "3x3" and lr_study["opponent"] == "endgame(10)":
            for name, wins in STUDY_LR.items():
                style = {"linestyle": "--", "alpha": 0.6, "color": colour.get(name, "grey")}
                ax.plot(range(1, len(wins) + 1), wins, label=f"study lr {name}", **style)
            ax.scatter([14], [30], marker="*", s=120, color=colour.get("0.05", "grey"), label="study lr 0.05 (~30)")
        ax.set_xlabel("round of training games against " + lr_study["opponent"])
        ax.set_ylabel(f"wins in {lr_study['round_test_games']} test games")
        ax.legend(fontsize=7, ncol=2)
    ax.set_title("Learning-rate study")
    ax = axes[1]
    for key, offset in (("table1", -0.2), ("table2", 0.2)):
        table = summary.get(key)
        if not table:
            continue
        trainers = list(table)
        columns = list(table[trainers[0]])
        for j, column in enumerate(columns):
            rates = [(cell := table[t][column])["win"] / max(1, cell["win"] + cell["loss"]) for t in trainers]
            ax.scatter([i + offset for i in range(len(trainers))], rates, label=f"{key} vs {column}", marker="os^D"[j])
        ax.set_xticks(range(len(trainers)), trainers, fontsize=8)
    ax.set_ylabel("win rate of the trained agent")
    ax.set_xlabel("trainer (left dot: table 1, right dot: table 2)")
    ax.set_title("Tables 1 and 2")
    ax.legend(fontsize=7)
    fig.tight_layout()
    return figures.save_figure(fig, path, dpi=110, replace=replace)


# ---- main --------------------------------------------------------------------------------------


def main(argv: list[str] | None = None) -> dict[str, Any]:
    """Run the selected experiments and return the summary."""
    args = parse_args(argv)
    started = time.perf_counter()
    show = not args.no_progress
    summary: dict[str, Any] = {
        "board": f"{args.rows}x{args.cols}",
        "tie_break": "second",
        **{key: getattr(args, key) for key in ("seed", "endgame_k", "experiments")},
    }
    try:  # a board the rules refuse ends here, before any folder is made
        # The solve runs first, in this process, so its memory is measured before anything else grows.
        if "solve" in args.experiments:
            summary["solve"] = run_solve(args.rows, args.cols)
        else:
            shared_table(args.rows, args.cols)
    except ValueError as error:
        cli.fail(f"{error}")
    if args.save_dir:
        Path(args.save_dir).mkdir(parents=True, exist_ok=True)
        table = Path(args.save_dir) / table_file(args.rows, args.cols)
        shared_table(args.rows, args.cols).save(table, replace=args.overwrite)

    settings = {**vars(args), "progress": show and args.workers == 1}
    tasks = study_tasks(settings)
    if args.workers > 1 and len(tasks) > 1:
        with process_pool(min(args.workers, len(tasks))) as pool, progress_bar(len(tasks), "runs", show) as bar:
            results = []
            for result in pool.imap(run_task, tasks):
                results.append(result)
                bar.update(1)
    else:
        results = [run_task(task) for task in tasks]

    summary.update(study_summary(results, settings))
    summary["seconds"] = round(time.perf_counter() - started, 1)
    if summary["board"] == "3x3":
        summary["study"] = {"table1": STUDY_TABLE1, "table2": STUDY_TABLE2, "lr": STUDY_LR, "lr_note": STUDY_LR_NOTE}

    print(markdown_report(summary))
    for out in args.out:
        suffix = Path(out).suffix.lower()
        if suffix == ".png":
            written = write_png(out, summary, args.overwrite)
        else:
            text = markdown_report(summary) if suffix == ".md" else json.dumps(summary, indent=1) + "\n"
            written = write_text_atomic(out, text, replace=args.overwrite)
        if not args.json:
            print(f"wrote {written}")
    cli.emit_summary(summary, None, args.json)
    return summary


if __name__ == "__main__":
    cli.run(main)
