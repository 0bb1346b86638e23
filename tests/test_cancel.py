"""gym_boardgames.cancel: a search whose result is no longer wanted stops within 0.2 s of its CPU.

Every search runs in a worker thread and is cancelled once it has used some CPU; the CPU its thread spends
after the cancel is read from the thread's own clock, so the bound holds however busy the machine is. Waits are
joins and events with a hang guard, never a deadline.
"""

from __future__ import annotations

import random
import threading
import time

import pytest

from gym_boardgames.cancel import Cancelled, CancelSignal, cancellable, check_cancelled, on_cancel
from gym_boardgames.rules.connect import ConnectN
from gym_boardgames.rules.dots import DotsAndBoxes

HANG_GUARD_S = 600
#: The most CPU a search may spend after its cancel (the issue's bound).
STOP_CPU_S = 0.2
#: CPU a worker spends before the cancel: well inside every search below, which each run for many seconds.
RUNNING_CPU_S = 0.3


def cpu_after_cancel(search, setup=lambda: None) -> float:
    """Run ``search()`` in a cancellable worker, cancel it once it is under way; return its CPU after the cancel."""
    signal, stopped, outcome = CancelSignal(), threading.Event(), {}

    def work() -> None:
        with cancellable(signal):
            try:
                search()
                outcome["finished"] = True
            except Cancelled:
                outcome["cpu"] = time.thread_time()
            except BaseException as error:  # noqa: BLE001 - reported by the test's thread
                outcome["error"] = error
            finally:
                stopped.set()

    setup()
    worker = threading.Thread(target=work, daemon=True)
    worker.start()
    clock = time.pthread_getcpuclockid(worker.ident)
    for _ in range(HANG_GUARD_S * 100):
        if stopped.is_set() or time.clock_gettime(clock) >= RUNNING_CPU_S:
            break
        time.sleep(0.01)
    assert not stopped.is_set(), f"the search ended before it was cancelled: {outcome}"
    at_cancel = time.clock_gettime(clock)
    signal.cancel()
    assert stopped.wait(HANG_GUARD_S), "the cancelled search never stopped"
    assert "finished" not in outcome and "error" not in outcome, outcome
    return outcome["cpu"] - at_cancel


def test_mcts_stops():
    from agents.search.mcts import MCTSAgent

    game = ConnectN(6, 7, 4, gravity=True)
    assert cpu_after_cancel(lambda: MCTSAgent(10**7, seed=0).act(game, game.initial_state())) <= STOP_CPU_S


def test_alphazero_stops_in_play_and_in_batched_self_play():
    from agents.factory import make_agent
    from agents.search.tree import SearchTree, search_batch

    game = ConnectN(6, 7, 4, gravity=True)
    agent = make_agent("alphazero:1000000", seed=0, game=game)
    assert cpu_after_cancel(lambda: agent.act(game, game.initial_state())) <= STOP_CPU_S
    trees = [SearchTree(game, game.initial_state(), 1.25, True, random.random) for _ in range(4)]
    assert cpu_after_cancel(lambda: search_batch(trees, agent.evaluator, 10**6)) <= STOP_CPU_S


def test_alphabeta_stops():
    from agents.search.minimax import AlphaBetaAgent

    game = DotsAndBoxes(3, 3)  # the exact search of the empty 3x3 board runs for far longer than the test
    assert cpu_after_cancel(lambda: AlphaBetaAgent(seed=0).act(game, game.initial_state())) <= STOP_CPU_S


def test_the_dots_layer_solver_behind_the_endgame_bot_stops():
    from agents.dots.layer_table import solve_layers

    assert cpu_after_cancel(lambda: solve_layers(DotsAndBoxes(3, 3))) <= STOP_CPU_S


def test_the_compiled_connect_four_solver_stops():
    from agents.search.connect_four import ConnectFourSolver, SearchBudgetExceeded

    game = ConnectN(6, 7, 4, gravity=True)
    solver = ConnectFourSolver(book=False)  # the empty board without the book takes minutes

    def compile_first() -> None:  # numba compiles on the first call, which cannot be cancelled
        try:
            solver.solve(game, game.initial_state(), max_nodes=1000)
        except SearchBudgetExceeded:
            pass

    assert cpu_after_cancel(lambda: solver.solve(game, game.initial_state()), setup=compile_first) <= STOP_CPU_S


