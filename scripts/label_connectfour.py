"""Build a Connect Four label set: positions from varied games, every legal move scored by an exact solver.

Games are played between players of different strengths, drawn at random per game from --players
(random, MCTS, alpha-beta, the shipped AlphaZero network with and without search), and each move is
replaced by a uniformly random one with probability --noise so that even deterministic players
diverge. From each game one position per stage (plies 0-7, 8-15, 16-23, 24+) is kept while that stage
still needs positions; a position already kept (or in an --exclude file) is not taken twice. Every
legal move of every kept position is then scored by this project's exact solver
(agents.search.connect_four, with the 12-ply opening book of bitbully-databases), in --workers processes
that each keep their own solver and transposition table.

The solver needs the `solver` extra (numba, and bitbully-databases for the book; both MIT:
`pip install -e ".[solver]"`). --crosscheck also scores every position with BitBully and stops at the
first disagreement; BitBully is under the AGPL-3.0, in the `crosscheck` extra, and only this script
imports it (SolverPlayer), never the package. The label files are plain data that the package grades
players with, numpy alone (agents/matches/perfect_play.py); the file's metadata names the solver that scored it.

The shipped sets were made by (with BitBully, before our solver; about 8 minutes each on 2 cores):

    python scripts/label_connectfour.py --per-stage 800 --seed 0 --out agents/data/connectfour_labels.npz
    python scripts/label_connectfour.py --per-stage 250 --seed 1 \\
        --exclude agents/data/connectfour_labels.npz --out agents/data/connectfour_heldout.npz
    python scripts/label_connectfour.py --per-stage 250 --seed 2 --players random --noise 0 \\
        --exclude agents/data/connectfour_labels.npz agents/data/connectfour_heldout.npz \\
        --out agents/data/connectfour_random.npz

The last is the off-path set: positions of uniformly random games, which no trained player would reach.
Our solver scores all 5,200 of their positions exactly as BitBully did (tests/agents/test_connect_four_solver.py).
"""

from __future__ import annotations

import os

for _name in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_name, "1")

import sys  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))  # plumbing/, peers/: also when loaded by path
from plumbing import cli  # noqa: E402  (first, before the slower imports: a Ctrl-C during them is one line (cli's hook))

# isort: split
import argparse  # noqa: E402
import time  # noqa: E402
from typing import Any  # noqa: E402

import numpy as np  # noqa: E402

from gym_boardgames.utils import process_pool, require_extra  # noqa: E402

DEFAULT_PLAYERS = ["random", "mcts:100", "mcts:1000", "alphabeta:2", "alphabeta:4", "alphazero:0", "alphazero:100"]


class SolverPlayer:
    """A perfect Connect Four player by BitBully (AGPL-3.0): a uniformly random move among the best-scored ones.

    The --crosscheck of this script's labels, and a second perfect player for the ladder; the package's own is
    the agent ``perfect`` (agents.search.connect_four.PerfectAgent).

    Args:
        seed: seeds the choice among equally scored moves.
    """

    def __init__(self, seed: int | None = None) -> None:
        require_extra("crosscheck", "bitbully", needed_for="BitBully's solver")
        from bitbully import BitBully

        self.solver = BitBully()
        self.rng = np.random.default_rng(seed)

    def __repr__(self) -> str:
        return "SolverPlayer(BitBully)"

    @staticmethod
    def board(state: Any) -> Any:
        """Return ``state`` (a ConnectN 6x7 state) as BitBully's ``Board``."""
        from bitbully import Board

        # Both store row 0 at the top and player 0 as 1.
        return Board.from_array(np.frombuffer(state.board, dtype=np.uint8).reshape(6, 7).tolist())

    def scores(self, state: Any) -> dict[int, int]:
        """Return every legal column's exact score for the player to move at ``state``."""
        return {int(c): int(s) for c, s in self.solver.score_all_moves(self.board(state)).items()}

    def act(self, game: Any, state: Any) -> int:
        """Return one of the best-scored columns of ``state``."""
        scores = self.scores(state)
        top = max(scores.values())
        best = sorted(c for c, s in scores.items() if s == top)
        return best[int(self.rng.integers(len(best)))]


#: A worker process's BitBully player when --crosscheck asks for it (built on its first position).
_CROSSCHECK: SolverPlayer | None = None
_CROSSCHECKING = False


#: The most positions per stage (the solver scores each: 100,000 a stage is hours of work).
MAX_PER_STAGE = 100_000
#: Games in a row that add no new position before sampling gives up (deterministic players, no noise).
MAX_STALLED_GAMES = 1_000


