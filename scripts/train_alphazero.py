"""Train an AlphaZero player (policy-value network + PUCT search) by batched self-play, on any board game.

Each iteration plays --games self-play games (--parallel-games at once, one network call per simulation
step for all of them), adds their positions to a replay window, trains the network on random symmetric
batches of it (loss (z - v)^2 - pi . log p, L2 as weight decay), saves the model (--out, playable without
PyTorch) and the training state beside it (OUT.train.npz, for --resume), and evaluates it: the share of
optimal moves of the raw network where the game can be solved (tic-tac-toe), and the search player's score
against random play and against MCTS with random rollouts. The learning curve (losses and scores over
wall-clock time) goes to a PNG (--plot) when matplotlib is installed (the plot extra), and with
--tensorboard DIR to TensorBoard: every iteration's losses and self-play positions per second, every
evaluation's scores (the tensorboard extra).

An existing model (--out, its OUT.train.npz, the curve PNG) is never replaced without --overwrite; without
--out a second run saves to alphazero_GAME_2.npz and so on. --resume keeps saving to the run's own files.

Every game has defaults that fit a 2-core CPU (printed at the start); any flag overrides them. Training
needs PyTorch (the alphazero extra). --workers N plays self-play in N processes; --ray-address runs the same
workers as Ray tasks on a cluster (the rllib extra).
"""

from __future__ import annotations

import os

# One BLAS thread per process, set before numpy loads: self-play's matrix products are small, and on a
# 2-core machine a second BLAS thread spinning beside PyTorch or another worker made the numpy forward pass
# 10-50x slower (measured). Parallelism comes from --workers instead.
for _name in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_name, "1")

import argparse  # noqa: E402
import json  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
from dataclasses import asdict  # noqa: E402
from typing import Any  # noqa: E402

from gym_boardgames.cli import (  # noqa: E402
    TensorBoardLog,
    add_overwrite_flag,
    add_tensorboard_flag,
    check_new_output,
    check_tensorboard,
    default_output,
    make_parser,
    save_figure,
)
from gym_boardgames.rules.registry import make_game  # noqa: E402
from gym_boardgames.utils import (  # noqa: E402
    MissingExtraError,
    check_output_path,
    nonnegative_int,
    positive_int,
    progress_bar,
    require_extra,
)

# Per-game defaults, chosen by the runs recorded in docs/agents/alphazero.md.
DEFAULTS: dict[str, dict[str, Any]] = {
    "tictactoe": dict(
        iterations=600,
        games=16,
        simulations=48,
        parallel_games=16,
        alpha=0.5,
        temperature_moves=9,
        channels=32,
        blocks=2,
        policy_channels=16,
        value_channels=8,
        epochs=24.0,
        lr=2e-3,
        window=20_000,
        eval_every=50,
        eval_games=0,
        inference="numpy",
        time_limit=170.0,
        workers=1,
        algorithm="puct",
        random_opening_moves=4,
    ),
    "connectfour": dict(
        iterations=10_000,
        games=128,
        simulations=50,
        parallel_games=128,
        alpha=1.0,
        temperature_moves=12,
        channels=32,
        blocks=3,
        policy_channels=4,
        value_channels=2,
        epochs=4.0,
        lr=2e-3,
        window=100_000,
        eval_every=10,
        eval_games=0,
        inference="torch",
        time_limit=7200.0,
        workers=2,
        algorithm="puct",
        random_opening_moves=0,
    ),
}
# Connect Four's progress is graded against perfect play (the label set) at each evaluation, so it plays no
# baseline games. The other boards start from its settings: a 20-minute budget, games against the baselines
# (they have no label set), and for Dots and Boxes' many moves (24 edges on 3x3) less concentrated root noise
# and fewer exploratory moves.
_OTHER_BOARDS = {"time_limit": 1200.0, "eval_games": 10}
DEFAULTS["connectn"] = {**DEFAULTS["connectfour"], **_OTHER_BOARDS}
DEFAULTS["dots"] = {**DEFAULTS["connectfour"], **_OTHER_BOARDS, "alpha": 0.5, "temperature_moves": 6}