def test_outside_a_cancellable_block_nothing_is_cancelled_and_a_block_restores_the_outer_signal():
    check_cancelled()  # no signal: returns
    outer, inner = CancelSignal(), CancelSignal()
    with cancellable(outer):
        with cancellable(inner):
            inner.cancel()
            with pytest.raises(Cancelled, match="no longer wanted"):
                check_cancelled()
        check_cancelled()  # the outer signal is back, and it is not cancelled
        outer.cancel()
        with pytest.raises(Cancelled):
            check_cancelled()
    check_cancelled()


def test_a_hook_runs_on_cancel_at_once_if_already_cancelled_and_never_after_its_block():
    calls = []
    signal = CancelSignal()
    with on_cancel(lambda: calls.append("outside")):  # no signal in this thread: never called
        pass
    with cancellable(signal):
        with on_cancel(lambda: calls.append("during")):
            signal.cancel()
        with on_cancel(lambda: calls.append("late")):  # already cancelled: called on entry
            pass
    signal.cancel()
    assert calls == ["during", "late"]


# ---- the play session: every way of leaving a position stops its search ----------------------------


def session_workers() -> list[threading.Thread]:
    return [thread for thread in threading.enumerate() if thread.name == "play session worker"]


def wait_for_search(workers_before: set[threading.Thread]) -> None:
    """Wait until a new worker has used some CPU: the agent is in the middle of its search."""
    for _ in range(HANG_GUARD_S * 100):
        for thread in set(session_workers()) - workers_before:
            try:
                if time.clock_gettime(time.pthread_getcpuclockid(thread.ident)) >= RUNNING_CPU_S / 3:
                    return
            except OSError:  # it ended meanwhile
                pass
        time.sleep(0.01)
    raise AssertionError("the agent never started searching")


def assert_idle_within_a_second(abandoned: list[threading.Thread]) -> None:
    """The abandoned workers end, and then the process uses no CPU: nothing computes on."""
    for thread in abandoned:
        thread.join(HANG_GUARD_S)
        assert not thread.is_alive(), "an abandoned search is still running"
    start = time.process_time()
    time.sleep(1.0)
    assert time.process_time() - start < 0.1


@pytest.mark.parametrize("leave", ["restart", "undo", "swap", "close"])
def test_three_positions_left_mid_search_leave_no_thread_and_no_cpu(leave):
    pytest.importorskip("pygame")
    from agents.search.mcts import MCTSAgent
    from gym_boardgames.envs import ConnectNEnv
    from gym_boardgames.human.session import PlaySession

    def new_session() -> PlaySession:
        return PlaySession(ConnectNEnv(opponent=None), MCTSAgent(10**7, seed=0), side=0)

    session, sessions, abandoned = new_session(), [], []
    for _ in range(3):
        if leave == "close":  # a closed window or page: each round is a session of its own
            session = new_session()
        elif session.side != 0:  # after a swap the agent moves first: its search is the one to leave
            session.swap()
        sessions.append(session)
        before = set(session_workers())
        if session.human_to_move:
            session.click(session.view.cell_rect(3).center)
        wait_for_search(before)
        abandoned += session_workers()
        getattr(session, leave)()
    session.close()  # the search a swap starts for the agent's first move
    assert_idle_within_a_second(abandoned + session_workers())
    assert all(session.agent_moves == 0 for session in sessions)  # no abandoned reply was ever played


def test_a_stopped_server_stops_its_games_searches():
    pytest.importorskip("pygame")
    import io
    import json
    import urllib.request

    import gym_boardgames

    server = gym_boardgames.play("connectfour", "mcts:10000000", ui="page", wait=False, port=0, log=io.StringIO())
    try:
        before = set(session_workers())
        request = urllib.request.Request(
            f"http://127.0.0.1:{server.port}/api/games",
            data=json.dumps({"opponent": "mcts:10000000", "side": "second"}).encode(),  # the agent moves first
            method="POST",
            headers={"X-Play-Token": server.token},
        )
        with urllib.request.urlopen(request, timeout=HANG_GUARD_S) as answer:
            assert answer.status == 201
        wait_for_search(before)
        abandoned = list(set(session_workers()) - before)
    finally:
        server.close()
    assert_idle_within_a_second(abandoned)


def test_a_time_limit_stops_the_block_and_leaves_the_callers_signal_alone():
    from gym_boardgames.cancel import time_limit

    outer = CancelSignal()
    with cancellable(outer):
        with time_limit(0.05), pytest.raises(Cancelled):
            while True:  # a search that would never end, checking as the package's searches do
                check_cancelled()
                time.sleep(0.001)
        check_cancelled()  # the caller's own signal was not cancelled
        with time_limit(600) as inner:
            outer.cancel()  # the caller's cancel reaches the block at once
            assert inner.cancelled