def _start_worker(crosscheck: bool) -> None:
    """Set up a worker process: whether it scores each position with BitBully too."""
    global _CROSSCHECKING
    _CROSSCHECKING = crosscheck


def _score_task(moves: list[int]) -> tuple[list[int], list[int] | None]:
    """Return one position's scores by our solver and, with --crosscheck, by BitBully (else None).

    A worker process keeps one solver and its transposition table (``shared_solver``), and one BitBully.
    """
    global _CROSSCHECK
    from agents.matches.perfect_play import COLS, NO_MOVE, connect_four
    from agents.search.connect_four import score_moves

    game = connect_four()
    state = game.initial_state()
    for column in moves:
        state = game.apply(state, column)
    scores = score_moves(game, state)
    row = [scores.get(c, NO_MOVE) for c in range(COLS)]
    if _CROSSCHECKING:
        if _CROSSCHECK is None:
            _CROSSCHECK = SolverPlayer()
        theirs = _CROSSCHECK.scores(state)
        return row, [theirs.get(c, NO_MOVE) for c in range(COLS)]
    return row, None


def solver_name(crosscheck: bool) -> str:
    """Return how the labels were scored, for the file's metadata (the solver, its book, the cross-check)."""
    from importlib.metadata import version

    from agents.search.connect_four import COMPILED

    name = (
        f"agents.search.connect_four ({'numba-compiled' if COMPILED else 'pure Python'}) with the 12-ply book of "
        f"bitbully-databases {version('bitbully-databases')}"
    )
    if crosscheck:
        name += f", every position checked against BitBully {version('bitbully')} (AGPL-3.0)"
    return name


def sample_positions(
    players: list[str], per_stage: int, noise: float, seed: int, exclude: set[bytes], log: Any
) -> tuple[list[list[int]], list[int], list[str]]:
    """Play games until every stage has ``per_stage`` new positions; return their moves and sources."""
    from agents.factory import make_agent
    from agents.matches.perfect_play import STAGES, connect_four, stage_index
    from gym_boardgames.opponents import as_policy, reset_hook

    game = connect_four()
    rng = np.random.default_rng(seed)
    agents = {name: make_agent(name, seed=seed + i, game=game) for i, name in enumerate(players)}
    kept: list[list[tuple[list[int], str]]] = [[] for _ in STAGES]  # per stage: each position's moves and game
    seen = set(exclude)
    games = stalled = 0
    while min(len(k) for k in kept) < per_stage:
        if stalled >= MAX_STALLED_GAMES:
            raise ValueError(
                f"{MAX_STALLED_GAMES} games in a row gave no new position (stages hold {[len(k) for k in kept]}): "
                "the players repeat the same games; raise --noise or add players"
            )
        first, second = (players[int(i)] for i in rng.integers(len(players), size=2))
        for name in (first, second):
            reset = reset_hook(agents[name])
            if reset is not None:
                reset()
        policies = (as_policy(agents[first]), as_policy(agents[second]))
        state, moves, history = game.initial_state(), [], []
        while not game.is_terminal(state):
            history.append((list(moves), state))
            legal = game.legal_actions(state)
            if rng.random() < noise:
                action = int(legal[int(rng.integers(len(legal)))])
            else:
                action = int(policies[game.current_player(state)](game, state))
            moves.append(action)
            state = game.apply(state, action)
        games += 1
        new = False
        for stage in range(len(STAGES)):
            fresh = [c for c in history if stage_index(len(c[0])) == stage and c[1].board not in seen]
            if len(kept[stage]) >= per_stage or not fresh:
                continue
            position_moves, position = fresh[int(rng.integers(len(fresh)))]
            new = True
            seen.add(position.board)
            kept[stage].append((position_moves, f"{first} vs {second}"))
        stalled = 0 if new else stalled + 1
        if games % 50 == 0:
            log(f"{games} games: {[len(k) for k in kept]} positions per stage")
    log(f"{games} games played")
    positions = [position for stage in kept for position in stage]
    names = sorted({source for _, source in positions})
    return [moves for moves, _ in positions], [names.index(source) for _, source in positions], names


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    """Parse the command line (bad values exit with status 2 naming the flag)."""
    parser = cli.make_parser(__doc__)
    parser.add_argument("--out", required=True, role="output", help="the label file to write (.npz)")
    per_stage = cli.int_type(1, MAX_PER_STAGE)
    parser.add_argument("--per-stage", type=per_stage, default=800, help="positions per stage")
    parser.add_argument("--players", nargs="+", default=DEFAULT_PLAYERS, help="agent names the games are drawn from")
    parser.add_argument("--noise", type=cli.number_type(0, 1), default=0.1, help="chance a move is random instead")
    parser.add_argument(
        "--exclude",
        nargs="+",
        default=[],
        role="input",
        help="label files whose positions are not taken again (held-out sets)",
    )
    parser.add_argument("--workers", type=cli.int_type(1, 64), default=2, help="solver processes")
    parser.add_argument(
        "--crosscheck",
        action="store_true",
        help="also score every position with BitBully (the crosscheck extra, AGPL-3.0); stop at a disagreement",
    )
    cli.add_run_flags(parser, seed="seed of the games", overwrite=True)
    return cli.parse_checked(parser, argv)


