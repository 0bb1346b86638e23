"""Train PPO on TicTacToe-v0 with Ray RLlib, on a local Ray instance or a cluster.

The env is registered with Ray Tune under ``gym_boardgames/TicTacToe-v0`` and collected by several
env runners (Ray actors) in parallel. ``--address`` picks the Ray instance: by default a local one is
started on this machine; ``--address auto`` (or ``ray://HOST:10001``) joins a running cluster instead,
and the same script then spreads its env runners over the cluster's nodes.

The learner plays both sides against the built-in random opponent (``agent_player="random"``). RLlib's
default model gets the board flattened to 9 floats; illegal moves lose the game
(``illegal_action="lose"``), so the policy has to learn the rules. After training the greedy policy
(highest logit among the legal moves) plays ``--eval-games`` games against random through the env.

``--threads`` (default 1) is the number of PyTorch and BLAS threads of this process, where the learner
runs, and of every env runner: ``OMP_NUM_THREADS``, ``MKL_NUM_THREADS`` and ``OPENBLAS_NUM_THREADS`` are set
before PyTorch and Ray are imported, ``torch.set_num_threads`` is called, and Ray starts the env runners with
the same variables (the job's ``runtime_env``). PyTorch's default, a thread per core, spins beside the env
runners and any other busy process; parallelism comes from ``--env-runners`` instead.

Needs the ``rllib`` extra (ray[rllib] and PyTorch; RLlib pins its own gymnasium version).
"""

from __future__ import annotations

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))  # plumbing/, peers/: also when loaded by path
from plumbing import cli  # first, before the slower imports: a Ctrl-C during them is one line (cli's hook)

# isort: split
import argparse
import time

import numpy as np

ENV_NAME = "gym_boardgames/TicTacToe-v0"
THREAD_VARIABLES = ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS")


def thread_environment(threads: int) -> dict[str, str]:
    """Set the thread-count variables to ``threads`` in this process; return them for Ray's worker processes.

    Called before PyTorch is imported, which reads them once (numpy, imported already, does no matrix work here).
    """
    variables = dict.fromkeys(THREAD_VARIABLES, str(threads))
    os.environ.update(variables)
    return variables


def make_env(config: dict) -> object:
    """Env creator for Ray Tune: TicTacToe-v0 with a flat float32 observation for RLlib's default model."""
    import gymnasium as gym

    import gym_boardgames  # noqa: F401  (registers the ids inside each Ray worker)

    env = gym.make("TicTacToe-v0", **config)
    env = gym.wrappers.FlattenObservation(env)
    return gym.wrappers.DtypeObservation(env, np.float32)


def runner_torch_threads(_runner: object) -> int:
    """PyTorch's thread count in an env runner's process (run there by Ray)."""
    import torch

    return torch.get_num_threads()


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    """Parse the command line."""
    parser = cli.make_parser(__doc__)
    parser.add_argument("--address", default=None, help="Ray address: none starts a local instance; 'auto' joins one")
    parser.add_argument("--env-runners", type=cli.positive_int, default=2, help="parallel env runners (Ray actors)")
    parser.add_argument("--iterations", type=cli.positive_int, default=20, help="PPO training iterations")
    parser.add_argument("--batch", type=cli.positive_int, default=4000, help="env steps per training iteration")
    parser.add_argument(
        "--eval-games", type=cli.positive_int, default=1000, help="greedy games against random after training"
    )
    parser.add_argument(
        "--threads",
        type=cli.positive_int,
        default=1,
        help="PyTorch/BLAS threads of the learner (this process) and of each env runner (default 1)",
    )
    cli.add_run_flags(parser, seed="seed of RLlib and of the evaluation")
    return parser.parse_args(argv)


def evaluate(module: object, games: int, seed: int) -> dict[str, int]:
    """Play ``games`` greedy games (legal moves only) against random; return the agent's win/draw/loss."""
    import torch

    env = make_env({"opponent": "random", "agent_player": "random"})
    record = {"win": 0, "draw": 0, "loss": 0}
    for game in range(games):
        obs, info = env.reset(seed=seed + game)
        terminated = False
        while not terminated:
            with torch.no_grad():
                logits = module.forward_inference({"obs": torch.as_tensor(obs[None])})["action_dist_inputs"][0]
            logits = logits.numpy().astype(np.float64)
            logits[info["action_mask"] == 0] = -np.inf  # greedy among the legal moves
            obs, reward, terminated, _, info = env.step(int(np.argmax(logits)))
        record["win" if reward > 0 else "loss" if reward < 0 else "draw"] += 1
    return record


def main(argv: list[str] | None = None) -> dict:
    """Train, evaluate and return the summary."""
    args = parse_args(argv)
    thread_variables = thread_environment(args.threads)
    try:
        import ray
        import torch
        from ray import tune
        from ray.rllib.algorithms.ppo import PPOConfig
    except ImportError as error:
        cli.fail(f'this script needs Ray RLlib ({error.name} is missing): pip install -e ".[rllib]"')

    torch.set_num_threads(args.threads)
    runtime_env = {"env_vars": thread_variables}  # the env runners' processes, on this machine or a cluster's
    ray.init(address=args.address, include_dashboard=False, log_to_driver=False, runtime_env=runtime_env)
    tune.register_env(ENV_NAME, make_env)
    config = (
        PPOConfig()
        .environment(ENV_NAME, env_config={"opponent": "random", "agent_player": "random"})
        .env_runners(num_env_runners=args.env_runners)
        .training(train_batch_size_per_learner=args.batch, lr=3e-4)
        .debugging(seed=args.seed)
    )
    algo = config.build_algo()
    start = time.perf_counter()
    curve = []
    for iteration in range(1, args.iterations + 1):
        result = algo.train()
        mean_return = float(result["env_runners"]["episode_return_mean"])
        curve.append(round(mean_return, 4))
        print(f"iteration {iteration:>3}: mean episode return {mean_return:+.3f}", flush=True)
    train_seconds = time.perf_counter() - start
    record = evaluate(algo.get_module(), args.eval_games, args.seed)
    runner_threads = algo.env_runner_group.foreach_env_runner(runner_torch_threads, local_env_runner=False)
    algo.stop()
    ray.shutdown()
    print(f"trained {args.iterations} iterations with {args.env_runners} env runners in {train_seconds:.1f} s")
    print(f"greedy policy vs random, {args.eval_games} games: {record['win']}/{record['draw']}/{record['loss']} W/D/L")
    summary = {
        "iterations": args.iterations,
        "env_runners": args.env_runners,
        "train_seconds": round(train_seconds, 1),
        "episode_return_mean": curve,
        "vs_random": record,
        "seed": args.seed,
        "threads": args.threads,
        "torch_threads": torch.get_num_threads(),
        "env_runner_torch_threads": sorted(runner_threads),
    }
    cli.emit_summary(summary, None, args.json)
    return summary


if __name__ == "__main__":
    cli.run(main)
