"""The exact Connect Four solver timed beside BitBully: ``scripts/bench.py --solver``.

The exact solver (agents.search.connect_four), compiled, runs beside BitBully (when installed; "not installed"
otherwise) on the same positions of the shipped label sets (agents/data/connectfour_*.npz: all 5,200 positions
with --solver-all, else a seeded sample of --solver-positions), in turn, one solver of each kept for the whole
run (their tables carry over, as when a grader uses them). A position's time is that of scoring all its legal
moves (ConnectFourSolver.score_moves, BitBully's score_all_moves), reported by plies on the board (0-5, 6-11,
12-17, 18-23, 24+): median and max ms, ours/BitBully of the medians and of the maxima, the count of positions
over 2 s for each solver and the slowest positions with their moves. Every position's scores are compared with
BitBully's and with the label file's; the disagreements are counted.

The pure-Python path (NUMBA_DISABLE_JIT=1, one solver in a child process) is timed on every band: --solver-python
positions per band among those the compiled search settled in at most 20,000 nodes, late bands first and one band
after another, until --solver-python-budget seconds are spent; its scores are compared with the compiled path's.
The node cap keeps the longest searches (the empty board's, for one) out of the budget.

The start: a child process with an empty NUMBA_CACHE_DIR (the compile), then a second with the same folder (the
cached start): the solver module's import, making the solver (its table and the book), and its first call.

``--solver --testsets DIR`` (:func:`check_testsets`, :func:`testset_timings`) times the two solvers on Pascal Pons'
sets instead (agents.matches.testsets), in CPU time (time.thread_time) around each scoring call alone, BitBully's
board built before it; the first to score a position alternates. No pure-Python path and no start is timed there.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

#: The scripts' folder, first on a child process's path (it imports this module as peers.solver).
SCRIPTS = str(Path(__file__).resolve().parents[1])

#: Ply bands of the solver's table: (name, first ply, last ply).
SOLVER_BANDS = (("0-5", 0, 5), ("6-11", 6, 11), ("12-17", 12, 17), ("18-23", 18, 23), ("24+", 24, 41))
#: The pure-Python path times positions of these bands (all of them) that the compiled search settled in at most
#: this many nodes.
PYTHON_BANDS, PYTHON_MAX_NODES = tuple(name for name, _, _ in SOLVER_BANDS), 20_000
#: A position's time that issue 34 allows (ms).
SLOW_MS = 2_000

# A child process: its first argument the scripts' folder, the second "start" or "python"; the positions'
# move lists on stdin (JSON), one JSON line out.
_SOLVER_CHILD = """
import sys
sys.path.insert(0, sys.argv[1])
from peers.solver import solver_child
solver_child(sys.argv[2], float(sys.argv[3]))
"""


def band_of(ply: int) -> str:
    """Return the name of the band of :data:`SOLVER_BANDS` holding ``ply``."""
    return next(name for name, first, last in SOLVER_BANDS if first <= ply <= last)


def solver_positions(everything: bool, sample: int, seed: int) -> list[dict[str, Any]]:
    """Return the label sets' positions (all, or a seeded sample): set name, moves, plies, the label scores."""
    from agents.matches.perfect_play import SHIPPED, load_labels, shipped_labels_path

    positions = [
        {"set": name, "moves": moves, "ply": len(moves), "labels": scores.tolist()}
        for name in SHIPPED
        for labels in [load_labels(shipped_labels_path(name))]
        for moves, scores in zip(labels.move_lists(), labels.scores, strict=True)
    ]
    if not everything and sample < len(positions):
        picked = np.sort(np.random.default_rng(seed).choice(len(positions), sample, replace=False))
        positions = [positions[i] for i in picked]
    return positions


def _state(moves: list[int]) -> Any:
    from agents.matches.perfect_play import connect_four

    game = connect_four()
    state = game.initial_state()
    for column in moves:
        state = game.apply(state, column)
    return state


def _as_row(scores: dict[int, int]) -> list[int]:
    from agents.matches.perfect_play import COLS, NO_MOVE

    return [int(scores.get(column, NO_MOVE)) for column in range(COLS)]