def _per_game(key: str) -> str:
    """Return the per-game defaults of a setting for its --help text, e.g. " (tictactoe: 600; others: 10000)"."""
    groups: dict[str, list[str]] = {}
    for game, values in DEFAULTS.items():
        groups.setdefault(f"{values[key]:g}" if isinstance(values[key], float) else str(values[key]), []).append(game)
    return " (default " + "; ".join(f"{', '.join(games)}: {value}" for value, games in groups.items()) + ")"


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    """Parse and check the command line (bad values exit with status 2 and one line naming the flag)."""
    parser = make_parser(__doc__)
    parser.add_argument("--game", choices=sorted(DEFAULTS), default="tictactoe", help="the game to learn")
    parser.add_argument("--rows", type=positive_int, help="connectn: board rows (default 6); dots: box rows (3)")
    parser.add_argument("--cols", type=positive_int, help="connectn: board columns (default 7); dots: box columns")
    parser.add_argument("--n", type=positive_int, help="connectn: pieces in a row to win (default 4)")
    gravity = parser.add_mutually_exclusive_group()
    gravity.add_argument("--gravity", dest="gravity", action="store_true", default=None, help="connectn: gravity")
    gravity.add_argument("--no-gravity", dest="gravity", action="store_false", help="connectn: no gravity (m,n,k)")
    parser.add_argument("--iterations", type=positive_int, help="self-play + training rounds" + _per_game("iterations"))
    parser.add_argument("--games", type=positive_int, help="self-play games per iteration" + _per_game("games"))
    parser.add_argument(
        "--simulations", type=positive_int, help="PUCT simulations per self-play move" + _per_game("simulations")
    )
    parser.add_argument(
        "--parallel-games",
        type=positive_int,
        help="games played at once (the network's batch)" + _per_game("parallel_games"),
    )
    parser.add_argument(
        "--algorithm",
        choices=("puct", "gumbel"),
        help="self-play search: AlphaZero's PUCT or Gumbel AlphaZero (sequential halving, improved-policy targets)"
        + _per_game("algorithm"),
    )
    parser.add_argument(
        "--random-opening-moves",
        type=nonnegative_int,
        help="start each game after 0..K random moves (not recorded)" + _per_game("random_opening_moves"),
    )
    parser.add_argument("--max-considered", type=positive_int, default=16, help="gumbel: root moves sampled")
    parser.add_argument("--c-puct", type=float, default=1.5, help="PUCT exploration constant")
    parser.add_argument(
        "--alpha", type=float, help="Dirichlet noise concentration at the self-play roots" + _per_game("alpha")
    )
    parser.add_argument("--epsilon", type=float, default=0.25, help="weight of the root noise")
    parser.add_argument(
        "--temperature-moves",
        type=nonnegative_int,
        help="moves per game drawn from visit counts" + _per_game("temperature_moves"),
    )
    parser.add_argument("--channels", type=positive_int, help="network trunk width" + _per_game("channels"))
    parser.add_argument("--blocks", type=nonnegative_int, help="residual blocks" + _per_game("blocks"))
    parser.add_argument(
        "--policy-channels",
        type=positive_int,
        help="filters of the policy head's 1x1 conv" + _per_game("policy_channels"),
    )
    parser.add_argument(
        "--value-channels", type=positive_int, help="filters of the value head's 1x1 conv" + _per_game("value_channels")
    )
    parser.add_argument(
        "--epochs",
        type=float,
        help="gradient samples per new position (steps = epochs*new/batch)" + _per_game("epochs"),
    )
    parser.add_argument("--batch-size", type=positive_int, default=256, help="samples per gradient step")
    parser.add_argument(
        "--lr", type=float, help="AdamW learning rate at the start (decays linearly to 10%%)" + _per_game("lr")
    )
    parser.add_argument("--weight-decay", type=float, default=1e-4, help="AdamW weight decay (the L2 term)")
    parser.add_argument("--window", type=positive_int, help="replay window, in positions" + _per_game("window"))
    parser.add_argument("--workers", type=positive_int, help="self-play processes" + _per_game("workers"))
    parser.add_argument("--ray-address", help="run the self-play workers as Ray tasks on this cluster (rllib extra)")
    parser.add_argument("--threads", type=positive_int, default=1, help="PyTorch threads for training")
    parser.add_argument(
        "--inference", choices=("torch", "numpy"), help="what runs the network in self-play" + _per_game("inference")
    )
    parser.add_argument(
        "--time-limit", type=float, help="stop after this many seconds of training (0: none)" + _per_game("time_limit")
    )
    parser.add_argument(
        "--eval-every", type=nonnegative_int, help="iterations between evaluations (0: never)" + _per_game("eval_every")
    )
    parser.add_argument(
        "--eval-games",
        type=nonnegative_int,
        help="games against each baseline per evaluation" + _per_game("eval_games"),
    )
    parser.add_argument("--baseline-simulations", type=positive_int, default=200, help="MCTS baseline simulations")
    parser.add_argument("--gate-games", type=nonnegative_int, default=0, help="games against the best net (0: off)")
    parser.add_argument("--seed", type=nonnegative_int, default=0, help="the run's seed")
    parser.add_argument(
        "--out",
        help="the model file; OUT.train.npz holds the training state (default: alphazero_GAME.npz, or if that "
        "exists the first free of alphazero_GAME_2.npz, _3, ...; with --resume, the run's own model file)",
    )
    parser.add_argument("--resume", help="continue from a training state (OUT.train.npz or its model file)")
    parser.add_argument("--plot", help="learning-curve PNG (default OUT_curve.png when matplotlib is installed)")
    add_tensorboard_flag(parser, "each iteration's losses and positions/s and each evaluation's scores")
    parser.add_argument("--json", action="store_true", help="print a one-line JSON summary last")
    parser.add_argument("--quiet", action="store_true", help="no progress bar")
    add_overwrite_flag(parser)
    args = parser.parse_args(argv)
    if args.game not in ("connectn", "dots") and (args.rows or args.cols):
        parser.error(f"--rows/--cols are for connectn and dots, not {args.game}")
    if args.game != "connectn" and (args.n is not None or args.gravity is not None):
        parser.error(f"--n/--gravity are for connectn, not {args.game}")
    for name, value, low, high in (
        ("--c-puct", args.c_puct, 0.0, 100.0),
        ("--epsilon", args.epsilon, 0.0, 1.0),
        ("--alpha", args.alpha, 1e-3, 100.0),
        ("--epochs", args.epochs, 0.0, 1e4),
        ("--lr", args.lr, 1e-7, 1.0),
        ("--weight-decay", args.weight_decay, 0.0, 1.0),
        ("--time-limit", args.time_limit, 0.0, 1e7),
    ):
        if value is not None and not low <= value <= high:
            parser.error(f"{name} must be in [{low}, {high}], got {value}")
    if args.resume is not None and not os.path.isfile(_state_of(args.resume)):
        parser.error(
            f"--resume: no training state at {_state_of(args.resume)!r}: give the run's MODEL.train.npz "
            "(or the model file beside it)"
        )
    try:
        check_tensorboard(args.tensorboard)
        _choose_outputs(args)
        if args.plot is not None and args.plot_given:
            require_extra("plot", "matplotlib", needed_for="--plot")
        require_extra("alphazero", "torch", needed_for="training")
        if args.ray_address is not None:
            require_extra("rllib", "ray", needed_for="--ray-address")
    except (MissingExtraError, ValueError) as error:
        parser.error(str(error))
    if args.resume is None:
        try:  # every setting is checked here, before PyTorch loads or a worker starts
            args.config = build_config(args)
            args.made_game = _make_game(args)
            from agents.alphazero.encoding import encoder_for
            from agents.alphazero.replay import MAX_REPLAY_BYTES, replay_bytes

            encoder = encoder_for(args.made_game)
            if replay_bytes(args.config.replay_window, encoder) > MAX_REPLAY_BYTES:
                most = MAX_REPLAY_BYTES // replay_bytes(1, encoder)
                raise ValueError(f"--window {args.config.replay_window:,} is too large for this game: at most {most:,}")
            _net_config(args.config, encoder)
        except ValueError as error:
            parser.error(str(error))
    return args


