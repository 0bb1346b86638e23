"""``scripts/play.py GAME --terminal``: whole games typed on a real pseudo-terminal, as a person over SSH types them.

Each script test runs the script on a pseudo-terminal of its own (``pty.fork``: the script's controlling
terminal, so Ctrl-C and Ctrl-D are the characters a person types), reads the board it prints and types the
next move. Reads wait up to :data:`HANG_GUARD_S`, a guard against a hang, never a measure of speed.
"""

from __future__ import annotations

import io
import os
import pty
import re
import select
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parents[1] / "scripts"))  # importlib import mode: the scripts tests' helper
from script_helpers import ROOT, run_script  # noqa: E402

pytestmark = pytest.mark.skipif(not hasattr(os, "fork"), reason="a pseudo-terminal needs fork (POSIX)")

HANG_GUARD_S = 600
# The prompt of a move, and the one after a game ends; the script waits for a line after each.
PROMPT = re.compile(r"(\n> |\(r/q\) )\Z")
COMMANDS = "h(ints), u(ndo), r(estart), s(wap), q(uit), ?(help)"
# The result line: the verdict and the env's line, or the env's own line of a draw (said once: "Draw").
RESULT = re.compile(r"^(You win! - .+|You lose - .+|Draw.*)$", re.MULTILINE)
#: A bound that only a hang, a blocking call or a quadratic parse exceeds: the issue measured 118 s and 12 s.
BLOCKED_S = 30


class Terminal:
    """A command run on a new pseudo-terminal: read what it prints, type lines, and get its exit status."""

    def __init__(self, argv: list[str]) -> None:
        env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])}
        self.pid, self.fd = pty.fork()
        if self.pid == 0:  # the child: become the command at once (it has the terminal as stdin, stdout, stderr)
            try:
                os.chdir(ROOT)
                signal.signal(signal.SIGINT, signal.SIG_DFL)  # Ctrl-C must interrupt it, even under nohup
                os.execve(sys.executable, [sys.executable, *argv], env)
            finally:
                os._exit(127)
        self.text, self.read_up_to = "", 0

    def _read(self) -> bool:
        """Read what the command printed so far into :attr:`text`; False once it has closed the terminal."""
        ready, _, _ = select.select([self.fd], [], [], HANG_GUARD_S)
        assert ready, f"nothing printed in {HANG_GUARD_S} s; so far:\n{self.text}"
        try:
            chunk = os.read(self.fd, 4096)
        except OSError:  # EIO: every end of the terminal the command held is closed
            return False
        self.text += chunk.decode().replace("\r\n", "\n")  # the terminal turns each newline into \r\n
        return bool(chunk)

    def screen(self) -> str:
        """Return what the command printed since the last prompt, up to and including the next one."""
        while not PROMPT.search(self.text, self.read_up_to):
            assert self._read(), f"the script ended before its prompt:\n{self.text[self.read_up_to :]}"
        screen, self.read_up_to = self.text[self.read_up_to :], len(self.text)
        return screen

    def wait_for(self, text: str, seconds: float = HANG_GUARD_S) -> str:
        """Read until ``text`` is printed after the last screen; return what came since; fail after ``seconds``."""
        deadline = time.monotonic() + seconds
        while text not in self.text[self.read_up_to :]:
            left = deadline - time.monotonic()
            assert left > 0 and select.select([self.fd], [], [], left)[0], f"no {text!r} in {seconds} s:\n{self.text}"
            assert self._read(), f"the script ended before {text!r}:\n{self.text[self.read_up_to :]}"
        end = self.text.index(text, self.read_up_to) + len(text)
        screen, self.read_up_to = self.text[self.read_up_to : end], end
        return screen

    def type(self, keys: str) -> None:
        """Type ``keys`` (end them with ``\\n`` for Enter)."""
        os.write(self.fd, keys.encode())

    def status(self) -> int:
        """Read to the end and return the command's exit status."""
        while self._read():
            pass
        os.close(self.fd)
        return os.waitstatus_to_exitcode(os.waitpid(self.pid, 0)[1])

    def kill(self) -> None:
        """Stop the command if it still runs (a failed test must not leave it behind)."""
        try:
            os.kill(self.pid, 9)
            os.waitpid(self.pid, 0)
        except (ProcessLookupError, ChildProcessError):
            pass


