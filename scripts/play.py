"""Play a board game against an agent with the mouse, in a pygame window.

Examples:
  python scripts/play.py tictactoe --opponent alphabeta
  python scripts/play.py connectfour --opponent alphazero
  python scripts/play.py connectfour --opponent mcts:2000 --you second
  python scripts/play.py connectn --rows 9 --cols 9 --n 5 --no-gravity --opponent alphabeta:2
  python scripts/play.py dots --rows 3 --cols 3 --opponent exact

The window is :class:`gym_boardgames.play.PlayApp`; this script parses the command line, builds the game's
env and the agent (``agents.factory.make_agent``) and hands the window the agent and the hints of the H key
(:func:`hint_labels`), since the env package never imports ``agents`` nor reads the command line.
"""

from __future__ import annotations

import argparse
import os
import sys
from typing import Any

from agents.factory import AGENT_NAMES, DOTS_AGENT_NAMES, make_agent
from gym_boardgames.cli import add_run_flags, check_output_path, make_parser, parse_checked, positive_int
from gym_boardgames.envs import TwoPlayerEnv, env_for_game
from gym_boardgames.play import KEYS_HELP, PlayApp, no_screen_reason
from gym_boardgames.rules.common import value_for
from gym_boardgames.rules.dots import DotsAndBoxes
from gym_boardgames.rules.registry import GAME_NAMES, make_game

# What --help lists for --opponent: every name agents.factory.make_agent takes.
OPPONENTS = f"{', '.join(AGENT_NAMES)}; for dots also {', '.join(DOTS_AGENT_NAMES)}"

def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    """Parse the command line (default ``sys.argv[1:]``)."""
    parser = make_parser(
        "Play a board game against an agent with the mouse (click a cell, a column or an edge).\n"
        "Keys: " + KEYS_HELP + ".",
    )
    parser.add_argument("game", choices=GAME_NAMES, help="the game to play")
    parser.add_argument("--rows", type=positive_int, help="board rows (connectn, default 6) or box rows (dots, 3)")
    parser.add_argument(
        "--cols", type=positive_int, help="board columns (connectn, default 7) or box columns (dots, 3)"
    )
    parser.add_argument("--n", type=positive_int, help="pieces in a row to win (connectn, default 4)")
    parser.add_argument(
        "--no-gravity", dest="gravity", action="store_false", default=None, help="connectn: the m,n,k game"
    )
    parser.add_argument(
        "--opponent",
        default="alphabeta",
        help=f"the agent you play: {OPPONENTS} (default: alphabeta; use alphabeta:4 or mcts on big boards)",
    )
    parser.add_argument("--you", choices=["first", "second"], default="first", help="your side")
    add_run_flags(parser, seed="seed of the agent", json=None)
    parser.add_argument(
        "--screenshot",
        metavar="FILE",
        help="save the window as PNG when a game ends and on exit; without a screen (SDL_VIDEODRIVER=dummy, or "
        "on Linux no DISPLAY) save the opening position and exit",
    )
    parser.add_argument(
        "--max-frames",
        type=positive_int,
        metavar="N",
        help="quit after N frames (about N/30 s), saving --screenshot (default: run until closed; 1 headless)",
    )
    return parse_checked(parser, argv, _check_screenshot)


def _check_screenshot(args: argparse.Namespace) -> None:
    if args.screenshot is not None:
        check_output_path(args.screenshot, "--screenshot")


def make_env(args: argparse.Namespace) -> TwoPlayerEnv:
    """Build the self-play env of the chosen game.

    Raises:
        ValueError: on a size the game does not take (``--rows`` for tictactoe) or outside its limits.
    """
    # The registry validates the options and fills in the defaults (only for options not given: a 0 is
    # refused, never silently replaced).
    return env_for_game(make_game(args.game, args.rows, args.cols, args.n, args.gravity), opponent=None)


def main(argv: list[str] | None = None) -> None:
    """Parse the command line, build the game and the agent named by ``--opponent``, open the window and play."""
    args = parse_args(argv)
    try:
        env = make_env(args)
    except ValueError as error:
        sys.exit(f"error: {error}")
    try:
        agent = make_agent(args.opponent, seed=args.seed, game=env.game)
    except ValueError as error:
        sys.exit(f"error: --opponent {args.opponent}: {error}")
    except OSError as error:
        reason = f"cannot read {error.filename}: {error.strerror}" if error.strerror else str(error)
        sys.exit(f"error: --opponent {args.opponent}: {reason}")
    max_frames = args.max_frames
    reason = no_screen_reason()
    if reason is not None:
        if args.screenshot is None:
            sys.exit(
                f"error: no screen to show the window on ({reason}): run it in a desktop session (or under xvfb-run "
                "for a virtual one), or give --screenshot FILE to save the position headless"
            )
        # Headless: draw the position once, save --screenshot, exit. The dummy driver spares SDL probing for
        # a display server that is not there.
        os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
        max_frames = 1 if max_frames is None else max_frames
    human = 0 if args.you == "first" else 1
    app = PlayApp(env, agent, human_player=human, screenshot=args.screenshot, hints=hint_labels)
    app.run(max_frames=max_frames)


if __name__ == "__main__":
    main()
