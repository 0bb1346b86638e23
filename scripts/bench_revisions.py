"""Time the same public-API workloads on two git revisions of this repository, interleaved in one run.

A refactor promises "no slower": this script checks it. It checks out each revision into a temporary
git worktree and times, in a fresh interpreter per (revision, workload, repeat) with that worktree first on
``PYTHONPATH``, workloads that use only the public API, so any revision runs them unchanged:

  mcts_tictactoe / mcts_connectfour  ``MCTSAgent(n_simulations=1000, seed=s).act`` from the empty board
                                     (UCT with random playouts), moves per second (1 / the best of 3 seeds)
  env_<id>                           ``gymnasium.make(id, opponent=None)`` self-play with uniformly random
                                     legal moves read from ``info["action_mask"]``, moves per second
  vector_<id>                        ``gymnasium.make_vec(id, num_envs=256, opponent=None)``, random legal
                                     moves, sub-env moves per second

Repeats alternate between the revisions (A, B, A, B, ...), so machine noise hits both alike; the median of
the repeats is reported with the ratio B/A of speeds (above 1: B is faster). Only ratios from the same run
mean anything on a shared machine.

Usage::

    python scripts/bench_revisions.py d8df998 HEAD --repeats 5
    python scripts/bench_revisions.py d8df998 HEAD --repeats 5 --json --out bench_revisions.json

Like every script here, ``--json`` prints the summary as one JSON line last on stdout and ``--out FILE`` also
writes that line to a file (atomically): ``{"base", "head", "repeats", "load_start", "load_end",
"workloads": {name: {"a", "b", "ratio"}}}``.
"""

from __future__ import annotations

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))  # plumbing/, peers/: also when loaded by path
from plumbing import cli  # first, before the slower imports: a Ctrl-C during them is one line (cli's hook)

# isort: split
import statistics
import subprocess
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent

_MCTS_MOVE = """
import time
try:
    from agents.search.mcts import MCTSAgent
except ImportError:  # a revision from before agents/ had rooms (issue 33)
    from agents.mcts import MCTSAgent
from gym_boardgames.rules.{module} import {rules}
game = {rules}({args})
best = float("inf")
for seed in range(3):
    agent = MCTSAgent(n_simulations=1000, seed=seed)
    start = time.perf_counter(); agent.act(game, game.initial_state()); best = min(best, time.perf_counter() - start)
print(1.0 / best)
"""

#: Each workload is a Python snippet printing one number: a speed, where higher is better.
WORKLOADS: dict[str, str] = {
    "mcts_tictactoe": _MCTS_MOVE.format(module="tictactoe", rules="TicTacToe", args=""),
    "mcts_connectfour": _MCTS_MOVE.format(module="connect", rules="ConnectN", args="6, 7, 4, gravity=True"),
}

_ENV_LOOP = """
import time
import numpy as np
import gymnasium as gym
import gym_boardgames  # noqa: F401  (registers the ids)
env = gym.make({env_id!r}, opponent=None)
rng = np.random.default_rng(0)
moves = 0
start = time.perf_counter()
_, info = env.reset(seed=0)
while moves < 30000:
    action = int(rng.choice(np.flatnonzero(info["action_mask"])))
    _, _, terminated, truncated, info = env.step(action)
    moves += 1
    if terminated or truncated:
        _, info = env.reset()
print(moves / (time.perf_counter() - start))
"""

_VECTOR_LOOP = """
import time
import numpy as np
import gymnasium as gym
import gym_boardgames  # noqa: F401
from gym_boardgames.rules.batch import random_legal_actions
env = gym.make_vec({env_id!r}, num_envs=256, opponent=None)
rng = np.random.default_rng(0)
_, info = env.reset(seed=0)
for _ in range(20):  # warm-up
    _, _, _, _, info = env.step(random_legal_actions(info["action_mask"], rng))
steps = 400
start = time.perf_counter()
for _ in range(steps):
    _, _, _, _, info = env.step(random_legal_actions(info["action_mask"], rng))
print(256 * steps / (time.perf_counter() - start))
"""

