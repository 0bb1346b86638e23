"""Solve GridWorld-v0 by dynamic programming: Sutton & Barto's example 4.1 and Figure 4.1.

Evaluates the equiprobable random policy (in-place sweeps, and the two-array version for comparison),
then runs policy iteration, value iteration and asynchronous value iteration on the env's exact model
``P`` (agents.dp), prints the value grids, the greedy policies (every best action: ^ v < >), the sweep
and state-update counts and the times, and checks the optimal policy by rolling out episodes in the env
itself. With --out it writes a PNG drawn by the env's own renderer (pygame, no extra needed): the random
policy's values with their greedy arrows beside the optimal values with the optimal arrows.

Evaluating the random policy of a large undiscounted grid is a long random walk (minutes for 100x100);
--gamma below 1, or --methods vi,async, are fast at any size.

Examples:
  python scripts/train_gridworld_dp.py
  python scripts/train_gridworld_dp.py --rows 100 --cols 100 --methods vi,async --out gw100.png
  python scripts/train_gridworld_dp.py --rows 100 --cols 100 --gamma 0.9
  python scripts/train_gridworld_dp.py --map maze.txt --slip 0.1 --json
"""

from __future__ import annotations

import argparse
import io
import json
import math
import os
import stat
import sys
import time
from typing import Any

import gymnasium as gym
import numpy as np

import gym_boardgames  # noqa: F401  (registers GridWorld-v0)
from agents import dp
from gym_boardgames.cli import add_overwrite_flag, check_new_output, make_parser
from gym_boardgames.render.text import format_policy, format_values
from gym_boardgames.tabular import build_model
from gym_boardgames.utils import nonnegative_int, progress_bar, write_bytes_atomic

METHODS = ("random", "pi", "vi", "async")
MAX_PRINTED_CELLS = 400  # larger grids are not printed; see --out
MAX_MAP_BYTES = 16 * 2**20  # a map file is read whole; far above any grid the env accepts


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    """Parse the command line."""
    parser = make_parser(__doc__)
    grid = parser.add_argument_group("the grid")
    grid.add_argument("--rows", type=int, help="grid rows (default 4); terminals in the top-left and bottom-right")
    grid.add_argument("--cols", type=int, help="grid columns (default 4)")
    grid.add_argument(
        "--map", metavar="FILE", help="a map file instead: rows of '.' free, '#' wall, 'T' terminal, 'S' start"
    )
    grid.add_argument("--slip", type=float, default=0.0, help="probability of moving in a random other direction")
    solve = parser.add_argument_group("the solvers")
    solve.add_argument("--gamma", type=float, default=1.0, help="discount factor in [0, 1] (default 1, as in the book)")
    solve.add_argument("--theta", type=float, default=1e-10, help="stop a sweep loop when no value changes by this")
    solve.add_argument(
        "--methods",
        default=",".join(METHODS),
        help="comma-separated subset of random (policy evaluation), pi, vi, async (default: all)",
    )
    solve.add_argument("--max-sweeps", type=int, default=1_000_000, help="give up a sweep loop after this many")
    parser.add_argument(
        "--episodes", type=int, default=1000, help="rollouts of the optimal policy to check V* (0: none)"
    )
    parser.add_argument(
        "--seed", type=nonnegative_int, default=0, help="seed of the rollouts (the solvers are deterministic)"
    )
    parser.add_argument("--out", help="write the value heat map with policy arrows to this PNG file")
    parser.add_argument("--json", action="store_true", help="print a one-line JSON summary last")
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")
    add_overwrite_flag(parser)
    args = parser.parse_args(argv)

    methods = [m.strip() for m in args.methods.split(",") if m.strip()]
    unknown = sorted(set(methods) - set(METHODS))
    if unknown or not methods:
        parser.error(f"--methods takes a comma-separated subset of {', '.join(METHODS)}; got {args.methods!r}")
    args.methods = [m for m in METHODS if m in methods]
    if args.map and (args.rows is not None or args.cols is not None):
        parser.error("--map sets the grid: do not also give --rows/--cols")
    for name in ("rows", "cols"):
        if getattr(args, name) is not None and getattr(args, name) < 1:
            parser.error(f"--{name} must be >= 1")
    if args.episodes < 0:
        parser.error("--episodes must be >= 0")
    if args.max_sweeps < 1:
        parser.error("--max-sweeps must be >= 1")
    if not 0.0 <= args.gamma <= 1.0:
        parser.error("--gamma must be in [0, 1]")
    if not (args.theta > 0 and math.isfinite(args.theta)):
        parser.error("--theta must be positive")

    if args.out:
        try:
            check_new_output(args.out, "--out", args.overwrite)
        except ValueError as error:
            parser.error(str(error))

    kwargs: dict[str, Any] = {"slip": args.slip}
    if args.map:
        kwargs["desc"] = read_map(parser, args.map)
    else:
        kwargs["shape"] = (args.rows or 4, args.cols or 4)
    try:
        args.env = gym.make("GridWorld-v0", **kwargs)
    except ValueError as error:
        parser.error(str(error))
    return args