def _choose_outputs(args: argparse.Namespace) -> None:
    """Settle ``args.out`` and ``args.plot`` and check that no earlier run's file would be replaced.

    A new run writes three files: the model (``--out``), its training state ``OUT.train.npz`` and the curve
    (``--plot``, by default ``OUT_curve.png`` when matplotlib is installed). Without ``--overwrite`` none may
    exist; without ``--out`` the model goes to the first free ``alphazero_GAME[_N].npz``. A resumed run keeps
    writing the run's own three files (by default the model beside the state it resumes), which is what
    resuming is for; any other file that exists still needs ``--overwrite``.

    Raises:
        ValueError: one line naming the flag and the file.
    """
    args.out_note = None
    own: set[str] = set()  # the resumed run's own files, which it may replace
    if args.resume is not None:
        state = _state_of(args.resume)
        model = state[: -len(".train.npz")] + ".npz"
        own = {os.path.abspath(p) for p in (model, state, _default_plot(model))}
        if args.out is None:
            args.out = model
    elif args.out is None:
        args.out, args.out_note = default_output(f"alphazero_{args.game}.npz", args.overwrite)
    args.plot_given = args.plot is not None
    if args.plot is None:
        try:
            require_extra("plot", "matplotlib")
            args.plot = _default_plot(args.out)
        except MissingExtraError:
            pass
    outputs = [("--out", args.out), ("--out", _state_of(args.out))]
    if args.plot is not None:
        outputs.append(("--plot" if args.plot_given else "--out", args.plot))
    for flag, path in outputs:
        check_output_path(path, flag)
        if os.path.abspath(path) not in own:
            check_new_output(path, flag, args.overwrite)
    if args.plot is not None and os.path.abspath(args.plot) in {os.path.abspath(p) for _, p in outputs[:2]}:
        raise ValueError(f"--plot {args.plot}: the same file as the model or its training state")


