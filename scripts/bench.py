"""The performance suite: our board envs, single and vectorised, beside PettingZoo, OpenSpiel and pgx.

What one "move" is
------------------
One piece (or edge) placed on the board, by whoever moves. The driver reads the legal moves from the mask
the library returns, picks one uniformly at random, and calls the library's step; the observation and
the mask are built at every move, and starting new games is part of the time.

Workloads, for each game (TicTacToe-v0, ConnectFour-v0, DotsAndBoxes-v0 3x3, and ConnectN-v0 as 15x15
Gomoku, n=5 without gravity):

Single envs (one game, a Python loop):
  selfplay    gymnasium.make(id, opponent=None): the driver plays both sides (moves/s).
  vs_random   gymnasium.make(id): the driver plays the agent and the built-in random opponent replies
              inside step(); reported as agent steps/s.
  pettingzoo  (--compare) the PettingZoo classic AEC env() with its default wrappers (tictactoe_v3,
              connect_four_v3): last() then step() for the agent in agent_selection (moves/s).
  openspiel   (--compare) a Python loop over pyspiel states (tic_tac_toe, connect_four, dots_and_boxes
              3x3, mnk 15x15 k=5): legal_actions() + apply_action() + observation_tensor() per move.

Vector envs (--num-envs N ..., default 1 64 1024 4096 16384 games at once):
  vector      gymnasium.make_vec(id, num_envs=N, opponent=None): the driver picks every sub-env's move
              with gym_boardgames.rules.batch.random_legal_actions(info["action_mask"], rng) (numpy, one
              uniform number per sub-env) and calls step(actions). With Gymnasium's next-step autoreset
              a sub-env whose game ended restarts on the following step without moving, so those
              sub-envs are not counted: moves = N per step minus the restarts.
  vector_vs_random  the same with opponent="random": agent moves/s (the opponent's replies are inside);
              at 4096 envs only in a smoke run.
  pgx         (--compare) pgx.make(name) for tic_tac_toe and connect_four, driven from Python:
              jax.jit(jax.vmap(pgx.experimental.auto_reset(env.step, env.init))) for the step and, as
              pgx's examples do, pgx.experimental.act_randomly(key, state.legal_action_mask) in its own
              jit for the driver. pgx restarts a finished game inside the same step, so every sub-env
              moves at every step: moves = N per step. Compilation happens in the warm-up, never in the
              timed runs; each timed run ends with block_until_ready(). The pgx sizes are --pgx-num-envs
              (default: the --num-envs sizes; 4096 only in a smoke run, as each size compiles for seconds).

Method: every workload runs a warm-up first (imports, caches, JIT compilation). Then all workloads are
timed in turn within each repeat, so machine noise hits all of them alike, and the median of the
repeats is reported (with min and max in the table). Ratios compare medians of the same run: on a
shared machine only those are meaningful. A vector run takes ``--vector-moves / N`` steps (at least 2,
at most --vector-max-steps).

Memory: peak resident set size (VmHWM; ru_maxrss where there is no /proc) of a fresh Python process
that imports gymnasium and gym_boardgames, makes each vector env with --memory-envs sub-envs (default
4096) and runs 100 steps; the same process's peak before make_vec is the cost of the imports. With
--compare, the same for pgx (jax imported, step compiled and run). A smoke run (--quick, or a
--vector-moves below 100,000) probes the first game only. The bench process's own peak is reported too.

Agents (tic-tac-toe, from the empty board; with --compare beside OpenSpiel's Python algorithms on
pyspiel's tic_tac_toe, interleaved the same way):
  alphabeta   agents.search.minimax.alphabeta, exact search (vs open_spiel.python.algorithms.minimax.alpha_beta_search)
  mcts        a fresh agents.search.mcts.MCTSAgent(n_simulations=1000) choosing one move (vs MCTSBot with a
              RandomRolloutEvaluator(n_rollouts=1), 1000 simulations, uct_c=2)

Resets (--resets, alone): a seeded reset against a named opponent beside an unseeded one and a self-play seeded
one (scripts/peers/resets.py's docstring), --repeats times 2,000 resets (200 with --quick).

Solver (--solver, alone): the exact Connect Four solver beside BitBully (when installed) on the shipped label
positions, by plies on the board, every position's scores compared; the pure-Python path, the first compile and a
cached start (scripts/peers/solver.py's docstring).

Pons' sets (--solver --testsets DIR): the same two solvers on Pascal Pons' public benchmark sets instead (a folder
holding his files Test_L3_R1 ... Test_L1_R3 from http://blog.gamesolver.org/data/; agents.matches.testsets), set
by set in his order, the first --testset-positions N of each (default all 1,000) of the sets --testset-names
names (default all six). Each position is replayed from the empty board, then scored (every legal move) by our
ConnectFourSolver(6, 7).score_moves and BitBully's score_all_moves, one after the other, the first alternating
from position to position; each call is timed in CPU time (time.thread_time), BitBully's board built outside it.
One solver of each serves the whole run and keeps its table (and opening book) from position to position. A set's
row: positions; disagreements (our best score against the file's SCORE, and every move's score against
BitBully's); median, mean and max time of each; ours over BitBully of the medians and of the means; our mean nodes
beside Pons' published mean (his solver, which scores the position alone, from an empty table and without a
book); positions over 1 s. Then an "all" row, and the first disagreements with their set, line and moves. Any
disagreement ends the run with status 1 after the report. Without BitBully, our columns alone. The label-set
flags (--solver-positions, --solver-python, --solver-python-budget) do not apply; --solver-all is refused.

--compare needs the 'bench' extra (pettingzoo, open-spiel); pgx (pip install pgx, which pulls jax) is
timed when it imports and runs, and skipped with the reason otherwise.
"""

