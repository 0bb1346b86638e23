"""Monte Carlo on blackjack (Sutton and Barto, Figures 5.1 and 5.2), checked against the exact values.

What it runs, on TabularBlackjack-v0 (Gymnasium's Blackjack-v1 with sab=True):
  Figure 5.1  first-visit and every-visit MC prediction of the policy that sticks only on 20 or 21, after
              each --episodes budget (default 10,000 and 500,000). On blackjack the two coincide: no
              state recurs within an episode, so with the same seed they give the same numbers.
  exact       the values of that policy and of the optimal policy by dynamic programming on the model P
              (agents.tabular.dp), and their expected returns from the deal.
  error       the RMS error of every estimate over the 200 states with player sum 12-21, for the budgets of
              --curve-episodes as well, with the fitted slope of log(error) against log(episodes)
              (Monte Carlo noise gives -0.5).
  timing      the CPU time of the largest prediction run beside a bare loop over Blackjack-v1 playing the
              same policy the same number of episodes (half before the run, half after, so that a change
              in machine load affects both alike).
  Figure 5.2  Monte Carlo control with exploring starts (--es-episodes, from the stick-on-20 policy): the
              learned policy and V* = max_a Q, and every --es-every episodes the exact expected return
              of the greedy policy from the deal (policy evaluation on P) beside the optimum.

PNGs go to --out DIR: figure_5_1.png, figure_5_2.png, error_vs_episodes.png. --tensorboard DIR logs the
prediction errors (by budget) and the MC-ES return curve (by episode) to TensorBoard.

Examples:
  python scripts/train_blackjack_mc.py --out figures --json
  python scripts/train_blackjack_mc.py --episodes 2000 --curve-episodes 500 1000 --es-episodes 5000 --no-timing
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
from typing import Any

import gymnasium as gym
import numpy as np
from plumbing import figures

import gym_boardgames  # noqa: F401  (registers TabularBlackjack-v0)
from agents._rng import make_rng
from agents.tabular.dp import policy_evaluation, value_iteration
from agents.tabular.mc import mc_control_es, mc_prediction
from gym_boardgames.outputs import write_text_atomic
from gym_boardgames.rules.blackjack import HIT, N_STATES, STICK, TERMINAL, blackjack_model, decode, encode
from gym_boardgames.tabular import build_model
from gym_boardgames.utils import progress_bar, require_extra

PLAYER_SUMS = range(12, 22)
DEALER_CARDS = range(1, 11)
WITHIN = 0.005  # MC-ES target: exact return of its greedy policy within this of the optimum
OUT_FILES = ("figure_5_1.png", "figure_5_2.png", "error_vs_episodes.png", "summary.json")


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    """Parse the command line."""
    parser = cli.make_parser(__doc__)
    parser.add_argument(
        "--episodes", type=cli.positive_int, nargs="+", default=[10_000, 500_000], help="Figure 5.1 budgets"
    )
    parser.add_argument(
        "--curve-episodes",
        type=cli.positive_int,
        nargs="*",
        default=[1_000, 3_000, 30_000, 100_000],
        help="extra budgets for the error-vs-episodes plot",
    )
    parser.add_argument("--es-episodes", type=cli.nonnegative_int, default=500_000, help="MC exploring-starts episodes")
    parser.add_argument(
        "--es-every", type=cli.positive_int, default=10_000, help="episodes between exact evaluations of the ES policy"
    )
    parser.add_argument("--no-timing", action="store_true", help="skip the bare Blackjack-v1 loop (halves the time)")
    cli.add_run_flags(parser, seed="seed of every run (each run draws its own from it)", json=None)
    parser.add_argument(
        "--out", role="folder", help="directory for the PNG figures (created if missing) and summary.json"
    )
    figures.add_tensorboard_flag(parser, "the prediction errors and the exploring-starts return curve")
    parser.add_argument("--no-progress", action="store_true", help="no progress bars")
    cli.add_run_flags(parser, overwrite=True)
    return cli.parse_checked(parser, argv, _check_outputs)


def _check_outputs(args: argparse.Namespace) -> None:
    """Check the files that will go in --out, and the plot extra, now, not after minutes of experiments."""
    if args.out is not None and os.path.isdir(args.out):
        for name in OUT_FILES:
            cli.claim_output(args, os.path.join(args.out, name), "--out")
    if args.out is not None:
        require_extra("plot", "matplotlib", needed_for="--out")


def stick_on_20() -> np.ndarray:
    """The book's policy as an (nS, 2) array: stick on 20 or 21, else hit (sticking at the terminal state)."""
    policy = np.zeros((N_STATES, 2))
    for s in range(N_STATES):
        policy[s, STICK if s == TERMINAL or decode(s)[0] >= 20 else HIT] = 1.0
    return policy