def _default_plot(model: str) -> str:
    """The learning curve's default file: ``MODEL_curve.png`` beside the model."""
    return os.path.splitext(model)[0] + "_curve.png"


def _make_game(args: argparse.Namespace) -> Any:
    """Return the rules object the command line names (the board flags checked by the rules' limits)."""
    options = {"rows": args.rows, "cols": args.cols}
    if args.game == "connectn":
        options.update(n=args.n, gravity=args.gravity)
    return make_game(args.game, **{k: v for k, v in options.items() if v is not None})


def _net_config(config: Any, encoder: Any) -> Any:
    """Return the network shape of ``config`` for the game (raises ValueError on too big a network)."""
    from agents.alphazero.network import NetConfig

    return NetConfig(
        *encoder.shape,
        encoder.num_actions,
        channels=config.channels,
        blocks=config.blocks,
        value_hidden=config.value_hidden,
        policy_channels=config.policy_channels,
        value_channels=config.value_channels,
    )


def _state_of(path: str) -> str:
    from agents.alphazero.checkpoint import training_state_path

    return path if path.endswith(".train.npz") else training_state_path(path)


def build_config(args: argparse.Namespace) -> Any:
    """Return the :class:`TrainConfig` of the command line: the game's defaults, overridden by flags."""
    from agents.alphazero.config import TrainConfig
    from agents.alphazero.selfplay import SelfPlayConfig

    d = {**DEFAULTS[args.game]}
    for key in d:
        value = getattr(args, key, None)
        if value is not None:
            d[key] = value
    selfplay = SelfPlayConfig(
        n_simulations=d["simulations"],
        parallel_games=d["parallel_games"],
        c_puct=args.c_puct,
        dirichlet_alpha=d["alpha"],
        dirichlet_epsilon=args.epsilon,
        temperature_moves=d["temperature_moves"],
        algorithm=d["algorithm"],
        max_considered=args.max_considered,
        random_opening_moves=d["random_opening_moves"],
    )
    return TrainConfig(
        iterations=d["iterations"],
        games_per_iteration=d["games"],
        selfplay=selfplay,
        channels=d["channels"],
        blocks=d["blocks"],
        policy_channels=d["policy_channels"],
        value_channels=d["value_channels"],
        lr=d["lr"],
        weight_decay=args.weight_decay,
        batch_size=args.batch_size,
        epochs=d["epochs"],
        replay_window=d["window"],
        workers=d["workers"],
        eval_every=d["eval_every"],
        eval_games=d["eval_games"],
        baseline_simulations=args.baseline_simulations,
        gate_games=args.gate_games,
        time_limit=d["time_limit"],
        threads=args.threads,
        inference=d["inference"],
        seed=args.seed,
    )