def _timed_scores(score: Any, state: Any) -> tuple[list[int], float]:
    start = time.perf_counter()
    scores = score(state)
    return _as_row(scores), (time.perf_counter() - start) * 1e3


def solver_child(mode: str, budget_s: float) -> None:
    """The child process's work; prints one JSON line.

    ``start``: time the solver module's import, making a solver and its first call on the position read from
    stdin. ``python``: score each position of stdin in turn (``NUMBA_DISABLE_JIT=1`` is the parent's to set)
    until ``budget_s`` seconds are spent; the ms and the scores of those solved.
    """
    import json

    moves = json.loads(sys.stdin.read())
    start = time.perf_counter()
    from agents.matches.perfect_play import connect_four
    from agents.search import connect_four as connect_four_solver

    imported = time.perf_counter()
    solver = connect_four_solver.ConnectFourSolver()
    made = time.perf_counter()
    game = connect_four()
    if mode == "start":
        solver.score_moves(game, _state(moves))
        print(json.dumps({
            "compiled": connect_four_solver.COMPILED,
            "import_s": round(imported - start, 3),
            "solver_s": round(made - imported, 3),
            "first_call_s": round(time.perf_counter() - made, 3),
        }))  # fmt: skip
        return
    done = []
    for position in moves:
        if time.perf_counter() - made > budget_s:
            break
        scores, ms = _timed_scores(lambda state: solver.score_moves(game, state), _state(position))
        done.append({"ms": ms, "scores": scores})
    print(json.dumps({"compiled": connect_four_solver.COMPILED, "positions": done}))


def _run_child(mode: str, moves: Any, env: dict[str, str], budget_s: float = 0.0) -> dict[str, Any]:
    import json
    import subprocess

    command = [sys.executable, "-c", _SOLVER_CHILD, SCRIPTS, mode, str(budget_s)]
    result = subprocess.run(command, input=json.dumps(moves), capture_output=True, text=True, env={**os.environ, **env})
    if result.returncode != 0:
        raise RuntimeError(f"the solver's {mode} child failed: {result.stderr.strip()[-2000:]}")
    return json.loads(result.stdout.strip().splitlines()[-1])


def _bitbully() -> tuple[Any, str]:
    """Return BitBully's scoring function (as the label sets were made) and its version, or None and why not."""
    try:
        from importlib.metadata import version

        from label_connectfour import SolverPlayer

        player = SolverPlayer()
    except ImportError:
        return None, "not installed"
    return player.scores, f"{version('bitbully')} (its default opening book)"


def _python_order(positions: list[dict[str, Any]], per_band: int, seed: int) -> list[int]:
    """Indices of up to ``per_band`` positions per band settled in at most PYTHON_MAX_NODES, late bands first."""
    rng = np.random.default_rng(seed)
    picks = []
    for name in reversed(PYTHON_BANDS):
        cheap = [i for i, p in enumerate(positions) if p["band"] == name and p["ours_nodes"] <= PYTHON_MAX_NODES]
        picks.append([int(i) for i in rng.permutation(cheap)[:per_band]])
    return [band[k] for k in range(per_band) for band in picks if k < len(band)]  # round robin


