"""gym_boardgames.human.session: the game flow the window and the page share, without any display.

Workers are waited for with events and joins, never with a deadline but the hang guard.
"""

import threading

import numpy as np
import pytest

pytest.importorskip("pygame")

from agents.hints import EXACT, SEARCH_ESTIMATE, HintLabels  # noqa: E402
from gym_boardgames.envs import ConnectNEnv, DotsAndBoxesEnv, TicTacToeEnv  # noqa: E402
from gym_boardgames.human.session import NETWORK_ESTIMATE, PlaySession  # noqa: E402

HANG_GUARD_S = 600


class Lowest:
    def act(self, game, state):
        return game.legal_actions(state)[0]


class Network(Lowest):
    """A network-like opponent, as AlphaZero's agent: hints add its priors and a message with its value."""

    def evaluate(self, game, states):
        n = game.num_actions
        return np.full((1, n), 1 / n), np.array([0.25])


class Gated(Lowest):
    def __init__(self):
        self.release, self.started = threading.Event(), threading.Event()

    def act(self, game, state):
        self.started.set()
        assert self.release.wait(HANG_GUARD_S)
        return super().act(game, state)


def settle(session):
    """Wait until no agent reply or hint is being computed."""
    for _ in range(HANG_GUARD_S * 100):
        if not session.thinking and not session._hints_pending:
            return
        session.wait_for_change(session.version, 0.01)
    raise AssertionError("a worker never finished")


def play(session, cell):
    session.click(session.view.cell_rect(cell).center)
    settle(session)


def test_the_result_is_shown_even_with_the_hints_message_on():
    session = PlaySession(TicTacToeEnv(opponent=None), Network())
    session.toggle_hints()
    settle(session)
    for cell in (4, 2, 6):  # the agent answers 0 and 1; 2-4-6 completes the diagonal
        play(session, cell)
    session.say("network: value +0.25 for you; % = its prior for each move", seconds=600)
    assert session.env.episode_over
    assert session.status().startswith("You win! - ")
    assert "network: value" in session.status()  # beside the result, not instead of it


def test_a_click_after_the_end_keeps_the_result():
    session = PlaySession(TicTacToeEnv(opponent=None), Lowest())
    for cell in (4, 2, 6):
        play(session, cell)
    session.click(session.view.cell_rect(8).center)
    assert session.status().startswith("You win!") and "R starts a new one" in session.status()


class FakeClock:
    """The session's clock, moved by the test: a busy machine cannot make the seconds it shows drift."""

    now = 100.0

    @classmethod
    def monotonic(cls):
        return cls.now

    perf_counter = staticmethod(__import__("time").perf_counter)


def test_the_session_says_how_long_the_agent_has_thought_and_the_status_stays_one_line(monkeypatch):
    from gym_boardgames.human import session as play_session

    monkeypatch.setattr(play_session, "time", FakeClock)
    gated = Gated()
    session = PlaySession(TicTacToeEnv(opponent=None), gated, side=1)
    assert gated.started.wait(HANG_GUARD_S)
    assert session.thinking and session.status() == "the agent is thinking..." and session.thinking_seconds == 0
    version = session.version
    FakeClock.now += 7.25  # as if it had thought for 7 s: the front ends count, the session changes nothing
    assert session.status() == "the agent is thinking..." and session.thinking_seconds == 7.25
    assert session.version == version
    session.click(session.view.cell_rect(0).center)
    assert session.status() == "wait: the agent is thinking"
    gated.release.set()
    settle(session)
    assert session.env.moves == [(0, 0)] and session.agent_moves == 1 and session.last_think_seconds >= 0


class Broken:
    def act(self, game, state):
        raise RuntimeError("boom")


@pytest.mark.parametrize(
    "agent, failure",
    [
        (Broken(), "the game stopped: agent Broken: its act() raised RuntimeError: boom"),
        (
            lambda game, state: 99,
            "the game stopped: agent <lambda> played 99, which is not an integer in 0..8",
        ),
        (
            lambda game, state: True,  # the arena's and the env's refusal, word for word (tests/test_checks.py)
            "the game stopped: agent <lambda> played True, which is not an integer in 0..8",
        ),
    ],
)
def test_an_agent_that_fails_ends_the_game_until_a_restart(monkeypatch, agent, failure):
    from gym_boardgames.human import session as play_session

    monkeypatch.setattr(play_session, "time", FakeClock)
    session = PlaySession(TicTacToeEnv(opponent=None), agent, side=1)
    settle(session)
    assert session.over and not session.human_to_move and session.status() == failure
    session.click(session.view.cell_rect(4).center)
    assert session.env.moves == [] and session.status() == f"{failure} (the game is over: R starts a new one)"
    FakeClock.now += 600  # long after any message: the status still says why nothing can be played
    assert session.status() == failure
    session.swap()  # the person opens now: a new game, and the failure is gone
    assert not session.over and session.status() == "your move (X)"