@pytest.fixture
def play():
    """Start ``scripts/play.py ARGS --terminal`` on a pseudo-terminal; every one started is stopped at the end."""
    started = []

    def start(*args: str) -> Terminal:
        started.append(Terminal([str(ROOT / "scripts" / "play.py"), *args, "--terminal"]))
        return started[-1]

    yield start
    for terminal in started:
        terminal.kill()


def answer(screen: str) -> list[str]:
    """The lines the script printed after the typed line was echoed, before the next prompt."""
    return screen.split("\n")[1:-1]


def board_rows(screen: str, margin: str) -> list[list[str]]:
    """The pieces of the last board on ``screen``, row by row (``margin`` matches a row's start)."""
    rows = re.findall(rf"^{margin}((?:[ \[].[ \]]\|)+[ \[].[ \]]) ?$", screen, re.MULTILINE)
    return [[cell.strip(" []") for cell in row.split("|")] for row in rows]


def first_free_cell(screen: str) -> str:
    """The first empty cell of the last tic-tac-toe board, as its labels name it (``a1``, ``b1``, ...)."""
    rows = board_rows(screen, r"\d ")[-3:]
    return next(f"{'abc'[c]}{r + 1}" for r in range(3) for c in range(3) if rows[r][c] == ".")


def pieces(screen: str, margin: str) -> int:
    """How many pieces the last board on ``screen`` holds (``margin`` as for :func:`board_rows`)."""
    rows = board_rows(screen, margin)
    return sum(cell != "." for row in rows[len(rows) - (3 if margin else 6) :] for cell in row)


def first_open_column(screen: str) -> str:
    """The first column of the last Connect Four board whose top cell is empty, by its number (1-7)."""
    top = board_rows(screen, "")[-6]
    return str(top.index(".") + 1)


@pytest.mark.slow  # subprocess runs
def test_a_whole_tictactoe_game_typed_against_alphabeta_with_a_bad_move_and_an_undo(play):
    game = play("tictactoe", "--opponent", "alphabeta")
    screen = game.screen()
    assert "Tic-tac-toe: you play X against alphabeta" in screen and "   a   b   c" in screen
    game.type("z9\n")
    assert answer(game.screen()) == [f"z9 is off the board: type a cell a1-c3 (column letter, then row), or {COMMANDS}"]
    game.type("\n")  # Enter alone: the prompt again, nothing else
    assert answer(game.screen()) == []
    game.type("?\n")
    words = [line.split()[0] for line in answer(game.screen())[1:]]
    assert words == ["h", "u", "r", "s", "q", "?", "Ctrl-C"]
    game.type("a1\n")
    screen = game.screen()
    assert "alphabeta played " in screen and board_rows(screen, r"\d ")[0][0] == "X"
    game.type("u\n")  # back to the empty board: the agent's reply is taken back too
    screen = game.screen()
    assert board_rows(screen, r"\d ") == [["."] * 3] * 3 and screen.rstrip().endswith("your move (X)\n>")
    while not screen.endswith("(r/q) "):
        game.type(first_free_cell(screen) + "\n")
        screen = game.screen()
    # Perfect play beats "always the first free cell".
    assert RESULT.findall(screen) and "You lose - O wins" in screen
    game.type("a3\n")
    assert answer(game.screen()) == ['"a3": the game is over: type r(estart) for another, u(ndo), or q(uit)']
    game.type("q\n")
    assert game.status() == 0 and game.text.rstrip().endswith("goodbye")