def grid(values: np.ndarray, usable_ace: int) -> np.ndarray:
    """(player sum 12..21, dealer A..10) table of per-state numbers; soft 21 is the drawn one, not a natural."""
    return np.array([[values[encode(t, d, usable_ace)] for d in DEALER_CARDS] for t in PLAYER_SUMS])


def book_states() -> np.ndarray:
    """Indices of the 200 states of the book's figures: player sum 12-21, with and without a usable ace."""
    return np.array([encode(t, d, a) for a in (0, 1) for t in PLAYER_SUMS for d in DEALER_CARDS])


def rms(estimate: np.ndarray, exact: np.ndarray, states: np.ndarray) -> float:
    """Root-mean-square error over ``states``."""
    return float(np.sqrt(np.mean((estimate[states] - exact[states]) ** 2)))


def bare_loop(episodes: int, seed: int, show: bool) -> float:
    """CPU seconds for ``episodes`` of Blackjack-v1 played by stick-on-20, with no learning at all."""
    env = gym.make("Blackjack-v1", sab=True)
    env.reset(seed=seed)
    with progress_bar(episodes, "bare Blackjack-v1", enabled=show) as bar:
        start = time.process_time()
        for played in range(episodes):
            obs, _ = env.reset()
            done = False
            while not done:
                obs, _, terminated, truncated, _ = env.step(0 if obs[0] >= 20 else 1)
                done = terminated or truncated
            if played % 100 == 99:  # the bar is updated every 100 episodes, to keep its cost out of the timing
                bar.update(100)
        return time.process_time() - start


def predict(episodes: int, first_visit: bool, seed: int, show: bool) -> tuple[np.ndarray, float, float]:
    """One prediction run of stick-on-20: (V, CPU seconds, wall seconds)."""
    env = gym.make("TabularBlackjack-v0")
    kind = "first" if first_visit else "every"
    with progress_bar(episodes, f"MC {kind}-visit {episodes:,}", enabled=show) as bar:
        cpu, wall = time.process_time(), time.perf_counter()
        values = mc_prediction(env, stick_on_20(), episodes, first_visit=first_visit, seed=seed, progress=bar.update)
        return values, time.process_time() - cpu, time.perf_counter() - wall


def run_es(
    args: argparse.Namespace,
    seed: int,
    model: Any,
    mu: np.ndarray,
    optimum: float,
    board: figures.TensorBoardLog | None,
) -> dict[str, Any]:
    """MC exploring starts with the exact return of the greedy policy every ``--es-every`` episodes.

    Each of those returns (and its gap to the optimum) also goes to ``board``, the --tensorboard log, if any.
    """
    curve: list[tuple[int, float]] = []

    def record(done: int, q: np.ndarray, policy: np.ndarray) -> None:
        curve.append((done, float(mu @ policy_evaluation(model, policy, gamma=1.0, theta=1e-12))))
        if board is not None:
            board.scalars({"es/exact_return": curve[-1][1], "es/gap_to_optimum": optimum - curve[-1][1]}, done)

    env = gym.make("TabularBlackjack-v0")
    with progress_bar(args.es_episodes, "MC exploring starts", enabled=not args.no_progress) as bar:
        (q, policy), seconds = cli.timed(
            mc_control_es,
            env,
            args.es_episodes,
            seed=seed,
            initial_policy=stick_on_20(),
            progress=bar.update,
            callback=record,
            callback_every=min(args.es_every, max(args.es_episodes, 1)),
        )
    final = float(mu @ policy_evaluation(model, policy, gamma=1.0, theta=1e-12))
    within = [n for n, value in curve if optimum - value <= WITHIN]
    # "Stays within": the first checkpoint after which every later one is within the target too.
    stays = next((n for i, (n, _) in enumerate(curve) if all(optimum - v <= WITHIN for _, v in curve[i:])), None)
    return {
        "episodes": args.es_episodes,
        "seconds": round(seconds, 2),
        "expected_return": final,
        "gap_to_optimum": optimum - final,
        "first_within_0.005_at": within[0] if within else None,
        "stays_within_0.005_from": stays,
        "curve": curve,
        "q": q,
        "policy": policy,
    }


