"""Measure the mean episode return that each registered id's ``reward_threshold`` is set from.

Each id runs with its default settings, played by a strong reference: alpha-beta on TicTacToe-v0, the exact
table on DotsAndBoxes-v0 (3x3), the shipped AlphaZero network on ConnectFour-v0 (ConnectN-v0's default board),
and the optimal policy of the exact model (value iteration) on GridWorld-v0 and TabularBlackjack-v0. Episode i
is reset with seed i. Each threshold is the mean less 0.1, rounded down, as ``gym_boardgames/registration.py``
registers it.

Example:
  python scripts/reward_thresholds.py                      # the figures of gym_boardgames/registration.py
  python scripts/reward_thresholds.py --episodes 100 --json
"""

from __future__ import annotations

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))  # plumbing/, peers/: also when loaded by path
from plumbing import cli  # first, before the slower imports: a Ctrl-C during them is one line (cli's hook)

# isort: split
import argparse
import math
from typing import Any

import gymnasium as gym
import numpy as np

import gym_boardgames  # noqa: F401  (registers the ids)

#: The reference of each id, and its episodes by default.
REFERENCES = {
    "TicTacToe-v0": ("alphabeta", 1000),
    "DotsAndBoxes-v0": ("exact", 1000),
    "ConnectFour-v0": ("alphazero", 200),
    "GridWorld-v0": ("optimal", 10_000),
    "TabularBlackjack-v0": ("optimal", 100_000),
}


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    """Parse the command line."""
    parser = cli.make_parser(__doc__)
    parser.add_argument("--episodes", type=cli.int_type(1, 1_000_000), help="episodes per id (default: each id's)")
    cli.add_run_flags(parser, out=cli.OUT_HELP, json=cli.JSON_HELP, overwrite=True)
    return cli.parse_checked(parser, argv)


def mean_return(env_id: str, reference: str, episodes: int) -> float:
    """The reference's mean episode return on ``env_id``, episode ``i`` reset with seed ``i``."""
    env = gym.make(env_id)
    if reference == "optimal":
        from agents.tabular.dp import value_iteration

        policy, _ = value_iteration(env.unwrapped.P)
        act: Any = lambda state: int(np.argmax(policy[state]))  # noqa: E731
    else:
        from agents.factory import make_agent

        agent, game = make_agent(reference, seed=0, game=env.unwrapped.game), env.unwrapped.game
        act = lambda _obs: agent.act(game, env.unwrapped.state)  # noqa: E731
    total = 0.0
    for episode in range(episodes):
        observation, _ = env.reset(seed=episode)
        done = False
        while not done:
            observation, reward, terminated, truncated, _ = env.step(act(observation))
            total += float(reward)
            done = terminated or truncated
    return total / episodes


def main(argv: list[str] | None = None) -> dict:
    """Run the command line; return the summary."""
    args = parse_args(argv)
    summary: dict[str, Any] = {}
    for env_id, (reference, default_episodes) in REFERENCES.items():
        episodes = args.episodes or default_episodes
        mean = mean_return(env_id, reference, episodes)
        threshold = math.floor(round((mean - 0.1) * 100, 6)) / 100
        summary[env_id] = {"reference": reference, "episodes": episodes, "mean": round(mean, 4), "threshold": threshold}
        if not args.json:
            print(
                f"{env_id:<20} {reference:<10} {episodes:>7} episodes: mean {mean:+.4f} -> threshold {threshold:+.2f}"
            )
    cli.emit_summary(summary, args.out, args.json, replace=args.overwrite)
    return summary


if __name__ == "__main__":
    cli.run(main)
