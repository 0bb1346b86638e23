"""Every figure the docs give beside a command that takes under a minute is rerun: the page and the command agree.

Issue 26 found figures on the pages that their own commands no longer printed. Each row of ``ROWS`` is one
such figure (or a few from one sentence or table row): the page, the command as the page cites it, the text
around the figure as it stands on the page, and where the command prints it (a key of its ``--json`` line,
or a regex over its output). A row checks both sides:

* the page still contains the text, with the command cited on it, so that editing a figure on the page
  without updating its row fails;
* the command, run as ``python <script> ...`` from the repository's root (``sys.executable``, headless),
  prints the same figure. Files the command writes go to a temporary folder, never into the checkout.

A figure a command does not print is a docs defect: fix the page to cite a command that prints it. Only
deterministic figures are rows (seeded counts, win/draw/loss records, rates, values, table entries): no wall
times, speeds or load averages, which the ``<*>`` wildcard skips inside a row's page text.

"Under a minute" is CPU time (user + sys) on the project's shared 2-core machine: at load averages of 10-17
(other jobs) the wall time was 3-5 times that. Rows whose commands take at most about 10 s (about 15 s in
all; 30-80 s of wall time under that load) run by default. The others (up to a minute each, td.md's 26
seeds a little over, about 6 minutes of CPU in all: the bigger solves, the arena and AlphaZero matches, the
tic-tac-toe ladder, the Connect Four label sets, the reward thresholds) are ``slow`` and opt-in, as
``tests/test_gymnasium_versions.py`` is, so that CI's suite keeps its time::

    GYM_BOARDGAMES_TEST_DOC_FIGURES=1 python -m pytest tests/docs/test_documented_figures.py

Without the variable the slow rows still check their pages; only their commands are skipped. Not rows:
commands of more than a minute (the other ladders, AlphaZero's training runs, its 800-simulation gradings and
solver games, Blackjack's Monte Carlo figures, the undiscounted 100x100 policy iteration, the RLlib, SB3 and
CleanRL runs) and measured times and speeds (the benchmarks).
"""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import subprocess
import sys
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
OPT_IN = "GYM_BOARDGAMES_TEST_DOC_FIGURES"
# Generous: the slowest rows take a minute of CPU, several minutes of wall time on a loaded 2-core machine.
TIMEOUT_S = 900
FIGURE = re.compile(r"\{\{(.+?)\}\}")  # a figure in a row's page text: {{4,506}}
ANY = "<*>"  # skipped text in a row's page text (a wall time, a load average)


@dataclass(frozen=True)
class Json:
    """A figure of the command's last output line (its ``--json`` summary): the value at ``path``, formatted.

    ``fmt`` formats the value: ``str.format(**value)`` for a dict, ``(*value)`` for a list, ``(value)`` else.
    """

    path: tuple[str, ...]
    fmt: str = "{}"

    def read(self, output: str, swap) -> str:
        value: Any = json.loads(output.strip().splitlines()[-1])
        for key in self.path:
            value = value[int(key)] if isinstance(value, list) else value[swap(key)]
        if isinstance(value, dict):
            return self.fmt.format(**value)
        if isinstance(value, list):
            return self.fmt.format(*value)
        return self.fmt.format(value)


@dataclass(frozen=True)
class Printed:
    """A figure of the command's output: the first group of the first match of ``pattern``."""

    pattern: str

    def read(self, output: str, swap) -> str:
        match = re.search(self.pattern, output, re.M)
        return match.group(1) if match else f"<nothing printed matches {self.pattern!r}>"


