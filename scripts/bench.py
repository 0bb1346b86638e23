"""Time our board envs (and, with --compare, PettingZoo's equivalents) in the same run.

One "move" is one piece (or edge) placed on the board by whoever moves: the driver reads the legal
moves from the mask the library returns, picks one uniformly at random, and calls the library's step.
The observation and info (or PettingZoo's ``last()``) are built at every move; resets are included.

Workloads, for each game (TicTacToe-v0, ConnectFour-v0, DotsAndBoxes-v0 3x3, and ConnectN-v0 as
15x15 Gomoku, n=5 without gravity):
  selfplay    gymnasium.make(id, opponent=None): the driver plays both sides (moves/s).
  vs_random   gymnasium.make(id): the driver plays the agent and the built-in random opponent replies
              inside step(); reported as agent steps/s.
  pettingzoo  the PettingZoo classic AEC env() with its default wrappers (tictactoe_v3,
              connect_four_v3): last() then step() for the agent in agent_selection (moves/s).

Every workload runs the same driver; workloads are interleaved in each repeat (so machine noise hits
all of them alike), after a warm-up, and the median of the repeats is reported.

Agents (tic-tac-toe, from the empty board; with --compare beside OpenSpiel's Python algorithms on
pyspiel's tic_tac_toe, interleaved the same way):
  alphabeta   agents.minimax.alphabeta, exact search (vs open_spiel.python.algorithms.minimax.alpha_beta_search)
  mcts        a fresh agents.mcts.MCTSAgent(n_simulations=1000) choosing one move (vs MCTSBot with a
              RandomRolloutEvaluator(n_rollouts=1), 1000 simulations, uct_c=2)
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


def gym_workload(env_id: str, kwargs: dict, opponent: str | None) -> Workload:
    """Return a workload stepping ``env_id`` with random legal moves; ``opponent=None`` is self-play.

    Self-play counts moves (the driver plays both sides); against the built-in opponent it counts the
    agent's steps.
    """

    def workload(steps: int, uniforms: np.ndarray) -> int:
        import gymnasium as gym

        env = gym.make(env_id, opponent=opponent, **kwargs)
        _, info = env.reset(seed=0)
        for i in range(steps):
            _, _, terminated, _, info = env.step(pick_legal(info["action_mask"], uniforms[i]))
            if terminated:
                _, info = env.reset()
        return steps

    return workload


def pettingzoo_workload(module: str) -> Workload:
    """Return a workload stepping ``pettingzoo.classic.<module>.env()`` with random legal moves."""

    def workload(moves: int, uniforms: np.ndarray) -> int:
        import importlib

        env = importlib.import_module(f"pettingzoo.classic.{module}").env()
        env.reset(seed=0)
        done = 0
        while done < moves:
            observation, _, terminated, truncated, _ = env.last()
            if terminated or truncated:
                env.reset()
                continue
            env.step(pick_legal(observation["action_mask"], uniforms[done]))
            done += 1
        return done

    return workload


#: Label -> (our env id, its kwargs, the PettingZoo classic module of the same game or None).
GAMES: dict[str, tuple[str, dict, str | None]] = {
    "TicTacToe-v0": ("TicTacToe-v0", {}, "tictactoe_v3"),
    "ConnectFour-v0": ("ConnectFour-v0", {}, "connect_four_v3"),
    "DotsAndBoxes-v0": ("DotsAndBoxes-v0", {}, None),
    "Gomoku-15x15": ("ConnectN-v0", {"rows": 15, "cols": 15, "n": 5, "gravity": False}, None),
}


def agent_timers(compare: bool) -> dict[str, Callable[[int], float]]:
    """Return timers (repeat index -> seconds) for the agent workloads, ours and with ``compare`` OpenSpiel's."""
    from agents.mcts import MCTSAgent
    from agents.minimax import alphabeta
    from gym_boardgames.rules import TicTacToe

    game = TicTacToe()

    def ours_alphabeta(i: int) -> float:
        start = time.perf_counter()
        alphabeta(game, game.initial_state(), seed=i)
        return time.perf_counter() - start

    def ours_mcts(i: int) -> float:
        agent = MCTSAgent(n_simulations=1000, seed=i)
        start = time.perf_counter()
        agent.act(game, game.initial_state())
        return time.perf_counter() - start

    timers = {"alphabeta": ours_alphabeta, "mcts_1000": ours_mcts}
    if compare:
        import pyspiel
        from open_spiel.python.algorithms import mcts, minimax

        spiel_game = pyspiel.load_game("tic_tac_toe")

        def spiel_alphabeta(i: int) -> float:
            start = time.perf_counter()
            minimax.alpha_beta_search(spiel_game)
            return time.perf_counter() - start

        def spiel_mcts(i: int) -> float:
            rng = np.random.RandomState(i)
            bot = mcts.MCTSBot(spiel_game, 2, 1000, mcts.RandomRolloutEvaluator(1, rng), random_state=rng)
            state = spiel_game.new_initial_state()
            start = time.perf_counter()
            bot.step(state)
            return time.perf_counter() - start

        timers["openspiel_alphabeta"] = spiel_alphabeta
        timers["openspiel_mcts_1000"] = spiel_mcts
    return timers