def test_a_reply_that_arrives_after_a_restart_is_dropped():
    gated = Gated()
    running = set(threading.enumerate())
    session = PlaySession(TicTacToeEnv(opponent=None), gated, side=1)
    assert gated.started.wait(HANG_GUARD_S)
    (worker,) = set(threading.enumerate()) - running
    session.swap()  # the human now opens; the old worker's reply belongs to a game that is gone
    before = session.version
    gated.release.set()
    worker.join(HANG_GUARD_S)
    assert not worker.is_alive() and session.version == before  # it finished, and changed nothing
    assert session.env.moves == [] and session.side == 0 and not session.thinking


def test_both_sides_take_turns_and_undo_takes_back_one_move():
    session = PlaySession(ConnectNEnv(opponent=None), None)
    assert session.both_sides and session.status() == "Red to move"
    for column in (0, 1, 0, 1, 0, 1):
        session.click(session.view.cell_rect(column).center)
    assert session.status() == "Red to move" and session.agent_moves == 0
    session.undo()
    assert len(session.env.moves) == 5 and session.status() == "Yellow to move"
    session.click(session.view.cell_rect(1).center)
    session.click(session.view.cell_rect(0).center)  # four in column 0
    assert session.env.episode_over and session.status().startswith("Red wins")


def test_dots_status_counts_boxes_for_the_mover():
    session = PlaySession(DotsAndBoxesEnv(1, 1, opponent=None), None)
    assert session.status() == "Blue to move - you 0, other 0"


def test_wait_for_change_wakes_on_a_move():
    session = PlaySession(TicTacToeEnv(opponent=None), None)
    before = session.version
    threading.Timer(0.05, lambda: session.click(session.view.cell_rect(4).center)).start()
    assert session.wait_for_change(before, HANG_GUARD_S) > before


def test_hints_without_a_provider_are_unknown_and_a_network_adds_its_priors():
    session = PlaySession(TicTacToeEnv(opponent=None), Network())
    session.toggle_hints()
    settle(session)
    assert session.hints == {a: "? 11%" for a in range(9)}


def provider(source, label="draw"):
    """A hint provider that labels every move ``label`` and says the labels are ``source``."""
    return lambda game, state, player: HintLabels(dict.fromkeys(game.legal_actions(state), label), source)


def test_the_status_names_how_the_hints_were_found():
    session = PlaySession(ConnectNEnv(opponent=None), Lowest(), hints=provider(EXACT, "win in 21"))
    assert session.hint_source == ""
    session.toggle_hints()
    settle(session)
    assert session.hints == dict.fromkeys(range(7), "win in 21") and type(session.hints) is dict
    assert session.hint_source == EXACT and session.status() == "your move (Red) - hints: exact"
    session.toggle_hints()  # hidden hints name no source
    assert session.status() == "hints off"
    session.message_until = 0.0
    assert session.status() == "your move (Red)"


def test_a_move_clears_the_source_until_the_next_hints_arrive():
    session = PlaySession(ConnectNEnv(opponent=None), Gated(), hints=provider(SEARCH_ESTIMATE, "?"))
    session.toggle_hints()
    settle(session)
    assert session.hint_source == SEARCH_ESTIMATE
    session.click(session.view.cell_rect(3).center)  # the agent thinks until released: no hints meanwhile
    assert session.agent.agent.started.wait(HANG_GUARD_S)
    assert session.hints == {} and session.hint_source == "" and "hints:" not in session.status()
    session.agent.agent.release.set()
    settle(session)
    assert session.hint_source == SEARCH_ESTIMATE and session.status().endswith(" - hints: search estimate")


def test_a_network_turns_estimated_hints_into_its_estimate_and_keeps_exact_ones_exact():
    searched = PlaySession(ConnectNEnv(opponent=None), Network(), hints=provider(SEARCH_ESTIMATE, "?"))
    searched.toggle_hints()
    settle(searched)
    assert searched.hint_source == NETWORK_ESTIMATE and searched.hints[0] == "? 14%"
    assert searched.status().startswith("hints: network estimate; network: value +0.25 for you")
    exact = PlaySession(ConnectNEnv(opponent=None), Network(), hints=provider(EXACT, "loss in 20"))
    exact.toggle_hints()
    settle(exact)
    assert exact.hint_source == EXACT and exact.hints[0] == "loss in 20 14%"
    assert exact.status().startswith("hints: exact; network: value +0.25 for you")


def test_a_provider_of_a_plain_dict_names_no_source():
    session = PlaySession(TicTacToeEnv(opponent=None), Lowest(), hints=lambda game, state, player: {4: "win"})
    session.toggle_hints()
    settle(session)
    assert session.hints == {4: "win"} and session.hint_source == "" and session.status() == "your move (X)"