from __future__ import annotations

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))  # plumbing/, peers/: also when loaded by path
from plumbing import cli  # first, before the slower imports: a Ctrl-C during them is one line (cli's hook)

# isort: split
import argparse
import platform
import statistics
from typing import Any

import numpy as np
from peers.agents import time_agents
from peers.memory import memory_probe
from peers.report import PEERS, print_tables, summarise
from peers.solver import check_testsets
from peers.workloads import (
    PEER_WORKLOADS,
    Workload,
    gym_workload,
    pgx_status,
    pgx_versions,
    pgx_workload,
    time_workload,
    vector_workload,
)

DEFAULT_NUM_ENVS = (1, 64, 1024, 4096, 16384)

#: Label -> the same game in each library: our env id and its kwargs, then, where the library has the game,
#: its name in PettingZoo's classic envs, in OpenSpiel and in pgx.
GAMES: dict[str, dict[str, Any]] = {
    "TicTacToe-v0": {
        "ours": ("TicTacToe-v0", {}), "pettingzoo": "tictactoe_v3", "openspiel": "tic_tac_toe", "pgx": "tic_tac_toe",
    },
    "ConnectFour-v0": {"ours": ("ConnectFour-v0", {}), "pettingzoo": "connect_four_v3", "openspiel": "connect_four",
                       "pgx": "connect_four"},
    "DotsAndBoxes-v0": {"ours": ("DotsAndBoxes-v0", {}), "openspiel": "dots_and_boxes"},
    "Gomoku-15x15": {"ours": ("ConnectN-v0", {"rows": 15, "cols": 15, "n": 5, "gravity": False}), "openspiel": "mnk"},
}  # fmt: skip


