"""Train an AlphaZero player (policy-value network + PUCT search) by batched self-play, on any board game.

Each iteration plays --games self-play games (--parallel-games at once, one network call per simulation
step for all of them), adds their positions to a replay window, trains the network on random symmetric
batches of it (loss (z - v)^2 - pi . log p, L2 as weight decay), saves the model (--out, playable without
PyTorch) and the training state beside it (OUT.train.npz, for --resume), and evaluates it: the share of
optimal moves of the raw network where the game can be solved (tic-tac-toe), and the search player's score
against random play and against MCTS with random rollouts; on Connect Four the raw network's share of moves
that keep the game's value on the shipped label sets, and the search player's score as first player against
the exact solver (--perfect-games). Each evaluation that beats the run's best selection score (the sum of
those shares: agents.alphazero.checkpoint.selection_score) writes that network to OUT.kept.npz, so the run
keeps its best network, not only its last. --init MODEL starts a new run from a model's weights. The
learning curve (losses and scores over wall-clock time) goes to a PNG (--plot) when matplotlib is installed
(the plot extra), and with --tensorboard DIR to TensorBoard: every iteration's losses and self-play
positions per second, every evaluation's scores (the tensorboard extra).

An existing model (--out, by default alphazero_GAME.npz; its OUT.train.npz, the curve PNG) is never replaced
without --overwrite. --resume keeps saving to the run's own files.

Every setting is a field of agents.alphazero.config.TrainConfig (or SelfPlayConfig), its flag the field's
name with dashes, and every game has a preset of them that fits a 2-core CPU (PRESETS, printed at the
start); a flag overrides one setting. A run resumed with --resume keeps its saved
settings; a flag given that differs from one is applied, and said in one line ("--lr 0.01: applied (the
saved run had 0.002)"), except for the network's shape (--channels, --blocks, --value-hidden,
--policy-channels, --value-channels: the saved parameters and Adam's moments have it), --seed (the run's
random state is restored from its file) and a board other than the run's, which are refused before
anything is written (status 2). Training needs PyTorch (the alphazero extra). --workers N plays self-play in
N processes; --ray-address runs the same workers as Ray tasks on a cluster (the rllib extra).
"""

from __future__ import annotations

import os

# One BLAS thread per process, set before numpy loads: self-play's matrix products are small, and on a
# 2-core machine a second BLAS thread spinning beside PyTorch or another worker made the numpy forward pass
# 10-50x slower (measured). Parallelism comes from --workers instead.
for _name in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_name, "1")

import sys  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))  # plumbing/, peers/: also when loaded by path
from plumbing import cli  # noqa: E402  (first, before the slower imports: a Ctrl-C during them is one line (cli's hook))

# isort: split
import argparse  # noqa: E402
import time  # noqa: E402
from collections.abc import Callable  # noqa: E402
from dataclasses import asdict  # noqa: E402
from typing import Any  # noqa: E402

from plumbing import figures, settings  # noqa: E402

from agents.alphazero.checkpoint import (  # noqa: E402
    kept_model_path,
    kept_point,
    model_path,
    read_settings,
    resolve_state_path,
)
from agents.alphazero.config import PRESETS, is_integer_setting, setting_fields  # noqa: E402
from agents.alphazero.device import DEVICE_HELP, DEVICES, resolve_device  # noqa: E402
from gym_boardgames.utils import MissingExtraError, progress_bar, require_extra  # noqa: E402


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    """Parse and check the command line (bad values exit with status 2 and one line naming the flag)."""
    parser = cli.make_parser(__doc__)
    cli.add_game_flags(parser)  # no default: a resumed run keeps its own game; a new one learns tic-tac-toe
    presets = {game: preset.settings() for game, preset in PRESETS.items()}
    settings.add_setting_flags(parser, setting_fields(), is_integer_setting, presets)
    parser.add_argument("--ray-address", help="run the self-play workers as Ray tasks on this cluster (rllib extra)")
    parser.add_argument("--device", choices=DEVICES, default="auto", help=DEVICE_HELP)
    cli.add_run_flags(
        parser,
        out="the model file; OUT.train.npz holds the training state (default: alphazero_GAME.npz; with --resume, "
        "the run's own model file)",
        overwrite=True,
    )
    parser.add_argument(
        "--resume", role="extended", help="continue from a training state (OUT.train.npz or its model file)"
    )
    parser.add_argument(
        "--init",
        metavar="MODEL",
        role="input",
        help="a new run starts from this model's weights (a model file, or 'shipped': the game's shipped model) "
        "instead of random ones; its network must have the run's shape",
    )
    parser.add_argument(
        "--plot",
        role="output",
        help="the learning curve, a PNG or as its suffix says (default OUT_curve.png when matplotlib is installed)",
    )
    figures.add_tensorboard_flag(parser, "each iteration's losses and positions/s and each evaluation's scores")
    parser.add_argument("--quiet", action="store_true", help="no progress bar")
    # Every setting and file is checked here, before any worker starts.
    return cli.parse_checked(parser, argv, _check_board, _choose_outputs, _check_settings)


