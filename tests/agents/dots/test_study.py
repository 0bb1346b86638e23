"""The study's tasks: seeds fixed by a run's place, and the audit of games against the solver."""

from agents.dots import Always4Never3Bot, EndgameBot, solve_layers
from agents.dots.layer_table import solved_table
from agents.dots.study import play_audited, run_solve, saved_files, shared_table, study_summary, study_tasks
from gym_boardgames.rules import DotsAndBoxes

SETTINGS = {
    "rows": 2,
    "cols": 2,
    "endgame_k": 10,
    "explore": 0.5,
    "save_dir": None,
    "progress": False,
    "seed": 3,
    "lr": 1.0,
    "lrs": [1.0, 0.5],
    "train_games": 5,
    "test_games": 2,
    "warmup_games": 5,
    "rounds": 1,
    "round_games": 5,
    "round_test_games": 2,
    "exact_games": 2,
}


def test_each_run_keeps_its_seed_whichever_experiments_run_beside_it():
    every = study_tasks({**SETTINGS, "experiments": ["table1", "table2", "lr", "exact"]})
    assert [task["kind"] for task in every] == ["trainer"] * 4 + ["lr"] * 2 + ["exact"]
    assert [task["trainer"] for task in every[:4]] == ["random", "first_available", "always4never3", "endgame:10"]
    alone = study_tasks({**SETTINGS, "experiments": ["lr", "exact"]})
    assert alone == every[4:]
    assert len({task["seed"] for task in every}) == len(every)


def test_the_saved_files_are_the_table_then_each_trained_agent():
    names = saved_files({**SETTINGS, "experiments": ["table1", "lr"]})
    assert names == [
        "dots_2x2_table.npz",
        "q_trained_on_random.npz",
        "q_trained_on_first_available.npz",
        "q_trained_on_always4never3.npz",
        "q_trained_on_endgame10.npz",
        "q_lr_1.npz",
        "q_lr_0.5.npz",
    ]
    assert saved_files({**SETTINGS, "experiments": ["exact"]}) == ["dots_2x2_table.npz"]


def test_the_summary_gathers_the_tables_the_lr_runs_and_the_exact_agent():
    runs = [{"lr": 1.0, "wins": [3, 5], "last5_mean": 4.0}, {"lr": 0.5, "wins": [6, 2], "last5_mean": 4.0}]
    results = [("trainer", {"trainer": "random", "table1": "t1", "table2": "t2"}), ("exact", {"random": {}})]
    results += [("lr", run) for run in runs]
    summary = study_summary(results, {**SETTINGS, "experiments": ["table1", "lr", "exact"]})
    assert summary["table1"] == {"random": "t1"} and "table2" not in summary and summary["exact"] == {"random": {}}
    assert summary["lr_study"]["best"] == {"lr": 0.5, "last5_mean": 4.0, "max_wins": 6}  # ties: the best round
    assert summary["lr_study"]["opponent"] == "endgame(10)"


def test_the_audit_passes_the_exact_agent_and_catches_a_player_that_is_not():
    game = DotsAndBoxes(2, 2, tie_break="second")
    table = solve_layers(game)
    exact = play_audited(game, table, EndgameBot(12, table=table, seed=0), Always4Never3Bot(seed=1), 40)
    assert exact["violations"] == 0 and exact["won_when_could_win"] == exact["could_win"] > 0
    assert exact["win"] + exact["draw"] + exact["loss"] == 40 and exact["first"]["loss"] == 0
    greedy = play_audited(game, table, Always4Never3Bot(seed=2), EndgameBot(12, table=table, seed=3), 40)
    assert greedy["violations"] > 0 and greedy["won_when_could_win"] < greedy["could_win"]


def test_the_solve_reports_the_boards_values_and_the_process_memory_in_mb():
    report = run_solve(2, 2)
    assert report["board"] == "2x2" and set(report["values"]) == {"2x2", "2x3"}
    assert report["values"]["2x2"]["q_empty"] == report["q_empty"]
    # Megabytes of the whole process (a Python process with numpy holds tens of them), not KiB.
    assert 10 < report["peak_rss_mb"] < 10_000 and 0 <= report["solve_rss_increase_mb"] <= report["peak_rss_mb"]


def test_the_study_keeps_no_table_of_its_own_but_the_process_one():
    run_solve(2, 3)  # solves to measure the solve, then takes the process's copy for the tasks
    hits = solved_table.cache_info().hits
    assert shared_table(2, 3) is solved_table(2, 3) and solved_table.cache_info().hits == hits + 2
