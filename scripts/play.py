"""Play a board game against an agent: with the mouse in a pygame window or a browser page (``--web``), or by
typing moves in a terminal (``--terminal``, over SSH too: no pygame, no browser).

Examples:
  python scripts/play.py tictactoe
  python scripts/play.py connectfour --side second
  python scripts/play.py connectfour --opponent mcts:2000
  python scripts/play.py connectfour --opponent perfect                 # the exact solver: perfect play
  python scripts/play.py connectn --rows 9 --cols 9 --n 5 --no-gravity --opponent alphabeta:2
  python scripts/play.py dotsandboxes --web
  python scripts/play.py dotsandboxes --web --port 8765          # on a remote machine: ssh -L 8765:127.0.0.1:8765 HOST
  python scripts/play.py connectfour --web --token-file ~/.play-token   # open pages survive a restart
  python scripts/play.py connectfour --terminal                  # type the column numbers the board shows
  python scripts/play.py dotsandboxes --rows 2 --cols 2 --terminal --side second   # edges as their dots: a1b1

Without ``--opponent`` each game gets an agent that replies at once (``agents.factory.default_opponent``, in words
``agents.factory.DEFAULT_OPPONENTS``): the solved table on Dots and Boxes 3x3, perfect alpha-beta on boards of at
most 9 cells or 12 edges (tic-tac-toe, Dots and Boxes 2x2), the shipped network on Connect Four, ``mcts`` on every
other board.
``--opponent perfect`` plays Connect Four perfectly with the exact solver (and every gravity board with four in a
row its bitboard holds, ``(rows + 1) * cols <= 63``); on Connect Four most replies take milliseconds, the hardest
about a second. The hints (H) on those boards are exact: "win in N", "draw" or "loss in N" (``agents.hints``).

This script is a command line over :func:`gym_boardgames.play`: it resolves the game, the opponent, the side and
the seed with :func:`gym_boardgames.human.table.resolve` while it parses (a refusal names the flag), then opens
the door its flags chose (``--terminal``, ``--web``, else the window).
"""

from __future__ import annotations

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))  # plumbing/, peers/: also when loaded by path
from plumbing import cli  # first, before the slower imports: a Ctrl-C during them is one line (cli's hook)

# isort: split
import argparse

from agents.factory import DEFAULT_OPPONENTS, agent_forms, default_opponent
from gym_boardgames.human.doors import open_door
from gym_boardgames.human.session import SIDES
from gym_boardgames.human.table import resolve
from gym_boardgames.human.terminal import SHORT_HELP
from gym_boardgames.human.window import KEYS_HELP, NoScreenError

# What --help lists for --opponent: every agent name form (the Dots and Boxes bots play dots only).
OPPONENTS = ", ".join(agent_forms())


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    """Parse the command line (default ``sys.argv[1:]``)."""
    parser = cli.make_parser(
        "Play a board game against an agent with the mouse (click a cell, a column or an edge), in a window or,\n"
        "with --web, in a browser page. Keys: " + KEYS_HELP + ".\nWith --terminal, type moves as the board labels "
        "them (a column 1-7, a cell b2, an edge a1b1), or " + SHORT_HELP + ".",
    )
    cli.add_game_flags(parser, positional=True)
    parser.add_argument(
        "--opponent",
        help=f"the agent you play: {OPPONENTS} (default: one that answers at once: {DEFAULT_OPPONENTS}. perfect: the "
        "exact solver, for gravity boards with four in a row up to (rows + 1) * cols <= 63, connectfour included)",
    )
    parser.add_argument("--side", choices=SIDES, default="first", help="your side (both: two people, no agent)")
    cli.add_run_flags(parser, seed="seed of the agent", json=None)
    parser.add_argument(
        "--screenshot",
        metavar="FILE",
        role="output",
        help="save the window as PNG when a game ends and on exit; without a screen (SDL_VIDEODRIVER=dummy, or "
        "on Linux no DISPLAY) save the opening position and exit",
    )
    parser.add_argument(
        "--terminal",
        action="store_true",
        help="play in this terminal by typing moves (no window, no browser: works over SSH)",
    )
    web = parser.add_argument_group("browser page")
    web.add_argument("--web", action="store_true", help="serve the game as a browser page and print its URL")
    web.add_argument("--host", default="127.0.0.1", help="the address to listen on (default: 127.0.0.1, this machine)")
    web.add_argument(
        "--port", type=cli.nonnegative_int, default=8765, help="the port (default: 8765; 0 picks a free one)"
    )
    web.add_argument(
        "--allow-remote",
        action="store_true",
        help="let --host be an address other machines reach (anyone with the URL's token can then play; the server "
        "says so in one line)",
    )
    web.add_argument(
        "--token",
        help="the URL's access token (default: a new random one at each start): 43 to 256 characters of A-Z a-z 0-9 "
        "- _; the same token after a restart keeps open pages working. A command line is visible to other users of "
        "the machine: prefer --token-file",
    )
    web.add_argument(
        "--token-file",
        metavar="FILE",
        role="input",
        help="read --token from FILE, which only you may read (as ssh's keys: chmod 600 FILE), e.g. one made once "
        "with: (umask 077; python -c 'import secrets; print(secrets.token_urlsafe(32))' > FILE)",
    )
    parser.add_argument(
        "--max-frames",
        type=cli.positive_int,
        metavar="N",
        help="quit after N frames (about N/30 s), saving --screenshot (default: run until closed; 1 headless)",
    )
    return cli.parse_checked(parser, argv, _check_screenshot, _check_token, _resolve)


