"""Play a board game against an agent by typing moves in a terminal: over SSH, without pygame or a browser.

:func:`play_in_terminal` prints the board as the ``ansi`` text draws it, with the labels a person types: a
column number on gravity boards, a cell such as ``b2`` on the others, and in Dots and Boxes an edge as the two
dots it joins (``a1b1``). A typed move is read back by the same module that drew the labels
(:func:`gym_boardgames.render.text.move_labels`). The game itself, the agent's worker thread, the hints, undo,
a new game and the status line with the result are :class:`~gym_boardgames.human.session.PlaySession`'s, as in
the window and the browser page; this module reads lines and prints text. ``scripts/play.py GAME --terminal``
runs it.

The person is never kept waiting without a word. At a terminal (an input that is a tty) the lines are read
as they are typed, also while the agent thinks: ``q`` (or Ctrl-D) then quits at once, and anything else is
answered with :data:`BUSY_NOTE`. Piped input is a script of lines, read in order after each reply. The hints
have a time budget (:data:`agents.hints.HINT_SECONDS`), and Ctrl-C while they are computed stops them, not
the game. A line longer than :data:`MAX_LINE` characters is refused unread, and a closed output (``| head``)
ends the game quietly with :data:`EXIT_BROKEN_PIPE`.
"""

from __future__ import annotations

import os
import queue
import sys
import threading
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, TextIO

from gym_boardgames.human.session import COMMANDS, SOLVING, THINKING, PlaySession
from gym_boardgames.render.board import board_text
from gym_boardgames.render.text import MoveLabels, move_labels

if TYPE_CHECKING:
    from gym_boardgames.human.table import Table

#: How long the agent's reply or the hints may take before the terminal says what it waits for, in seconds.
NOTICE_SECONDS = 1.0
#: How often the terminal looks for a typed line while the agent thinks, in seconds.
POLL_SECONDS = 0.05
#: The answer to a line typed while the agent thinks (``q`` quits at once instead).
BUSY_NOTE = "thinking: q quits; type moves and h after its reply"
#: The longest line read, in characters: a move or a command is a few; longer ones are refused unread.
MAX_LINE = 200
#: The exit status when the output is closed before the game ends (``| head``): 128 + SIGPIPE, as a shell's.
EXIT_BROKEN_PIPE = 141
#: The words typed, as the word or its key: the session's :data:`~gym_boardgames.human.session.COMMANDS`, then
#: the terminal's own two.
WORDS = {**{command.name: command.key for command in COMMANDS}, "quit": "q", "help": "?"}
SHORT_HELP = ", ".join(f"{key}({word[1:]})" if word[0] == key else f"{key}({word})" for word, key in WORDS.items())
HELP = "\n".join(
    [
        "Type a move as the board labels it: {choices}. Commands, as a word or its letter:",
        *(f"  {command.key} {command.name:<8} {command.help}" for command in COMMANDS),
        "  q quit     stop playing (Ctrl-D too), also while the agent thinks",
        "  ? help     this help",
        "  Ctrl-C     stops the hints being computed; anywhere else it ends the program",
    ]
)


def open_terminal(table: Table, *, input: TextIO | None = None, output: TextIO | None = None) -> int:
    """Play ``table``'s game by typed lines (``gym_boardgames.play(ui="terminal")``): :func:`play_in_terminal`."""
    return play_in_terminal(table.session(), input, output)


def play_in_terminal(session: PlaySession, input: TextIO | None = None, output: TextIO | None = None) -> int:
    """Play ``session``'s game with typed lines until the person quits or the input ends.

    After each change the board is printed (the agent's moves named above it, the status line under it, the
    hints after it when shown). A line that is neither a move nor a command is answered in one line naming
    the problem and what is valid. When a game ends its status line gives the result, and the prompt offers a
    new game or quit. At a terminal, a line typed while the agent thinks is answered at once (``q`` quits).

    Args:
        session: the game: its env, its agent (which replies in a worker thread), the person's side, the hints.
        input: where the person's lines come from (default ``sys.stdin``).
        output: where the board and the answers go (default ``sys.stdout``).

    Returns:
        the exit status: 0 when the person quits or the input ends (Ctrl-D); :data:`EXIT_BROKEN_PIPE` when the
        output was closed. Ctrl-C raises ``KeyboardInterrupt`` (except while hints are computed: it stops
        them), as everywhere in the scripts (``plumbing.cli.run``, in ``scripts/plumbing/``, makes it one line).
    """
    input = sys.stdin if input is None else input
    output = sys.stdout if output is None else output
    game, env, labels = session.game, session.env, move_labels(session.game)
    lines = _Lines(input)

    def say(text: str, end: str = "\n") -> None:
        output.write(text + end)
        output.flush()

    you = "both sides" if session.both_sides else f"{env.player_names[session.side]} against {session.name}"
    shown: list[tuple[int, int]] = []  # the moves of the last board printed, to name the agent's new ones
    show = True
    try:
        say(f"{env.window_title}: you play {you}. Type {labels.choices(game)}; ? for help.")
        while True:
            if _wait(session, say, lines):
                say("goodbye")
                return 0
            with session.lock:  # one moment of the game: the board, its status line and the hints agree
                over, moves = session.over, list(env.moves)
                board = _board(session, labels, shown) if show else ""
            if show:
                say(board)
                shown = moves
            say("restart or quit? (r/q) " if over else "> ", end="")
            line = lines.get()
            if line is None:
                say("\nend of input: goodbye")
                return 0
            if len(line) > MAX_LINE:
                say(f"that line is over {MAX_LINE} characters: type {labels.choices(game)}, or {SHORT_HELP}")
                show = False
                continue
            word = line.strip().lower()
            command = _command(word)
            show = command not in ("help", "")
            if not word:  # Enter alone asks again, as a shell does
                continue
            if command == "quit":
                say("goodbye")
                return 0
            if command == "help":
                say(HELP.format(choices=labels.choices(game)))
            elif command:
                session.command(command)
                shown = (
                    [] if command in ("restart", "swap") else shown
                )  # a new game's first board names the agent's opening
            elif over:
                say(f'"{line.strip()}": the game is over: type r(estart) for another, u(ndo), or q(uit)')
            else:
                try:
                    action = labels.parse(game, line, env.state)
                except ValueError as error:
                    say(f"{error}: type {labels.choices(game)}, or {SHORT_HELP}")
                    continue
                session.play(action)
                show = True
    except BrokenPipeError:  # the reader of the output is gone (`| head`): nobody to tell, so end quietly
        _drop_output(output)
        return EXIT_BROKEN_PIPE
    except KeyboardInterrupt:
        say("")  # Ctrl-C at the prompt: the script's one line goes under it, not after it
        raise
    finally:
        session.close()


