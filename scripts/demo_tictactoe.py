"""Headless demo: play TicTacToe-v0 games with random legal moves and print the ansi board each move.

The agent picks uniformly among the legal moves given by ``info["action_mask"]``; the opponent is the
env's built-in random player (or, with ``--self-play``, the agent plays both sides). At the end it
prints how the games ended, and with ``--json`` a one-line JSON summary: ``wins`` counts the games X
won, O won and the draws; ``by_side`` gives each side's wins, draws and losses; against the opponent,
``agent`` gives the agent's record and ``mean_return`` its mean return (in self-play there is no single
agent, so neither is reported).
"""

from __future__ import annotations

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))  # plumbing/, peers/: also when loaded by path
from plumbing import cli  # first, before the slower imports: a Ctrl-C during them is one line (cli's hook)

# isort: split
import argparse

import gymnasium as gym
import numpy as np

import gym_boardgames  # noqa: F401  (registers the ids)


def play_game(env: gym.Env, rng: np.random.Generator, seed: int | None, show: bool) -> tuple[float, int]:
    """Play one episode with uniformly random legal moves; return the agent's return and the winner (-1: draw)."""
    _, info = env.reset(seed=seed)
    if show:
        print(env.render())
    total, terminated = 0.0, False
    while not terminated:
        action = int(rng.choice(np.flatnonzero(info["action_mask"])))
        _, reward, terminated, _, info = env.step(action)
        total += reward
        if show:
            print(env.render())
    return total, int(info["winner"])  # a draw is -1 (docs/design.md, "Two-player env contract")


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    """Parse the command line."""
    parser = cli.make_parser(__doc__)
    parser.add_argument(
        "--games", type=cli.positive_int, default=1, help="number of games (boards are printed for the first)"
    )
    parser.add_argument("--self-play", action="store_true", help="play both sides instead of facing the opponent")
    parser.add_argument("--agent-player", default="0", choices=["0", "1", "random"], help="the agent's side")
    cli.add_run_flags(parser, seed="seed of the env and of the agent's moves", out=cli.OUT_HELP)
    return cli.parse_checked(parser, argv)


def main(argv: list[str] | None = None) -> dict:
    """Run the demo and return its summary."""
    args = parse_args(argv)
    agent_player = args.agent_player if args.agent_player == "random" else int(args.agent_player)
    env = gym.make(
        "TicTacToe-v0",
        opponent=None if args.self_play else "random",
        agent_player=agent_player,
        render_mode="ansi",
    )
    rng = np.random.default_rng(args.seed)
    outcomes = {"X": 0, "O": 0, "draw": 0}
    agent_record = {"win": 0, "draw": 0, "loss": 0}
    returns = []
    for game in range(args.games):
        total, winner = play_game(env, rng, args.seed + game, show=game == 0)
        outcomes["draw" if winner == -1 else "XO"[winner]] += 1
        if not args.self_play:
            side = env.unwrapped.agent_player  # drawn anew each reset with --agent-player random
            agent_record["draw" if winner == -1 else "win" if winner == side else "loss"] += 1
        returns.append(total)
    env.close()
    by_side = {
        side: {"win": outcomes[side], "draw": outcomes["draw"], "loss": outcomes[other]} for side, other in ("XO", "OX")
    }
    summary = {"games": args.games, "self_play": args.self_play, "wins": outcomes, "by_side": by_side}
    print(f"{args.games} game(s): X won {outcomes['X']}, O won {outcomes['O']}, {outcomes['draw']} drawn")
    if not args.self_play:
        # One agent against the env's opponent: its record and mean return mean something. In self-play the
        # rewards of both sides were summed, so a mean return would describe neither side.
        summary["agent"] = agent_record
        summary["mean_return"] = float(np.mean(returns))
        print(f"the agent: {agent_record['win']} won, {agent_record['draw']} drawn, {agent_record['loss']} lost")
    summary["seed"] = args.seed
    cli.emit_summary(summary, args.out, args.json)
    return summary


if __name__ == "__main__":
    cli.run(main)