@dataclass(frozen=True)
class Row:
    """A documented figure and the command that prints it.

    Attributes:
        page: the document, from the repository's root.
        commands: what the page says to run, in order (a later one may read an earlier one's file); the figures
            are in the last one's output. Each begins ``python scripts/...`` (or ``.venv/bin/python``).
        shown: the page's text around the figures, whitespace as one space; each figure in ``{{ }}``, ``<*>``
            for skipped text.
        found: where the last command prints each figure, in the order of ``shown``'s figures.
        cited: the texts that cite the command on the page, when it is not given as written (a table cell of
            arguments, "the same with `--labels heldout`").
        extra: flags added to the last command: ``--json`` where the page leaves it out.
        outputs: the names of the files and folders the commands write (or read from an earlier one): they are
            made paths in a temporary folder, also inside agent names (``td:td.npz``) and JSON keys.
        in_tmp: run the commands in the temporary folder instead of the repository's root (the scripts by their
            path in the checkout), the output files' names as written: the ladder seeds its games from the agents'
            names, so ``td:td.npz`` must stay that name to play the page's games.
        bash: the one command is a bash block of the page, run by bash from the repository's root with
            ``.venv/bin/python`` as this interpreter and the output names made paths in the temporary folder.
        needs: modules of an optional extra the commands need (the row is skipped without them).
        slow: opt-in (see the module's docstring).
    """

    page: str
    commands: tuple[str, ...]
    shown: str
    found: tuple[Json | Printed, ...]
    cited: tuple[str, ...] = ()
    extra: tuple[str, ...] = ()
    outputs: tuple[str, ...] = ()
    in_tmp: bool = False
    bash: bool = False
    needs: tuple[str, ...] = ()
    slow: bool = False
    id: str = field(default="", compare=False)


TD = "python scripts/train_tictactoe_td.py"
# docs/agents/td.md's block that counts the seeds whose greedy player keeps a losing move, as the page gives it.
TD_SEEDS = "\n".join(
    [
        "count='import json, sys; rows = [json.loads(l) for l in sys.stdin]",
        'print(sum(any(s["losing"] for s in r["seat_audit"].values()) for r in rows), "of", len(rows), '
        '"seeds left a losing move")\'',
        "for seed in 0 1 2 3 4 5; do",
        "  .venv/bin/python scripts/train_tictactoe_td.py --seed $seed --alpha 0.1 --alpha-final 0.1 --epsilon 0.1 \\",
        "    --epsilon-final 0.1 --out td_tictactoe_seed.npz --overwrite --no-progress --json | tail -1",
        'done | .venv/bin/python -c "$count"',
        "for seed in $(seq 0 19); do",
        "  .venv/bin/python scripts/train_tictactoe_td.py --seed $seed --out td_tictactoe_seed.npz --overwrite "
        "--no-progress --json | tail -1",
        'done | .venv/bin/python -c "$count"',
    ]
)


def solve_row(arguments: str, positions: str, result: str, slow: bool = False) -> Row:
    """A row of the exact-solving table of docs/agents/minimax.md: positions and value of one solve.py run."""
    return Row(
        "docs/agents/minimax.md",
        (f"python scripts/solve.py {arguments}",),
        f"`{arguments}` | {{{{{positions}}}}} | {{{{{result}}}}} |",
        (Json(("positions",)), Json(("result",))),
        cited=(f"`{arguments}`",),
        extra=("--json",),
        slow=slow,
        id=f"minimax.md solve.py {arguments}",
    )


def ladder_row(
    rank: int, agent: str, elo: str, low: str, high: str, games: str, optimal: str, losing: str
) -> list[Row]:
    """A row of docs/agents/ladder.md's tic-tac-toe table: the ladder's columns, then the grading's."""
    train = "python scripts/train_tictactoe_td.py --out td.npz --no-progress"
    ladder = (
        "python scripts/ladder.py --game tictactoe --agents random alphabeta:1 alphabeta:2 alphabeta mcts:50 "
        "mcts:400 td:td.npz alphazero:0 alphazero:50 --results ladder_tictactoe.jsonl --plot ladder_tictactoe.png "
        "--workers 1 --json"
    )
    grade = (
        "python scripts/eval_perfect_play.py --game tictactoe random alphabeta:1 alphabeta:2 alphabeta mcts:50 "
        "mcts:400 td:td.npz alphazero:0 alphazero:50"
    )
    outputs = ("td.npz", "ladder_tictactoe.jsonl", "ladder_tictactoe.png")
    name = re.escape(agent)
    line = rf"^\s*{rank}\s+{name}\s+"  # the agent's line of the printed table
    return [
        Row(
            "docs/agents/ladder.md",
            (train, ladder),
            f"| {{{{{rank}}}}} | {agent} | {{{{{elo}}}}} | [{{{{{low}}}}}, {{{{{high}}}}}] | {{{{{games}}}}} |",
            # The printed table: the JSON rounds Elo to 0.1 first (mcts:400's 529.5 there would format as 530).
            (
                Printed(rf"^\s*(\d+)\s+{name}\s"),
                Printed(rf"{line}(-?\d+)\s"),
                Printed(rf"{line}-?\d+\s+\[(-?\d+),"),
                Printed(rf"{line}-?\d+\s+\[-?\d+, (-?\d+)\]"),
                Printed(rf"{line}-?\d+\s+\[-?\d+, -?\d+\]\s+(\d+)\s*$"),
            ),
            outputs=outputs,
            in_tmp=True,
            needs=("matplotlib",),  # --plot
            slow=True,
            id=f"ladder.md tic-tac-toe ladder: {agent}",
        ),
        Row(
            "docs/agents/ladder.md",
            (train, grade),
            f"| {rank} | {agent} | {elo} | [{low}, {high}] | {games} | {{{{{optimal}}}}} | {{{{{losing}}}}} |",
            (Json(("players", agent, "optimal_moves"), "{:.1%}"), Json(("players", agent, "losing"), "{:,}")),
            extra=("--json", "--quiet"),
            outputs=outputs,
            in_tmp=True,
            slow=True,
            id=f"ladder.md tic-tac-toe grading: {agent}",
        ),
    ]


