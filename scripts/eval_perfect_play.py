"""Grade Connect Four players against perfect play: the label set's exact scores, and games against the solver.

Each player (an agent name: alphazero, alphazero:FILE:N, alphazero:0 for the raw network, mcts:N,
alphabeta:D, random) is asked for its move in every position of a label set (the shipped graded set by
default, --labels heldout for the held-out one, --labels random for positions of uniformly random games, or
a file from label_connectfour.py), with its search reset before each position. The table gives the share of
positions where its move keeps the result (win, draw or loss), on the critical positions (where some move
changes it), per stage, and the share of best-scored moves. --per-stage N grades a seeded sample of N
positions per stage, for slow players.

--solver-games N also plays N games as first player against the exact solver (the agent `perfect`,
agents.search.connect_four, fast with the `solver` extra: numba and the opening book), which picks at
random among its best moves. The first player wins Connect Four under perfect play, so perfect play wins
every game; a lost or drawn game reports the ply of the player's first move that changed the result.
--fresh-search makes the player drop its search tree before every move of those games (no tree reuse), to
see what reuse changes.

--game tictactoe grades the players on tic-tac-toe instead, which is solved here in a second: the share of
its 4,520 reachable non-terminal positions where the player's move is optimal (keeps the game value; a
td:FILE player is graded on all its tied greedy moves), and the positions not lost where its move loses.

--testsets DIR grades the players on Pascal Pons' public benchmark sets instead (a folder holding his files
Test_L3_R1 ... Test_L1_R3, fetched from http://blog.gamesolver.org/data/; agents.matches.testsets), the first
--testset-positions N positions of each (default all 1,000), of the sets --testset-names names (Pons' names,
e.g. End-Easy Begin-Hard, or the file names; default all six). Our solver scores every legal move of every
position once (the `solver` extra), checked against the file's SCORE; then each player, reset before each
position, moves. A move is a mistake when it worsens the position's result for the player to move (a win to
a draw or a loss, a draw to a loss); the table gives each player's mistakes per set, with the positions
where some move is one (critical) and the solver's seconds (agents.matches.pons_grading). A set file that is no
set (empty, cut short, not ASCII, a FIFO, over agents.matches.testsets.MAX_FILE_BYTES, a malformed line) is refused
before any grading, in one line naming the file and the line (status 2).

In every mode each move a player returns goes through the one move check of the envs and the arena
(gym_boardgames.checks.check_move): a move that is no legal column or cell (0.7, True, '0', None, an array, a
full column), or a user's agent (file.py:Class) that raises, ends the run with one line naming the player and
the move (status 1).
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
import shlex  # noqa: E402
import time  # noqa: E402
from typing import Any  # noqa: E402

import numpy as np  # noqa: E402

from gym_boardgames.utils import progress_bar, require_extra  # noqa: E402

#: Most solver games per player (each takes seconds to a minute).
MAX_SOLVER_GAMES = 1000
#: The games graded: Connect Four on its label sets, tic-tac-toe on every position.
GAMES = ("connectfour", "tictactoe")


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    """Parse the command line (bad values exit with status 2 naming the flag)."""
    parser = cli.make_parser(__doc__)
    parser.add_argument("players", nargs="+", help="agent names, e.g. alphazero:0 alphazero:800 mcts:1000")
    parser.add_argument(
        "--labels",
        default="labels",
        role="input",
        help="the shipped 'labels', 'heldout', 'random' (positions of random games), or a label file",
    )
    parser.add_argument(
        "--game",
        choices=GAMES,
        default="connectfour",
        help="connectfour (the label sets) or tictactoe (every position, against the exact solver)",
    )
    parser.add_argument("--per-stage", type=cli.positive_int, help="grade a sample of this many positions per stage")
    solver_games = cli.int_type(0, MAX_SOLVER_GAMES)
    parser.add_argument("--solver-games", type=solver_games, default=0, help="games as first vs the solver")
    parser.add_argument("--fresh-search", action="store_true", help="solver games: no tree reuse between moves")
    parser.add_argument("--testsets", metavar="DIR", role="input", help="grade on Pons' sets in this folder instead")
    parser.add_argument("--testset-positions", type=cli.positive_int, metavar="N", help="the first N of each set")
    parser.add_argument("--testset-names", nargs="+", metavar="NAME", help="these sets only, e.g. End-Easy Test_L1_R3")
    cli.add_run_flags(parser, seed="seed of players, sample, solver", out=cli.OUT_HELP)
    parser.add_argument("--quiet", action="store_true", help="no progress bar")
    cli.add_overwrite_flag(parser)
    return cli.parse_checked(parser, argv, _check_testsets, _check_solver)


def _check_testsets(args: argparse.Namespace) -> None:
    """Read and replay the sets of --testsets (into ``args.pons_sets``), refusing what this mode cannot use.

    Raises:
        ValueError: naming the flag: --testset-positions or --testset-names without --testsets; --testsets with
            a flag of the other modes; a folder, a set name or a line that the reader or the replay refuses.
        ImportError: the ``solver`` extra (numba and the book) is missing.
    """
    if args.testsets is None:
        given = [flag for flag in ("--testset-positions", "--testset-names") if _given(args, flag)]
        if given:
            raise ValueError(f"{' and '.join(given)} {'needs' if len(given) == 1 else 'need'} --testsets DIR")
        return
    refused = ["--game tictactoe"] if args.game == "tictactoe" else []
    refused += [flag for flag, used in TICTACTOE_REFUSED.items() if used(args)]
    if refused:
        raise ValueError(f"--testsets grades Pons' Connect Four sets alone: it takes no {', '.join(refused)}")

    args.pons_sets = cli.read_testset_flags(args.testsets, args.testset_names, args.testset_positions)
    args.labels = None  # no label set is read
    # Exact without them too, but about a hundred times slower: minutes a position in Begin-Hard.
    require_extra("solver", "numba", "bitbully_databases", needed_for="--testsets")


def _given(args: argparse.Namespace, flag: str) -> bool:
    return getattr(args, flag.lstrip("-").replace("-", "_")) is not None


def _check_solver(args: argparse.Namespace) -> None:
    from agents.matches.perfect_play import SHIPPED, shipped_labels_path

    if args.testsets is not None:
        return
    if args.game == "tictactoe":
        given = [flag for flag, used in TICTACTOE_REFUSED.items() if used(args)]
        if given:
            verb = "is" if len(given) == 1 else "are"
            raise ValueError(f"--game tictactoe grades every position: {', '.join(given)} {verb} for Connect Four")
        args.labels = None  # no label set is read
        return
    # The label file itself, so that an --out naming it is refused as naming the script's input.
    args.labels = shipped_labels_path(args.labels) if args.labels in SHIPPED else args.labels
    if args.solver_games:
        # Exact without them too, but about a hundred times slower: minutes a move in the opening.
        require_extra("solver", "numba", "bitbully_databases", needed_for="--solver-games")


#: The Connect Four flags --game tictactoe refuses, each with how to tell it was given.
TICTACTOE_REFUSED = {
    "--labels": lambda args: args.labels != "labels",
    "--per-stage": lambda args: args.per_stage is not None,
    "--solver-games": lambda args: args.solver_games > 0,
    "--fresh-search": lambda args: args.fresh_search,
}


class FreshSearch:
    """Wraps an agent so that it resets (drops its search tree) before every move."""

    def __init__(self, agent: Any) -> None:
        from agents.matches.arena import agent_name
        from gym_boardgames.opponents import as_policy, reset_hook

        self.agent, self._act, self._reset = agent, as_policy(agent), reset_hook(agent)
        self.name = agent_name(agent)  # how the game loop's refusal of a move names it

    def __repr__(self) -> str:
        return f"FreshSearch({self.agent!r})"

    def act(self, game: Any, state: Any) -> Any:
        """Reset the agent, then return its move as it is (the game loop checks it)."""
        if self._reset is not None:
            self._reset()
        return self._act(game, state)


#: The agent name of the solver games' opponent (agents.search.connect_four.PerfectAgent).
SOLVER = "perfect"


def solver_games(agent: Any, solver: Any, games: int, seed: int, progress: Any) -> dict[str, Any]:
    """Play ``games`` games with ``agent`` first against ``solver``; return results and first mistakes.

    Game ``i`` reseeds the solver (a seeded perfect player) with ``seed + i``, its choice among equally
    scored moves, so the games are its different lines, and each one replays alone from its seed
    (``solver_seeds``). The exact scores also judge the player's moves.
    """
    from agents.matches.arena import play_game
    from agents.matches.perfect_play import connect_four
    from agents.search.connect_four import score_moves

    game = connect_four()
    results = {"win": 0, "draw": 0, "loss": 0}
    first_mistakes: list[dict[str, Any]] = []
    for index in range(games):
        solver.reseed(seed + index)
        moves: list[int] = []
        mistakes: list[int] = []  # plies of the player's moves that changed the result

        def watch(
            state: Any, action: int, _child: Any, moves: list[int] = moves, mistakes: list[int] = mistakes
        ) -> None:
            if game.current_player(state) == 0 and not mistakes:
                scores = score_moves(game, state)
                if np.sign(scores[action]) != np.sign(max(scores.values())):
                    mistakes.append(len(moves))
            moves.append(action)

        payoff = play_game(game, agent, solver, on_move=watch)
        outcome = "win" if payoff[0] > 0 else "draw" if payoff[0] == 0 else "loss"
        results[outcome] += 1
        if outcome != "win":
            mistake = (mistakes or [None])[0]
            first_mistakes.append(
                {"moves": "".join(map(str, moves)), "first_mistake_ply": mistake, "seed": seed + index}
            )
        progress.update(1)
    return {
        **results,
        "games": games,
        "solver": SOLVER,
        "solver_seeds": [seed, seed + games - 1],
        "not_won": first_mistakes,
    }


def grade_tictactoe(args: argparse.Namespace) -> int:
    """Grade the players on every reachable non-terminal position of tic-tac-toe; return the exit status."""
    from agents.matches.grading import ExactValues, grade_moves, player_moves
    from gym_boardgames.opponents import reset_hook
    from gym_boardgames.rules import TicTacToe

    game = TicTacToe()
    agents = _make_players(args, game)
    exact = ExactValues(game)
    states = exact.non_terminal_states()
    summary: dict[str, Any] = {"game": "tictactoe", "positions": len(states), "players": {}}
    lines = ["| player | optimal moves | losing moves |", "|---|---|---|"]
    for name, agent in agents.items():
        reset = reset_hook(agent)
        start = time.perf_counter()
        moves = []
        with progress_bar(len(states), name, enabled=not args.quiet) as bar:
            for state in states:
                if reset is not None:
                    reset()  # its tree from another position would not apply
                moves.append(_during_work(player_moves, agent, game, state, name))
                bar.update(1)
        audit = grade_moves(exact, states, moves)
        summary["players"][name] = {
            "optimal_moves": round(audit.optimal_share, 6),
            "optimal": audit.optimal,
            "losing": audit.losing,
            "seconds": round(time.perf_counter() - start, 1),
        }
        lines.append(f"| `{name}` | {100 * audit.optimal_share:.1f}% | {audit.losing:,} |")
    print(f"{len(states):,} non-terminal positions of tic-tac-toe, graded by the exact solver:")
    print("\n".join(lines))
    return _finish(summary, args)


def grade_testsets(args: argparse.Namespace, argv: list[str]) -> int:
    """Grade the players on Pons' sets (read by :func:`_check_testsets`); return the exit status."""
    from agents.matches.perfect_play import connect_four
    from agents.matches.pons_grading import format_testset_report, grade_on_testsets

    agents = _make_players(args, connect_four())
    try:
        report = grade_on_testsets(
            agents, args.pons_sets, progress=lambda total, label: progress_bar(total, label, enabled=not args.quiet)
        )
    except ValueError as error:  # the solver and a file disagree, or a player's move is refused or it failed
        cli.fail(str(error), cli.EXIT_FAILED)
    print(
        f"Mistakes (moves that worsen the result for the player to move) on {report['positions']:,} positions of "
        f"Pons' sets in {args.testsets}, every move scored by our solver ({report['solver_seconds']:.1f} s):"
    )
    print(format_testset_report(report))
    command = shlex.join(["scripts/eval_perfect_play.py", *argv])
    summary = {"testsets": args.testsets, "testset_positions": args.testset_positions, "command": command, **report}
    return _finish(summary, args)