def describe_config(game: Any, config: Any) -> str:
    """Return the run's settings as a few readable lines (the full settings are saved with the model)."""
    sp = config.selfplay
    search = (
        f"Gumbel AlphaZero, {sp.n_simulations} simulations, {sp.max_considered} root moves considered"
        if sp.algorithm == "gumbel"
        else f"PUCT, {sp.n_simulations} simulations, c_puct {sp.c_puct:g}, Dirichlet({sp.dirichlet_alpha:g}) "
        f"x {sp.dirichlet_epsilon:g}, {sp.temperature_moves} moves at temperature 1"
    )
    stop = f"{config.iterations:,} iterations" + (
        f" or {config.time_limit:,.0f} s of training, whichever comes first" if config.time_limit else ""
    )
    return "\n".join(
        [
            f"training AlphaZero on {game!r} until {stop}",
            f"  self-play: {config.games_per_iteration} games per iteration, {sp.parallel_games} at once, "
            f"{config.workers} worker(s); {search}"
            + (f"; openings of up to {sp.random_opening_moves} random moves" if sp.random_opening_moves else ""),
            f"  network: {config.channels} channels x {config.blocks} blocks; AdamW lr {config.lr:g} "
            f"(to 10%), weight decay {config.weight_decay:g}, batch {config.batch_size}, "
            f"{config.epochs:g} samples per new position, window {config.replay_window:,}",
            f"  evaluation every {config.eval_every} iterations" if config.eval_every else "  no evaluation",
        ]
    )