def _check_board(args: argparse.Namespace) -> None:
    """Check the board flags and settle ``args.game``; on --resume, check that there is a state to resume."""
    board = ("game", "rows", "cols", "n", "gravity", "tie_break")
    args.board_flags = [name for name in board if getattr(args, name) is not None]
    if args.resume is not None:
        args.resume = resolve_state_path(args.resume)  # the file the run extends, locked while it runs
        if not os.path.isfile(args.resume):
            raise ValueError(
                f"--resume: no training state at {args.resume!r}: give the run's MODEL.train.npz "
                "(or the model file beside it)"
            )
        return  # the board flags are checked against the run's game in _check_settings
    args.game = args.game or "tictactoe"
    args.made_game = cli.game_from_args(args)


def _check_settings(args: argparse.Namespace) -> None:
    """Check the extras, and build the run's settings and game (``args.config``, ``args.made_game``).

    A new run takes the game's preset with the setting flags given. A resumed run takes its saved settings
    with the flags given that differ from them (``args.changes``, each said in a line of ``args.applied``),
    but refuses those of ``FIXED_ON_RESUME`` and a board other than the run's.
    """
    require_extra("alphazero", "torch", needed_for="training")
    args.device = resolve_device(args.device, "--device")
    if args.ray_address is not None:
        require_extra("rllib", "ray", needed_for="--ray-address")
    given = {f.name: getattr(args, f.name) for f in setting_fields() if getattr(args, f.name) is not None}
    args.applied = []
    if args.resume is None:
        args.config = PRESETS[args.game].replace(**given)
    else:
        args.made_game, saved = read_settings(args.resume)
        board = args.board_flags
        if board and (args.game is None or cli.game_from_args(args) != args.made_game):
            flag = board[0].replace("_", "-")
            raise ValueError(f"--{flag}: the game cannot change on resume (the run learns {args.made_game!r})")
        old = saved.settings()
        args.changes = {name: value for name, value in given.items() if value != old[name]}
        args.config = saved.resumed(args.changes, settings.flag_of)
        args.applied = [
            f"{settings.flag_of(k)} {settings.shown(v)}: applied (the saved run had {settings.shown(old[k])})"
            for k, v in args.changes.items()
        ]
    from agents.alphazero.encoding import encoder_for
    from agents.alphazero.replay import MAX_REPLAY_BYTES, replay_bytes

    encoder = encoder_for(args.made_game)
    if replay_bytes(args.config.replay_window, encoder) > MAX_REPLAY_BYTES:
        most = MAX_REPLAY_BYTES // replay_bytes(1, encoder)
        raise ValueError(f"--replay-window {args.config.replay_window:,} is too large for this game: at most {most:,}")
    net = args.config.net_config(encoder)
    if args.config.perfect_games and args.config.eval_every:  # only an evaluation plays the solver
        from agents.search.connect_four import check_solvable

        try:
            check_solvable(args.made_game)
            require_extra("solver", "numba", needed_for="--perfect-games")
        except (ValueError, MissingExtraError) as error:
            games = args.config.perfect_games
            raise ValueError(f"--perfect-games {games}: {error} (or give --perfect-games 0)") from None
    args.init_agent = None
    if args.init is not None:
        if args.resume is not None:
            raise ValueError("--init: a resumed run continues its own network; give --init only to a new run")
        from agents.alphazero.agent import AlphaZeroAgent, load_pretrained, pretrained_name

        if args.init == "shipped":
            name = pretrained_name(args.made_game)
            if name is None:
                raise ValueError(f"--init shipped: no shipped model for {args.made_game!r}; give a model file")
            args.init_agent = load_pretrained(name)
        else:
            try:
                args.init_agent = AlphaZeroAgent.load(args.init, game=args.made_game)
            except OSError as error:
                raise ValueError(f"--init: {error}") from None
        if args.init_agent.config != net:
            raise ValueError(
                f"--init {args.init}: its network is {args.init_agent.config}, the settings make {net} "
                "(give the model's --channels/--blocks/... flags)"
            )
    if args.resume is not None:
        _check_unfinished(args.resume, args.config)


def _check_unfinished(state: str, config: Any) -> None:
    """Refuse to resume a run whose iterations (or time limit) are all done: it would train nothing."""
    from agents.alphazero.checkpoint import read_curve

    curve = read_curve(state)
    if not curve:  # a state from before the curve was saved: nothing tells, so the trainer decides
        return
    if curve[-1].iteration >= config.iterations:
        done = f"{curve[-1].iteration} of {config.iterations} iterations done; give a larger --iterations"
    elif config.time_limit and curve[-1].seconds >= config.time_limit:
        done = f"{curve[-1].seconds:.0f} of {config.time_limit:.0f} training seconds done; give a larger --time-limit"
    else:
        return
    raise ValueError(f"--resume {state}: the run is finished ({done} to continue it)")


