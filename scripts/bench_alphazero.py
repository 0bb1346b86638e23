"""Self-play speed of AlphaZero: batched against one game at a time, and 2 worker processes against 1.

Workloads (Connect Four 6x7 by default, the same network in all of them: a fresh 32-channel x 3-block net,
or --model; --simulations per move):

  batched     play_games with --parallel-games games at once: each simulation step evaluates the leaves
              of all games in ONE network call (PyTorch, one thread).
  one_torch   the same search one game at a time, one network call per leaf (as in the source's player),
              the network run by PyTorch.
  one_numpy   the same, the network run by the numpy forward pass (faster than PyTorch at batch 1), so the
              ratio is against the best unbatched runtime we have.
  workers_1 / workers_2  the training loop's self-play pool (SelfPlayPool: spawned processes, one thread
              each, started before the timing as in a training run) playing --worker-games games with 1
              and with 2 worker processes.

Each workload plays whole games; the rate is positions (moves) per second. The unbatched runs play fewer
games (--single-games) because they are slow. Repeats are interleaved so machine noise hits all workloads
alike, and the median is reported; ratios compare medians of the same run. The load average is printed
with the results: on a shared 2-core machine, quote it beside any figure.
"""

from __future__ import annotations

import os

for _name in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_name, "1")  # one BLAS thread per process (see train_alphazero.py)

import sys  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))  # plumbing/, peers/: also when loaded by path
from plumbing import cli  # noqa: E402  (first, before the slower imports: a Ctrl-C during them is one line (cli's hook))

# isort: split
import argparse  # noqa: E402
import statistics  # noqa: E402

import numpy as np  # noqa: E402

from gym_boardgames.rules.registry import make_game  # noqa: E402
from gym_boardgames.utils import require_extra  # noqa: E402


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    """Parse the command line (bad values exit with status 2 naming the flag)."""
    parser = cli.make_parser(__doc__)
    parser.add_argument("--game", choices=("tictactoe", "connectfour"), default="connectfour", help="the board")
    parser.add_argument("--model", role="input", help="a saved AlphaZero model of the game (default: a fresh 32x3 net)")
    parser.add_argument("--simulations", type=cli.positive_int, default=50, help="simulations per move")
    parser.add_argument("--parallel-games", type=cli.positive_int, default=128, help="games at once when batched")
    parser.add_argument("--batched-games", type=cli.positive_int, default=128, help="games per batched run")
    parser.add_argument("--single-games", type=cli.positive_int, default=4, help="games per one-at-a-time run")
    parser.add_argument("--worker-games", type=cli.positive_int, default=256, help="games per worker-pool run")
    parser.add_argument("--repeats", type=cli.positive_int, default=3, help="timed runs per workload (median)")
    parser.add_argument("--no-workers", action="store_true", help="skip the worker-pool workloads")
    cli.add_run_flags(parser, out=cli.OUT_HELP, json="print the one-line JSON summary last")
    return cli.parse_checked(parser, argv, _check)


def _check(args: argparse.Namespace) -> None:
    require_extra("alphazero", "torch", needed_for="bench_alphazero.py")
    if args.model is not None and not os.path.isfile(args.model):
        raise ValueError(f"--model: no file {args.model!r}")