@pytest.mark.slow  # subprocess runs
def test_a_whole_connect_four_game_typed_against_a_seeded_agent_then_ctrl_d(play):
    game = play("connectfour", "--opponent", "random", "--seed", "3", "--side", "second")
    screen = game.screen()
    assert " 1   2   3   4   5   6   7" in screen and "random played " in screen  # it opened: we play second
    game.type("8\n")
    assert answer(game.screen()) == [f"there is no column 8: type a column 1-7, or {COMMANDS}"]
    moves = 0
    while not screen.endswith("(r/q) "):
        game.type(first_open_column(screen) + "\n")
        screen = game.screen()
        moves += 1
        if moves == 2:
            game.type("undo\n")
            undone = game.screen()
            assert pieces(undone, "") == pieces(screen, "") - 2  # the person's last move and the reply after it
            screen = undone
    assert RESULT.findall(screen), screen
    game.type("r\n")  # a new game: the agent opens again
    assert "random played " in game.screen()
    game.type("\x04")  # Ctrl-D at the prompt: the end of the input
    assert game.status() == 0 and game.text.rstrip().endswith("end of input: goodbye")
    assert "Traceback" not in game.text


@pytest.mark.slow  # subprocess runs
def test_a_dots_and_boxes_game_typed_as_edges_with_the_hints_shown(play):
    game = play("dotsandboxes", "--rows", "2", "--cols", "2", "--opponent", "alphabeta")
    screen = game.screen()
    assert screen.count("\n1 +   +   +") == 1 and "  a   b   c" in screen
    game.type("a1c1\n")
    assert answer(game.screen()) == [
        f"a1 and c1 are not neighbouring dots: type an edge: two neighbouring dots a1-c3, as a1b1 or a1a2, or "
        f"{COMMANDS}"
    ]
    game.type("h\n")
    screen = game.screen()
    hints = re.findall(r"^hints: (.+)$", screen, re.MULTILINE)
    # Every edge of the empty 2x2 board, each with its exact result (the table of agents.hints).
    assert hints and len(hints[-1].split(", ")) == 12 and "- hints: exact" in screen
    assert all(re.fullmatch(r"[a-c][1-3][a-c][1-3] (win|draw|loss)", hint) for hint in hints[-1].split(", "))
    while not screen.endswith("(r/q) "):
        edge = re.findall(r"^hints: ([a-c][1-3][a-c][1-3]) ", screen, re.MULTILINE)[-1]  # the first legal edge
        game.type(edge + "\n")
        screen = game.screen()
        assert re.search(r"\*\*\*|\*", screen)  # the last edge drawn is starred
    assert "alphabeta played " in game.text and RESULT.findall(screen), screen
    assert re.search(r"^(You win! - |You lose - |Draw).*\(\d-\d\)$", screen, re.MULTILINE)  # the boxes' score
    game.type("quit\n")
    assert game.status() == 0


@pytest.mark.slow  # a subprocess run
def test_ctrl_c_at_the_prompt_is_one_line_and_status_130(play):
    game = play("tictactoe", "--opponent", "alphabeta")
    game.screen()
    game.type("\x03")
    assert game.status() == 130
    assert game.text.rstrip().splitlines()[-1] == "play.py: interrupted" and "Traceback" not in game.text


@pytest.mark.slow  # a subprocess run
@pytest.mark.slow  # a subprocess run
def test_hints_on_the_docs_9x9_five_in_a_row_board_come_back_within_their_budget(play):
    from agents.hints import HINT_SECONDS

    # The doc's own example, where `h` blocked the game for 118 s (a 4-ply search of each of 81 cells).
    game = play("connectn", "--rows", "9", "--cols", "9", "--n", "5", "--no-gravity", "--opponent", "alphabeta:2")
    game.screen()
    start = time.monotonic()
    game.type("h\n")
    screen = game.screen()
    assert time.monotonic() - start < HINT_SECONDS + BLOCKED_S, screen
    hints = re.findall(r"^hints: (.+)$", screen, re.MULTILINE)
    assert hints and len(hints[-1].split(", ")) == 81 and "- hints: search estimate" in screen
    game.type("e5\n")  # the game goes on, hints and all
    assert "alphabeta:2 played " in game.screen()
    game.type("q\n")
    assert game.status() == 0