def plot_curve(curve: list[Any], path: str, title: str) -> None:
    """Draw the losses and the evaluation scores over wall-clock minutes to a PNG."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    minutes = [p.seconds / 60 for p in curve]
    fig, (ax_loss, ax_score) = plt.subplots(1, 2, figsize=(11, 4))
    ax_loss.plot(minutes, [p.policy_loss for p in curve], label="policy loss  -pi . log p")
    ax_loss.plot(minutes, [p.value_loss for p in curve], label="value loss  (z - v)^2")
    ax_loss.set_xlabel("training time (minutes)")
    ax_loss.legend()
    ax_loss.grid(alpha=0.3)
    evaluated = [p for p in curve if p.optimal_rate is not None or p.scores or p.outcome_kept is not None]
    if any(p.optimal_rate is not None for p in evaluated):
        points = [p for p in evaluated if p.optimal_rate is not None]
        ax_score.plot(
            [p.seconds / 60 for p in points],
            [100 * p.optimal_rate for p in points],
            "o-",
            label="raw net: optimal moves %",
        )
    names = sorted({name for p in evaluated for name in p.scores})
    for name in names:
        points = [p for p in evaluated if name in p.scores]
        ax_score.plot(
            [p.seconds / 60 for p in points], [100 * p.scores[name] for p in points], "o-", label=f"score vs {name} %"
        )
    labelled = [p for p in curve if p.outcome_kept is not None]
    if labelled:
        minutes_l = [p.seconds / 60 for p in labelled]
        ax_score.plot(minutes_l, [100 * p.outcome_kept for p in labelled], "o-", label="raw net: outcome kept %")
        ax_score.plot(
            minutes_l, [100 * p.outcome_kept_critical for p in labelled], "o-", label="... on critical positions %"
        )
    ax_score.set_ylim(0, 102)
    ax_score.set_xlabel("training time (minutes)")
    ax_score.grid(alpha=0.3)
    if evaluated:
        ax_score.legend()
    fig.suptitle(title)
    fig.tight_layout()
    try:
        save_figure(fig, path, format="png", dpi=90)
    finally:
        plt.close(fig)


def tensorboard_logger(trainer: Any, board: TensorBoardLog) -> Any:
    """Return the trainer's ``on_iteration`` hook that logs each iteration to ``board``, by iteration.

    Every iteration: ``loss/policy``, ``loss/value`` and ``selfplay/positions_per_second`` (this iteration's
    positions over its self-play seconds). At evaluations: ``eval/score_vs_NAME`` (each baseline),
    ``eval/optimal_moves`` (solved games) and ``eval/outcome_kept``, ``eval/outcome_kept_critical`` (Connect
    Four's label set), as fractions, as the log line shows them in percent.
    """
    last = [trainer.positions, trainer.selfplay_seconds]

    def on_iteration(point: Any) -> None:
        positions, seconds = trainer.positions - last[0], trainer.selfplay_seconds - last[1]
        last[:] = [trainer.positions, trainer.selfplay_seconds]
        values = {"loss/policy": point.policy_loss, "loss/value": point.value_loss}
        if seconds > 0:
            values["selfplay/positions_per_second"] = positions / seconds
        for name, score in point.scores.items():
            values[f"eval/score_vs_{name}"] = score
        for tag, value in (
            ("eval/optimal_moves", point.optimal_rate),
            ("eval/outcome_kept", point.outcome_kept),
            ("eval/outcome_kept_critical", point.outcome_kept_critical),
        ):
            if value is not None:
                values[tag] = value
        board.scalars(values, point.iteration)

    return on_iteration


def main(argv: list[str] | None = None) -> int:
    """Run the command line; return the exit status."""
    args = parse_args(argv)
    from agents.alphazero.training import Trainer

    bar = None

    def log(message: str) -> None:
        print(message, file=sys.stderr if bar is not None else sys.stdout, flush=True)

    try:
        if args.resume is not None:
            trainer = Trainer.resume(
                args.resume,
                out=args.out,
                iterations=args.iterations,
                workers=args.workers,
                ray_address=args.ray_address,
                log=log,
                time_limit=args.time_limit,
            )
        else:
            trainer = Trainer(args.made_game, args.config, args.out, ray_address=args.ray_address, log=log)
    except (OSError, ValueError, ConnectionError) as error:  # SavedFileError is a ValueError naming the file
        print(f"train_alphazero.py: error: {error}", file=sys.stderr)
        return 2
    config = trainer.config
    if args.out_note:
        print(args.out_note, flush=True)
    print(describe_config(trainer.game, config), flush=True)
    board = None
    if args.tensorboard is not None:
        board = TensorBoardLog(args.tensorboard)
        trainer.on_iteration = tensorboard_logger(trainer, board)
        print(f"TensorBoard log in {args.tensorboard} (view it: tensorboard --logdir {args.tensorboard})", flush=True)
    # With a time limit the bar counts training seconds, so its percentage and time left are the run's own.
    if config.time_limit:
        bar = progress_bar(int(config.time_limit), "training seconds", enabled=not args.quiet)
        shown = [min(int(trainer.seconds), int(config.time_limit))]
        bar.update(shown[0])

        def advance(_summary: Any) -> None:
            now = min(int(trainer.seconds), int(config.time_limit))
            bar.update(now - shown[0])
            shown[0] = now

        trainer.on_game = advance
    else:
        bar = progress_bar(config.iterations * config.games_per_iteration, "self-play games", enabled=not args.quiet)
        bar.update(trainer.games)
        trainer.on_game = lambda summary: bar.update(1)
    started = time.perf_counter()
    try:
        curve = trainer.run()
    except KeyboardInterrupt:
        print("interrupted: the last finished iteration is saved; continue with --resume", file=sys.stderr)
        return 130
    except (OSError, ValueError) as error:  # a full disk, a diverged network: the last good files are kept
        print(f"train_alphazero.py: error: {error}", file=sys.stderr)
        return 1
    finally:
        bar.close()
        if board is not None:
            board.close()
    wall = time.perf_counter() - started
    plot = args.plot
    if plot is None:
        print("(no learning-curve PNG: matplotlib, the plot extra, is not installed)")
    if plot is not None and curve:
        plot_curve(curve, plot, f"AlphaZero on {trainer.game!r}")
    last = curve[-1] if curve else None
    print(f"saved {args.out} (training state {_state_of(args.out)})" + (f", curve {plot}" if plot else ""))
    summary = {
        "game": repr(trainer.game),
        "iterations": trainer.iteration,
        "games": trainer.games,
        "positions": trainer.positions,
        "training_seconds": round(trainer.seconds, 1),
        "wall_seconds": round(wall, 1),
        "selfplay_positions_per_second": round(trainer.positions / max(trainer.selfplay_seconds, 1e-9), 1),
        "last": asdict(last) if last is not None else None,
        "out": args.out,
        "plot": plot,
    }
    if args.json:
        print(json.dumps(summary))
    return 0


if __name__ == "__main__":
    sys.exit(main())