def eval_row(shown: str, command: str, found, slow: bool, id: str) -> Row:
    return Row("docs/agents/alphazero.md", (command,), shown, found, extra=("--json", "--quiet"), slow=slow, id=id)


WDL = "{win}/{draw}/{loss}"
WDL_SPACED = "{win} / {draw} / {loss}"

ROWS: list[Row] = [
    # The first command of README and of the TD tutorial: it writes td_tictactoe.npz, here into the tmp folder.
    Row(
        "README.md",
        (".venv/bin/python scripts/train_tictactoe_td.py",),
        "greedy move optimal in {{4506}}/{{4520}} reachable non-terminal positions ({{99.7%}})",
        (Json(("optimal_positions",)), Json(("positions",)), Json(("optimal_move_share",), "{:.1%}")),
        extra=("--no-progress", "--json", "--out", "td_tictactoe.npz"),
        outputs=("td_tictactoe.npz",),
        id="README.md first command",
    ),
    Row(
        "docs/tutorials/td_self_play.md",
        (".venv/bin/python scripts/train_tictactoe_td.py",),
        "(about 3 seconds, {{985/15/0}} and {{908/92/0}} against random,",
        (Json(("vs_random", "first"), WDL), Json(("vs_random", "second"), WDL)),
        extra=("--no-progress", "--json", "--out", "td_tictactoe.npz"),
        outputs=("td_tictactoe.npz",),
        id="td_self_play.md first command",
    ),
    Row(
        "docs/agents/td.md",
        (f"{TD} --no-progress --json",),
        "| random, 1,000 games | {{985 / 15 / 0}} | {{908 / 92 / 0}} |",
        (Json(("vs_random", "first"), WDL_SPACED), Json(("vs_random", "second"), WDL_SPACED)),
        extra=("--out", "td_tictactoe.npz"),
        outputs=("td_tictactoe.npz",),
        id="td.md vs random",
    ),
    Row(
        "docs/agents/td.md",
        (f"{TD} --no-progress --json",),
        "| alpha-beta (perfect), 200 games | {{0 / 200 / 0}} | {{0 / 200 / 0}} |",
        (Json(("vs_alphabeta", "first"), WDL_SPACED), Json(("vs_alphabeta", "second"), WDL_SPACED)),
        extra=("--out", "td_tictactoe.npz"),
        outputs=("td_tictactoe.npz",),
        id="td.md vs alpha-beta",
    ),
    Row(
        "docs/agents/td.md",
        (f"{TD} --no-progress --json",),
        "optimal in {{4,506}} of the {{4,520}} reachable non-terminal positions ({{99.7%}}), and in every one of the "
        "positions it can actually meet from either seat ({{142}} as X, {{360}} as O:",
        (
            Json(("optimal_positions",), "{:,}"),
            Json(("positions",), "{:,}"),
            Json(("optimal_move_share",), "{:.1%}"),
            Json(("seat_audit", "first", "positions")),
            Json(("seat_audit", "second", "positions")),
        ),
        extra=("--out", "td_tictactoe.npz"),
        outputs=("td_tictactoe.npz",),
        id="td.md audit",
    ),
    # The seeds of td.md's schedules: 26 training runs.
    *[
        Row(
            "docs/agents/td.md",
            (TD_SEEDS,),
            shown,
            found,
            outputs=("td_tictactoe_seed.npz",),
            bash=True,
            slow=True,
            id=f"td.md seeds: {where}",
        )
        for where, shown, found in [
            (
                "the block's output",
                'printed "{{4 of 6}} seeds left a losing move" and "{{0 of 20}} seeds left a losing move"',
                (Printed(r"^(\d+ of 6) seeds left a losing move$"), Printed(r"^(\d+ of 20) seeds left a losing move$")),
            ),
            (
                "the text",
                "in {{4 of 6}} seeds at 100,000 games; the decaying schedule left none in 20 seeds",
                (Printed(r"^(\d+ of 6) seeds left a losing move$"),),
            ),
        ]
    ],
    Row(
        "docs/envs/tictactoe.md",
        ("python scripts/demo_tictactoe.py --self-play --games 20 --json",),
        "(seed 0) gives X {{11/2/7}} and O {{7/2/11}}.",
        (Json(("by_side", "X"), WDL), Json(("by_side", "O"), WDL)),
        id="tictactoe.md demo self-play",
    ),
    # The reward thresholds: each id's reference plays its episodes, seeded.
    *[
        Row(
            "docs/envs/index.md",
            ("python scripts/reward_thresholds.py",),
            f"| {first_cells} | {{{{{episodes}}}}} | {{{{{mean}}}}} | {{{{{threshold}}}}} |",
            (
                Json((env_id, "episodes"), "{:,}"),
                Json((env_id, "mean"), mean_format),
                Json((env_id, "threshold"), "{:.2f}"),
            ),
            extra=("--json",),
            slow=True,
            id=f"envs/index.md reward threshold: {env_id}",
        )
        for env_id, first_cells, episodes, mean, mean_format, threshold in [
            ("TicTacToe-v0", "`TicTacToe-v0` | `alphabeta`", "1,000", "0.959", "{:.3f}", "0.85"),
            (
                "ConnectFour-v0",
                "`ConnectFour-v0`, `ConnectN-v0` (its default board is Connect Four's) | `alphazero`",
                "200",
                "1.000",
                "{:.3f}",
                "0.90",
            ),
            ("DotsAndBoxes-v0", "`DotsAndBoxes-v0` | `exact`", "1,000", "1.000", "{:.3f}", "0.90"),
            ("GridWorld-v0", "`GridWorld-v0` | the optimal policy of `P`", "10,000", "-1.995", "{:.3f}", "-2.10"),
            (
                "TabularBlackjack-v0",
                "`TabularBlackjack-v0` | the optimal policy of `P`",
                "100,000",
                "-0.0426",
                "{:.4f}",
                "-0.15",
            ),
        ]
    ],
    Row(
        "docs/agents/dp.md",
        ("python scripts/train_gridworld_dp.py --out gw.png",),
        "On the 4x4 grid: random-policy evaluation {{272}} sweeps; policy iteration {{2}} evaluations ({{272 + 3}} "
        "sweeps); value iteration {{4}} sweeps ({{64}} state updates); async value iteration {{46}} state updates; "
        "all give {{0, -1, -2, -3}}, ...",
        (
            Json(("random_policy", "sweeps")),
            Json(("policy_iteration", "iterations")),
            Json(("policy_iteration", "evaluation_sweeps"), "{0} + {1}"),
            Json(("value_iteration", "sweeps")),
            Json(("value_iteration", "updates")),
            Json(("async_value_iteration", "updates")),
            Json(("optimal_values",), "{0:g}, {1:g}, {2:g}, {3:g}"),
        ),
        extra=("--json",),
        outputs=("gw.png",),
        id="dp.md 4x4",
    ),
    Row(
        "docs/agents/dp.md",
        ("python scripts/train_gridworld_dp.py --rows 100 --cols 100 --gamma 0.9 --json",),
        "| gamma=0.9 | {{72}} evaluations, {{329}} sweeps, <*> | {{100}} sweeps, <*> | {{590,702}} updates, <*> |",
        (
            Json(("policy_iteration", "iterations")),
            Json(("policy_iteration", "sweeps")),
            Json(("value_iteration", "sweeps")),
            Json(("async_value_iteration", "updates"), "{:,}"),
        ),
        id="dp.md 100x100 gamma=0.9",
    ),
    solve_row("tictactoe", "5,478", "draw"),
    solve_row("connectn --rows 4 --cols 4 --n 4", "161,029", "draw"),
    solve_row("connectn --rows 5 --cols 4 --n 4", "1,706,255", "draw"),
    solve_row("dotsandboxes --rows 2 --cols 2", "5,559", "first player wins"),
    solve_row("connectn --rows 4 --cols 5 --n 4", "3,945,711", "draw", slow=True),
    solve_row("connectn --rows 4 --cols 4 --n 3 --no-gravity", "6,036,001", "first player wins", slow=True),
    solve_row("connectn --rows 4 --cols 4 --n 4 --no-gravity", "9,722,011", "draw", slow=True),
    *[
        Row(
            "docs/agents/minimax.md",
            ("python scripts/arena.py --game tictactoe --agents random alphabeta mcts:1000 --games 200",),
            f"{pair} {{{{{first}}}}} {{{{{second}}}}}",
            (Json(("results", pair, "first"), WDL), Json(("results", pair, "second"), WDL)),
            extra=("--json",),
            slow=True,
            id=f"minimax.md arena: {pair}",
        )
        for pair, first, second in [
            ("random vs alphabeta", "0/24/76", "0/6/94"),
            ("random vs mcts:1000", "0/10/90", "0/3/97"),
            ("alphabeta vs mcts:1000", "3/97/0", "0/100/0"),
        ]
    ],
    # MCTS's own records are the other side of the rows above: as X it faces random as second, and so on.
    Row(
        "docs/agents/minimax.md",
        ("python scripts/arena.py --game tictactoe --agents random alphabeta mcts:1000 --games 200",),
        "never lost to random ({{97/3/0}} as X, {{90/10/0}} as O) and drew all {{100}} games as X against perfect "
        "play, but lost {{3}} of 100 as O",
        (
            Json(("results", "random vs mcts:1000", "second"), "{loss}/{draw}/{win}"),
            Json(("results", "random vs mcts:1000", "first"), "{loss}/{draw}/{win}"),
            Json(("results", "alphabeta vs mcts:1000", "second", "draw")),
            Json(("results", "alphabeta vs mcts:1000", "first", "win")),
        ),
        extra=("--json",),
        slow=True,
        id="minimax.md arena: MCTS's side",
    ),
    Row(
        "docs/agents/mcts.md",
        ("python scripts/arena.py --game tictactoe --agents random alphabeta mcts:1000 --games 200",),
        "gave MCTS {{97/3/0}} as X and {{90/10/0}} as O against random, and {{100}} draws as X and {{97}} draws and "
        "{{3}} losses as O against alpha-beta.",
        (
            Json(("results", "random vs mcts:1000", "second"), "{loss}/{draw}/{win}"),
            Json(("results", "random vs mcts:1000", "first"), "{loss}/{draw}/{win}"),
            Json(("results", "alphabeta vs mcts:1000", "second", "draw")),
            Json(("results", "alphabeta vs mcts:1000", "first", "draw")),
            Json(("results", "alphabeta vs mcts:1000", "first", "win")),
        ),
        extra=("--json",),
        slow=True,
        id="mcts.md arena",
    ),
    Row(
        "docs/agents/minimax.md",
        ("python scripts/arena.py --game tictactoe --agents random mcts:1000 alphabeta --games 200",),
        "prints `mcts:1000 vs alphabeta {{0/100/0}} {{0/98/2}}` (as first, as second)",
        (
            Json(("results", "mcts:1000 vs alphabeta", "first"), WDL),
            Json(("results", "mcts:1000 vs alphabeta", "second"), WDL),
        ),
        cited=("`--agents random mcts:1000 alphabeta`",),
        extra=("--json",),
        slow=True,
        id="minimax.md arena, other order",
    ),
    eval_row(
        "(the same as `python scripts/eval_alphazero.py tictactoe --simulations 0 --against random --games 2`)<*> | "
        "the raw network's move (no search) is optimal in {{99.69%}} of the {{4,520}} non-terminal positions,",
        "python scripts/eval_alphazero.py tictactoe --simulations 0 --against random --games 2",
        (Json(("raw_network_optimal_all", "rate"), "{:.2%}"), Json(("raw_network_optimal_all", "positions"), "{:,}")),
        slow=False,
        id="alphazero.md raw tic-tac-toe network",
    ),
    Row(
        "docs/agents/alphazero.md",
        ("python scripts/eval_perfect_play.py --game tictactoe alphazero:0 --json",),
        "the count from `python scripts/eval_perfect_play.py --game tictactoe alphazero:0 --json` | the raw network's "
        "move (no search) is optimal in 99.69% of the 4,520 non-terminal positions, **{{4,506}}** of them",
        (Json(("players", "alphazero:0", "optimal"), "{:,}"),),
        extra=("--quiet",),
        id="alphazero.md raw tic-tac-toe network, count",
    ),
    eval_row(
        "(load 4.3) | against `AlphaBetaAgent`: {{0/100/0}} as first and {{0/100/0}} as second (win/draw/loss): no "
        "loss; against random: {{92/8/0}} and {{86/14/0}} |",
        "python scripts/eval_alphazero.py tictactoe --simulations 50 --against alphabeta random --games 200",
        (
            Json(("matches", "alphabeta", "first"), WDL),
            Json(("matches", "alphabeta", "second"), WDL),
            Json(("matches", "random", "first"), WDL),
            Json(("matches", "random", "second"), WDL),
        ),
        slow=True,
        id="alphazero.md tic-tac-toe, 50 simulations, 200 games",
    ),
    eval_row(
        "| against random play: {{946/54/0}} as first, {{844/156/0}} as second: no loss in 1,000 games per seat |",
        "python scripts/eval_alphazero.py tictactoe --simulations 50 --against random --games 2000",
        (
            Json(("matches", "random", "first"), WDL),
            Json(("matches", "random", "second"), WDL),
        ),
        slow=True,
        id="alphazero.md tic-tac-toe, 50 simulations, 2000 games",
    ),
    Row(
        "docs/agents/ladder.md",
        (
            "python scripts/train_tictactoe_td.py --out td.npz --no-progress",
            "python scripts/ladder.py --game tictactoe --agents random alphabeta:1 alphabeta:2 alphabeta mcts:50 "
            "mcts:400 td:td.npz alphazero:0 alphazero:50 --results ladder_tictactoe.jsonl --plot ladder_tictactoe.png "
            "--workers 1 --json",
        ),
        "The ladder stopped when every interval was narrower than 100 Elo, after {{4,290}} games (of 7,200 allowed)",
        (Json(("games",), "{:,}"),),
        outputs=("td.npz", "ladder_tictactoe.jsonl", "ladder_tictactoe.png"),
        in_tmp=True,
        needs=("matplotlib",),  # --plot
        slow=True,
        id="ladder.md tic-tac-toe ladder: games",
    ),
    # The retrained Connect Four network graded on the three label sets (the solver's scores ship with the package).
    *[
        Row(
            "docs/agents/alphazero.md",
            (f"python scripts/eval_perfect_play.py alphazero:0 alphazero:100{labels}",),
            shown,
            (
                Json(("players", "alphazero:0", "outcome_kept"), "{:.1%}"),
                *([Json(("positions",), "{:,}")] if not labels else []),
                Json(("players", "alphazero:0", "critical", "outcome_kept"), "{:.1%}"),
                Json(("players", "alphazero:100", "outcome_kept"), "{:.1%}"),
                Json(("players", "alphazero:100", "critical", "outcome_kept"), "{:.1%}"),
            ),
            cited=("`python scripts/eval_perfect_play.py alphazero:0 alphazero:100`", *cited),
            extra=("--json", "--quiet"),
            slow=True,
            id=f"alphazero.md Connect Four network on the {name} set",
        )
        for name, labels, cited, shown in [
            (
                "graded",
                "",
                (),
                "graded set, raw network: outcome kept in **{{95.9%}}** of the {{3,200}} positions, **{{91.0%}}** of "
                "the critical ones (93.8%, 86.3%); with 100 simulations {{98.1%}} and {{95.8%}} (97.1%, 93.6%)",
            ),
            (
                "held-out",
                " --labels heldout",
                ("the same with `--labels heldout`",),
                "held-out set: raw **{{95.6%}}** (**{{90.6%}}** critical; 93.1%, 85.3%), 100 simulations {{98.3%}} "
                "({{96.4%}})",
            ),
            (
                "random-play",
                " --labels random",
                ("the same with `--labels random`",),
                "positions of uniformly random games: raw **{{94.4%}}** (**{{91.1%}}** critical; 87.2%, 79.6%), 100 "
                "simulations {{97.9%}} ({{96.6%}})",
            ),
        ]
    ],
    *[
        row
        for line in [
            "1 | td:td.npz | 564 | [514 | 614] | 960 | 99.7% | 4",
            "2 | alphazero:0 | 562 | [512 | 611] | 960 | 99.7% | 10",
            "3 | alphabeta | 552 | [502 | 601] | 960 | 100.0% | 0",
            "4 | alphazero:50 | 537 | [487 | 586] | 960 | 100.0% | 0",
            "5 | mcts:400 | 529 | [480 | 579] | 960 | 99.9% | 3",
            "6 | mcts:50 | 455 | [407 | 504] | 960 | 98.3% | 48",
            "7 | alphabeta:2 | 375 | [327 | 424] | 940 | 94.0% | 149",
            "8 | alphabeta:1 | 96 | [48 | 143] | 940 | 80.4% | 753",
            "9 | random | 0 | [0 | 0] | 940 | 57.6% | 1,539",
        ]
        for row in ladder_row(*line.replace("[", "").replace("]", "").split(" | "))
    ],
]