def solver_timings(args: argparse.Namespace) -> dict[str, Any]:
    """Run the --solver section (see the module) and return its summary."""
    import tempfile

    from plumbing import cli

    from agents.matches.perfect_play import connect_four
    from agents.search.connect_four import COMPILED, ConnectFourSolver

    load_start = cli.load_average()
    positions = solver_positions(args.solver_all, args.solver_positions, args.seed)
    for position in positions:
        position["band"] = band_of(position["ply"])
    first = next((p["moves"] for p in positions if p["ply"] >= 24), positions[-1]["moves"])
    with tempfile.TemporaryDirectory(prefix="numba_cache_") as cache:
        start = {kind: _run_child("start", first, {"NUMBA_CACHE_DIR": cache}) for kind in ("compile", "cached")}

    game = connect_four()
    solver = ConnectFourSolver()
    bitbully, bitbully_state = _bitbully()
    peers = {"ours": lambda state: solver.score_moves(game, state)}
    if bitbully is not None:
        peers["bitbully"] = bitbully
    for score in peers.values():  # warm-up: the compiled kernels loaded, the books read
        score(_state(first))
    for position in positions:
        state = _state(position["moves"])
        before = solver.nodes
        for name, score in peers.items():
            position[name], position[f"{name}_ms"] = _timed_scores(score, state)
        position["ours_nodes"] = solver.nodes - before

    order = _python_order(positions, args.solver_python, args.seed)
    python: dict[str, Any] = {"compiled": None, "positions": []}
    if order:
        moves = [positions[i]["moves"] for i in order]
        python = _run_child("python", moves, {"NUMBA_DISABLE_JIT": "1"}, args.solver_python_budget)
    for index, result in zip(order, python["positions"], strict=False):
        positions[index]["python"], positions[index]["python_ms"] = result["scores"], result["ms"]
    summary = summarise_solver(positions)
    summary.update(
        sample="all" if args.solver_all else f"seeded sample (--seed {args.seed})",
        compiled=COMPILED,
        bitbully=bitbully_state,
        python_path={
            "jit_disabled": None if python["compiled"] is None else not python["compiled"],
            "bands": list(PYTHON_BANDS),
            "per_band": args.solver_python,
            "max_compiled_nodes": PYTHON_MAX_NODES,
            "budget_s": args.solver_python_budget,
        },
        start=start,
        load_average_start=load_start,
        load_average_end=cli.load_average(),
    )
    return summary


def _stats(values: list[float]) -> dict[str, Any]:
    if not values:
        return {"positions": 0}
    return {"positions": len(values), "median_ms": round(statistics.median(values), 3), "max_ms": round(max(values), 3)}


def summarise_solver(positions: list[dict[str, Any]]) -> dict[str, Any]:
    """Return the per-band and overall times, ratios, disagreements and slow positions of timed positions.

    Each position holds ``band``, ``moves``, ``labels``, ``ours`` and ``ours_ms``, and where timed ``bitbully``
    and ``bitbully_ms``, ``python`` and ``python_ms`` (scores as 7 columns, -128 for a full one).
    """

    def block(chosen: list[dict[str, Any]]) -> dict[str, Any]:
        entry: dict[str, Any] = {"positions": len(chosen)}
        for name in ("ours", "bitbully", "python"):
            timed = [p for p in chosen if f"{name}_ms" in p]
            if timed or name != "bitbully":
                entry[name] = _stats([p[f"{name}_ms"] for p in timed])
        bitbully = entry.get("bitbully", {})
        if bitbully.get("positions"):
            ours = _stats([p["ours_ms"] for p in chosen if "bitbully_ms" in p])
            entry["ours_over_bitbully_median"] = round(ours["median_ms"] / bitbully["median_ms"], 2)
            entry["ours_over_bitbully_max"] = round(ours["max_ms"] / bitbully["max_ms"], 2)
        if entry["python"]["positions"]:
            compiled = _stats([p["ours_ms"] for p in chosen if "python_ms" in p])
            entry["python"]["over_compiled_median"] = round(entry["python"]["median_ms"] / compiled["median_ms"], 1)
        return entry

    def disagreements(name: str) -> int:
        return sum(p[name] != p["ours"] for p in positions if name in p)

    # The three slowest of ours, and every other position over 2 s for either solver, slowest first.
    ranked = sorted(positions, key=lambda p: p["ours_ms"], reverse=True)
    slowest = [p for i, p in enumerate(ranked) if i < 3 or max(p["ours_ms"], p.get("bitbully_ms", 0)) > SLOW_MS]
    return {
        "positions": len(positions),
        "bands": {name: block([p for p in positions if p["band"] == name]) for name, _, _ in SOLVER_BANDS},
        "overall": block(positions),
        "disagreements": {
            "ours_vs_labels": disagreements("labels"),
            "ours_vs_bitbully": disagreements("bitbully") if any("bitbully" in p for p in positions) else None,
            "python_vs_compiled": disagreements("python"),
        },
        "over_2s": {name: sum(p.get(f"{name}_ms", 0) > SLOW_MS for p in positions) for name in ("ours", "bitbully")},
        "slowest": [
            {
                "moves": p["moves"],
                "ours_ms": round(p["ours_ms"], 1),
                "ours_nodes": p.get("ours_nodes"),
                "bitbully_ms": round(p["bitbully_ms"], 1) if "bitbully_ms" in p else None,
            }
            for p in slowest
        ],
    }