def test_a_message_belongs_to_its_position_a_reply_an_undo_or_a_restart_clears_it(monkeypatch):
    from gym_boardgames.human import session as play_session

    monkeypatch.setattr(play_session, "time", FakeClock)  # frozen: no message runs out of time here
    session = PlaySession(TicTacToeEnv(opponent=None), Lowest())
    play(session, 8)  # the agent answers 0
    play(session, 5)  # the agent answers 1
    session.click(session.view.cell_rect(0).center)
    assert session.status() == "that cell is taken"
    play(session, 6)  # the agent answers 2: the top row, and the game
    assert session.status() == "You lose - O wins"  # not "(that cell is taken)": that was the last position's
    session.click(session.view.cell_rect(7).center)
    assert session.status() == "You lose - O wins (the game is over: R starts a new one)"
    session.restart()
    assert session.status() == "your move (X)"  # the fresh board is not "over"
    play(session, 8)
    session.click(session.view.cell_rect(0).center)
    session.undo()
    assert session.status() == "your move (X)"


def test_play_takes_a_legal_move_by_its_action_and_refuses_the_rest_in_the_status():
    session = PlaySession(TicTacToeEnv(opponent=None), Lowest(), side=0)
    session.play(4)
    settle(session)
    assert [action for _, action in session.env.moves] == [4, 0]  # the agent replied with the lowest cell
    session.play(4)
    assert session.status() == "4 is not a legal move here"
    assert not session.hints_pending


def test_a_draw_is_said_once_in_the_status_line_of_every_front_end():
    session = PlaySession(TicTacToeEnv(opponent=None), Lowest(), side=0)
    session.restart([0, 1, 2, 4, 3, 5, 7, 6, 8])  # a drawn game
    assert session.over and session.status() == "Draw"
    session.close()


def test_stopped_hints_are_hidden_and_the_game_goes_on():
    stopped = threading.Event()

    def endless_hints(game, state, player):
        from gym_boardgames.cancel import Cancelled, check_cancelled

        try:
            while True:
                check_cancelled()
                stopped.wait(0.01)
        except Cancelled:
            stopped.set()
            raise

    session = PlaySession(TicTacToeEnv(opponent=None), Lowest(), side=0, hints=endless_hints)
    session.toggle_hints()
    assert session.hints_pending
    session.stop_hints()
    assert stopped.wait(HANG_GUARD_S) and not session.show_hints and not session.hints_pending
    assert session.status() == "hints stopped: h shows them again"
    session.play(4)
    session.close()


class _Counted:
    """Counts the text measures of every font the status bar loads (see tests/render/test_long_status_line.py)."""

    def __init__(self, face, counts):
        self._face, self._counts = face, counts

    def size(self, text):
        self._counts.append(len(text))
        return self._face.size(text)

    def __getattr__(self, name):
        return getattr(self._face, name)


class LongMove:
    def act(self, game, state):
        return "a" * 30_000


class LongError:
    def act(self, game, state):
        raise ValueError("m " * 15_000)


@pytest.mark.parametrize(
    "agent, ending",
    [
        (LongMove(), "... (30,002 characters), which is not an integer in 0..8"),
        (LongError(), "... (29,999 characters)"),
    ],
    ids=["a 30,000-character move", "a 30,000-character exception"],
)
def test_an_agents_30000_character_move_or_message_shows_a_bounded_status_line_drawn_at_once(
    monkeypatch, agent, ending
):
    """Once the status line held all 30,000 characters, and drawing it took over a minute (quadratic cutting)."""
    from gym_boardgames.render import primitives

    session = PlaySession(TicTacToeEnv(opponent=None), agent, side=1)
    settle(session)
    status = session.status()
    assert session.over and status.startswith(f"the game stopped: agent {type(agent).__name__}")
    assert status.endswith(ending) and len(status) < 400
    measures = []
    real = primitives.font
    monkeypatch.setattr(primitives, "font", lambda size, bold=False: _Counted(real(size, bold), measures))
    assert session.png().startswith(b"\x89PNG")  # what the page and the widget show
    assert len(measures) < 100 and sum(measures) < 100 * len(status)


def test_a_hint_providers_long_failure_is_shown_cut(monkeypatch):
    from gym_boardgames.human import session as play_session

    monkeypatch.setattr(play_session, "time", FakeClock)  # the message lasts 10 s: a busy machine cannot end it

    def failing(game, state, player):
        raise RuntimeError("h" * 30_000)

    session = PlaySession(TicTacToeEnv(opponent=None), Lowest(), side=0, hints=failing)
    session.toggle_hints()
    settle(session)
    status = session.status()
    assert status.startswith("the hints failed: RuntimeError('hhh") and status.endswith("(30,016 characters)")
    assert len(status) < 400
    session.close()
