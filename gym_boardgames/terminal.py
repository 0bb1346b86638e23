"""Play a board game against an agent by typing moves in a terminal: over SSH, without pygame or a browser.

:func:`play_in_terminal` prints the board as the ``ansi`` text draws it, with the labels a person types: a
column number on gravity boards, a cell such as ``b2`` on the others, and in Dots and Boxes an edge as the two
dots it joins (``a1b1``). A typed move is read back by the same module that drew the labels
(:func:`gym_boardgames.render.text.move_labels`). The game itself, the agent's worker thread, the hints, undo,
a new game and the status line with the result are :class:`~gym_boardgames.play_session.PlaySession`'s, as in
the window and the browser page; this module reads lines and prints text. ``scripts/play.py GAME --terminal``
runs it.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import TextIO

from gym_boardgames.play_session import SOLVING, THINKING, PlaySession
from gym_boardgames.render.board import board_text
from gym_boardgames.render.text import MoveLabels, move_labels

#: How long the agent's reply or the hints may take before the terminal says what it waits for, in seconds.
NOTICE_SECONDS = 1.0
#: The commands, typed as the word or its first letter, and the
#: :meth:`~gym_boardgames.play_session.PlaySession.command` each runs.
COMMANDS = {"hints": "hints", "undo": "undo", "new": "restart", "quit": "", "help": ""}
SHORT_HELP = "h(ints), u(ndo), n(ew), q(uit), ?(help)"
HELP = """Type a move as the board labels it: {choices}. Commands, as a word or its first letter:
  h(ints)  show or hide what each of your moves leads to ("win in 3", "draw", "loss", "?": unknown)
  u(ndo)   take back your last move and the agent's replies
  n(ew)    start a new game
  q(uit)   stop playing (Ctrl-D too)
  ?        this help"""


def play_in_terminal(session: PlaySession, input: TextIO | None = None, output: TextIO | None = None) -> int:
    """Play ``session``'s game with typed lines until the person quits or the input ends.

    After each change the board is printed (the agent's moves named above it, the status line under it, the
    hints after it when shown). A line that is neither a move nor a command is answered in one line naming
    the problem and what is valid. When a game ends its status line gives the result, and the prompt offers a
    new game or quit.

    Args:
        session: the game: its env, its agent (which replies in a worker thread), the person's side, the hints.
        input: where the person's lines come from (default ``sys.stdin``).
        output: where the board and the answers go (default ``sys.stdout``).

    Returns:
        the exit status: 0 when the person quits or the input ends (Ctrl-D). Ctrl-C raises
        ``KeyboardInterrupt``, as everywhere in the scripts (:func:`gym_boardgames.cli.run` makes it one line).
    """
    input = sys.stdin if input is None else input
    output = sys.stdout if output is None else output
    game, env, labels = session.game, session.env, move_labels(session.game)

    def say(text: str, end: str = "\n") -> None:
        output.write(text + end)
        output.flush()

    you = "both sides" if session.both_sides else f"{env.player_names[session.human]} against {session.name}"
    say(f"{env.window_title}: you play {you}. Type {labels.choices(game)}; ? for help.")
    shown: list[tuple[int, int]] = []  # the moves of the last board printed, to name the agent's new ones
    show = True
    try:
        while True:
            _wait(session, say)
            with session.lock:  # one moment of the game: the board, its status line and the hints agree
                over, moves = session.over, list(env.moves)
                board = _board(session, labels, shown) if show else ""
            if show:
                say(board)
                shown = moves
            say("new game or quit? (n/q) " if over else "> ", end="")
            line = input.readline()
            if not line:
                say("\nend of input: goodbye")
                return 0
            word = line.strip().lower()
            command = "help" if word == "?" else next((c for c in COMMANDS if word and word in (c, c[0])), "")
            show = command not in ("help", "")
            if not word:  # Enter alone asks again, as a shell does
                continue
            if command == "quit":
                say("goodbye")
                return 0
            if command == "help":
                say(HELP.format(choices=labels.choices(game)))
            elif command:
                session.command(COMMANDS[command])
                shown = [] if command == "new" else shown  # a new game's first board names the agent's opening
            elif over:
                say(f'"{line.strip()}": the game is over: type n(ew) for another, u(ndo), or q(uit)')
            else:
                try:
                    action = labels.parse(game, line, env.state)
                except ValueError as error:
                    say(f"{error}: type {labels.choices(game)}, or {SHORT_HELP}")
                    continue
                session.play(action)
                show = True
    except KeyboardInterrupt:
        say("")  # Ctrl-C at the prompt: the script's one line goes under it, not after it
        raise
    finally:
        session.close()


def _wait(session: PlaySession, say: Callable[[str], None]) -> None:
    """Return when the agent has replied and the hints, if shown, are ready; say once what takes a while."""
    said = ""
    while True:
        with session.lock:
            version = session.version
            busy = THINKING if session.thinking else SOLVING if session.show_hints and session.hints_pending else ""
        if not busy:
            return
        if session.wait_for_change(version, NOTICE_SECONDS) == version and busy != said:
            say(busy)
            said = busy


def _board(session: PlaySession, labels: MoveLabels, shown: list[tuple[int, int]]) -> str:
    """The board with its status line, the agent's moves since ``shown`` above it and the hints under it."""
    game, env = session.game, session.env
    moves = list(env.moves)
    new = moves[len(shown) :] if moves[: len(shown)] == shown else []
    played = [labels.label(game, action) for player, action in new if player != session.human]
    lines = [f"{session.name} played {', '.join(played)}"] if played else []
    lines.append(board_text(game, env.state, env.marks()._replace(status=session.status()), env.style).rstrip("\n"))
    if session.show_hints and session.human_to_move and session.hints:
        lines.append("hints: " + ", ".join(f"{labels.label(game, a)} {h}" for a, h in sorted(session.hints.items())))
    return "\n".join(lines)