@pytest.mark.slow  # a subprocess run
def test_a_line_typed_while_the_agent_thinks_is_answered_and_q_quits_at_once(play):
    from gym_boardgames.human.terminal import BUSY_NOTE

    # An agent that would think for hours: it opens, so it thinks from the start.
    game = play("connectfour", "--opponent", "mcts:10000000", "--side", "second")
    game.wait_for("; ? for help.\n")
    game.type("4\n")
    game.wait_for(BUSY_NOTE, BLOCKED_S)  # answered at once, not queued without a word
    game.type("h\n")
    game.wait_for(BUSY_NOTE, BLOCKED_S)
    game.type("q\n")
    game.wait_for("goodbye", BLOCKED_S)
    assert game.status() == 0 and "Traceback" not in game.text


@pytest.mark.slow  # subprocess runs
def test_an_over_long_line_is_refused_in_one_line_without_parsing_it():
    # 1,000,000 letters: read in linear time and refused (the cell parser took 12 s on 250,000, quadratically).
    start = time.monotonic()
    result = run_script(
        "play", "tictactoe", "--terminal", env=_env(), input="a" * 1_000_000 + "1\nb2\nq\n", timeout=HANG_GUARD_S
    )
    assert time.monotonic() - start < BLOCKED_S
    assert result.returncode == 0 and result.stderr == ""
    refused = [line for line in result.stdout.splitlines() if "characters" in line]
    assert refused == [
        f"> that line is over 200 characters: type a cell a1-c3 (column letter, then row), or {COMMANDS}"
    ]
    assert "alphabeta played " in result.stdout  # the next line is a move again


@pytest.mark.slow  # a subprocess run
def test_a_closed_output_ends_the_game_quietly():
    # `play.py tictactoe --terminal | head -3`: the reader goes away while the game still has lines to answer.
    process = subprocess.Popen(
        [sys.executable, str(ROOT / "scripts" / "play.py"), "tictactoe", "--terminal"],
        cwd=ROOT, env=_env(), stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
    )  # fmt: skip
    try:
        process.stdin.write(b"?\n" * 2000 + b"q\n")
        process.stdin.close()
        for _ in range(3):
            process.stdout.readline()
        process.stdout.close()
        stderr = process.stderr.read().decode()
        assert process.wait(HANG_GUARD_S) == 141, stderr
    finally:
        process.kill()
        process.wait()
    assert stderr == ""


def test_the_terminal_game_never_imports_pygame():
    # The script itself, with its hints and its agent, run by a wrapper that reports what was imported.
    code = (
        "import runpy, sys\n"
        f"sys.argv = ['play.py', 'tictactoe', '--opponent', 'alphabeta', '--terminal']\n"
        "try:\n"
        f"    runpy.run_path({str(ROOT / 'scripts' / 'play.py')!r}, run_name='__main__')\n"
        "finally:\n"
        "    print('pygame imported:', 'pygame' in sys.modules)\n"
    )
    terminal = Terminal(["-c", code])
    try:
        screen = terminal.screen()
        terminal.type("h\n")
        assert "hints: " in terminal.screen()
        terminal.type("b2\n")
        assert "played" in terminal.screen()
        terminal.type("q\n")
        assert terminal.status() == 0
    finally:
        terminal.kill()
    assert "   a   b   c" in screen and "pygame imported: False" in terminal.text


def test_terminal_refuses_the_window_and_page_flags_in_one_line():
    # No input: were a flag let through, the game would read the end of the input and exit 0.
    result = run_script("play", "tictactoe", "--terminal", "--web", env=_env(), stdin=subprocess.DEVNULL)
    assert result.returncode == 2 and result.stderr.strip().splitlines() == [
        "play.py: error: --terminal plays in this terminal, so it takes no --web (the page's or the window's)"
    ]
    result = run_script(
        "play", "tictactoe", "--terminal", "--screenshot", "x.png", env=_env(), stdin=subprocess.DEVNULL
    )
    assert result.returncode == 2 and "takes no --screenshot" in result.stderr