def _command(word: str) -> str:
    """The command a typed word names (``"help"`` for ``?``), or ``""``."""
    return next((name for name, key in WORDS.items() if word and word in (name, key)), "")


class _Lines:
    """The person's lines, each at most :data:`MAX_LINE` characters read (a longer one comes back too long).

    At a terminal a thread reads them as they are typed, so that :meth:`typed` sees a line while the agent
    thinks; piped input is read in order when :meth:`get` asks, as a script's lines are meant.
    """

    def __init__(self, stream: TextIO) -> None:
        self.stream = stream
        try:
            self.live = stream.isatty()
        except (AttributeError, ValueError, OSError):  # a closed or plain stream: read it as a script
            self.live = False
        self._queue: queue.Queue[str | None] = queue.Queue()
        if self.live:
            threading.Thread(target=self._read_all, name="terminal input", daemon=True).start()

    def _read(self) -> str | None:
        """Read one line, or None at the end of the input; of a long line only MAX_LINE + 1 characters are kept."""
        line = self.stream.readline(MAX_LINE + 1)
        if not line:
            return None
        if len(line) > MAX_LINE and not line.endswith("\n"):  # skip the rest of the line, a chunk at a time
            while (rest := self.stream.readline(MAX_LINE + 1)) and not rest.endswith("\n"):
                pass
        return line

    def _read_all(self) -> None:
        while (line := self._read()) is not None:
            self._queue.put(line)
        self._queue.put(None)

    def get(self) -> str | None:
        """Return the next line, waiting for it; None at the end of the input."""
        return self._queue.get() if self.live else self._read()

    def typed(self) -> str | None:
        """Return a line typed so far and not yet taken, or ``""`` if none; None at the end of the input."""
        if not self.live:
            return ""
        try:
            return self._queue.get_nowait()
        except queue.Empty:
            return ""


def _wait(session: PlaySession, say: Callable[[str], None], lines: _Lines) -> bool:
    """Return when the agent has replied and the hints, if shown, are ready; say once what takes a while.

    Returns True if the person quit meanwhile (``q`` or Ctrl-D typed while the agent thinks). A line typed
    while the agent thinks is answered with :data:`BUSY_NOTE`; Ctrl-C while the hints are computed stops them.
    """
    said = ""
    start = time.monotonic()
    while True:
        try:
            with session.lock:
                version = session.version
                thinking, solving = session.thinking, session.show_hints and session.hints_pending
            busy = THINKING if thinking else SOLVING if solving else ""
            if not busy:
                return False
            if thinking:
                line = lines.typed()
                if line is None or _command(line.strip().lower()) == "quit":
                    return True
                if line.strip():
                    say(BUSY_NOTE)
            step = min(POLL_SECONDS, NOTICE_SECONDS) if lines.live else NOTICE_SECONDS
            session.wait_for_change(version, step)
            if time.monotonic() - start >= NOTICE_SECONDS and busy != said and session.version == version:
                say(busy)
                said = busy
        except KeyboardInterrupt:  # wherever in the loop it lands: what counts is whether hints are computed
            with session.lock:
                solving = session.show_hints and session.hints_pending and not session.thinking
            if not solving:
                raise
            session.stop_hints()  # Ctrl-C during the hints stops them (its status line says so); the game goes on


def _drop_output(output: TextIO) -> None:
    """Point a closed standard output at the null device, so the exit's flush does not complain of it."""
    try:
        os.dup2(os.open(os.devnull, os.O_WRONLY), output.fileno())
    except (AttributeError, ValueError, OSError):
        pass  # not a file (a StringIO) or already gone: nothing will be flushed to it


def _board(session: PlaySession, labels: MoveLabels, shown: list[tuple[int, int]]) -> str:
    """The board with its status line, the agent's moves since ``shown`` above it and the hints under it."""
    game, env = session.game, session.env
    moves = list(env.moves)
    new = moves[len(shown) :] if moves[: len(shown)] == shown else []
    played = [labels.label(game, action) for player, action in new if player != session.side]
    lines = [f"{session.name} played {', '.join(played)}"] if played else []
    lines.append(board_text(game, env.state, env.marks()._replace(status=session.status()), env.style).rstrip("\n"))
    if session.show_hints and session.human_to_move and session.hints:
        lines.append("hints: " + ", ".join(f"{labels.label(game, a)} {h}" for a, h in sorted(session.hints.items())))
    return "\n".join(lines)
