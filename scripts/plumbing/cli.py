"""The scripts' shared pieces: parsers, flags, up-front checks, the entry, the summary.

Every script builds its parser with :func:`make_parser`: a long option must be spelled out (argparse's
abbreviations would take ``--episode 100`` as ``--episodes 100``), the description keeps its line breaks
and ``--help`` ends each option's help with its default. The flags most scripts share (``--seed``,
``--out``, ``--json``, ``--overwrite``) come from :func:`add_run_flags`, and numeric flags take the argparse
types :func:`int_type` and :func:`number_type` (:data:`positive_int`, :data:`nonnegative_int`), which apply
:mod:`gym_boardgames.checks`' rule, so a bad value stops the parser with one line naming the flag.

Everything a user can get wrong is checked before any long work: :func:`parse_checked` parses and runs
the script's checks, turning a ``ValueError`` (or a missing extra) into that one line. Every path option
declares its role when it is added (``role="input"``, ``"output"``, ``"extended"`` for a file a run reads
and rewrites, ``"folder"`` for an output folder; :data:`PATH_FLAGS` may not be added without one), and a
check may claim a derived output (:func:`claim_output`); :func:`parse_checked` then checks them all at once,
for every script alike: each output can be written (:func:`plumbing.paths.check_output_path`)
and is new unless ``--overwrite`` is given, each extended file is locked for the run
(:func:`~gym_boardgames.outputs.lock_run`), and no output is an input or another output. Files are written
by :func:`gym_boardgames.outputs.write_bytes_atomic`, to which each script passes ``replace=args.overwrite``:
the write itself refuses a name taken (the one guard, race-free); the check here only says it before the work,
in the same words (:func:`plumbing.paths.exists_message`). A script's entry is :func:`run`: Ctrl-C ends it
with one line and status 130, SIGTERM with one line and status 143; before :func:`run` is entered, the
:mod:`plumbing` package's own import makes them so (it comes first, before the slow imports). The one-line JSON
summary of ``--json`` and ``--out FILE`` goes through :func:`emit_summary`; figures and TensorBoard logs
through :mod:`plumbing.figures`.

This module imports the standard library, :mod:`gym_boardgames.checks`, :mod:`gym_boardgames.outputs`,
:mod:`plumbing.figures` and :mod:`plumbing.paths`.
"""

from __future__ import annotations

import argparse
import errno
import json
import os
import sys
import time
from collections.abc import Callable, Iterable
from typing import Any, NoReturn

from gym_boardgames.checks import check_int, check_number
from gym_boardgames.outputs import SaveError, lock_run, write_text_atomic

from . import EXIT_INTERRUPTED, EXIT_TERMINATED, interruption_line
from .figures import check_tensorboard
from .paths import check_output_path, exists_message

__all__ = [
    "EXIT_FAILED",
    "EXIT_INTERRUPTED",
    "EXIT_REFUSED",
    "EXIT_TERMINATED",
    "JSON_HELP",
    "OUT_HELP",
    "HelpFormatter",
    "add_overwrite_flag",
    "add_run_flags",
    "build_named",
    "claim_output",
    "default_output",
    "run",
    "emit_summary",
    "fail",
    "int_type",
    "load_average",
    "make_parser",
    "nonnegative_int",
    "number_type",
    "parse_checked",
    "positive_int",
    "timed",
]

#: The help of ``--json`` in most scripts.
JSON_HELP = "print a one-line JSON summary last"
#: The help of ``--out`` in the scripts whose output is their summary (:func:`emit_summary`).
OUT_HELP = "also write the JSON summary to this file"