def _make_players(args: argparse.Namespace, game: Any) -> dict[str, Any]:
    """Build every named player for ``game`` (player ``i`` seeded ``--seed + i``), or end the script saying why.

    Each is an :class:`~gym_boardgames.opponents.Opponent` (the one resolution of a name): a user's agent
    (``file.py:Class``) that raises then ends the grading with one line naming it, not a traceback.
    """
    from gym_boardgames.opponents import make_opponent

    try:
        return cli.build_named("", args.players, lambda i, name: make_opponent(name, game, args.seed + i))
    except ValueError as error:
        cli.fail(str(error))


def _during_work(function: Any, *args: Any) -> Any:
    """``function(*args)``; a ``ValueError`` (a player's move refused, a user's agent failed) ends the script.

    One line naming the player and the move, and status :data:`~plumbing.cli.EXIT_FAILED`: a failure during the
    work, not a refusal of the command line.
    """
    try:
        return function(*args)
    except ValueError as error:
        cli.fail(str(error), cli.EXIT_FAILED)


def _finish(summary: dict[str, Any], args: argparse.Namespace) -> int:
    """Add the load average to ``summary``, write and print it as asked (--out, --json); return status 0."""
    summary["load_average"] = cli.load_average()
    cli.emit_summary(summary, args.out, args.json, replace=args.overwrite)
    return 0


