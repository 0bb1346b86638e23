"""The Dots and Boxes study's experiments, each a task ``scripts/train_dots_boxes_q.py`` runs (in workers too).

A task is a plain dict in and a JSON-ready dict out, so it pickles to a worker process:

* :func:`run_solve`: :func:`~agents.dots.layer_table.solve_layers` on the board, with its time and memory,
  and the values of the study's smaller boards (2x2, 2x3).
* :func:`run_trainer` (tables 1 and 2): a fresh :class:`~agents.dots.layered_value.LayeredValueAgent`
  trains against one bot, is tested against every bot with learning off, then trains against
  ``endgame:K`` and is tested again.
* :func:`run_lr`: the learning-rate study for one learning rate, a warm-up against random then rounds
  against ``endgame:K``, tested after each round.
* :func:`run_exact`: the exact agent against every bot, each game audited against the solver
  (:func:`play_audited`).

Games alternate seats (the agent moves first in even games) and use the study's tie rule,
``tie_break="second"``. The solved table is each process's one copy,
:func:`~agents.dots.layer_table.solved_table`'s: the pool's workers are spawned
(:func:`gym_boardgames.utils.process_pool`), so each reads the shipped table once, or solves a board without
one once.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from agents._rng import make_rng
from agents.dots.bots import EndgameBot
from agents.dots.layer_table import LayerTable, solve_layers, solved_table
from agents.dots.layered_value import LayeredValueAgent
from agents.factory import make_agent
from agents.matches.arena import MatchResult, play_match
from agents.matches.grading import play_graded
from gym_boardgames.rules.dots import DotsAndBoxes, DotsState
from gym_boardgames.utils import peak_rss_mb, progress_bar


def study_bots(k: int) -> list[str]:
    """The study's opponents, weakest first: random, first_available, always4never3 and ``endgame:K``."""
    return ["random", "first_available", "always4never3", f"endgame:{k}"]


def table_file(rows: int, cols: int) -> str:
    """The file name, in the save folder, of the solved table of ``rows`` x ``cols`` boxes."""
    return f"dots_{rows}x{cols}_table.npz"


def trainer_file(trainer: str) -> str:
    """The file name, in the save folder, of the agent of tables 1 and 2 trained against ``trainer``."""
    return f"q_trained_on_{trainer.replace(':', '')}.npz"


def lr_file(lr: float) -> str:
    """The file name, in the save folder, of the learning-rate study's agent at ``lr``."""
    return f"q_lr_{lr:g}.npz"


def saved_files(settings: dict[str, Any]) -> list[str]:
    """Every file name a run of the study writes in its save folder: the table, then the trained agents.

    Args:
        settings: as for :func:`study_tasks`; ``rows``, ``cols``, ``experiments``, ``endgame_k`` and ``lrs`` are read.
    """
    names = [table_file(settings["rows"], settings["cols"])]
    if "table1" in settings["experiments"] or "table2" in settings["experiments"]:
        names += [trainer_file(trainer) for trainer in study_bots(settings["endgame_k"])]
    if "lr" in settings["experiments"]:
        names += [lr_file(lr) for lr in settings["lrs"]]
    return names


#: ``shared_table(rows, cols)``: the solved table of ``rows`` x ``cols`` boxes, every layer, the process's one copy.
shared_table = solved_table


def match_record(result: MatchResult) -> dict[str, Any]:
    """A match's record: wins, draws and losses overall, and the split by seat."""
    return {**result.total.as_dict(), "first": result.first.as_dict(), "second": result.second.as_dict()}


def run_solve(rows: int, cols: int) -> dict[str, Any]:
    """Solve the board and the two smaller study boards; report values, time and memory.

    The board is solved here even where a table ships, to measure the solve; the tasks then take
    :func:`shared_table`, this process's copy (spawned workers take their own). The memory is the peak of the
    whole process (:func:`~gym_boardgames.utils.peak_rss_mb`, None where it cannot be read), so the solve
    should run before anything else grows.
    """
    rss_before = peak_rss_mb()
    start, cpu_start = time.perf_counter(), time.process_time()
    table = solve_layers(DotsAndBoxes(rows, cols))
    seconds, cpu_seconds = time.perf_counter() - start, time.process_time() - cpu_start
    rss_after = peak_rss_mb()
    shared_table(rows, cols)
    empty = DotsAndBoxes(rows, cols).initial_state()
    values = {}
    for r, c in [(2, 2), (2, 3), (rows, cols)]:
        small = table if (r, c) == (rows, cols) else solved_table(r, c)
        state = DotsAndBoxes(r, c).initial_state()
        values[f"{r}x{c}"] = {"q_empty": small.value(state), "first_player_margin": small.margin(state)}
    return {
        "board": f"{rows}x{cols}",
        "positions": int(table.values.size),
        "q_empty": table.value(empty),
        "first_player_margin": table.margin(empty),
        "optimal_first_moves": table.best_moves(empty),
        "seconds": round(seconds, 2),
        "cpu_seconds": round(cpu_seconds, 2),  # wall time counts other processes on a busy machine; this does not
        # The peak of the whole process, and how much the solve raised it.
        "peak_rss_mb": None if rss_after is None else round(rss_after),
        "solve_rss_increase_mb": None if rss_after is None else round(rss_after - rss_before),
        "table_mb": round(table.values.nbytes / 2**20),
        "values": values,
    }