# ---- the command line ------------------------------------------------------------------------


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    """Parse the command line."""
    parser = cli.make_parser(__doc__)
    runs, sizes = cli.positive_int, cli.nonnegative_int
    parser.add_argument("--games", nargs="+", default=list(GAMES), choices=list(GAMES), help="games to time")
    parser.add_argument("--moves", type=runs, default=100_000, help="moves (or agent steps) per timed single-env run")
    parser.add_argument("--repeats", type=runs, default=5, help="timed runs per workload; the median is reported")
    parser.add_argument(
        "--warmup", type=sizes, default=2_000, help="untimed moves per single-env workload before timing"
    )
    parser.add_argument(
        "--num-envs",
        type=runs,
        nargs="*",
        default=list(DEFAULT_NUM_ENVS),
        help="vector env sizes to time (give the flag with no value to skip the vector envs)",
    )
    parser.add_argument("--vector-moves", type=runs, help="moves per timed vector run (default: 5 x --moves, 500,000)")
    parser.add_argument("--vector-max-steps", type=runs, default=2_000, help="at most this many steps per vector run")
    parser.add_argument(
        "--pgx-num-envs",
        type=runs,
        nargs="*",
        help="pgx sizes (default: the --num-envs sizes; 4096 alone with --quick or a --vector-moves below "
        "100,000, since every size compiles for seconds)",
    )
    parser.add_argument("--memory-envs", type=sizes, default=4096, help="sub-envs of the memory probe (0: none)")
    parser.add_argument("--compare", action="store_true", help="also time PettingZoo, OpenSpiel ('bench' extra), pgx")
    parser.add_argument("--no-agents", action="store_true", help="skip the alpha-beta and MCTS timings")
    parser.add_argument("--play", action="store_true", help="time human play only (scripts/peers/play.py's docstring)")
    parser.add_argument(
        "--resets", action="store_true", help="time seeded resets with a named opponent only (scripts/peers/resets.py)"
    )
    parser.add_argument(
        "--solver", action="store_true", help="time the exact Connect Four solver only (beside BitBully if installed)"
    )
    parser.add_argument(
        "--solver-all", action="store_true", help="--solver: all 5,200 label positions (minutes), not a sample"
    )
    parser.add_argument("--solver-positions", type=runs, default=70, help="--solver: the seeded sample's size")
    parser.add_argument(
        "--solver-python", type=sizes, default=3, help="--solver: pure-Python positions per ply band (0: none)"
    )
    parser.add_argument(
        "--solver-python-budget",
        type=cli.number_type(0, 86_400),
        default=60.0,
        help="--solver: seconds of pure-Python solving, after which no further position is started",
    )
    parser.add_argument(
        "--testsets", metavar="DIR", help="--solver: time Pons' sets in this folder instead (see above)"
    )
    parser.add_argument("--testset-positions", type=runs, metavar="N", help="--testsets: the first N of each set")
    parser.add_argument(
        "--testset-names", nargs="+", metavar="NAME", help="--testsets: these sets only, e.g. End-Easy Test_L1_R3"
    )
    parser.add_argument(
        "--quick",
        action="store_true",
        help="small budget for a smoke run (under a minute with --compare): 5k moves, 3 repeats, pgx and the "
        "vector env against the random opponent at 4096 envs only, one memory probe",
    )
    cli.add_run_flags(
        parser,
        seed="seed of the driver's random move choices",
        out="also write the JSON summary to this file (atomically)",
        json="print only the one-line JSON summary",
        overwrite=True,
    )
    return cli.parse_checked(parser, argv, check_testsets, _settle_budgets, check_vector_sizes)


def _settle_budgets(args: argparse.Namespace) -> None:
    if args.quick:
        args.moves, args.repeats, args.warmup = 5_000, 3, 300
        args.vector_moves, args.vector_max_steps = 50_000, 100
    if args.vector_moves is None:
        args.vector_moves = 5 * args.moves
    # A smoke run times pgx and the vector env against the random opponent at one size (4096) only, and
    # probes the memory of the first game only.
    args.small = args.quick or args.vector_moves < 100_000
    headline = [4096] if 4096 in args.num_envs else args.num_envs[-1:]
    args.vs_random_num_envs = headline if args.small else list(args.num_envs)
    if args.pgx_num_envs is None:
        args.pgx_num_envs = headline if args.small else list(args.num_envs)