def main(argv: list[str] | None = None) -> int:
    """Run the command line; return the exit status."""
    args = parse_args(argv)
    if args.testsets is not None:
        return grade_testsets(args, sys.argv[1:] if argv is None else argv)
    if args.game == "tictactoe":
        return grade_tictactoe(args)
    from agents.factory import make_agent
    from agents.matches.perfect_play import STAGES, agent_moves, connect_four, format_report, grade, load_labels

    game = connect_four()
    path = args.labels
    try:
        labels = load_labels(path)
    except (OSError, ValueError) as error:
        cli.fail(f"--labels: {error}")
    agents = _make_players(args, game)
    solver = None
    if args.solver_games:
        try:
            built = cli.build_named(
                "--solver-games", [SOLVER], lambda _, name: make_agent(name, seed=args.seed, game=game)
            )
            solver = built[SOLVER]
        except ValueError as error:
            cli.fail(str(error))
    if args.per_stage is not None:
        rng = np.random.default_rng(args.seed)
        stages = labels.stages()
        picked = [rng.permutation(np.flatnonzero(stages == i))[: args.per_stage] for i in range(len(STAGES))]
        labels = labels.subset(np.sort(np.concatenate(picked)))
    states = labels.states()
    summary: dict[str, Any] = {"labels": path, "positions": len(labels), "players": {}}
    reports = {}
    for name, agent in agents.items():
        start = time.perf_counter()
        with progress_bar(len(labels), name, enabled=not args.quiet) as bar:
            moves = _during_work(agent_moves, agent, labels, bar.update, states, name)
        reports[name] = grade(labels, moves)
        summary["players"][name] = {**reports[name], "seconds": round(time.perf_counter() - start, 1)}
        if args.solver_games:
            player = FreshSearch(agent) if args.fresh_search else agent
            with progress_bar(args.solver_games, f"{name} vs solver", enabled=not args.quiet) as bar:
                summary["players"][name]["solver_games"] = _during_work(
                    solver_games, player, solver, args.solver_games, args.seed, bar
                )
    critical = int(labels.critical().sum())
    print(f"{len(labels):,} positions ({critical:,} critical) of {path}:")
    print(format_report(reports))
    for name, entry in summary["players"].items():
        games = entry.get("solver_games")
        if games:
            record = f"{games['win']}/{games['draw']}/{games['loss']}"
            print(f"`{name}` as first player vs the solver: {record} (win/draw/loss)")
            for lost in games["not_won"]:
                print(f"  not won: {lost['moves']} (first result-changing move at ply {lost['first_mistake_ply']})")
    return _finish(summary, args)


if __name__ == "__main__":
    cli.run(main)