def print_solver_table(summary: dict[str, Any]) -> None:
    """Print the --solver section's table: ms per position (all moves scored) by ply band."""

    def cell(entry: dict[str, Any], key: str) -> str:
        return f"{entry[key]:,.2f}" if key in entry else "-"

    print(
        f"exact Connect Four solver, {summary['positions']:,} positions ({summary['sample']}); BitBully: "
        f"{summary['bitbully']}; load average {summary['load_average_start']} -> {summary['load_average_end']}"
    )
    print(f"{'plies':<7} {'n':>5} {'ours med':>9} {'ours max':>9} {'BB med':>8} {'BB max':>8} {'ratio med':>9} "
          f"{'ratio max':>9} {'py n':>5} {'py med':>9} {'py max':>10}")  # fmt: skip
    for name, entry in [*summary["bands"].items(), ("all", summary["overall"])]:
        ours, bitbully, python = entry["ours"], entry.get("bitbully", {}), entry["python"]
        print(
            f"{name:<7} {entry['positions']:>5} {cell(ours, 'median_ms'):>9} {cell(ours, 'max_ms'):>9} "
            f"{cell(bitbully, 'median_ms'):>8} {cell(bitbully, 'max_ms'):>8} "
            f"{entry.get('ours_over_bitbully_median', '-'):>9} {entry.get('ours_over_bitbully_max', '-'):>9} "
            f"{python['positions']:>5} {cell(python, 'median_ms'):>9} {cell(python, 'max_ms'):>10}"
        )
    print(f"disagreements: {summary['disagreements']}; over 2 s: {summary['over_2s']}")
    for slow in summary["slowest"]:
        print(f"  slow: {slow['moves']} ours {slow['ours_ms']:,} ms ({slow['ours_nodes']} nodes), BitBully "
              f"{slow['bitbully_ms']} ms")  # fmt: skip
    for kind, entry in summary["start"].items():
        print(f"start ({kind}): import {entry['import_s']} s, solver {entry['solver_s']} s, "
              f"first call {entry['first_call_s']} s")  # fmt: skip


# ---- Pons' sets: --solver --testsets DIR -----------------------------------------------------------------------

#: A position slower than this counts in the --testsets table's "over 1 s" columns (ms of CPU time).
TESTSET_SLOW_MS = 1_000
#: The disagreements shown in full (printed, and kept in the summary): the first ones, in set order.
SHOWN_DISAGREEMENTS = 5
#: The solvers of a --testsets run, in the order of the first position (the order alternates).
TESTSET_PEERS = ("ours", "bitbully")


def check_testsets(args: argparse.Namespace) -> None:
    """Check the --testsets flags, then read and replay the sets into ``args.pons_sets`` (PlayableSet).

    Raises:
        ValueError: naming the flag: --testsets without --solver or with --solver-all; --testset-positions or
            --testset-names without --testsets; a folder or a set name that
            :func:`agents.matches.testsets.find_testsets` refuses (its message), a file it cannot read, a line
            with an illegal move or a game already over.
        ImportError: the ``solver`` extra (numba and the book) is missing.
    """
    if args.testsets is None:
        given = [flag for flag in ("--testset-positions", "--testset-names") if getattr(args, _dest(flag)) is not None]
        if given:
            raise ValueError(f"{' and '.join(given)} {'needs' if len(given) == 1 else 'need'} --testsets DIR")
        return
    if not args.solver:
        raise ValueError("--testsets times the exact solver on Pons' sets: it needs --solver")
    if args.solver_all:
        raise ValueError("--testsets replaces the label positions: it takes no --solver-all")
    from plumbing import cli

    from gym_boardgames.utils import require_extra

    args.pons_sets = cli.read_testset_flags(args.testsets, args.testset_names, args.testset_positions)
    # Exact without them too, but a hundred times slower: that would time the Python interpreter.
    require_extra("solver", "numba", "bitbully_databases", needed_for="--testsets")