def _id(row: Row) -> str:
    return row.id or f"{row.page} {row.commands[-1]}"


@cache
def page_text(page: str) -> str:
    """The page with every run of whitespace as one space (a sentence may break across lines)."""
    return " ".join((ROOT / page).read_text(encoding="utf-8").split())


def shown_pattern(shown: str) -> re.Pattern[str]:
    """A row's page text as a regex: the figures' brackets dropped, ``<*>`` any text."""
    plain = " ".join(FIGURE.sub(r"\1", shown).split())
    return re.compile(".*?".join(re.escape(part) for part in plain.split(ANY)))


def figures(shown: str) -> list[str]:
    return FIGURE.findall(shown)


def same(a: str, b: str) -> bool:
    """Figures compare as written, thousands separators and spacing aside (4,506 is 4506)."""

    def norm(text: str) -> str:
        return " ".join(re.sub(r"(?<=\d),(?=\d{3})", "", text).split())

    return norm(a) == norm(b)


def python_argv(command: str) -> list[str]:
    """``python scripts/x.py ARGS`` as an argv of this interpreter."""
    words = shlex.split(command)
    assert Path(words[0]).name in ("python", "python3"), f"not a python command: {command}"
    assert words[1].startswith("scripts/"), f"not a script of scripts/: {command}"
    return [sys.executable, *words[1:]]