def _task_setup(task: dict[str, Any]) -> tuple[DotsAndBoxes, LayerTable, Any, int]:
    """A task's board (under the study's tie rule), this process's solved table, its generator and ``k``."""
    game = DotsAndBoxes(task["rows"], task["cols"], tie_break="second")
    return game, shared_table(game.rows, game.cols), make_rng(task["seed"]), task["k"]


def run_trainer(task: dict[str, Any]) -> dict[str, Any]:
    """Tables 1 and 2 for one trainer: train, test against every bot, train against endgame(k), test again."""
    game, table, rng, k = _task_setup(task)
    agent = LayeredValueAgent(lr=task["lr"], explore=task["explore"], seed=rng)
    games = (2 if task["table2"] else 1) * (task["train_games"] + 4 * task["test_games"])
    bar = progress_bar(games, f"trainer {task['trainer']}", task["progress"])
    out: dict[str, Any] = {"trainer": task["trainer"]}
    agent.train(game, make_agent(task["trainer"], rng, table=table), task["train_games"], progress=bar.update)
    out["table1"] = _test_all(game, agent, table, k, task["test_games"], rng, bar)
    out["states_after_table1"] = agent.num_states
    if task["table2"]:
        agent.train(game, make_agent(f"endgame:{k}", rng, table=table), task["train_games"], progress=bar.update)
        out["table2"] = _test_all(game, agent, table, k, task["test_games"], rng, bar)
        out["states_after_table2"] = agent.num_states
    bar.close()
    if task["save_dir"]:
        agent.save(Path(task["save_dir"]) / trainer_file(task["trainer"]))
    return out


def _test_all(
    game: DotsAndBoxes, agent: LayeredValueAgent, table: LayerTable, k: int, games: int, rng: Any, bar: Any
) -> dict[str, Any]:
    """Test ``agent`` against every bot; one record per bot (its ``act`` never learns)."""
    cells = {}
    for name in study_bots(k):
        result = play_match(game, agent, make_agent(name, rng, table=table), games, seed=rng, progress=bar.update)
        cells[name] = match_record(result)
    return cells


def run_lr(task: dict[str, Any]) -> dict[str, Any]:
    """The learning-rate study for one learning rate."""
    game, table, rng, k = _task_setup(task)
    total = task["warmup_games"] + task["rounds"] * (task["round_games"] + task["round_test_games"])
    bar = progress_bar(total, f"lr {task['lr']:g}", task["progress"])
    agent = LayeredValueAgent(lr=1.0, explore=task["explore"], seed=rng)
    agent.train(game, make_agent("random", rng), task["warmup_games"], progress=bar.update)
    agent.lr = task["lr"]
    trainer = make_agent(f"endgame:{k}", rng, table=table)
    wins, records = [], []
    for _ in range(task["rounds"]):
        agent.train(game, trainer, task["round_games"], progress=bar.update)
        # Tested against the trainer itself: the same table, the same generator.
        result = play_match(game, agent, trainer, task["round_test_games"], seed=rng, progress=bar.update)
        wins.append(result.total.win)
        records.append(match_record(result))
    bar.close()
    if task["save_dir"]:
        agent.save(Path(task["save_dir"]) / lr_file(task["lr"]))
    # One test of 100 games is noisy (a standard deviation of about 5 wins near 35%): the mean of the last
    # rounds says more about where a learning rate ends up than the best single round.
    tail = wins[-5:]
    return dict(
        lr=task["lr"], wins=wins, last5_mean=round(sum(tail) / len(tail), 1), records=records, states=agent.num_states
    )


class BoxMargins:
    """The solved table as a :class:`~agents.matches.grading.SolvedGame`: the final box margin the mover can force.

    ``value(state)`` is the mover's lead so far plus ``table.margin(state)`` (the net boxes it can force from
    here on); at the end, the lead itself.
    """

    def __init__(self, game: DotsAndBoxes, table: LayerTable) -> None:
        self.game, self.table = game, table

    def value(self, state: DotsState) -> int:
        """Return the final margin the player to move can force from ``state``, from its side."""
        scores = self.game.scores(state)
        mover = self.game.current_player(state)
        lead = scores[mover] - scores[1 - mover]
        return lead if self.game.is_terminal(state) else lead + self.table.margin(state)