def _dest(flag: str) -> str:
    return flag.lstrip("-").replace("-", "_")


def _where(testset: Any, index: int) -> dict[str, Any]:
    """Set, file, line and moves (1-based digits, as in the file) of position ``index`` of ``testset``."""
    from agents.matches.testsets import line_number

    moves = "".join(str(column + 1) for column in testset.positions[index].moves)
    return {"set": testset.name, "path": testset.path, "line": line_number(testset, index), "moves": moves}


def _bitbully_parts() -> tuple[Any, Any, str]:
    """BitBully's solver (its default opening book), its ``Board`` builder and its version; or None, None, why not."""
    try:
        from importlib.metadata import version

        from label_connectfour import SolverPlayer

        player = SolverPlayer()
    except ImportError as error:  # require_extra's line: what is missing and the pip command
        return None, None, f"not installed ({error})"
    return player.solver, player.board, f"{version('bitbully')} (its default opening book)"


def _cpu_ms(call: Any, argument: Any) -> tuple[Any, float]:
    start = time.thread_time()
    result = call(argument)
    return result, (time.thread_time() - start) * 1e3


def _time_position(game: Any, state: Any, solver: Any, bitbully: Any, board_of: Any, first: str) -> dict[str, Any]:
    """Score every move of ``state`` with each solver in turn, ``first`` first; their rows, CPU ms and nodes."""
    record: dict[str, Any] = {}
    board = board_of(state) if bitbully is not None else None  # built outside the timed call, as ours is given one
    order = TESTSET_PEERS if first == TESTSET_PEERS[0] else TESTSET_PEERS[::-1]
    for name in order:
        if name == "ours":
            before = solver.nodes
            scores, record["ours_ms"] = _cpu_ms(lambda s: solver.score_moves(game, s), state)
            record["ours"], record["ours_nodes"] = _as_row(scores), solver.nodes - before
        elif bitbully is not None:
            bitbully.reset_node_counter()
            scores, record["bitbully_ms"] = _cpu_ms(bitbully.score_all_moves, board)
            record["bitbully"], record["bitbully_nodes"] = _as_row(scores), bitbully.get_node_counter()
    return record


def _disagreements(record: dict[str, Any]) -> dict[str, bool]:
    """Which comparisons ``record`` fails: each solver's best score against the file's, and the two solvers' rows."""
    from agents.matches.perfect_play import NO_MOVE

    def best(row: list[int]) -> int:
        return max(score for score in row if score != NO_MOVE)

    failed = {"ours_vs_file": best(record["ours"]) != record["score"]}
    if "bitbully" in record:
        failed["bitbully_vs_file"] = best(record["bitbully"]) != record["score"]
        failed["ours_vs_bitbully"] = record["bitbully"] != record["ours"]
    return failed


def _ms(value: float) -> float:
    return round(value, 4)  # 0.1 us: the End-Easy positions take a few


def _peer_stats(records: list[dict[str, Any]], name: str) -> dict[str, Any]:
    times = [r[f"{name}_ms"] for r in records]
    return {
        "median_ms": _ms(statistics.median(times)),
        "mean_ms": _ms(statistics.fmean(times)),
        "max_ms": _ms(max(times)),
        "over_1s": sum(t > TESTSET_SLOW_MS for t in times),
        "mean_nodes": round(statistics.fmean(r[f"{name}_nodes"] for r in records), 2),
    }