def read_map(parser: argparse.ArgumentParser, path: str) -> str:
    """Return the text of the --map file, or exit through ``parser.error`` naming the file and the problem."""
    try:
        # Refuse FIFOs and devices before opening: /dev/zero would be read until memory runs out, and
        # opening a FIFO blocks until a writer appears.
        info = os.stat(path)
        if not stat.S_ISREG(info.st_mode):
            parser.error(f"--map {path}: not a regular file")
        if info.st_size > MAX_MAP_BYTES:
            parser.error(f"--map {path}: {info.st_size:,} bytes, more than the {MAX_MAP_BYTES:,} a map may have")
        with open(path, encoding="utf-8") as handle:
            return handle.read()
    except OSError as error:
        parser.error(f"cannot read --map {path}: {error.strerror}")
    except UnicodeDecodeError as error:
        parser.error(f"--map {path}: not a UTF-8 text map (byte {error.start}): rows of '.', '#', 'T', 'S'")
    raise AssertionError("unreachable: parser.error exits")


def duration(seconds: float) -> str:
    """``seconds`` as text: milliseconds below one second."""
    return f"{seconds * 1000:.1f} ms" if seconds < 1 else f"{seconds:.2f} s"


def timed(function: Any, *args: Any, **kwargs: Any) -> tuple[Any, float]:
    """Call ``function`` and return its result and the seconds it took."""
    start = time.perf_counter()
    result = function(*args, **kwargs)
    return result, time.perf_counter() - start


def rollouts(env: gym.Env, policy: np.ndarray, episodes: int, gamma: float, seed: int) -> dict[str, Any]:
    """Play ``episodes`` episodes of a deterministic ``policy`` in ``env``; summarise the discounted returns."""
    actions = policy.argmax(axis=1)
    returns = np.empty(episodes)
    truncated_episodes = 0
    state, _ = env.reset(seed=seed)
    for i in range(episodes):
        if i:
            state, _ = env.reset()
        total, discount, done = 0.0, 1.0, False
        while not done:
            state, reward, terminated, truncated, _ = env.step(int(actions[state]))
            total += discount * reward
            discount *= gamma
            done = terminated or truncated
            truncated_episodes += bool(truncated)
        returns[i] = total
    error = float(returns.std(ddof=1) / math.sqrt(episodes)) if episodes > 1 else float("nan")
    return {
        "episodes": episodes,
        "mean_return": float(returns.mean()),
        "standard_error": error,
        "truncated": truncated_episodes,
    }


def save_png(path: str, panels: list[np.ndarray]) -> None:
    """Write ``panels`` (same-height RGB arrays) side by side, 12 px apart, as a PNG, atomically."""
    from gym_boardgames.render.primitives import BACKGROUND
    from gym_boardgames.render.pygame_canvas import import_pygame

    pygame = import_pygame()
    gap = np.empty((panels[0].shape[0], 12, 3), np.uint8)
    gap[:] = BACKGROUND
    joined = np.concatenate([part for panel in panels for part in (panel, gap)][:-1], axis=1)
    surface = pygame.surfarray.make_surface(np.ascontiguousarray(joined.transpose(1, 0, 2)))
    buffer = io.BytesIO()
    pygame.image.save(surface, buffer, "png")
    write_bytes_atomic(path, buffer.getvalue())