def swapper(outputs: tuple[str, ...], folder: Path):
    """Map a command word (or a JSON key) naming an output file to that file in ``folder``, also as ``td:FILE``."""

    def swap(word: str) -> str:
        for name in outputs:
            if word == name:
                return str(folder / name)
            if word.endswith(":" + name):
                return word[: -len(name)] + str(folder / name)
        return word

    return swap


def execute(row: Row, folder: Path) -> str:
    """The last command's output (stdout), the commands run in order from the repository's root (or ``folder``)."""
    env = {**os.environ, "SDL_VIDEODRIVER": "dummy", "SDL_AUDIODRIVER": "dummy"}
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH", "")]))
    swap = row_swapper(row, folder)
    before = checkout_files()
    try:
        if row.bash:
            script = row.commands[0].replace(".venv/bin/python", shlex.quote(sys.executable))
            for name in row.outputs:
                script = script.replace(name, shlex.quote(str(folder / name)))
            result = subprocess.run(
                ["bash", "-c", script], cwd=ROOT, env=env, capture_output=True, text=True, timeout=TIMEOUT_S
            )
            assert result.returncode == 0, f"the block failed ({result.returncode}):\n{result.stderr[-3000:]}"
            return result.stdout
        for i, command in enumerate(row.commands):
            argv = python_argv(command) + (list(row.extra) if i == len(row.commands) - 1 else [])
            argv = [swap(word) for word in argv]
            if row.in_tmp:
                argv[1] = str(ROOT / argv[1])
            cwd = folder if row.in_tmp else ROOT
            result = subprocess.run(argv, cwd=cwd, env=env, capture_output=True, text=True, timeout=TIMEOUT_S)
            assert result.returncode == 0, f"{command} failed ({result.returncode}):\n{result.stderr[-3000:]}"
        return result.stdout
    finally:
        wrote = checkout_files() - before
        assert not wrote, f"{row.commands} wrote into the checkout: {sorted(wrote)}"