def _check_screenshot(args: argparse.Namespace) -> None:
    if args.port > 65535:
        raise ValueError(f"--port must be at most 65535, got {args.port}")
    if not args.host:
        raise ValueError("--host must be an address: 127.0.0.1 (this machine), or 0.0.0.0 or :: (every interface)")
    if args.web and args.screenshot is not None:
        raise ValueError("--screenshot is the window's: the page needs no screen")
    window = {"--web": args.web, "--screenshot": args.screenshot is not None, "--max-frames": args.max_frames}
    if args.terminal and any(window.values()):
        given = " and ".join(flag for flag, value in window.items() if value)
        raise ValueError(f"--terminal plays in this terminal, so it takes no {given} (the page's or the window's)")


def _check_token(args: argparse.Namespace) -> None:
    """Read ``--token-file`` into ``args.token`` and check the token as the server will (one line if it refuses)."""
    from gym_boardgames.checks import read_regular_file
    from gym_boardgames.human.server import checked_token

    flag = "--token-file" if args.token_file is not None else "--token"
    if args.token_file is not None:
        if args.token is not None:
            raise ValueError("give --token or --token-file, not both")
        try:
            args.token = read_regular_file(args.token_file, 4096, "a token file").decode("utf-8", "replace").strip()
            mode = os.stat(args.token_file).st_mode & 0o777
        except (OSError, ValueError) as error:  # each names the file: "PATH: no such file"
            raise ValueError(f"--token-file {error}") from None
    if args.token is None:
        return
    if not args.web:
        raise ValueError(f"{flag} is the page's: add --web")
    try:
        checked_token(args.token)
    except ValueError as error:  # the server's own check, named after the flag
        raise ValueError(f"{flag}: {error}") from None
    # As ssh with a key file: a token other local users can read lets them play (or watch) any game.
    if args.token_file is not None and os.name == "posix" and mode & 0o077:
        raise ValueError(
            f"--token-file {args.token_file}: its mode {mode:04o} lets other users read or change the token; "
            f"make it private: chmod 600 {args.token_file}"
        )


def _resolve(args: argparse.Namespace) -> None:
    """Set ``args.table``: the game, ``--opponent`` (or the game's default), ``--side``, the hints and ``--seed``.

    Raises:
        ValueError: a size the game does not take (``--rows`` for tictactoe) or outside its limits, or an
            opponent that cannot play it, naming ``--opponent``.
    """
    # The registry validates the options and fills in the defaults (only for options not given: a 0 is
    # refused, never silently replaced).
    game = cli.game_from_args(args)
    opponent = args.opponent or default_opponent(game)
    build = lambda _, name: resolve(game, name, args.side, True, args.seed)  # noqa: E731
    args.table = cli.build_named("--opponent", [opponent], build)[opponent]


def main(argv: list[str] | None = None) -> int | None:
    """Parse the command line, then play in the terminal, the page or the window.

    Returns:
        the terminal game's exit status (0), or None after the window or the page.
    """
    args = parse_args(argv)
    if args.terminal:
        return open_door(args.table, "terminal")
    if args.web:
        serve_page(args)
        return None
    try:
        open_door(args.table, "window", screenshot=args.screenshot, max_frames=args.max_frames)
    except NoScreenError as error:
        cli.fail(str(error))
    return None


def serve_page(args: argparse.Namespace) -> None:
    """Serve the game as a browser page until Ctrl-C; ``--opponent`` is offered first, then the suggested agents."""
    os.environ.setdefault("SDL_VIDEODRIVER", "dummy")  # the page draws off-screen: no window, no display needed
    options = {"host": args.host, "port": args.port, "allow_remote": args.allow_remote, "token": args.token}
    try:
        open_door(args.table, "page", wait=True, **options)  # prints the URL, serves until Ctrl-C
    except ValueError as error:
        cli.fail(f"{error}")
    except OSError as error:
        cli.fail(f"cannot listen on {args.host}:{args.port}: {error.strerror or error} (try --port 0)")


if __name__ == "__main__":
    cli.run(main)