def _choose_outputs(args: argparse.Namespace) -> None:
    """Settle ``args.out`` and ``args.plot`` and claim the files the run writes beside them.

    A run writes the model (``--out``, by default ``alphazero_GAME.npz``), its training state ``OUT.train.npz``,
    its kept model ``OUT.kept.npz`` and the curve (``--plot``, by default ``OUT_curve.png`` when matplotlib is
    installed); without ``--overwrite`` none may exist. A resumed run writes back to its own files (by default
    the model beside the state it resumes): they may exist, which is what resuming is for; any other file that
    exists still needs ``--overwrite``.
    """
    own: set[str] = set()  # the resumed run's own files, which it replaces
    if args.resume is not None:
        model = model_path(args.resume)
        own = {os.path.realpath(p) for p in (model, kept_model_path(model), _default_plot(model))}
        if args.out is None:
            args.out = model
    cli.default_output(args, f"alphazero_{args.game}.npz")
    if args.plot is not None:
        figures.check_figure_path(args.plot, "--plot")
        require_extra("plot", "matplotlib", needed_for="--plot")
    else:
        try:
            require_extra("plot", "matplotlib")
            args.plot = _default_plot(args.out)
        except MissingExtraError:
            pass
    for flag, path, derived in (
        ("--out", args.out, False),
        ("--out", resolve_state_path(args.out), True),
        ("--out", kept_model_path(args.out), True),
        ("--plot", args.plot, False),
    ):
        mine = path is not None and os.path.realpath(path) in own
        # A flag's own path is claimed only to say it may exist; the resumed state is --resume's (locked).
        if path is not None and path != args.resume and (derived or mine):
            # A new run's training state is locked as a resumed one is: no --resume of it while it trains.
            cli.claim_output(args, path, flag, may_exist=mine, lock=path == resolve_state_path(args.out))
    args.replace_plot = args.overwrite or (args.plot is not None and os.path.realpath(args.plot) in own)


def _default_plot(model: str) -> str:
    """The learning curve's default file: ``MODEL_curve.png`` beside the model."""
    return os.path.splitext(model)[0] + "_curve.png"


def plot_curve(curve: list[Any], path: str, title: str, replace: bool = True) -> str:
    """Draw the losses and the evaluation scores over wall-clock minutes to a PNG."""
    plt = figures.pyplot()
    minutes = [p.seconds / 60 for p in curve]
    fig, (ax_loss, ax_score) = plt.subplots(1, 2, figsize=(11, 4))
    ax_loss.plot(minutes, [p.policy_loss for p in curve], label="policy loss  -pi . log p")
    ax_loss.plot(minutes, [p.value_loss for p in curve], label="value loss  (z - v)^2")
    # The score panel: each evaluation's numbers in percent, each series where the runs recorded it.
    series: list[tuple[str, Callable[[Any], float | None]]] = [("raw net: optimal moves %", lambda p: p.optimal_rate)]
    for name in sorted({name for p in curve for name in p.scores}):
        series.append((f"score vs {name} %", lambda p, name=name: p.scores.get(name)))
    series.append(("raw net: outcome kept %", lambda p: p.outcome_kept))
    series.append(("... on critical positions %", lambda p: p.outcome_kept_critical))
    for name in sorted({name for p in curve for name in p.outcome_kept_other}):
        series.append((f"... on the {name} set %", lambda p, name=name: p.outcome_kept_other.get(name, [None])[0]))
    for label, value in series:
        points = [p for p in curve if value(p) is not None]
        if points:
            ax_score.plot([p.seconds / 60 for p in points], [100 * value(p) for p in points], "o-", label=label)
    ax_score.set_ylim(0, 102)
    for ax in (ax_loss, ax_score):
        ax.set_xlabel("training time (minutes)")
        ax.grid(alpha=0.3)
        if ax.lines:
            ax.legend()
    fig.suptitle(title)
    fig.tight_layout()
    return figures.save_figure(fig, path, dpi=90, replace=replace)