def main(argv: list[str] | None = None) -> dict[str, Any]:
    """Run the solvers and return the summary."""
    args = parse_args(argv)
    env, gamma, theta = args.env, args.gamma, args.theta
    base = env.unwrapped
    rows, cols = base.shape
    printable = base.nS <= MAX_PRINTED_CELLS
    model, build_seconds = timed(build_model, base.P)
    summary: dict[str, Any] = {
        "grid": f"{rows}x{cols}",
        "states": base.nS,
        "walls": len(base.walls),
        "terminals": list(base.terminals),
        "slip": base.slip,
        "gamma": gamma,
        "theta": theta,
        "model_seconds": round(build_seconds, 4),
    }
    print(
        f"GridWorld {rows}x{cols}: {base.nS} states, {len(base.walls)} walls, terminals {list(base.terminals)[:6]}"
        f"{' ...' if len(base.terminals) > 6 else ''}, slip {base.slip:g}, gamma {gamma:g}, theta {theta:g}"
    )
    if gamma == 1.0 and base.nS > 1000 and {"random", "pi"} & set(args.methods):
        print(
            "(evaluating the random policy of a large undiscounted grid takes many sweeps, minutes at 100x100; "
            "--gamma < 1 or --methods vi,async are fast)",
            file=sys.stderr,
        )

    def show(title: str, values: np.ndarray | None = None, policy: np.ndarray | None = None) -> None:
        print(f"\n{title}")
        if not printable:
            return
        if values is not None:
            print(format_values(base, values))
        if policy is not None:
            print(format_policy(base, policy))

    stages = len(args.methods) + bool(args.episodes) + bool(args.out)
    bar = progress_bar(stages, "dynamic programming", enabled=not args.no_progress)
    solutions: dict[str, np.ndarray] = {}
    panels: list[tuple[np.ndarray, np.ndarray, str]] = []
    try:
        if "random" in args.methods:
            uniform = dp.uniform_policy(model)
            gs: dict[str, Any] = {}
            jacobi: dict[str, Any] = {}
            V_random, seconds = timed(
                dp.policy_evaluation, model, uniform, gamma, theta, max_sweeps=args.max_sweeps, info=gs
            )
            if printable:  # the two-array comparison only where it is quick
                dp.policy_evaluation(
                    model, uniform, gamma, theta, in_place=False, max_sweeps=args.max_sweeps, info=jacobi
                )
            greedy = dp.greedy_policy(model, V_random, gamma, split_ties=True)
            two_array = f"; two-array sweeps: {jacobi['sweeps']}" if jacobi else ""
            show(
                f"Random policy, iterative policy evaluation in place: {gs['sweeps']} sweeps "
                f"({gs['updates']:,} state updates) in {duration(seconds)}{two_array}. "
                "Its values, and the greedy policy:",
                V_random,
                greedy,
            )
            summary["random_policy"] = {"sweeps": gs["sweeps"], "updates": gs["updates"], "seconds": round(seconds, 4)}
            if jacobi:
                summary["random_policy"]["two_array_sweeps"] = jacobi["sweeps"]
            if printable:
                summary["random_policy"]["values"] = np.round(V_random, 6).tolist()
            panels.append((V_random, greedy, "random policy, greedy arrows"))
            bar.update()
        if "pi" in args.methods:
            info: dict[str, Any] = {}
            (policy, V), seconds = timed(
                dp.policy_iteration, model, gamma, theta, max_sweeps=args.max_sweeps, info=info
            )
            show(
                f"Policy iteration: {info['iterations']} evaluations of {info['evaluation_sweeps']} sweeps "
                f"({info['updates']:,} state updates) in {duration(seconds)}. Values and policy:",
                V,
                policy,
            )
            summary["policy_iteration"] = {
                "iterations": info["iterations"],
                "evaluation_sweeps": info["evaluation_sweeps"],
                "sweeps": info["sweeps"],
                "updates": info["updates"],
                "seconds": round(seconds, 4),
            }
            solutions["policy_iteration"] = V
            bar.update()
        if "vi" in args.methods:
            info = {}
            (policy, V), seconds = timed(dp.value_iteration, model, gamma, theta, max_sweeps=args.max_sweeps, info=info)
            show(
                f"Value iteration: {info['sweeps']} sweeps ({info['updates']:,} state updates) in {duration(seconds)}. "
                "Values and policy:",
                V,
                policy,
            )
            summary["value_iteration"] = {
                "sweeps": info["sweeps"],
                "updates": info["updates"],
                "seconds": round(seconds, 4),
            }
            solutions["value_iteration"] = V
            bar.update()
        if "async" in args.methods:
            info = {}
            (policy, V), seconds = timed(
                dp.async_value_iteration, model, gamma, theta, max_rounds=args.max_sweeps, info=info
            )
            show(
                f"Asynchronous value iteration: {info['rounds']} rounds, {info['updates']:,} state updates "
                f"(a full sweep is {base.nS:,}) in {duration(seconds)}. Values and policy:",
                V,
                policy,
            )
            summary["async_value_iteration"] = {
                "rounds": info["rounds"],
                "updates": info["updates"],
                "seconds": round(seconds, 4),
            }
            solutions["async_value_iteration"] = V
            bar.update()

        if solutions:
            names = list(solutions)
            V_star = solutions[names[0]]
            disagreement = max(float(np.max(np.abs(solutions[n] - V_star))) for n in names)
            optimal = dp.greedy_policy(model, V_star, gamma, split_ties=True)
            show(
                f"Optimal policy (every best action); the methods' values differ by at most {disagreement:.2g}:",
                policy=optimal,
            )
            start_value = float(base.initial_state_distrib @ V_star)
            summary["max_value_difference"] = disagreement
            summary["optimal_start_value"] = start_value
            if printable:
                summary["optimal_values"] = np.round(V_star, 6).tolist()
            panels.append((V_star, optimal, "optimal values and policy"))
            if args.episodes:
                # Rollouts in the env itself: its sampled steps must average to the model's V*.
                limit = max(1000, 100 * base.nS)
                check_env = gym.make("GridWorld-v0", max_episode_steps=limit, **base_kwargs(base))
                stats = rollouts(check_env, optimal, args.episodes, gamma, args.seed)
                truncated = f", {stats['truncated']} truncated" if stats["truncated"] else ""
                print(
                    f"\n{args.episodes} episodes of the optimal policy in the env: mean return "
                    f"{stats['mean_return']:.3f} +- {stats['standard_error']:.3f} (V* averaged over the starts: "
                    f"{start_value:.3f}){truncated}"
                )
                summary["rollouts"] = stats
                bar.update()
        if args.out:
            frames = [render_panel(env, values, policy, label) for values, policy, label in panels] or [
                render_panel(env, None, None, "no values")
            ]
            save_png(args.out, frames)
            print(f"\nwrote {args.out}")
            summary["out"] = args.out
            bar.update()
    except (dp.ConvergenceError, ValueError) as error:
        bar.close()
        sys.exit(f"error: {error}")
    bar.close()
    if not printable:
        print(f"\n(the {rows}x{cols} grid is too large to print; --out draws it)")
    if args.json:
        print(json.dumps(summary))
    return summary


def base_kwargs(base: Any) -> dict[str, Any]:
    """The constructor arguments that rebuild ``base``'s grid."""
    return {"desc": list(base.desc), "slip": base.slip}


def render_panel(env: gym.Env, values: np.ndarray | None, policy: np.ndarray | None, label: str) -> np.ndarray:
    """One frame of the env's own renderer with the overlay, captioned with ``label``."""
    from gym_boardgames.envs.gridworld import render_gridworld

    return render_gridworld(env, values=values, policy=policy, caption=label)


if __name__ == "__main__":
    main()
