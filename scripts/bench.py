"""Time TicTacToe-v0 (and, with --compare, PettingZoo's tictactoe_v3) in the same run.

One "move" is one piece placed on the board by whoever moves: the driver reads the legal moves from
the mask the library returns, picks one uniformly at random, and calls the library's step. The
observation and info (or PettingZoo's ``last()``) are built at every move, resets are included.

Workloads:
  selfplay   gymnasium.make("TicTacToe-v0", opponent=None): the driver plays both sides.
  vs_random  gymnasium.make("TicTacToe-v0"): the driver plays the agent, the built-in random opponent
             replies inside step(); reported as agent steps/s (one step = two moves, mostly).
  pettingzoo pettingzoo.classic.tictactoe_v3.env() (the AEC env with its default wrappers): last() then
             step() for the agent in agent_selection.

Every workload runs the same driver; workloads are interleaved in each repeat (so machine noise hits
all of them alike), after a warm-up, and the median of the repeats is reported.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import sys
import time
from collections.abc import Callable

import numpy as np

import gym_boardgames  # noqa: F401  (registers the ids)
from gym_boardgames.utils import write_text_atomic

Workload = Callable[[int, np.ndarray], int]


def pick_legal(mask: np.ndarray, u: float) -> int:
    """Return a uniformly chosen legal action given a uniform number ``u`` in [0, 1)."""
    legal = np.flatnonzero(mask)
    return int(legal[int(u * len(legal))])


def gym_tictactoe(opponent: str | None) -> Workload:
    """Return a workload stepping TicTacToe-v0 with random legal moves; ``opponent=None`` is self-play.

    Self-play counts moves (the driver plays both sides); against the built-in opponent it counts the
    agent's steps.
    """

    def workload(steps: int, uniforms: np.ndarray) -> int:
        import gymnasium as gym

        env = gym.make("TicTacToe-v0", opponent=opponent)
        _, info = env.reset(seed=0)
        for i in range(steps):
            _, _, terminated, _, info = env.step(pick_legal(info["action_mask"], uniforms[i]))
            if terminated:
                _, info = env.reset()
        return steps

    return workload


def pettingzoo_aec(moves: int, uniforms: np.ndarray) -> int:
    """Play ``moves`` random legal moves of PettingZoo's tictactoe_v3 AEC env (default wrappers)."""
    from pettingzoo.classic import tictactoe_v3

    env = tictactoe_v3.env()
    env.reset(seed=0)
    done = 0
    i = 0
    while done < moves:
        observation, _, terminated, truncated, _ = env.last()
        if terminated or truncated:
            env.reset()
            continue
        env.step(pick_legal(observation["action_mask"], uniforms[i]))
        i += 1
        done += 1
    return done


def time_workload(workload: Workload, moves: int, uniforms: np.ndarray) -> float:
    """Return moves per second of one run."""
    start = time.perf_counter()
    done = workload(moves, uniforms)
    return done / (time.perf_counter() - start)


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    """Parse the command line."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--moves", type=int, default=100_000, help="moves (or agent steps) per timed run")
    parser.add_argument("--repeats", type=int, default=5, help="timed runs per workload; the median is reported")
    parser.add_argument("--warmup", type=int, default=2_000, help="untimed moves per workload before timing")
    parser.add_argument("--compare", action="store_true", help="also time PettingZoo (needs the 'bench' extra)")
    parser.add_argument("--quick", action="store_true", help="small budget (10k moves, 3 repeats) for a smoke run")
    parser.add_argument("--seed", type=int, default=0, help="seed of the driver's random move choices")
    parser.add_argument("--out", help="also write the JSON summary to this file (atomically)")
    parser.add_argument("--json", action="store_true", help="print only the one-line JSON summary")
    args = parser.parse_args(argv)
    if args.quick:
        args.moves, args.repeats, args.warmup = 10_000, 3, 500
    for name in ("moves", "repeats"):
        if getattr(args, name) < 1:
            parser.error(f"--{name} must be >= 1")
    if args.warmup < 0:
        parser.error("--warmup must be >= 0")
    return args


def main(argv: list[str] | None = None) -> dict:
    """Run the benchmark and return the summary printed as JSON."""
    args = parse_args(argv)
    workloads: dict[str, Workload] = {"selfplay": gym_tictactoe(None), "vs_random": gym_tictactoe("random")}
    if args.compare:
        try:
            import pettingzoo  # noqa: F401
        except ImportError:
            sys.exit("--compare needs PettingZoo: pip install -e '.[bench]'")
        workloads["pettingzoo"] = pettingzoo_aec

    uniforms = np.random.default_rng(args.seed).random(max(args.moves, args.warmup))
    for workload in workloads.values():
        workload(args.warmup, uniforms)
    runs: dict[str, list[float]] = {name: [] for name in workloads}
    for _ in range(args.repeats):
        for name, workload in workloads.items():
            runs[name].append(time_workload(workload, args.moves, uniforms))

    medians = {name: statistics.median(values) for name, values in runs.items()}
    summary: dict = {
        "benchmark": "TicTacToe-v0",
        "moves_per_run": args.moves,
        "repeats": args.repeats,
        "python": platform.python_version(),
        "machine": platform.machine(),
        "cpus": os.cpu_count(),
        "selfplay_moves_per_s": round(medians["selfplay"]),
        "vs_random_agent_steps_per_s": round(medians["vs_random"]),
    }
    if "pettingzoo" in medians:
        summary["pettingzoo_tictactoe_v3_moves_per_s"] = round(medians["pettingzoo"])
        summary["selfplay_vs_pettingzoo_ratio"] = round(medians["selfplay"] / medians["pettingzoo"], 2)

    if not args.json:
        print(f"{'workload':<12} {'median /s':>12} {'min /s':>12} {'max /s':>12}")
        for name, values in runs.items():
            print(f"{name:<12} {medians[name]:>12,.0f} {min(values):>12,.0f} {max(values):>12,.0f}")
        if "pettingzoo" in medians:
            print(f"self-play moves/s vs PettingZoo tictactoe_v3: {summary['selfplay_vs_pettingzoo_ratio']}x")
    line = json.dumps(summary)
    print(line)
    if args.out:
        write_text_atomic(args.out, line + "\n")
    return summary


if __name__ == "__main__":
    main()