class HelpFormatter(argparse.RawDescriptionHelpFormatter):
    """Keeps the description's line breaks and ends each option's help with ``(default: VALUE)``.

    Unlike ``argparse.ArgumentDefaultsHelpFormatter`` it adds nothing where a default would say nothing:
    an option whose default is None or empty, an on/off flag (off unless given), or help that already
    names its default in words (``"(default: a fresh network)"``); a list default reads as its items.
    """

    def _get_help_string(self, action: argparse.Action) -> str:
        text = action.help or ""  # argparse asks only for options with help; an option without help shows none
        default = action.default
        if (
            default is None
            or default is argparse.SUPPRESS
            or action.nargs == 0
            or (isinstance(default, (list, tuple)) and not default)
            or "default" in text.lower()
        ):
            return text
        shown = " ".join(map(str, default)) if isinstance(default, (list, tuple)) else str(default)
        # argparse %-formats help strings: a % in a default (a path, say) must not start a conversion.
        return f"{text} (default: {shown.replace('%', '%%')})".lstrip()


#: What a path option is to its script: read, written, read and rewritten (locked for the run), a folder written.
ROLES = ("input", "output", "extended", "folder")
#: The options that name paths: a script must give each one a role when it adds it.
PATH_FLAGS = frozenset(
    {"out", "plot", "results", "screenshot", "save_dir", "resume", "init", "labels", "exclude", "map"}
)

#: Exit statuses, one per kind of ending: a refusal before any work (a bad flag, file, or missing extra),
#: a failure during the work (a full disk, a diverged network), an interruption (Ctrl-C).
EXIT_REFUSED, EXIT_FAILED = 2, 1


class _Parser(argparse.ArgumentParser):
    """argparse with the one refusal style of every script: ``SCRIPT: error: MESSAGE``, one line, status 2."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.roles: dict[str, tuple[str, str]] = {}  # a path option's dest -> (its role, its name in messages)

    def add_argument(self, *args: Any, role: str | None = None, **kwargs: Any) -> argparse.Action:
        """``ArgumentParser.add_argument``, and ``role``: what the option's path is to the script (see module)."""
        return self._note_role(super().add_argument(*args, **kwargs), role)

    def add_argument_group(self, *args: Any, **kwargs: Any) -> Any:
        """``ArgumentParser.add_argument_group``, whose ``add_argument`` takes ``role`` too."""
        group = super().add_argument_group(*args, **kwargs)
        add = group.add_argument
        group.add_argument = lambda *a, role=None, **k: self._note_role(add(*a, **k), role)  # type: ignore[method-assign]
        return group

    def _note_role(self, action: argparse.Action, role: str | None) -> argparse.Action:
        if role not in (None, *ROLES):
            raise TypeError(f"role must be one of {ROLES}, got {role!r}")
        if role is None and action.dest in PATH_FLAGS:
            raise TypeError(f"--{action.dest.replace('_', '-')} is a path: add it with role= one of {ROLES}")
        if role is not None:
            name = action.option_strings[0] if action.option_strings else str(action.metavar or action.dest).upper()
            self.roles[action.dest] = (role, name)
        return action

    def error(self, message: str) -> NoReturn:
        self.exit(EXIT_REFUSED, f"{self.prog}: error: {message}\n")


def make_parser(description: str | None = None, **kwargs: Any) -> argparse.ArgumentParser:
    """Return a script's ``ArgumentParser``: no abbreviated options, every default shown in ``--help``.

    Its refusals are one line, ``SCRIPT: error: MESSAGE``, with status :data:`EXIT_REFUSED` (2), as
    :func:`fail` words every other one; ``--help`` shows the usage.

    Args:
        description: the ``--help`` text above the options, line breaks kept (usually the script's docstring).
        **kwargs: any other ``argparse.ArgumentParser`` argument, e.g. ``epilog``.
    """
    return _Parser(description=description, formatter_class=HelpFormatter, allow_abbrev=False, **kwargs)


def fail(message: str, status: int = EXIT_REFUSED) -> NoReturn:
    """End the script with one line on stderr, ``SCRIPT: error: MESSAGE``, and ``status``.

    ``status`` is :data:`EXIT_REFUSED` (2) for what is refused before any work, :data:`EXIT_FAILED` (1) for a
    failure during it.
    """
    print(f"{os.path.basename(sys.argv[0]) or 'python'}: error: {message}", file=sys.stderr)
    raise SystemExit(status)