def _check_inputs(args: argparse.Namespace) -> set[bytes]:
    """Check the extras and every player; return the boards of the --exclude files' positions.

    Raises:
        ValueError: (an ``ImportError`` for the extra) naming the flag and the player or file.
    """
    from agents.factory import make_agent
    from agents.matches.perfect_play import connect_four, load_labels

    # Without numba and the book the solver is exact but about a hundred times slower: hours for a label set.
    require_extra("solver", "numba", "bitbully_databases", needed_for="labelling positions with the exact solver")
    if args.crosscheck:
        require_extra("crosscheck", "bitbully", needed_for="--crosscheck")
    cli.build_named("--players", args.players, lambda _, name: make_agent(name, game=connect_four()))
    labels = cli.build_named("--exclude", args.exclude, lambda _, path: load_labels(path))
    return {state.board for label_set in labels.values() for state in label_set.states()}


def main(argv: list[str] | None = None) -> int:
    """Run the command line; return the exit status."""
    args = parse_args(argv)
    from agents.matches.perfect_play import NO_MOVE, LabelSet, grade, load_labels, save_labels

    try:
        exclude = _check_inputs(args)
        start = time.perf_counter()
        moves, source, names = sample_positions(
            args.players, args.per_stage, args.noise, args.seed, exclude, lambda m: print(m, flush=True)
        )
    except (ImportError, ValueError) as error:
        cli.fail(str(error))
    sampled = time.perf_counter() - start
    print(f"sampled {len(moves)} positions in {sampled:.0f} s; scoring them", flush=True)
    with process_pool(args.workers, _start_worker, (args.crosscheck,)) as pool:
        scores = []
        for position, (ours, theirs) in zip(moves, pool.imap(_score_task, moves, chunksize=8), strict=True):
            if theirs is not None and theirs != ours:
                cli.fail(
                    f"--crosscheck: the solvers disagree after the moves {position}: ours scores {ours}, "
                    f"BitBully {theirs} (columns 0-6, {NO_MOVE}: full)",
                    cli.EXIT_FAILED,
                )
            scores.append(ours)
    solved = time.perf_counter() - start - sampled
    padded = np.full((len(moves), 42), 255, dtype=np.uint8)
    for row, m in zip(padded, moves, strict=True):
        row[: len(m)] = m
    meta = {
        "command": "scripts/label_connectfour.py " + " ".join(sys.argv[1:] if argv is None else argv),
        **{key: getattr(args, key) for key in ("players", "noise", "seed")},
        "solver": solver_name(args.crosscheck),
    }
    labels = LabelSet(padded, np.array(scores, dtype=np.int8), np.array(source, dtype=np.uint8), tuple(names), meta)
    args.out = save_labels(args.out, labels, replace=args.overwrite)
    labels = load_labels(args.out)  # the written file passes the loader's checks
    best = grade(labels, np.argmax(np.where(labels.scores == -128, -127, labels.scores), axis=1))
    summary = {
        "out": args.out,
        "positions": len(labels),
        "critical": int(labels.critical().sum()),
        "bytes": os.path.getsize(args.out),
        "sample_seconds": round(sampled, 1),
        "solve_seconds": round(solved, 1),
        "solver": meta["solver"],
        "load_average": cli.load_average(),
    }
    if best["best_score"] != 1.0:  # the solver's own moves must grade perfect: the file and the grader agree
        cli.fail("the solver's best moves do not grade perfect", cli.EXIT_FAILED)
    print(f"wrote {args.out}: {len(labels)} positions ({summary['critical']} critical), {summary['bytes']:,} bytes")
    cli.emit_summary(summary, None, args.json)
    return 0


if __name__ == "__main__":
    cli.run(main)