def play_audited(game: DotsAndBoxes, table: LayerTable, agent: Any, opponent: Any, games: int) -> dict[str, Any]:
    """Play ``games`` games (seats alternating) and check each against the solver.

    At every position where the agent is to move, what it can force is its lead so far plus
    ``table.margin(state)`` (:class:`BoxMargins`, graded by :func:`agents.matches.grading.play_graded`); a game is a
    violation if it ends with a smaller margin than that, or in a worse result (loss < draw < win under the
    game's tie rule) than one it could force.
    """
    result = MatchResult()
    audit_counts = {"violations": 0, "could_win": 0, "won_when_could_win": 0}
    solved = BoxMargins(game, table)
    for i in range(games):
        seat = i % 2
        players = (agent, opponent) if seat == 0 else (opponent, agent)
        graded = play_graded(solved, *players, seat)
        payoff = graded.returns[seat]
        (result.first if seat == 0 else result.second).add(payoff)
        could = _result_class(game, graded.forced, seat)
        audit_counts["violations"] += graded.final < graded.forced or _result_class(game, graded.final, seat) < could
        if could == 2:
            audit_counts["could_win"] += 1
            audit_counts["won_when_could_win"] += payoff > 0
    return {**match_record(result), **audit_counts}


def _result_class(game: DotsAndBoxes, margin: float, seat: int) -> int:
    """0 loss, 1 draw, 2 win, for a final margin from ``seat``'s side under the game's tie rule."""
    return int(game.payoff_of_margin(margin, seat)) + 1


def run_exact(task: dict[str, Any]) -> dict[str, Any]:
    """The exact agent against every bot, audited against the solver."""
    game, table, rng, k = _task_setup(task)
    exact = EndgameBot(game.num_edges, table=table, seed=rng)
    out = {}
    with progress_bar(4 * task["games"], "exact agent", task["progress"]) as bar:
        for name in study_bots(k):
            out[name] = play_audited(game, table, exact, make_agent(name, rng, table=table), task["games"])
            bar.update(task["games"])
    return out


def run_task(task: dict[str, Any]) -> tuple[str, Any]:
    """Run one task by its ``"kind"`` (``"trainer"``, ``"lr"`` or ``"exact"``); return the kind and the result."""
    run = {"trainer": run_trainer, "lr": run_lr}.get(task["kind"], run_exact)
    return task["kind"], run(task)


def study_tasks(settings: dict[str, Any]) -> list[dict[str, Any]]:
    """Return the tasks of the selected experiments but the solve, in a fixed order, for :func:`run_task`.

    Every run gets its own seed, fixed by ``settings["seed"]`` and the run's place in the study (not by
    how many workers run them), so a run replays exactly alone or in a pool.

    Args:
        settings: the script's options: ``rows``, ``cols``, ``endgame_k``, ``explore``, ``save_dir``,
            ``progress``, ``seed``, ``experiments``, ``lr``, ``train_games``, ``test_games``, ``lrs``,
            ``warmup_games``, ``rounds``, ``round_games``, ``round_test_games`` and ``exact_games``.
    """
    experiments = settings["experiments"]
    seeds = make_rng(settings["seed"]).integers(2**32, size=16).tolist()
    base = {name: settings[name] for name in ("rows", "cols", "explore", "save_dir", "progress")}
    base["k"] = settings["endgame_k"]
    tasks = []
    if "table1" in experiments or "table2" in experiments:
        trainer = {name: settings[name] for name in ("lr", "train_games", "test_games")}
        trainer["table2"] = "table2" in experiments
        for i, name in enumerate(study_bots(base["k"])):
            tasks.append({**base, **trainer, "kind": "trainer", "trainer": name, "seed": seeds[i]})
    if "lr" in experiments:
        rounds = {name: settings[name] for name in ("warmup_games", "rounds", "round_games", "round_test_games")}
        for i, lr in enumerate(settings["lrs"]):
            tasks.append({**base, **rounds, "kind": "lr", "lr": lr, "seed": seeds[4 + i % 11]})
    if "exact" in experiments:
        tasks.append({**base, "kind": "exact", "seed": seeds[15], "games": settings["exact_games"]})
    return tasks


def study_summary(results: list[tuple[str, Any]], settings: dict[str, Any]) -> dict[str, Any]:
    """Gather :func:`run_task`'s results into the summary's ``table1``, ``table2``, ``lr_study`` and ``exact``."""
    summary: dict[str, Any] = {}
    trainers = [out for kind, out in results if kind == "trainer"]
    for table in ("table1", "table2"):
        if table in settings["experiments"]:
            summary[table] = {out["trainer"]: out[table] for out in trainers}
    runs = [out for kind, out in results if kind == "lr"]
    if runs:
        best = max(runs, key=lambda run: (run["last5_mean"], max(run["wins"])))
        summary["lr_study"] = {
            "opponent": f"endgame({settings['endgame_k']})",
            **{name: settings[name] for name in ("warmup_games", "round_games", "round_test_games")},
            "runs": runs,
            "best": {"lr": best["lr"], "last5_mean": best["last5_mean"], "max_wins": max(best["wins"])},
        }
    summary.update((kind, out) for kind, out in results if kind == "exact")
    return summary