def checkout_files() -> set[str]:
    """The names at the checkout's top, tools' hidden folders left out (other tests make .hypothesis meanwhile)."""
    return {name for name in os.listdir(ROOT) if not name.startswith(".")}


def row_swapper(row: Row, folder: Path):
    return (lambda word: word) if row.in_tmp else swapper(row.outputs, folder)


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory):
    """``runs(row)``: its last command's output and the output files' folder; each command line runs once."""
    done: dict[tuple, tuple[str, Path]] = {}

    def get(row: Row) -> tuple[str, Path]:
        # Rows whose commands come to the same argv share one run (README's first command is td.md's, say).
        if row.bash:
            key: tuple = (row.commands, row.outputs)
        else:
            argvs = tuple(tuple(python_argv(command)) for command in row.commands[:-1])
            key = (argvs, tuple(python_argv(row.commands[-1]) + list(row.extra)), row.outputs, row.in_tmp)
        if key not in done:
            folder = tmp_path_factory.mktemp("figures")
            done[key] = (execute(row, folder), folder)
        return done[key]

    return get


def check_page(row: Row) -> None:
    text = page_text(row.page)
    for cited in row.cited or row.commands:
        assert " ".join(cited.split()) in text, f"{row.page} no longer cites the command: {cited}"
    still_there = shown_pattern(row.shown).search(text) is not None
    assert still_there, (
        f"{row.page} no longer says: {row.shown!r} (a figure changed on the page: rerun the command and update the"
        " row with it)"
    )