for _env_id in ("TicTacToe-v0", "ConnectFour-v0", "DotsAndBoxes-v0"):
    WORKLOADS[f"env_{_env_id}"] = _ENV_LOOP.format(env_id=_env_id)
    WORKLOADS[f"vector_{_env_id}"] = _VECTOR_LOOP.format(env_id=_env_id)


def worktree(revision: str, path: Path) -> Path:
    """Check ``revision`` out into a detached git worktree at ``path`` and return ``path``."""
    subprocess.run(
        ["git", "-C", str(REPO), "worktree", "add", "--detach", str(path), revision],
        check=True,
        capture_output=True,
    )
    return path


def run_workload(code: str, root: Path) -> float:
    """Run one workload snippet with ``root``'s packages first on the path; return the number it prints."""
    env = dict(os.environ, PYTHONPATH=str(root), OPENBLAS_NUM_THREADS="1", SDL_VIDEODRIVER="dummy")
    check = (
        "import sys, agents, gym_boardgames\n"
        "assert gym_boardgames.__file__.startswith(sys.argv[1]) and agents.__file__.startswith(sys.argv[1])\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", check + code, str(root)], env=env, cwd=root, capture_output=True, text=True
    )
    if done.returncode != 0:
        raise RuntimeError(f"workload failed in {root}:\n{done.stderr[-2000:]}")
    return float(done.stdout.strip().splitlines()[-1])


def main(argv: list[str] | None = None) -> int:
    """Parse arguments, time every workload on both revisions, print a table (and the JSON summary)."""
    parser = cli.make_parser(__doc__.split("\n\n")[0])
    parser.add_argument("base", help="the revision to compare against (A), e.g. a commit or tag")
    parser.add_argument("head", nargs="?", default="HEAD", help="the revision under test (B) (default HEAD)")
    parser.add_argument("--repeats", type=cli.positive_int, default=5, help="interleaved repeats per revision")
    parser.add_argument(
        "--workloads", nargs="+", choices=list(WORKLOADS), default=list(WORKLOADS), help="the workloads to time"
    )
    cli.add_run_flags(parser, out="also write the JSON summary (medians and ratios) to this file")
    args = cli.parse_checked(parser, argv)
    for revision in (args.base, args.head):
        found = subprocess.run(
            ["git", "-C", str(REPO), "rev-parse", "--verify", "--quiet", revision + "^{commit}"], capture_output=True
        )
        if found.returncode != 0:
            parser.error(f"{revision!r} is not a commit of this repository")
    load = os.getloadavg()
    with tempfile.TemporaryDirectory(prefix="bench_revisions_") as tmp:
        roots = {"a": worktree(args.base, Path(tmp) / "a"), "b": worktree(args.head, Path(tmp) / "b")}
        try:
            speeds: dict[tuple[str, str], list[float]] = {}
            for repeat in range(args.repeats):
                for name in args.workloads:
                    for side, root in roots.items():
                        speeds.setdefault((name, side), []).append(run_workload(WORKLOADS[name], root))
                print(f"repeat {repeat + 1}/{args.repeats} done", file=sys.stderr, flush=True)
        finally:
            for root in roots.values():
                subprocess.run(["git", "-C", str(REPO), "worktree", "remove", "--force", str(root)], check=False)
    rows = {}
    print(f"{'workload':28} {'A ' + args.base:>16} {'B ' + args.head:>16}  B/A speed")
    for name in args.workloads:
        a = statistics.median(speeds[name, "a"])
        b = statistics.median(speeds[name, "b"])
        rows[name] = {"a": a, "b": b, "ratio": b / a}
        print(f"{name:28} {a:16.1f} {b:16.1f}  {b / a:.3f}")
    load_end = os.getloadavg()
    print(f"load average at start: {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}; at end: {load_end[0]:.2f}")
    summary = {
        **{key: getattr(args, key) for key in ("base", "head", "repeats")},
        "load_start": list(load),
        "load_end": list(load_end),
        "workloads": rows,
    }
    cli.emit_summary(summary, args.out, args.json)
    return 0


if __name__ == "__main__":
    cli.run(main)
