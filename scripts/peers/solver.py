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