def int_type(low: int, high: int | None = None) -> Callable[[str], int]:
    """Return an argparse type: an integer in ``[low, high]`` (no upper bound if ``high`` is None).

    The rule and the wording are :func:`gym_boardgames.checks.check_int`'s; argparse puts the flag in front:
    ``argument --games: must be an integer >= 1, got 0``.
    """
    return _flag_type(int, check_int, low, high)


def number_type(low: float, high: float, *, low_open: bool = False, high_open: bool = False) -> Callable[[str], float]:
    """Return an argparse type: a number in the interval from ``low`` to ``high`` (ends open as asked).

    The rule and the wording are :func:`gym_boardgames.checks.check_number`'s (NaN is in no interval);
    argparse puts the flag in front: ``argument --gamma: must be a number in [0, 1], got 1.5``.
    """
    return _flag_type(float, check_number, low, high, low_open=low_open, high_open=high_open)


def _flag_type(convert: Callable[[str], Any], check: Callable[..., Any], *bounds: Any, **options: Any) -> Any:
    """An argparse type: ``convert`` the text, then ``check`` it with no name (argparse names the flag)."""

    def parse(text: str) -> Any:
        try:
            value: Any = convert(text)
        except ValueError:
            value = text  # not a number at all: the check refuses it, naming what was typed
        try:
            return check("", value, *bounds, **options)
        except ValueError as error:
            raise argparse.ArgumentTypeError(str(error).lstrip()) from None

    return parse


#: Argparse type: an integer >= 1 (argparse names the flag in the error: ``argument --games: ...``).
positive_int = int_type(1)
#: Argparse type: an integer >= 0, e.g. a seed.
nonnegative_int = int_type(0)


def add_run_flags(
    parser: argparse.ArgumentParser,
    *,
    seed: str | None = None,
    out: str | None = None,
    json: str | None = JSON_HELP,
    overwrite: bool = False,
) -> None:
    """Add the flags most scripts share, each with the help given (None: the script has no such flag).

    Args:
        parser: the script's parser.
        seed: the help of ``--seed`` (an integer >= 0, default 0).
        out: the help of ``--out FILE`` (checked by :func:`parse_checked`).
        json: the help of ``--json`` (print the one-line JSON summary).
        overwrite: add ``--overwrite`` (:func:`add_overwrite_flag`).
    """
    if seed is not None:
        parser.add_argument("--seed", type=nonnegative_int, default=0, help=seed)
    if out is not None:
        parser.add_argument("--out", help=out, role="output")
    if json is not None:
        parser.add_argument("--json", action="store_true", help=json)
    if overwrite:
        add_overwrite_flag(parser)


def add_game_flags(parser: argparse.ArgumentParser, *, positional: bool = False, default: str | None = None) -> None:
    """Add the game (``GAME`` or ``--game GAME``: a registry name, any case) and its size flags.

    ``--rows``/``--cols`` (ConnectN boards, Dots and Boxes boxes), ``--n`` and ``--gravity/--no-gravity``
    (ConnectN), ``--tie-break`` (Dots and Boxes). A flag not given takes the game's default;
    :func:`game_from_args` refuses one the game does not take.
    """
    from gym_boardgames.rules.registry import GAME_NAMES

    names = {"type": str.lower, "choices": GAME_NAMES, "help": "the game"}
    if positional:
        parser.add_argument("game", **names)
    else:
        parser.add_argument("--game", default=default, **names)
    parser.add_argument("--rows", type=int_type(1), help="board rows (connectn, default 6) or box rows (dots, 3)")
    parser.add_argument("--cols", type=int_type(1), help="board columns (connectn, 7) or box columns (dots, 3)")
    parser.add_argument("--n", type=int_type(1), help="pieces in a row to win (connectn, default 4)")
    parser.add_argument("--gravity", action=argparse.BooleanOptionalAction, help="connectn: gravity (default on)")
    parser.add_argument("--tie-break", choices=["draw", "second"], help="dotsandboxes: equal boxes (default draw)")