def tensorboard_logger(trainer: Any, board: figures.TensorBoardLog) -> Any:
    """Return the trainer's ``on_iteration`` hook that logs each iteration to ``board``, by iteration.

    Every iteration: ``loss/policy``, ``loss/value`` and ``selfplay/positions_per_second`` (this iteration's
    positions over its self-play seconds). At evaluations: ``eval/score_vs_NAME`` (each baseline),
    ``eval/optimal_moves`` (solved games) and ``eval/outcome_kept``, ``eval/outcome_kept_critical`` (Connect
    Four's label set; ``eval/outcome_kept_NAME``, ``eval/outcome_kept_critical_NAME`` on its other sets), as
    fractions, as the log line shows them in percent.
    """
    last = [trainer.positions, trainer.selfplay_seconds]

    def on_iteration(point: Any) -> None:
        positions, seconds = trainer.positions - last[0], trainer.selfplay_seconds - last[1]
        last[:] = [trainer.positions, trainer.selfplay_seconds]
        values = {"loss/policy": point.policy_loss, "loss/value": point.value_loss}
        if seconds > 0:
            values["selfplay/positions_per_second"] = positions / seconds
        values.update({f"eval/score_vs_{name}": score for name, score in point.scores.items()})
        graded = {"optimal_moves": point.optimal_rate, "outcome_kept": point.outcome_kept}
        graded["outcome_kept_critical"] = point.outcome_kept_critical
        for name, (kept, critical) in point.outcome_kept_other.items():
            graded |= {f"outcome_kept_{name}": kept, f"outcome_kept_critical_{name}": critical}
        values.update({f"eval/{tag}": value for tag, value in graded.items() if value is not None})
        board.scalars(values, point.iteration)

    return on_iteration


def main(argv: list[str] | None = None) -> int:
    """Run the command line; return the exit status."""
    args = parse_args(argv)
    from agents.alphazero.training import Trainer

    bar = None

    def log(message: str) -> None:
        print(message, file=sys.stderr if bar is not None else sys.stdout, flush=True)

    options = {"ray_address": args.ray_address, "log": log, "device": args.device}
    try:
        if args.resume is not None:
            trainer = Trainer.resume(args.resume, out=args.out, **options, **args.changes)
        else:
            trainer = Trainer(args.made_game, args.config, args.out, **options)
            if args.init_agent is not None:
                trainer.start_from(args.init_agent)
                print(f"starting from the weights of {args.init}", flush=True)
    except (OSError, ValueError, ConnectionError) as error:  # SavedFileError is a ValueError naming the file
        print(f"train_alphazero.py: error: {error}", file=sys.stderr)
        return 2
    config = trainer.config
    print(*args.applied, config.describe(trainer.game), trainer.device_line(), sep="\n", flush=True)
    board = None
    if args.tensorboard is not None:
        board = figures.TensorBoardLog(args.tensorboard)
        trainer.on_iteration = tensorboard_logger(trainer, board)
        print(f"TensorBoard log in {args.tensorboard} (view it: tensorboard --logdir {args.tensorboard})", flush=True)
    # With a time limit the bar counts training seconds, so its percentage and time left are the run's own.
    if config.time_limit:
        bar = progress_bar(int(config.time_limit), "training seconds", enabled=not args.quiet)
        shown = [min(int(trainer.seconds), int(config.time_limit))]
        bar.update(shown[0])

        def advance(_summary: Any) -> None:
            end = int(config.time_limit)
            if config.iterations and trainer.iteration:
                # The iteration cap may end the run first: the bar then runs to the time that cap projects to.
                end = max(1, int(min(config.time_limit, trainer.seconds / trainer.iteration * config.iterations)))
                bar.total = end
            now = min(int(trainer.seconds), end)
            bar.update(now - shown[0])
            shown[0] = now

        trainer.on_game = advance
    else:
        bar = progress_bar(config.iterations * config.games, "self-play games", enabled=not args.quiet)
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
    if args.plot is None:
        print("(no learning-curve PNG: matplotlib, the plot extra, is not installed)")
    elif curve:
        args.plot = plot_curve(curve, args.plot, f"AlphaZero on {trainer.game!r}", args.replace_plot)
    curve_note = f", curve {args.plot}" if args.plot else ""
    print(f"saved {args.out} (training state {resolve_state_path(args.out)}){curve_note}")
    kept = kept_point(curve)
    if kept is not None:
        print(
            f"kept {kept_model_path(args.out)}: the network of iteration {kept[1].iteration}, "
            f"selection score {kept[0]:.3f} (the best evaluated)"
        )
    summary = {
        "game": repr(trainer.game),
        "iterations": trainer.iteration,
        "games": trainer.games,
        "positions": trainer.positions,
        "training_seconds": round(trainer.seconds, 1),
        "wall_seconds": round(wall, 1),
        **trainer.throughput.summary(),  # this process's device and speeds: a resumed run may have switched devices
        "last": asdict(curve[-1]) if curve else None,
        "out": args.out,
        "kept": None if kept is None else {"iteration": kept[1].iteration, "selection_score": round(kept[0], 4)},
        "plot": args.plot,
    }
    cli.emit_summary(summary, None, args.json)
    return 0


if __name__ == "__main__":
    cli.run(main)