def check_vector_sizes(args: argparse.Namespace) -> None:
    """Make each game's vector env at the largest --num-envs and --memory-envs, so the library judges them now.

    The vector envs refuse a size whose arrays would pass their memory limit before allocating anything
    (``gym_boardgames.rules.batch.MAX_BATCH_BYTES``); asking them here turns that refusal into a flag error
    before any timing (the memory probes would otherwise fail only at the end). The limit grows with the
    size, so the largest size of each flag is the one to ask about.

    Raises:
        ValueError: naming the flag, its value and the game, with the library's message.
    """
    import gymnasium as gym

    sizes = {"--num-envs": max(args.num_envs, default=0), "--memory-envs": args.memory_envs if args.num_envs else 0}
    for label in args.games:
        env_id, kwargs = GAMES[label]["ours"]
        for flag, size in sizes.items():
            if size < 1:
                continue
            try:
                gym.make_vec(env_id, num_envs=size, **kwargs).close()
            except ValueError as error:
                raise ValueError(f"{flag} {size} ({label}): {error}") from None


def build_workloads(args: argparse.Namespace, pgx_ok: bool) -> dict[tuple[str, str], Workload]:
    """Return every workload to time, keyed by (game label, workload name)."""
    workloads: dict[tuple[str, str], Workload] = {}
    for label in args.games:
        game = GAMES[label]
        env_id, kwargs = game["ours"]
        workloads[label, "selfplay"] = gym_workload(env_id, kwargs, None)
        workloads[label, "vs_random"] = gym_workload(env_id, kwargs, "random")
        for peer in PEERS:
            if args.compare and peer in game:
                workloads[label, peer] = PEER_WORKLOADS[peer](game[peer])
        for n in args.num_envs:
            workloads[label, f"vector@{n}"] = vector_workload(env_id, kwargs, n, None, args.vector_max_steps)
            if n in args.vs_random_num_envs:
                vs_random = vector_workload(env_id, kwargs, n, "random", args.vector_max_steps)
                workloads[label, f"vector_vs_random@{n}"] = vs_random
        for n in args.pgx_num_envs if pgx_ok and "pgx" in game else ():
            workloads[label, f"pgx@{n}"] = pgx_workload(game["pgx"], n, args.vector_max_steps)
    return workloads


def run_workloads(
    workloads: dict[tuple[str, str], Workload], args: argparse.Namespace
) -> tuple[dict[tuple[str, str], list[float]], str | None]:
    """Warm every workload up, then time them all in turn, ``args.repeats`` times.

    Returns:
        the rates of every run per workload, and why pgx was dropped if its warm-up failed (else None).
    """
    uniforms = np.random.default_rng(args.seed).random(max(args.moves, args.warmup))
    pgx_failure = None
    for key, workload in list(workloads.items()):
        name = key[1]
        if name.startswith("pgx@") and pgx_failure is not None:
            del workloads[key]
            continue
        try:
            # Vector workloads warm up (and pgx compiles) on a short run whatever --warmup says.
            workload(args.warmup if "@" not in name else 2 * int(name.split("@")[1]), uniforms)
        except Exception as error:  # noqa: BLE001
            if not name.startswith("pgx@"):
                raise
            pgx_failure = f"pgx does not run here: {type(error).__name__}: {error}"
            del workloads[key]
    runs: dict[tuple[str, str], list[float]] = {key: [] for key in workloads}
    for _ in range(args.repeats):
        for key, workload in workloads.items():
            budget = args.vector_moves if "@" in key[1] else args.moves
            runs[key].append(time_workload(workload, budget, uniforms))
    return runs, pgx_failure