def time_workload(workload: Workload, moves: int, uniforms: np.ndarray) -> float:
    """Return moves per second of one run."""
    start = time.perf_counter()
    done = workload(moves, uniforms)
    return done / (time.perf_counter() - start)


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    """Parse the command line."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", nargs="+", default=list(GAMES), choices=list(GAMES), help="env ids to time")
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
    if args.compare:
        try:
            import pettingzoo  # noqa: F401
            import pyspiel  # noqa: F401
        except ImportError as error:
            sys.exit(f"--compare needs PettingZoo and OpenSpiel ({error.name} is missing): pip install -e '.[bench]'")
    workloads: dict[tuple[str, str], Workload] = {}
    for label in args.games:
        env_id, kwargs, pettingzoo_module = GAMES[label]
        workloads[label, "selfplay"] = gym_workload(env_id, kwargs, None)
        workloads[label, "vs_random"] = gym_workload(env_id, kwargs, "random")
        if args.compare and pettingzoo_module:
            workloads[label, "pettingzoo"] = pettingzoo_workload(pettingzoo_module)

    uniforms = np.random.default_rng(args.seed).random(max(args.moves, args.warmup))
    for workload in workloads.values():
        workload(args.warmup, uniforms)
    runs: dict[tuple[str, str], list[float]] = {key: [] for key in workloads}
    for _ in range(args.repeats):
        for key, workload in workloads.items():
            runs[key].append(time_workload(workload, args.moves, uniforms))

    medians = {key: statistics.median(values) for key, values in runs.items()}

    timers = agent_timers(args.compare)
    for timer in timers.values():
        timer(0)  # warm-up: imports, caches
    agent_runs: dict[str, list[float]] = {name: [] for name in timers}
    for i in range(max(args.repeats, 5)):
        for name, timer in timers.items():
            agent_runs[name].append(timer(i))
    agent_ms = {name: statistics.median(values) * 1000 for name, values in agent_runs.items()}
    results: dict[str, dict] = {}
    for env_id in args.games:
        entry = {
            "selfplay_moves_per_s": round(medians[env_id, "selfplay"]),
            "vs_random_agent_steps_per_s": round(medians[env_id, "vs_random"]),
        }
        if (env_id, "pettingzoo") in medians:
            entry[f"pettingzoo_{GAMES[env_id][2]}_moves_per_s"] = round(medians[env_id, "pettingzoo"])
            entry["selfplay_vs_pettingzoo_ratio"] = round(
                medians[env_id, "selfplay"] / medians[env_id, "pettingzoo"], 2
            )
        results[env_id] = entry
    agents_summary: dict = {f"{name}_ms": round(ms, 2) for name, ms in agent_ms.items()}
    for name in ("alphabeta", "mcts_1000"):
        if f"openspiel_{name}" in agent_ms:
            agents_summary[f"{name}_speedup_vs_openspiel"] = round(agent_ms[f"openspiel_{name}"] / agent_ms[name], 2)
    summary: dict = {
        "moves_per_run": args.moves,
        "repeats": args.repeats,
        "python": platform.python_version(),
        "machine": platform.machine(),
        "cpus": os.cpu_count(),
        "results": results,
        "agents_tictactoe": agents_summary,
    }

    if not args.json:
        print(f"{'env':<16} {'workload':<11} {'median /s':>11} {'min /s':>11} {'max /s':>11}")
        for (env_id, name), values in runs.items():
            print(
                f"{env_id:<16} {name:<11} {medians[env_id, name]:>11,.0f} {min(values):>11,.0f} {max(values):>11,.0f}"
            )
        print(f"{'agent (tic-tac-toe, empty board)':<34} {'median ms':>10}")
        for name, ms in agent_ms.items():
            print(f"{name:<34} {ms:>10.2f}")
        for env_id, entry in results.items():
            if "selfplay_vs_pettingzoo_ratio" in entry:
                ratio = entry["selfplay_vs_pettingzoo_ratio"]
                print(f"{env_id} self-play vs PettingZoo {GAMES[env_id][2]}: {ratio}x")
        for name in ("alphabeta", "mcts_1000"):
            if f"{name}_speedup_vs_openspiel" in agents_summary:
                print(f"{name} vs OpenSpiel: {agents_summary[f'{name}_speedup_vs_openspiel']}x faster")
    line = json.dumps(summary)
    print(line)
    if args.out:
        write_text_atomic(args.out, line + "\n")
    return summary


if __name__ == "__main__":
    main()