def add_agent_flags(parser: argparse.ArgumentParser, default: list[str], among: str = "") -> None:
    """Add ``--agents NAME...`` (any agent form, listed in the help; ``among`` a note before them) and
    ``--move-time SECONDS`` (the ladder's default), as the arena and the ladder take them."""
    from agents.factory import agent_forms
    from agents.matches.ladder import MOVE_TIME
    from gym_boardgames.opponents import MAX_MOVE_TIME

    forms = ", ".join(agent_forms())
    parser.add_argument("--agents", nargs="+", default=default, help=f"agents{among}: {forms}")
    seconds = number_type(0, MAX_MOVE_TIME, low_open=True)
    parser.add_argument("--move-time", type=seconds, default=MOVE_TIME, help="seconds per move")


def game_from_args(args: argparse.Namespace) -> Any:
    """Return the rules object of :func:`add_game_flags`' flags.

    Raises:
        ValueError: on a flag the game does not take (``--rows`` for tictactoe), or a size outside its limits.
    """
    from gym_boardgames.rules.registry import game_row

    row = game_row(args.game)
    given = {key: getattr(args, key) for key in ("rows", "cols", "n", "gravity", "tie_break")}
    given = {key: value for key, value in given.items() if value is not None}
    extra = ["--" + key.replace("_", "-") for key in given if key not in row.options]
    if extra:
        raise ValueError(f"{args.game} does not take {', '.join(extra)}")
    return row.make(**given)


def build_named(flag: str, names: Iterable[str], build: Callable[[int, str], Any]) -> dict[str, Any]:
    """Return ``{name: build(index, name)}`` for each of ``names`` (agents, say), built before any work.

    Raises:
        ValueError: for the first name ``build`` refuses, ``FLAG NAME: REASON``: the builder's ``ValueError``
            message, or for an ``OSError`` the file it cannot read and why (``NAME: REASON`` if ``flag`` is empty).
    """
    built = {}
    for index, name in enumerate(names):
        try:
            built[name] = build(index, name)
        except (ValueError, OSError) as error:
            reason = str(error).removeprefix(f"agent {name}: ")  # a user's agent's error names it already
            if isinstance(error, OSError) and error.strerror:
                reason = f"cannot read {error.filename}: {error.strerror}"
            raise ValueError(f"{flag} {name}: {reason}".lstrip()) from None
    return built


def timed(function: Callable[..., Any], *args: Any, **kwargs: Any) -> tuple[Any, float]:
    """Call ``function(*args, **kwargs)``; return its result and the wall-clock seconds it took."""
    start = time.perf_counter()
    result = function(*args, **kwargs)
    return result, time.perf_counter() - start


def load_average() -> list[float]:
    """Return the system's load averages over 1, 5 and 15 minutes, to 2 decimals, for a summary."""
    return [round(load, 2) for load in os.getloadavg()]


def parse_checked(
    parser: argparse.ArgumentParser, argv: list[str] | None, *checks: Callable[[argparse.Namespace], Any]
) -> argparse.Namespace:
    """Parse ``argv`` and check, before any work, everything the script can check.

    A given ``--tensorboard`` is checked first (:func:`plumbing.figures.check_tensorboard`), then each
    of ``checks`` is called with the parsed arguments, in order (it may settle a default, e.g.
    :func:`default_output`, or claim a derived output, :func:`claim_output`). Then every path option with a
    role, and every claimed output, is checked as the module says: writable, new unless ``--overwrite``, no
    output equal to an input or to another output, each extended file locked. A ``ValueError`` or
    ``ImportError`` (a missing extra) from any of them ends the script through ``parser.error``: status 2 and
    one line, ``SCRIPT: error: MESSAGE``.
    """
    args = parser.parse_args(argv)
    args.claimed, args.locked = [], []
    try:
        check_tensorboard(getattr(args, "tensorboard", None))
        roles = getattr(parser, "roles", {})
        _check_paths(args, roles, final=False)  # the options' own paths first, before any check does work
        for check in checks:
            check(args)
        _check_paths(args, roles)
    except (ValueError, ImportError) as error:
        parser.error(str(error))
    return args