def main(argv: list[str] | None = None) -> dict:
    """Run the benchmark and return the summary printed as JSON."""
    args = parse_args(argv)
    from plumbing.cli import emit_summary

    from gym_boardgames.utils import peak_rss_mb

    if args.testsets is not None:
        import shlex

        from peers.solver import testset_timings

        command = shlex.join(["scripts/bench.py", *(sys.argv[1:] if argv is None else argv)])
        summary = testset_timings(args, command, echo=not args.json)
        emit_summary(summary, args.out, print_json=True, replace=args.overwrite)
        if summary["disagreements"]:
            cli.fail(f"{summary['disagreements']} position(s) disagree (see above)", cli.EXIT_FAILED)
        return summary
    if args.solver:
        from peers.solver import print_solver_table, solver_timings

        summary = solver_timings(args)
        if not args.json:
            print_solver_table(summary)
        emit_summary(summary, args.out, print_json=True, replace=args.overwrite)
        return summary
    if args.play or args.resets:
        from peers.play import play_timings
        from peers.resets import reset_timings

        # --play: the default opponents' replies, the browser's round trip, the window's close; --resets: a named
        # opponent is reseeded, not built again, at each seeded reset.
        timings = play_timings() if args.play else reset_timings(args.repeats, 200 if args.quick else 2_000)
        emit_summary(timings, args.out, print_json=True, replace=args.overwrite)
        return timings
    pgx_state = "not requested (use --compare)"
    if args.compare:
        try:
            import pettingzoo  # noqa: F401
            import pyspiel  # noqa: F401
        except ImportError as error:
            cli.fail(f'--compare needs PettingZoo and OpenSpiel ({error.name} is missing): pip install -e ".[bench]"')
        pgx_state = pgx_status() if any("pgx" in GAMES[label] for label in args.games) else "no pgx game selected"
        if pgx_state != "ok" and not args.json:
            print(f"pgx skipped: {pgx_state}", file=sys.stderr)
    pgx_ok = pgx_state == "ok" and bool(args.pgx_num_envs)

    runs, pgx_failure = run_workloads(build_workloads(args, pgx_ok), args)
    if pgx_failure is not None:
        pgx_state, pgx_ok = pgx_failure, False
        if not args.json:
            print(f"pgx skipped: {pgx_state}", file=sys.stderr)
    medians = {key: statistics.median(values) for key, values in runs.items()}
    agent_ms = {} if args.no_agents else time_agents(args.compare, args.repeats)

    memory: dict = {}
    if args.memory_envs and args.num_envs:
        probes = args.games[:1] if args.small else args.games
        memory[f"vector_{args.memory_envs}_envs"] = {
            label: memory_probe("ours", *GAMES[label]["ours"], args.memory_envs) for label in probes
        }
        if pgx_ok and not args.small:
            memory[f"pgx_{args.memory_envs}_envs"] = {
                label: memory_probe("pgx", GAMES[label]["pgx"], {}, args.memory_envs)
                for label in args.games
                if "pgx" in GAMES[label]
            }
    peak = peak_rss_mb()
    memory["bench_process_peak_rss_mb"] = None if peak is None else round(peak, 1)

    results = summarise(args.games, GAMES, args.num_envs, args.pgx_num_envs, medians)
    agents_summary: dict = {f"{name}_ms": round(ms, 2) for name, ms in agent_ms.items()}
    for name in ("alphabeta", "mcts_1000"):
        if f"openspiel_{name}" in agent_ms:
            agents_summary[f"{name}_speedup_vs_openspiel"] = round(agent_ms[f"openspiel_{name}"] / agent_ms[name], 2)
    summary: dict = {
        "moves_per_run": args.moves,
        "vector_moves_per_run": args.vector_moves,
        "repeats": args.repeats,
        "python": platform.python_version(),
        "numpy": np.__version__,
        "machine": platform.machine(),
        "cpus": os.cpu_count(),
        "pgx": pgx_state if pgx_state != "ok" else f"ok ({pgx_versions()})",
        "results": results,
        "memory": memory,
    }
    if agents_summary:
        summary["agents_tictactoe"] = agents_summary
    if not args.json:
        print_tables(runs, medians, results, agent_ms, agents_summary, memory)
    # The JSON line ends the output, with or without --json.
    emit_summary(summary, args.out, print_json=True, replace=args.overwrite)
    return summary


if __name__ == "__main__":
    cli.run(main)