def within_text(es: dict[str, Any]) -> str:
    """When the ES policy's exact return came within ``WITHIN`` of the optimum, in words (it may never have)."""
    first, stays, checks = es["first_within_0.005_at"], es["stays_within_0.005_from"], len(es["curve"])
    if first is None:
        return f"not within {WITHIN} of it at any of the {checks} evaluations"
    if stays is None:
        return f"first within {WITHIN} at {first:,} episodes, but not at the last evaluation"
    return f"first within {WITHIN} at {first:,} episodes, within from {stays:,} on"


def heatmap(ax: Any, table: np.ndarray, title: str, vmin: float, vmax: float, cmap: str = "viridis") -> Any:
    """Draw a (player sum x dealer card) table with the book's axes."""
    image = ax.imshow(table, origin="lower", cmap=cmap, vmin=vmin, vmax=vmax, aspect="auto")
    ax.set_xticks(range(10), ["A", *map(str, range(2, 11))])
    ax.set_yticks(range(10), [str(t) for t in PLAYER_SUMS])
    ax.set_xlabel("dealer showing")
    ax.set_ylabel("player sum")
    ax.set_title(title, fontsize=9)
    return image


def figure_5_1(
    plt: Any, estimates: dict, exact: np.ndarray, budgets: list[int], path: str, replace: bool = True
) -> str:
    """Rows: usable ace, no usable ace; columns: each (budget, first/every visit) estimate, then the exact V."""
    columns = [(n, fv) for n in budgets for fv in (True, False)]
    fig, axes = plt.subplots(
        2, len(columns) + 1, figsize=(3.3 * (len(columns) + 1), 7), squeeze=False, layout="constrained"
    )
    for row, ace in enumerate((1, 0)):
        label = "usable ace" if ace else "no usable ace"
        for col, (n, fv) in enumerate(columns):
            title = f"{'first' if fv else 'every'}-visit, {n:,} episodes\n{label}"
            image = heatmap(axes[row, col], grid(estimates[n, fv], ace), title, -1, 1)
        heatmap(axes[row, -1], grid(exact, ace), f"exact (DP on P)\n{label}", -1, 1)
    fig.colorbar(image, ax=axes, shrink=0.6, label="V(s) of stick on 20 or 21")
    fig.suptitle("Figure 5.1: Monte Carlo prediction of the stick-on-20 policy (TabularBlackjack-v0)")
    return figures.save_figure(fig, path, dpi=110, replace=replace)


def figure_5_2(
    plt: Any, es: dict, optimal_policy: np.ndarray, optimal_values: np.ndarray, path: str, replace: bool = True
) -> str:
    """MC-ES policy (crosses where it differs from the DP optimum) and V* = max_a Q, beside the exact V*."""
    learned = es["policy"].argmax(axis=1).astype(float)
    best = optimal_policy.argmax(axis=1)
    v_star = es["q"].max(axis=1)
    fig, axes = plt.subplots(2, 3, figsize=(13, 8), squeeze=False, layout="constrained")
    for row, ace in enumerate((1, 0)):
        label = "usable ace" if ace else "no usable ace"
        heatmap(axes[row, 0], grid(learned, ace), f"MC-ES policy ({label})\nyellow: hit, purple: stick", 0, 1)
        differs = grid(learned != best, ace)
        ys, xs = np.nonzero(differs)
        axes[row, 0].scatter(xs, ys, marker="x", color="red", label="differs from DP")
        if len(xs):
            axes[row, 0].legend(loc="upper right", fontsize=7)
        image = heatmap(axes[row, 1], grid(v_star, ace), f"MC-ES V* = max_a Q ({label})", -1, 1)
        heatmap(axes[row, 2], grid(optimal_values, ace), f"exact V* (value iteration on P, {label})", -1, 1)
    fig.colorbar(image, ax=axes[:, 1:], shrink=0.6, label="value")
    fig.suptitle(f"Figure 5.2: Monte Carlo ES after {es['episodes']:,} episodes")
    return figures.save_figure(fig, path, dpi=110, replace=replace)