def summarise_testset(records: list[dict[str, Any]]) -> dict[str, Any]:
    """Return one row of the --testsets table from its timed positions.

    Each record holds ``score`` (the file's), ``ours`` (7 scores, -128 for a full column), ``ours_ms`` and
    ``ours_nodes``, and with BitBully ``bitbully``, ``bitbully_ms`` and ``bitbully_nodes``. ``disagreements``
    counts the positions failing any comparison of :func:`_disagreements`; ``disagreements_by`` each one.
    """
    failed = [_disagreements(r) for r in records]
    entry: dict[str, Any] = {
        "positions": len(records),
        "disagreements": sum(any(f.values()) for f in failed),
        "disagreements_by": {kind: sum(f[kind] for f in failed) for kind in failed[0]},
        "ours": _peer_stats(records, "ours"),
    }
    if "bitbully" in records[0]:
        entry["bitbully"] = bitbully = _peer_stats(records, "bitbully")
        for kind in ("median", "mean"):
            ours, theirs = entry["ours"][f"{kind}_ms"], bitbully[f"{kind}_ms"]
            entry[f"ours_over_bitbully_{kind}"] = round(ours / theirs, 2) if theirs > 0 else None
    return entry


def testset_timings(args: argparse.Namespace, command: str, echo: bool) -> dict[str, Any]:
    """Time our solver beside BitBully on ``args.pons_sets`` (bench.py's docstring); return the summary.

    With ``echo`` the header and each set's row are printed as the run goes, with a progress bar on stderr.
    """
    from plumbing import cli

    from agents.matches.perfect_play import connect_four
    from agents.matches.testsets import PONS_MEAN_NODES
    from agents.search.connect_four import COMPILED, ConnectFourSolver
    from gym_boardgames.utils import progress_bar

    summary: dict[str, Any] = {"command": command, "testsets": args.testsets, "load_average_start": cli.load_average()}
    game = connect_four()
    solver = ConnectFourSolver(6, 7)
    bitbully, board_of, bitbully_state = _bitbully_parts()
    summary.update(ours=repr(solver), compiled=COMPILED, bitbully=bitbully_state, slow_ms=TESTSET_SLOW_MS)
    if echo:
        _print_testset_header(summary)
    warm = args.pons_sets[0].states[0]  # the compiled kernels loaded and the books read; then empty tables
    solver.score_moves(game, warm)
    solver.clear()
    if bitbully is not None:
        bitbully.score_all_moves(board_of(warm))
        bitbully.reset_transposition_table()

    rows, everything, shown = [], [], []
    for replayed in args.pons_sets:
        records = []
        with progress_bar(len(replayed.states), replayed.name, enabled=echo) as bar:
            for index, (state, position) in enumerate(zip(replayed.states, replayed.positions, strict=True)):
                first = TESTSET_PEERS[len(everything) % 2]
                record = {**_time_position(game, state, solver, bitbully, board_of, first), "score": position.score}
                if any(_disagreements(record).values()) and len(shown) < SHOWN_DISAGREEMENTS:
                    shown.append({**_where(replayed, index), "score": position.score,
                                  **{name: record[name] for name in TESTSET_PEERS if name in record}})  # fmt: skip
                records.append(record)
                everything.append(record)
                bar.update(1)
        name = replayed.name
        row = {"name": name, "path": replayed.path, **summarise_testset(records)}
        row["pons_mean_nodes"] = PONS_MEAN_NODES[name]
        rows.append(row)
        if echo:
            _print_testset_row(row)
    # Pons' means weighted by the positions timed of each set: his figure for the same mix.
    pons_all = sum(row["pons_mean_nodes"] * row["positions"] for row in rows) / len(everything)
    summary.update(
        sets=rows,
        all={"name": "all", **summarise_testset(everything), "pons_mean_nodes": round(pons_all, 2)},
        first_disagreements=shown,
        load_average_end=cli.load_average(),
    )
    summary["disagreements"] = summary["all"]["disagreements"]
    if echo:
        _print_testset_footer(summary)
    return summary


