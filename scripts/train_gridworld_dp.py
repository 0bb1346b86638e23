"""Solve GridWorld-v0 by dynamic programming: Sutton & Barto's example 4.1 and Figure 4.1.

Evaluates the equiprobable random policy (in-place sweeps, and the two-array version for comparison),
then runs policy iteration, value iteration and asynchronous value iteration on the env's exact model
``P`` (agents.tabular.dp), prints the value grids, the greedy policies (every best action: ^ v < >), the sweep
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

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))  # plumbing/, peers/: also when loaded by path
from plumbing import cli  # first, before the slower imports: a Ctrl-C during them is one line (cli's hook)

# isort: split
import argparse
import functools
import io
import math
from typing import Any

import gymnasium as gym
import numpy as np

import gym_boardgames  # noqa: F401  (registers GridWorld-v0)
from agents.tabular import dp
from gym_boardgames.outputs import write_bytes_atomic
from gym_boardgames.render.text import format_policy, format_values
from gym_boardgames.rules.gridworld import load_map
from gym_boardgames.tabular import build_model
from gym_boardgames.utils import progress_bar

METHODS = ("random", "pi", "vi", "async")
MAX_PRINTED_CELLS = 400  # larger grids are not printed; see --out
#: The solvers after the random policy's evaluation: method -> (summary key, function, its sweep-limit
#: argument, what the summary keeps of its ``info``, the title of its output with those numbers).
SOLVERS: dict[str, tuple[str, Any, str, tuple[str, ...], str]] = {
    "pi": (
        "policy_iteration",
        dp.policy_iteration,
        "max_sweeps",
        ("iterations", "evaluation_sweeps", "sweeps", "updates"),
        "Policy iteration: {iterations} evaluations of {evaluation_sweeps} sweeps ({updates:,} state updates)",
    ),
    "vi": (
        "value_iteration",
        dp.value_iteration,
        "max_sweeps",
        ("sweeps", "updates"),
        "Value iteration: {sweeps} sweeps ({updates:,} state updates)",
    ),
    "async": (
        "async_value_iteration",
        dp.async_value_iteration,
        "max_rounds",
        ("rounds", "updates"),
        "Asynchronous value iteration: {rounds} rounds, {updates:,} state updates (a full sweep is {states:,})",
    ),
}


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    """Parse the command line."""
    parser = cli.make_parser(__doc__)
    grid = parser.add_argument_group("the grid")
    grid.add_argument(
        "--rows", type=cli.positive_int, help="grid rows (default 4); terminals in the top-left and bottom-right"
    )
    grid.add_argument("--cols", type=cli.positive_int, help="grid columns (default 4)")
    grid.add_argument(
        "--map",
        metavar="FILE",
        role="input",
        help="a map file instead: rows of '.' free, '#' wall, 'T' terminal, 'S' start",
    )
    grid.add_argument("--slip", type=float, default=0.0, help="probability of moving in a random other direction")
    solve = parser.add_argument_group("the solvers")
    solve.add_argument(
        "--gamma", type=cli.number_type(0, 1), default=1.0, help="discount factor in [0, 1] (default 1, as in the book)"
    )
    solve.add_argument(
        "--theta",
        type=cli.number_type(0, math.inf, low_open=True, high_open=True),
        default=1e-10,
        help="stop a sweep loop when no value changes by this",
    )
    solve.add_argument(
        "--methods",
        default=",".join(METHODS),
        help="comma-separated subset of random (policy evaluation), pi, vi, async (default: all)",
    )
    solve.add_argument(
        "--max-sweeps", type=cli.positive_int, default=1_000_000, help="give up a sweep loop after this many"
    )
    parser.add_argument(
        "--episodes",
        type=cli.nonnegative_int,
        default=1000,
        help="rollouts of the optimal policy to check V* (0: none)",
    )
    cli.add_run_flags(
        parser,
        seed="seed of the rollouts (the solvers are deterministic)",
        out="write the value heat map with policy arrows to this PNG file",
    )
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")
    cli.add_overwrite_flag(parser)
    return cli.parse_checked(parser, argv, _check_methods, _make_env)


def _check_methods(args: argparse.Namespace) -> None:
    methods = [m.strip() for m in args.methods.split(",") if m.strip()]
    if set(methods) - set(METHODS) or not methods:
        raise ValueError(f"--methods takes a comma-separated subset of {', '.join(METHODS)}; got {args.methods!r}")
    args.methods = [m for m in METHODS if m in methods]


def _make_env(args: argparse.Namespace) -> None:
    """Set ``args.env``, the grid of --rows/--cols or of the --map file (which the rules' load_map reads)."""
    kwargs: dict[str, Any] = {"slip": args.slip, "shape": (args.rows or 4, args.cols or 4)}
    if args.map:
        if args.rows is not None or args.cols is not None:
            raise ValueError("--map sets the grid: do not also give --rows/--cols")
        try:
            kwargs = {"slip": args.slip, "desc": load_map(args.map)}
        except (OSError, ValueError) as error:
            raise ValueError(f"--map: {error}") from None
    args.env = gym.make("GridWorld-v0", **kwargs)


def duration(seconds: float) -> str:
    """``seconds`` as text: milliseconds below one second."""
    return f"{seconds * 1000:.1f} ms" if seconds < 1 else f"{seconds:.2f} s"


def rollouts(env: gym.Env, policy: np.ndarray, episodes: int, gamma: float, seed: int) -> dict[str, Any]:
    """Play ``episodes`` episodes of a deterministic ``policy`` in ``env``; summarise the discounted returns."""
    actions = policy.argmax(axis=1)
    returns = np.empty(episodes)
    truncated_episodes = 0
    for i in range(episodes):
        state, _ = env.reset(seed=seed if i == 0 else None)
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


def save_png(path: str, panels: list[np.ndarray], replace: bool = True) -> str:
    """Write ``panels`` (same-height RGB arrays) side by side, 12 px apart, as a PNG, atomically."""
    from gym_boardgames.render.primitives import BACKGROUND
    from gym_boardgames.render.pygame_canvas import import_pygame

    pygame = import_pygame()
    gap = np.full((panels[0].shape[0], 12, 3), BACKGROUND, np.uint8)
    joined = np.concatenate([part for panel in panels for part in (panel, gap)][:-1], axis=1)
    surface = pygame.surfarray.make_surface(np.ascontiguousarray(joined.transpose(1, 0, 2)))
    buffer = io.BytesIO()
    pygame.image.save(surface, buffer, "png")
    return write_bytes_atomic(path, buffer.getvalue(), replace=replace)


def main(argv: list[str] | None = None) -> dict[str, Any]:
    """Run the solvers and return the summary."""
    args = parse_args(argv)
    base, gamma, theta = args.env.unwrapped, args.gamma, args.theta
    rows, cols = base.shape
    printable = base.nS <= MAX_PRINTED_CELLS
    model, build_seconds = cli.timed(build_model, base.P)
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
            gs: dict[str, Any] = {}
            jacobi: dict[str, Any] = {}
            uniform = dp.uniform_policy(model)
            evaluate = functools.partial(dp.policy_evaluation, model, uniform, gamma, theta, max_sweeps=args.max_sweeps)
            V_random, seconds = cli.timed(evaluate, info=gs)
            if printable:  # the two-array comparison only where it is quick
                evaluate(in_place=False, info=jacobi)
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
        for method in [m for m in args.methods if m in SOLVERS]:
            key, solver, limit, fields, title = SOLVERS[method]
            info: dict[str, Any] = {}
            (policy, V), seconds = cli.timed(solver, model, gamma, theta, info=info, **{limit: args.max_sweeps})
            show(f"{title.format(**info, states=base.nS)} in {duration(seconds)}. Values and policy:", V, policy)
            summary[key] = {**{field: info[field] for field in fields}, "seconds": round(seconds, 4)}
            solutions[key] = V
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
                check_env = gym.make("GridWorld-v0", max_episode_steps=limit, desc=list(base.desc), slip=base.slip)
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
            frames = [base.render_frame(values=v, policy=p, caption=label) for v, p, label in panels]
            summary["out"] = save_png(args.out, frames, args.overwrite)
            print(f"\nwrote {summary['out']}")
            bar.update()
    except (dp.ConvergenceError, ValueError) as error:
        bar.close()
        cli.fail(f"{error}")
    bar.close()
    if not printable:
        print(f"\n(the {rows}x{cols} grid is too large to print; --out draws it)")
    cli.emit_summary(summary, None, args.json)
    return summary


if __name__ == "__main__":
    cli.run(main)