def main(argv: list[str] | None = None) -> dict:
    """Run the benchmark; return the summary."""
    args = parse_args(argv)
    import torch

    from agents.alphazero.agent import AlphaZeroAgent, NetworkEvaluator
    from agents.alphazero.config import NetConfig, SelfPlayConfig
    from agents.alphazero.encoding import encoder_for
    from agents.alphazero.network import NumpyNet
    from agents.alphazero.selfplay import play_games
    from agents.alphazero.torch_model import PolicyValueNet, load_params, params_of
    from agents.alphazero.workers import SelfPlayPool, TorchForward, selfplay_tasks

    torch.set_num_threads(1)
    game = make_game(args.game)
    encoder = encoder_for(game)
    if args.model:
        agent = AlphaZeroAgent.load(args.model, game=game)
        config, params = agent.config, agent.params
    else:
        torch.manual_seed(0)
        config = NetConfig(*encoder.shape, encoder.num_actions, channels=32, blocks=3)
        params = params_of(PolicyValueNet(config).eval())
    model = PolicyValueNet(config)
    load_params(model, params)
    torch_eval = NetworkEvaluator(game, TorchForward(model), encoder)
    numpy_eval = NetworkEvaluator(game, NumpyNet(config, params), encoder)

    def selfplay(evaluator, games: int, parallel: int):
        def run(seed: int) -> tuple[int, float]:
            sp = SelfPlayConfig(simulations=args.simulations, parallel_games=parallel)
            (samples, _), seconds = cli.timed(
                play_games, game, encoder, evaluator, games, sp, np.random.default_rng(seed)
            )
            return len(samples.values), seconds

        return run

    pools: dict[int, SelfPlayPool] = {}

    def tasks_for(workers: int, games: int, seed: int) -> list[dict]:
        selfplay = SelfPlayConfig(simulations=args.simulations, parallel_games=args.parallel_games)
        seeds = [seed * 100 + w for w in range(workers)]
        return selfplay_tasks(game, config, params, selfplay, "torch", games, seeds)

    def pool_run(workers: int):
        # The training loop keeps its pool for the whole run, so the pool is started (and its workers have
        # imported PyTorch) before the timing, as there.
        if workers not in pools:
            pools[workers] = SelfPlayPool(workers, force_processes=True)
            pools[workers].run(tasks_for(workers, workers, 999))

        def run(seed: int) -> tuple[int, float]:
            results, seconds = cli.timed(pools[workers].run, tasks_for(workers, args.worker_games, seed))
            return sum(len(r[0].values) for r in results), seconds

        return run

    workloads = {
        "batched": selfplay(torch_eval, args.batched_games, args.parallel_games),
        "one_torch": selfplay(torch_eval, args.single_games, 1),
        "one_numpy": selfplay(numpy_eval, args.single_games, 1),
    }
    if not args.no_workers:
        workloads["workers_1"] = pool_run(1)
        workloads["workers_2"] = pool_run(2)
    rates: dict[str, list[float]] = {name: [] for name in workloads}
    load_before = os.getloadavg()
    for repeat in range(args.repeats):
        for name, run in workloads.items():
            positions, seconds = run(repeat)
            rates[name].append(positions / seconds)
            print(f"repeat {repeat + 1} {name}: {positions} positions in {seconds:.1f} s", file=sys.stderr, flush=True)
    load_after = os.getloadavg()
    for pool in pools.values():
        pool.close()
    medians = {name: statistics.median(values) for name, values in rates.items()}
    summary = {
        "game": repr(game),
        "network": config.to_dict(),
        "simulations": args.simulations,
        "parallel_games": args.parallel_games,
        "positions_per_second": {k: round(v, 1) for k, v in medians.items()},
        "batched_over_one_torch": round(medians["batched"] / medians["one_torch"], 2),
        "batched_over_one_numpy": round(medians["batched"] / medians["one_numpy"], 2),
        "load_average": [round(x, 2) for x in load_before] + [round(x, 2) for x in load_after],
    }
    if "workers_2" in medians:
        summary["workers_2_over_1"] = round(medians["workers_2"] / medians["workers_1"], 2)
    print(f"{'workload':<12} {'positions/s (median)':>22}  {'min':>8}  {'max':>8}")
    for name, values in rates.items():
        print(f"{name:<12} {medians[name]:>22.1f}  {min(values):>8.1f}  {max(values):>8.1f}")
    print(
        f"batched / one game at a time: {summary['batched_over_one_torch']}x (PyTorch at batch 1), "
        f"{summary['batched_over_one_numpy']}x (numpy at batch 1)"
    )
    if "workers_2_over_1" in summary:
        print(f"2 workers / 1 worker: {summary['workers_2_over_1']}x")
    print(f"load average before {load_before}, after {load_after}")
    cli.emit_summary(summary, args.out, args.json)
    return summary


if __name__ == "__main__":
    cli.run(main)