def claim_output(
    args: argparse.Namespace, path: str | os.PathLike[str], flag: str, *, may_exist: bool = False, lock: bool = False
) -> None:
    """Declare an output a script derives from its flags (``OUT_curve.png``), checked with the flags' own.

    A claim of a path an option also names replaces that option's entry.

    Args:
        args: the parsed command line (as :func:`parse_checked` passes it to a check).
        path: the derived output.
        flag: the option it derives from, for messages.
        may_exist: the file may be there already without ``--overwrite``, and is this run's to replace (a
            resumed run's own files: the script writes it with ``replace=True``).
        lock: hold the file's run lock (:func:`~gym_boardgames.outputs.lock_run`): a training state.
    """
    args.claimed.append((flag, os.fspath(path), "output", may_exist))
    if lock:
        args.locked.append((flag, os.fspath(path)))


def _check_paths(args: argparse.Namespace, roles: dict[str, tuple[str, str]], final: bool = True) -> None:
    """Check every declared path: outputs writable and new, extended files locked, no output also another path.

    ``final=False`` checks the options' paths alone (no claims, no locks), before the script's checks run.
    """
    paths = list(args.claimed) if final else []
    claimed = {(flag, os.path.realpath(path)) for flag, path, _, _ in paths}
    for dest, (role, flag) in roles.items():
        value = getattr(args, dest, None)
        for path in value if isinstance(value, (list, tuple)) else [value]:
            if isinstance(path, (str, os.PathLike)) and (flag, os.path.realpath(path)) not in claimed:
                paths.append((flag, os.fspath(path), role, role == "extended"))
    written = [entry for entry in paths if entry[2] != "input"]
    inputs = [entry for entry in paths if entry[2] == "input"]
    for index, (flag, path, role, may_exist) in enumerate(written):
        check_output_path(path, flag, kind="dir" if role == "folder" else "file")
        new = not may_exist and not getattr(args, "overwrite", True)
        if final and role == "output" and new and os.path.lexists(path):
            raise ValueError(exists_message(path, flag))
        for other_flag, other, other_role, _ in (written[:index] + inputs) if final else ():
            if os.path.realpath(path) == os.path.realpath(other):
                why = (
                    "writing it would replace the script's own input"
                    if other_role == "input"
                    else "one would replace the other"
                )
                raise ValueError(f"{flag} {path} is also {other_flag}: {why}")
    if not final:
        return
    for flag, path, role, _ in written:
        if role == "extended":
            lock_run(path, flag)
    for flag, path in args.locked:
        lock_run(path, flag)


def default_output(args: argparse.Namespace, default: str) -> None:
    """Settle ``args.out`` to ``default`` when ``--out`` was not given; it is checked as a given one.

    A second run of a script with a default output file keeps the first run's file: it is refused before any
    work, as any output that exists, unless ``--overwrite`` (:func:`plumbing.paths.exists_message`).
    """
    if args.out is None:
        args.out = default