def check_output(row: Row, output: str, swap) -> None:
    wanted = figures(row.shown)
    assert len(wanted) == len(row.found), f"{_id(row)}: {len(wanted)} figures on the page, {len(row.found)} found"
    wrong = [
        f"{figure!r} on the page, {printed!r} printed"
        for figure, finder in zip(wanted, row.found, strict=True)
        if not same(figure, printed := finder.read(output, swap))
    ]
    assert not wrong, f"{row.page}: `{row.commands[-1]}` does not print the page's figure: " + "; ".join(wrong)


def _param(row: Row):
    marks = []
    if row.slow:
        marks = [
            pytest.mark.slow,
            pytest.mark.skipif(os.environ.get(OPT_IN) != "1", reason=f"opt-in: set {OPT_IN}=1 (up to a minute each)"),
        ]
    return pytest.param(row, id=_id(row), marks=marks)


def test_rows_are_unique_and_well_formed():
    ids = [_id(row) for row in ROWS]
    assert len(ids) == len(set(ids)), "two rows have one id"
    for row in ROWS:
        assert figures(row.shown), f"{_id(row)}: no {{{{figure}}}} in its page text"
        assert len(figures(row.shown)) == len(row.found), f"{_id(row)}: one finder per figure"


@pytest.mark.parametrize("row", [pytest.param(row, id=_id(row)) for row in ROWS])
def test_page_still_shows_the_figure(row: Row):
    check_page(row)


@pytest.mark.parametrize("row", [_param(row) for row in ROWS])
def test_command_prints_the_figure(row: Row, runs):
    if row.bash and shutil.which("bash") is None:
        pytest.skip("no bash to run the page's block")
    for module in row.needs:
        pytest.importorskip(module, reason=f"{_id(row)} needs {module} (an optional extra)")
    output, folder = runs(row)
    check_output(row, output, row_swapper(row, folder))  # a JSON key td:FILE names the file as the run did
