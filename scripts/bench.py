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
  alphabeta   agents.minimax.alphabeta, exact search (vs open_spiel.python.algorithms.minimax.alpha_beta_search)
  mcts        a fresh agents.mcts.MCTSAgent(n_simulations=1000) choosing one move (vs MCTSBot with a
              RandomRolloutEvaluator(n_rollouts=1), 1000 simulations, uct_c=2)

Resets (--resets, alone): a seeded reset against a named opponent beside an unseeded one and a self-play seeded
one (scripts/peers/resets.py's docstring), --repeats times 2,000 resets (200 with --quick).

Solver (--solver, alone): the exact Connect Four solver (agents.connect_four_solver), compiled, beside BitBully
(when installed; "not installed" otherwise) on the same positions of the shipped label sets (agents/data/
connectfour_*.npz, all 5,200 positions with --solver-all, else a seeded sample of --solver-positions), in turn,
one solver of each kept for the whole run (their tables carry over, as when a grader uses them). A position's
time is that of scoring all its legal moves (ConnectFourSolver.score_moves, BitBully's score_all_moves),
reported by plies on the board (0-5, 6-11, 12-17, 18-23, 24+): median and max ms, ours/BitBully of the medians
and of the maxima. Every position's scores are compared with BitBully's and with the label file's; the
disagreements are counted. The pure-Python path (NUMBA_DISABLE_JIT=1, a child process) is timed on the bands
from 12 plies on only, --solver-python positions per band that the compiled search settled in at most 20,000
nodes, late bands first, until --solver-python-budget seconds are spent: a position of fewer plies searches
longer and reads the opening book, where each probe cost the pure-Python path about 15 ms until 69db3b9 (numpy's
searchsorted given a Python int converted the 4.2-million-entry array; one opening position took 164 s). The
start: a child process with an empty NUMBA_CACHE_DIR (the compile), then a second with the same folder (the
cached start): the solver module's import, making the solver (its table and the book), and its first call.

--compare needs the 'bench' extra (pettingzoo, open-spiel); pgx (pip install pgx, which pulls jax) is
timed when it imports and runs, and skipped with the reason otherwise.
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

# The peers package lives beside this file: its folder is sys.path[0] when it runs, not when loaded by path (tests).
_FOLDER = str(Path(__file__).resolve().parent)
if _FOLDER not in sys.path:
    sys.path.insert(0, _FOLDER)

from peers.agents import time_agents  # noqa: E402
from peers.memory import memory_probe  # noqa: E402
from peers.workloads import (  # noqa: E402
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
#: The single-env peers timed with --compare, beside our self-play.
PEERS = tuple(PEER_WORKLOADS)


# ---- the command line ------------------------------------------------------------------------


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    """Parse the command line."""
    from gym_boardgames import cli

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
        "--solver-python", type=sizes, default=3, help="--solver: pure-Python positions per band of 12+ plies (0: none)"
    )
    parser.add_argument(
        "--solver-python-budget",
        type=cli.number_type(0, 86_400),
        default=60.0,
        help="--solver: seconds of pure-Python solving, after which no further position is started",
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
    return cli.parse_checked(parser, argv, _settle_budgets, check_vector_sizes)


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


def summarise(args: argparse.Namespace, medians: dict[tuple[str, str], float]) -> dict[str, dict]:
    """Return the per-game results of the JSON summary (rates rounded, ratios to 2 decimals)."""
    results: dict[str, dict] = {}
    for label in args.games:
        selfplay = medians[label, "selfplay"]
        entry: dict = {
            "selfplay_moves_per_s": round(selfplay),
            "vs_random_agent_steps_per_s": round(medians[label, "vs_random"]),
        }
        for peer in PEERS:
            if (label, peer) in medians:
                entry[f"{peer}_{GAMES[label][peer]}_moves_per_s"] = round(medians[label, peer])
                entry[f"selfplay_vs_{peer}_ratio"] = round(selfplay / medians[label, peer], 2)
        vector: dict[str, dict] = {}
        for n in dict.fromkeys([*args.num_envs, *args.pgx_num_envs]):
            row = {}
            if (label, f"vector@{n}") in medians:
                moves = medians[label, f"vector@{n}"]
                row = {"selfplay_moves_per_s": round(moves), "vs_single_env_ratio": round(moves / selfplay, 2)}
                if (label, f"vector_vs_random@{n}") in medians:
                    row["vs_random_agent_moves_per_s"] = round(medians[label, f"vector_vs_random@{n}"])
            if (label, f"pgx@{n}") in medians:
                row["pgx_moves_per_s"] = round(medians[label, f"pgx@{n}"])
                if "selfplay_moves_per_s" in row:
                    row["vs_pgx_ratio"] = round(row["selfplay_moves_per_s"] / row["pgx_moves_per_s"], 2)
            if row:
                vector[str(n)] = row
        if vector:
            entry["vector"] = vector
        results[label] = entry
    return results


def main(argv: list[str] | None = None) -> dict:
    """Run the benchmark and return the summary printed as JSON."""
    args = parse_args(argv)
    from gym_boardgames import cli
    from gym_boardgames.cli import emit_summary
    from gym_boardgames.utils import peak_rss_mb

    if args.solver:
        summary = solver_timings(args)
        if not args.json:
            print_solver_table(summary)
        emit_summary(summary, args.out, print_json=True)
        return summary
    if args.play or args.resets:
        from peers.play import play_timings
        from peers.resets import reset_timings

        # --play: the default opponents' replies, the browser's round trip, the window's close; --resets: a named
        # opponent is reseeded, not built again, at each seeded reset.
        timings = play_timings() if args.play else reset_timings(args.repeats, 200 if args.quick else 2_000)
        emit_summary(timings, args.out, print_json=True)
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

    results = summarise(args, medians)
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
    emit_summary(summary, args.out, print_json=True)  # the JSON line ends the output, with or without --json
    return summary


def print_tables(
    runs: dict[tuple[str, str], list[float]],
    medians: dict[tuple[str, str], float],
    results: dict[str, dict],
    agent_ms: dict[str, float],
    agents_summary: dict,
    memory: dict,
) -> None:
    """Print the human-readable tables: every workload, the vector table with ratios, agents, memory."""
    print(f"{'game':<16} {'workload':<24} {'median /s':>12} {'min /s':>12} {'max /s':>12}")
    for (label, name), values in runs.items():
        print(f"{label:<16} {name:<24} {medians[label, name]:>12,.0f} {min(values):>12,.0f} {max(values):>12,.0f}")
    for label, entry in results.items():
        for peer in PEERS:
            if f"selfplay_vs_{peer}_ratio" in entry:
                print(f"{label} single-env self-play vs {peer}: {entry[f'selfplay_vs_{peer}_ratio']}x")
    if any("vector" in entry for entry in results.values()):
        print(f"\n{'game':<16} {'envs':>6} {'ours moves/s':>14} {'vs random':>12} {'pgx moves/s':>13} {'ours/pgx':>9}")
        for label, entry in results.items():
            for n, row in entry.get("vector", {}).items():
                cells = [
                    f"{row[key]:,}" if key in row else "-"
                    for key in ("selfplay_moves_per_s", "vs_random_agent_moves_per_s", "pgx_moves_per_s")
                ]
                ratio = f"{row['vs_pgx_ratio']}x" if "vs_pgx_ratio" in row else "-"
                print(f"{label:<16} {n:>6} {cells[0]:>14} {cells[1]:>12} {cells[2]:>13} {ratio:>9}")
    if agent_ms:
        print(f"\n{'agent (tic-tac-toe, empty board)':<34} {'median ms':>10}")
        for name, ms in agent_ms.items():
            print(f"{name:<34} {ms:>10.2f}")
        for name in ("alphabeta", "mcts_1000"):
            if f"{name}_speedup_vs_openspiel" in agents_summary:
                print(f"{name} vs OpenSpiel: {agents_summary[f'{name}_speedup_vs_openspiel']}x faster")
    print("\nmemory (peak RSS, MB):")
    for key, value in memory.items():
        if isinstance(value, dict):
            for label, probe in value.items():
                detail = probe.get("error") or f"{probe['rss_mb']} (imports alone: {probe['imports_rss_mb']})"
                print(f"  {key} {label}: {detail}")
        else:
            print(f"  {key}: {value}")


# ---- the exact Connect Four solver (--solver) --------------------------------------------------------

#: Ply bands of the solver's table: (name, first ply, last ply).
SOLVER_BANDS = (("0-5", 0, 5), ("6-11", 6, 11), ("12-17", 12, 17), ("18-23", 18, 23), ("24+", 24, 41))
#: The pure-Python path times only positions of these bands (no book probes; see the module) that the compiled
#: search settled in at most this many nodes.
PYTHON_BANDS, PYTHON_MAX_NODES = ("12-17", "18-23", "24+"), 20_000
#: A position's time that issue 34 allows (ms).
SLOW_MS = 2_000

# A child process: its first argument the scripts' folder, the second "start" or "python"; the positions'
# move lists on stdin (JSON), one JSON line out.
_SOLVER_CHILD = """
import sys
sys.path.insert(0, sys.argv[1])
from bench import solver_child
solver_child(sys.argv[2], float(sys.argv[3]))
"""


def band_of(ply: int) -> str:
    """Return the name of the band of :data:`SOLVER_BANDS` holding ``ply``."""
    return next(name for name, first, last in SOLVER_BANDS if first <= ply <= last)


def solver_positions(everything: bool, sample: int, seed: int) -> list[dict[str, Any]]:
    """Return the label sets' positions (all, or a seeded sample): set name, moves, plies, the label scores."""
    from agents.perfect_play import SHIPPED, load_labels, shipped_labels_path

    positions = [
        {"set": name, "moves": moves, "ply": len(moves), "labels": scores.tolist()}
        for name in SHIPPED
        for labels in [load_labels(shipped_labels_path(name))]
        for moves, scores in zip(labels.move_lists(), labels.scores, strict=True)
    ]
    if not everything and sample < len(positions):
        picked = np.sort(np.random.default_rng(seed).choice(len(positions), sample, replace=False))
        positions = [positions[i] for i in picked]
    return positions


def _state(moves: list[int]) -> Any:
    from agents.perfect_play import connect_four

    game = connect_four()
    state = game.initial_state()
    for column in moves:
        state = game.apply(state, column)
    return state


def _as_row(scores: dict[int, int]) -> list[int]:
    from agents.perfect_play import COLS, NO_MOVE

    return [int(scores.get(column, NO_MOVE)) for column in range(COLS)]


def _timed_scores(score: Any, state: Any) -> tuple[list[int], float]:
    start = time.perf_counter()
    scores = score(state)
    return _as_row(scores), (time.perf_counter() - start) * 1e3


def solver_child(mode: str, budget_s: float) -> None:
    """The child process's work; prints one JSON line.

    ``start``: time the solver module's import, making a solver and its first call on the position read from
    stdin. ``python``: score each position of stdin in turn (``NUMBA_DISABLE_JIT=1`` is the parent's to set)
    until ``budget_s`` seconds are spent; the ms and the scores of those solved.
    """
    import json

    moves = json.loads(sys.stdin.read())
    start = time.perf_counter()
    from agents import connect_four_solver
    from agents.perfect_play import connect_four

    imported = time.perf_counter()
    solver = connect_four_solver.ConnectFourSolver()
    made = time.perf_counter()
    game = connect_four()
    if mode == "start":
        solver.score_moves(game, _state(moves))
        print(json.dumps({
            "compiled": connect_four_solver.COMPILED,
            "import_s": round(imported - start, 3),
            "solver_s": round(made - imported, 3),
            "first_call_s": round(time.perf_counter() - made, 3),
        }))  # fmt: skip
        return
    done = []
    for position in moves:
        if time.perf_counter() - made > budget_s:
            break
        scores, ms = _timed_scores(lambda state: solver.score_moves(game, state), _state(position))
        done.append({"ms": ms, "scores": scores})
    print(json.dumps({"compiled": connect_four_solver.COMPILED, "positions": done}))


def _run_child(mode: str, moves: Any, env: dict[str, str], budget_s: float = 0.0) -> dict[str, Any]:
    import json
    import subprocess

    command = [sys.executable, "-c", _SOLVER_CHILD, _FOLDER, mode, str(budget_s)]
    result = subprocess.run(command, input=json.dumps(moves), capture_output=True, text=True, env={**os.environ, **env})
    if result.returncode != 0:
        raise RuntimeError(f"the solver's {mode} child failed: {result.stderr.strip()[-2000:]}")
    return json.loads(result.stdout.strip().splitlines()[-1])


def _bitbully() -> tuple[Any, str]:
    """Return BitBully's scoring function (as the label sets were made) and its version, or None and why not."""
    try:
        from importlib.metadata import version

        from label_connectfour import SolverPlayer

        player = SolverPlayer()
    except ImportError:
        return None, "not installed"
    return player.scores, f"{version('bitbully')} (its default opening book)"


def _python_order(positions: list[dict[str, Any]], per_band: int, seed: int) -> list[int]:
    """Indices of up to ``per_band`` positions per band settled in at most PYTHON_MAX_NODES, late bands first."""
    rng = np.random.default_rng(seed)
    picks = []
    for name in reversed(PYTHON_BANDS):
        cheap = [i for i, p in enumerate(positions) if p["band"] == name and p["ours_nodes"] <= PYTHON_MAX_NODES]
        picks.append([int(i) for i in rng.permutation(cheap)[:per_band]])
    return [band[k] for k in range(per_band) for band in picks if k < len(band)]  # round robin


def solver_timings(args: argparse.Namespace) -> dict[str, Any]:
    """Run the --solver section (see the module) and return its summary."""
    import tempfile

    from agents.connect_four_solver import COMPILED, ConnectFourSolver
    from agents.perfect_play import connect_four
    from gym_boardgames import cli

    load_start = cli.load_average()
    positions = solver_positions(args.solver_all, args.solver_positions, args.seed)
    for position in positions:
        position["band"] = band_of(position["ply"])
    first = next((p["moves"] for p in positions if p["ply"] >= 24), positions[-1]["moves"])
    with tempfile.TemporaryDirectory(prefix="numba_cache_") as cache:
        start = {kind: _run_child("start", first, {"NUMBA_CACHE_DIR": cache}) for kind in ("compile", "cached")}

    game = connect_four()
    solver = ConnectFourSolver()
    bitbully, bitbully_state = _bitbully()
    peers = {"ours": lambda state: solver.score_moves(game, state)}
    if bitbully is not None:
        peers["bitbully"] = bitbully
    for score in peers.values():  # warm-up: the compiled kernels loaded, the books read
        score(_state(first))
    for position in positions:
        state = _state(position["moves"])
        before = solver.nodes
        for name, score in peers.items():
            position[name], position[f"{name}_ms"] = _timed_scores(score, state)
        position["ours_nodes"] = solver.nodes - before

    order = _python_order(positions, args.solver_python, args.seed)
    python: dict[str, Any] = {"compiled": None, "positions": []}
    if order:
        moves = [positions[i]["moves"] for i in order]
        python = _run_child("python", moves, {"NUMBA_DISABLE_JIT": "1"}, args.solver_python_budget)
    for index, result in zip(order, python["positions"], strict=False):
        positions[index]["python"], positions[index]["python_ms"] = result["scores"], result["ms"]
    summary = summarise_solver(positions)
    summary.update(
        sample="all" if args.solver_all else f"seeded sample (--seed {args.seed})",
        compiled=COMPILED,
        bitbully=bitbully_state,
        python_path={
            "jit_disabled": None if python["compiled"] is None else not python["compiled"],
            "bands": list(PYTHON_BANDS),
            "per_band": args.solver_python,
            "max_compiled_nodes": PYTHON_MAX_NODES,
            "budget_s": args.solver_python_budget,
        },
        start=start,
        load_average_start=load_start,
        load_average_end=cli.load_average(),
    )
    return summary


def _stats(values: list[float]) -> dict[str, Any]:
    if not values:
        return {"positions": 0}
    return {"positions": len(values), "median_ms": round(statistics.median(values), 3), "max_ms": round(max(values), 3)}


def summarise_solver(positions: list[dict[str, Any]]) -> dict[str, Any]:
    """Return the per-band and overall times, ratios, disagreements and slow positions of timed positions.

    Each position holds ``band``, ``moves``, ``labels``, ``ours`` and ``ours_ms``, and where timed ``bitbully``
    and ``bitbully_ms``, ``python`` and ``python_ms`` (scores as 7 columns, -128 for a full one).
    """

    def block(chosen: list[dict[str, Any]]) -> dict[str, Any]:
        entry: dict[str, Any] = {"positions": len(chosen)}
        for name in ("ours", "bitbully", "python"):
            timed = [p for p in chosen if f"{name}_ms" in p]
            if timed or name != "bitbully":
                entry[name] = _stats([p[f"{name}_ms"] for p in timed])
        bitbully = entry.get("bitbully", {})
        if bitbully.get("positions"):
            ours = _stats([p["ours_ms"] for p in chosen if "bitbully_ms" in p])
            entry["ours_over_bitbully_median"] = round(ours["median_ms"] / bitbully["median_ms"], 2)
            entry["ours_over_bitbully_max"] = round(ours["max_ms"] / bitbully["max_ms"], 2)
        if entry["python"]["positions"]:
            compiled = _stats([p["ours_ms"] for p in chosen if "python_ms" in p])
            entry["python"]["over_compiled_median"] = round(entry["python"]["median_ms"] / compiled["median_ms"], 1)
        return entry

    def disagreements(name: str) -> int:
        return sum(p[name] != p["ours"] for p in positions if name in p)

    # The three slowest of ours, and every other position over 2 s for either solver, slowest first.
    ranked = sorted(positions, key=lambda p: p["ours_ms"], reverse=True)
    slowest = [p for i, p in enumerate(ranked) if i < 3 or max(p["ours_ms"], p.get("bitbully_ms", 0)) > SLOW_MS]
    return {
        "positions": len(positions),
        "bands": {name: block([p for p in positions if p["band"] == name]) for name, _, _ in SOLVER_BANDS},
        "overall": block(positions),
        "disagreements": {
            "ours_vs_labels": disagreements("labels"),
            "ours_vs_bitbully": disagreements("bitbully") if any("bitbully" in p for p in positions) else None,
            "python_vs_compiled": disagreements("python"),
        },
        "over_2s": {name: sum(p.get(f"{name}_ms", 0) > SLOW_MS for p in positions) for name in ("ours", "bitbully")},
        "slowest": [
            {
                "moves": p["moves"],
                "ours_ms": round(p["ours_ms"], 1),
                "ours_nodes": p.get("ours_nodes"),
                "bitbully_ms": round(p["bitbully_ms"], 1) if "bitbully_ms" in p else None,
            }
            for p in slowest
        ],
    }


def print_solver_table(summary: dict[str, Any]) -> None:
    """Print the --solver section's table: ms per position (all moves scored) by ply band."""

    def cell(entry: dict[str, Any], key: str) -> str:
        return f"{entry[key]:,.2f}" if key in entry else "-"

    print(
        f"exact Connect Four solver, {summary['positions']:,} positions ({summary['sample']}); BitBully: "
        f"{summary['bitbully']}; load average {summary['load_average_start']} -> {summary['load_average_end']}"
    )
    print(f"{'plies':<7} {'n':>5} {'ours med':>9} {'ours max':>9} {'BB med':>8} {'BB max':>8} {'ratio med':>9} "
          f"{'ratio max':>9} {'py n':>5} {'py med':>9} {'py max':>10}")  # fmt: skip
    for name, entry in [*summary["bands"].items(), ("all", summary["overall"])]:
        ours, bitbully, python = entry["ours"], entry.get("bitbully", {}), entry["python"]
        print(
            f"{name:<7} {entry['positions']:>5} {cell(ours, 'median_ms'):>9} {cell(ours, 'max_ms'):>9} "
            f"{cell(bitbully, 'median_ms'):>8} {cell(bitbully, 'max_ms'):>8} "
            f"{entry.get('ours_over_bitbully_median', '-'):>9} {entry.get('ours_over_bitbully_max', '-'):>9} "
            f"{python['positions']:>5} {cell(python, 'median_ms'):>9} {cell(python, 'max_ms'):>10}"
        )
    print(f"disagreements: {summary['disagreements']}; over 2 s: {summary['over_2s']}")
    for slow in summary["slowest"]:
        print(f"  slow: {slow['moves']} ours {slow['ours_ms']:,} ms ({slow['ours_nodes']} nodes), BitBully "
              f"{slow['bitbully_ms']} ms")  # fmt: skip
    for kind, entry in summary["start"].items():
        print(f"start ({kind}): import {entry['import_s']} s, solver {entry['solver_s']} s, "
              f"first call {entry['first_call_s']} s")  # fmt: skip


if __name__ == "__main__":
    main()