def error_figure(plt: Any, curve: dict, es: dict, optimum: float, path: str, replace: bool = True) -> str:
    """Left: RMS error against episodes with a 1/sqrt(n) guide; right: MC-ES return gap to the optimum."""
    fig, (left, right) = plt.subplots(1, 2, figsize=(12, 4.5), layout="constrained")
    n = np.array(curve["episodes"], dtype=float)
    left.loglog(n, curve["first_visit"], "o-", label="first-visit")
    left.loglog(n, curve["every_visit"], "x--", label="every-visit (same cards: identical)")
    guide = curve["first_visit"][-1] * np.sqrt(n[-1] / n)
    left.loglog(n, guide, ":", color="gray", label="c / sqrt(episodes)")
    left.set_xlabel("episodes")
    left.set_ylabel("RMS error over player sums 12-21")
    slope = "n/a" if curve["slope"] is None else f"{curve['slope']:.3f}"
    left.set_title(f"MC prediction error (fitted slope {slope})")
    left.legend()
    if es["curve"]:
        episodes, returns = zip(*es["curve"], strict=True)
        gaps = np.maximum(optimum - np.array(returns), 1e-6)
        right.loglog(episodes, gaps, ".-")
        right.axhline(WITHIN, color="red", linestyle=":", label=f"{WITHIN}")
        right.legend()
    right.set_xlabel("episodes")
    right.set_ylabel("optimum - exact return of greedy policy")
    right.set_title("MC exploring starts: return from the deal")
    return figures.save_figure(fig, path, dpi=110, replace=replace)