def run(main: Callable[[], Any]) -> NoReturn:
    """Run a script's ``main()`` and exit with its status: the scripts' common entry.

    ``main`` returns an exit status (None is 0). Ctrl-C anywhere ends the script with one line on stderr and
    status :data:`EXIT_INTERRUPTED` (130), SIGTERM with ``SCRIPT: terminated`` and :data:`EXIT_TERMINATED`
    (143), never a traceback; files are left valid because every write is atomic, and a process pool's workers
    ignore Ctrl-C (:func:`gym_boardgames.utils.process_pool`) and are killed by their pool on the way out. A
    save that fails (a full disk: :class:`~gym_boardgames.outputs.SaveError`, from the one writer whatever
    library function called it) ends the script with one line,
    ``SCRIPT: error: could not save PATH: CAUSE``, and status :data:`EXIT_FAILED`; what was saved before stays.
    A name that another program took during the run, refused by a write with ``replace=False``, is the
    up-front check's line, ``SCRIPT: error: PATH exists: pass --overwrite to replace it``, with status 1.
    """
    try:
        status = main()
    except KeyboardInterrupt as error:  # Ctrl-C, or SIGTERM (plumbing.Terminated)
        line, status = interruption_line(error)
        print(line, file=sys.stderr)
    except SaveError as error:
        fail(_save_message(error), EXIT_FAILED)
    raise SystemExit(status if isinstance(status, int) else 0)


def _save_message(error: OSError) -> str:
    """A failed save's line: a name taken (``errno.EEXIST``) in the up-front check's words, else the cause."""
    return exists_message(error.filename) if error.errno == errno.EEXIST else str(error)


def add_overwrite_flag(parser: argparse.ArgumentParser) -> None:
    """Add ``--overwrite``, which lets a script replace output files that exist."""
    parser.add_argument(
        "--overwrite", action="store_true", help="replace output files that exist (without it the script refuses)"
    )


def emit_summary(
    summary: dict[str, Any], out: str | os.PathLike[str] | None, print_json: bool, *, replace: bool = True
) -> str | None:
    """Finish a script's report: its ``--out FILE`` and ``--json`` flags.

    Writes ``summary`` as one JSON line to ``out`` (atomically; ``replace`` is the script's ``--overwrite``)
    if given, and prints that line as the last line of stdout if ``print_json``. If ``out`` cannot be written
    (a full disk, a folder gone, a name another program took meanwhile), the line goes to stdout instead, so
    the results are not lost, and the script ends with status 1 and one line naming the file on stderr, never
    a traceback; the earlier file at ``out``, if any, is left whole. Returns the file written, or None
    without ``out``.
    """
    line = json.dumps(summary)
    written = None
    if out:
        try:
            written = write_text_atomic(out, line + "\n", replace=replace)
        except OSError as error:
            print(line)
            why = f"cannot write --out {os.fspath(out)}: {error.strerror or error}"
            if error.errno == errno.EEXIST:  # another program took the name during the run
                why = exists_message(out, "--out")
            print(f"error: {why} (the summary is printed above)", file=sys.stderr)
            raise SystemExit(1) from None
    if print_json:
        print(line)
    return written


def read_testset_flags(directory: str, names: list[str] | None = None, positions: int | None = None) -> list[Any]:
    """Read, trim and replay the sets that ``--testsets DIR --testset-names ... --testset-positions N`` name.

    The sets are Pons' (:func:`agents.matches.testsets.find_testsets`), replayed by
    :func:`agents.matches.pons_grading.replay_testsets`; ``positions`` keeps the first that many of each.

    Raises:
        ValueError: a message that starts with the flag to blame: ``--testset-names`` for a name that is no set,
            else ``--testsets`` (a missing folder or file; a file that is no regular file, too large, empty, not
            ASCII or cut short; a malformed line; an illegal move; a game over), naming the file and the line.
    """
    from agents.matches.pons_grading import replay_testsets
    from agents.matches.testsets import find_testsets

    try:
        sets = find_testsets(directory, names)
        return replay_testsets([found._replace(positions=found.positions[:positions]) for found in sets])
    except ValueError as error:
        message = str(error)
        flag = "--testset-names" if message.startswith("unknown test set") else "--testsets"
        raise ValueError(message if message.startswith(flag) else f"{flag}: {message}") from None  # named once
    except OSError as error:  # a file gone since the folder was listed: the reader's message names it
        reason = f"cannot read {error.filename}: {error.strerror}" if error.filename else str(error)
        raise ValueError(f"--testsets: {reason}") from None