def _env() -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])}


# ---- the loop itself, in this process ------------------------------------------------------------------------


class Gated:
    """An agent that plays the first legal move once released: its reply takes as long as the test wants."""

    def __init__(self) -> None:
        self.release = threading.Event()

    def act(self, game, state):
        assert self.release.wait(HANG_GUARD_S)
        return game.legal_actions(state)[0]


class Watching(io.StringIO):
    """Output that releases the gated agent once the terminal has said it is thinking."""

    def __init__(self, agent: Gated) -> None:
        super().__init__()
        self.agent = agent

    def write(self, text: str) -> int:
        if "the agent is thinking..." in text:
            self.agent.release.set()
        return super().write(text)


def test_a_slow_reply_is_announced_once_then_the_board_follows(monkeypatch):
    import gym_boardgames.human.terminal as terminal
    from gym_boardgames.envs import env_for_game
    from gym_boardgames.human.session import PlaySession
    from gym_boardgames.rules import ConnectN

    # Said at the first short wait: the test reads no clock (a wait of 0 would spin until the agent replies).
    monkeypatch.setattr(terminal, "NOTICE_SECONDS", 0.01)
    agent = Gated()
    session = PlaySession(env_for_game(ConnectN(), opponent=None), agent, side=1)
    output = Watching(agent)
    assert terminal.play_in_terminal(session, io.StringIO("q\n"), output) == 0
    text = output.getvalue()
    assert text.count("the agent is thinking...") == 1
    assert text.index("the agent is thinking...") < text.index("Gated played 1") < text.index("goodbye")


class Never:
    """An agent for games that need no reply from it."""

    def act(self, game, state):
        raise AssertionError("the agent is not asked in this test")


def test_a_draw_is_said_once():
    from gym_boardgames.envs import env_for_game
    from gym_boardgames.human.session import PlaySession
    from gym_boardgames.human.terminal import play_in_terminal
    from gym_boardgames.rules import TicTacToe

    session = PlaySession(env_for_game(TicTacToe(), opponent=None), Never())
    session.restart([0, 1, 2, 4, 3, 5, 7, 6, 8])  # a drawn game
    output = io.StringIO()
    assert play_in_terminal(session, io.StringIO("q\n"), output) == 0
    assert "\nDraw\n" in output.getvalue() and "Draw - " not in output.getvalue()


def test_ctrl_c_while_the_hints_are_computed_stops_them_and_the_game_goes_on(monkeypatch):
    import gym_boardgames.human.terminal as terminal
    from gym_boardgames.cancel import check_cancelled
    from gym_boardgames.envs import env_for_game
    from gym_boardgames.human.session import SOLVING, PlaySession
    from gym_boardgames.rules import TicTacToe

    def endless_hints(game, state, player):  # hints that never finish, but stop when cancelled
        while True:
            check_cancelled()
            time.sleep(0.01)

    class CtrlC(io.StringIO):
        """Output that types Ctrl-C (SIGINT to this process) once the terminal says the hints take a while."""

        def write(self, text):
            if SOLVING in text:
                threading.Timer(0.2, os.kill, (os.getpid(), signal.SIGINT)).start()
            return super().write(text)

    monkeypatch.setattr(terminal, "NOTICE_SECONDS", 0.01)
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)  # the suite may run with SIGINT ignored
    try:
        session = PlaySession(env_for_game(TicTacToe(), opponent=None), Never(), hints=endless_hints)
        output = CtrlC()
        try:
            assert terminal.play_in_terminal(session, io.StringIO("h\nq\n"), output) == 0
        except KeyboardInterrupt:
            pytest.fail(f"Ctrl-C during the hints ended the game:\n{output.getvalue()}")
    finally:
        signal.signal(signal.SIGINT, previous)
    text = output.getvalue()
    assert text.index(SOLVING) < text.index("hints stopped: h shows them again") < text.index("goodbye")