def main(argv: list[str] | None = None) -> dict[str, Any]:
    """Run the experiments, print the results and return the summary."""
    args = parse_args(argv)
    show = not args.no_progress
    # Closed after the experiments; an error before that loses only unflushed points (its thread is a daemon).
    board = figures.TensorBoardLog(args.tensorboard) if args.tensorboard else None
    rng = make_rng(args.seed)
    P, mu = blackjack_model()
    model = build_model(P)
    optimal_policy, optimal_values = value_iteration(model, gamma=1.0, theta=1e-12)
    exact = policy_evaluation(model, stick_on_20(), gamma=1.0, theta=1e-12)
    optimum = float(mu @ optimal_values)
    print(f"exact expected return from the deal: optimal policy {optimum:+.6f}, stick on 20 {mu @ exact:+.6f}")

    figure_budgets = sorted(set(args.episodes))
    budgets = sorted(set(figure_budgets) | set(args.curve_episodes))
    seeds = {n: int(s) for n, s in zip(budgets, rng.integers(2**31, size=len(budgets)), strict=True)}
    es_seed, timing_seed = (int(s) for s in rng.integers(2**31, size=2))
    states = book_states()
    largest = budgets[-1]

    timing: dict[str, Any] = {}
    estimates: dict[tuple[int, bool], np.ndarray] = {}
    errors: dict[str, dict[str, float]] = {"first_visit": {}, "every_visit": {}}
    for n in budgets:
        for first_visit, kind in ((True, "first_visit"), (False, "every_visit")):
            timed = n == largest and first_visit and not args.no_timing
            if timed:  # half of the bare loop right before the timed run, half right after
                bare_first = bare_loop(n // 2, timing_seed, show)
            values, cpu, wall = predict(n, first_visit, seeds[n], show)
            estimates[n, first_visit] = values
            errors[kind][str(n)] = rms(values, exact, states)
            if n == largest and first_visit:
                timing = {"episodes": n, "tabular_mc_cpu_s": round(cpu, 3), "tabular_mc_wall_s": round(wall, 3)}
                if timed:
                    bare = bare_first + bare_loop(n - n // 2, timing_seed + 1, show)
                    timing.update(bare_blackjack_v1_cpu_s=round(bare, 3), ratio=round(cpu / bare, 3))
        first_err, every_err = errors["first_visit"][str(n)], errors["every_visit"][str(n)]
        if board is not None:
            board.scalars({f"prediction/rms_error_{kind}": errors[kind][str(n)] for kind in errors}, n)
        print(f"{n:>9,} episodes: RMS error (sums 12-21) first-visit {first_err:.4f}, every-visit {every_err:.4f}")
    identical = all(np.array_equal(estimates[n, True], estimates[n, False]) for n in budgets)
    curve: dict[str, Any] = {
        "episodes": budgets,
        **{kind: list(by_budget.values()) for kind, by_budget in errors.items()},
    }
    slope = float(np.polyfit(np.log(budgets), np.log(curve["first_visit"]), 1)[0]) if len(budgets) > 1 else None
    curve["slope"] = slope
    slope_text = "n/a (one budget)" if slope is None else f"{slope:.3f}"
    print(f"first-visit and every-visit estimates identical: {identical}; log-log slope of the error {slope_text}")
    if "ratio" in timing:
        print(
            f"timing, {timing['episodes']:,} episodes: MC prediction through TabularBlackjack-v0 "
            f"{timing['tabular_mc_cpu_s']:.1f} s CPU, bare Blackjack-v1 loop {timing['bare_blackjack_v1_cpu_s']:.1f} s "
            f"CPU: ratio {timing['ratio']:.2f}"
        )

    es = run_es(args, es_seed, model, mu, optimum, board)
    if board is not None:
        board.close()
    differs = int(np.sum(es["policy"][states].argmax(axis=1) != optimal_policy[states].argmax(axis=1)))
    print(
        f"MC exploring starts, {es['episodes']:,} episodes ({es['seconds']:.0f} s): "
        f"exact return {es['expected_return']:+.6f} "
        f"(optimum {optimum:+.6f}, gap {es['gap_to_optimum']:.6f}); {within_text(es)}; "
        f"{differs} of 200 states differ from the DP policy"
    )
    if args.tensorboard:
        print(f"TensorBoard log in {args.tensorboard} (view it: tensorboard --logdir {args.tensorboard})")

    summary: dict[str, Any] = {
        "seed": args.seed,
        "optimal_return_from_deal": optimum,
        "stick_on_20_return_from_deal": float(mu @ exact),
        "figure_5_1_episodes": figure_budgets,
        "rms_error": errors,
        "first_every_identical": identical,
        "error_curve": curve,
        "timing": timing,
        "es": {key: value for key, value in es.items() if key not in ("q", "policy", "curve")}
        | {"policy_differs_in_states": differs, "evaluations": len(es["curve"])},
    }
    if args.out:
        os.makedirs(args.out, exist_ok=True)
        plt = figures.pyplot()
        paths = [os.path.join(args.out, name) for name in OUT_FILES[:3]]
        paths = [
            figure_5_1(plt, estimates, exact, figure_budgets, paths[0], args.overwrite),
            figure_5_2(plt, es, optimal_policy, optimal_values, paths[1], args.overwrite),
            error_figure(plt, curve, es, optimum, paths[2], args.overwrite),
        ]
        summary["figures"] = paths
        full = summary | {"es_curve": es["curve"]}
        text = json.dumps(full, indent=1) + "\n"
        write_text_atomic(os.path.join(args.out, OUT_FILES[3]), text, replace=args.overwrite)
        print("wrote " + ", ".join(paths))
    cli.emit_summary(summary, None, args.json)
    return summary


if __name__ == "__main__":
    cli.run(main)