def _duration(ms: float) -> str:
    """``ms`` in the unit that fits: us under a millisecond, ms under a second, else s."""
    if ms < 1:
        return f"{ms * 1e3:.1f} us"
    return f"{ms:.2f} ms" if ms < 1_000 else f"{ms / 1e3:.2f} s"


def _count(nodes: float) -> str:
    return f"{nodes:,.1f}" if nodes < 100 else f"{nodes:,.0f}"


#: The --testsets table's columns: title, width, the cell from a row, and whether it is one of BitBully's.
_TESTSET_COLUMNS: tuple[tuple[str, int, Any, bool], ...] = (
    ("set", 13, lambda r: r["name"], False),
    ("n", 5, lambda r: r["positions"], False),
    ("disagree", 8, lambda r: r["disagreements"], False),
    ("ours med", 10, lambda r: _duration(r["ours"]["median_ms"]), False),
    ("ours mean", 10, lambda r: _duration(r["ours"]["mean_ms"]), False),
    ("ours max", 10, lambda r: _duration(r["ours"]["max_ms"]), False),
    ("BB med", 10, lambda r: _duration(r["bitbully"]["median_ms"]), True),
    ("BB mean", 10, lambda r: _duration(r["bitbully"]["mean_ms"]), True),
    ("BB max", 10, lambda r: _duration(r["bitbully"]["max_ms"]), True),
    ("med x", 6, lambda r: r["ours_over_bitbully_median"], True),
    ("mean x", 6, lambda r: r["ours_over_bitbully_mean"], True),
    ("ours nodes", 11, lambda r: _count(r["ours"]["mean_nodes"]), False),
    ("Pons nodes", 11, lambda r: _count(r["pons_mean_nodes"]), False),
    (">1s ours", 8, lambda r: r["ours"]["over_1s"], False),
    (">1s BB", 6, lambda r: r["bitbully"]["over_1s"], True),
)


def _testset_line(cells: list[tuple[Any, int, bool]]) -> str:
    return " ".join(f"{cell!s:<{width}}" if first else f"{cell!s:>{width}}" for cell, width, first in cells)


def _columns(with_bitbully: bool) -> list[tuple[str, int, Any, bool]]:
    return [column for column in _TESTSET_COLUMNS if with_bitbully or not column[3]]


def _print_testset_header(summary: dict[str, Any]) -> None:
    with_bitbully = not summary["bitbully"].startswith("not installed")
    print(f"command: {summary['command']}")
    print(f"load average {summary['load_average_start']} (1, 5, 15 min) at the start")
    print(f"Pons' Connect Four sets in {summary['testsets']}: every legal move of each position scored exactly, CPU "
          "time (time.thread_time) around the scoring call alone; one solver of each for the whole run, its table "
          "kept; the first to score a position alternates.")  # fmt: skip
    print(f"ours: {summary['ours']}; BitBully: {summary['bitbully']}" + ("" if with_bitbully else "; our columns only"))
    print("nodes: mean positions searched per position, every move scored; Pons': his final solver's for the "
          "position's score alone, an empty table per position, no opening book (part 12 of his tutorial). "
          "x: ours over BitBully.")  # fmt: skip
    columns = _columns(with_bitbully)
    print(_testset_line([(title, width, i == 0) for i, (title, width, _, _) in enumerate(columns)]))


def _print_testset_row(row: dict[str, Any]) -> None:
    columns = _columns("bitbully" in row)
    print(_testset_line([(cell(row), width, i == 0) for i, (_, width, cell, _) in enumerate(columns)]), flush=True)


def _print_testset_footer(summary: dict[str, Any]) -> None:
    _print_testset_row(summary["all"])
    print(f"disagreements: {summary['disagreements']} ({summary['all']['disagreements_by']}); load average "
          f"{summary['load_average_end']} at the end")  # fmt: skip
    for shown in summary["first_disagreements"]:
        bitbully = f", BitBully {shown['bitbully']}" if "bitbully" in shown else ""
        print(f"  {shown['set']} line {shown['line']} ({shown['moves']}): file {shown['score']}, ours "
              f"{shown['ours']}{bitbully}")  # fmt: skip
