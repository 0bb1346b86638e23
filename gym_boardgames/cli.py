"""The scripts' command lines: one way to build a parser, and one guard against replacing a saved file.

Every script builds its parser with :func:`make_parser`: a long option must be spelled out (argparse's
abbreviations would take ``--episode 100`` as ``--episodes 100``), the description keeps its line breaks
and ``--help`` ends each option's help with its default. Scripts that save a trained model, a table or a
figure take ``--overwrite`` (:func:`add_overwrite_flag`) and check each output with
:func:`check_new_output` before any long work, so a run never silently replaces an earlier one's file;
a script with a default output file saves to the next free numbered name instead (:func:`default_output`).

This module imports only the standard library and :mod:`gym_boardgames.utils`.
"""

from __future__ import annotations

import argparse
import os
from typing import Any

from gym_boardgames.utils import check_output_path

__all__ = [
    "HelpFormatter",
    "add_overwrite_flag",
    "check_new_output",
    "default_output",
    "free_path",
    "make_parser",
]


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


def make_parser(description: str | None = None, **kwargs: Any) -> argparse.ArgumentParser:
    """Return a script's ``ArgumentParser``: no abbreviated options, every default shown in ``--help``.

    Args:
        description: the ``--help`` text above the options, line breaks kept (usually the script's docstring).
        **kwargs: any other ``argparse.ArgumentParser`` argument, e.g. ``epilog``.
    """
    return argparse.ArgumentParser(description=description, formatter_class=HelpFormatter, allow_abbrev=False, **kwargs)


def add_overwrite_flag(parser: argparse.ArgumentParser) -> None:
    """Add ``--overwrite``, which lets :func:`check_new_output` accept output files that exist."""
    parser.add_argument(
        "--overwrite", action="store_true", help="replace output files that exist (without it the script refuses)"
    )


def check_new_output(path: str | os.PathLike[str], flag: str, overwrite: bool) -> None:
    """Check, before any work, that a script can write ``path`` and will not replace a file by surprise.

    Runs :func:`gym_boardgames.utils.check_output_path` first (so a folder or an unwritable place is
    reported as such), then refuses a path that exists unless ``overwrite`` is true.

    Args:
        path: the output file the user gave.
        flag: the option it came from, e.g. ``"--out"``, for the message.
        overwrite: the script's ``--overwrite`` flag.

    Raises:
        ValueError: one line naming ``flag`` and the path: ``--out x.npz exists: pass --overwrite to replace it``.
    """
    check_output_path(path, flag)
    if not overwrite and os.path.lexists(path):
        raise ValueError(f"{flag} {os.fspath(path)} exists: pass --overwrite to replace it")


def free_path(path: str) -> str:
    """Return ``path`` if nothing is there, else the first free of ``stem_2.ext``, ``stem_3.ext``, ...

    ``td_tictactoe.npz`` becomes ``td_tictactoe_2.npz``: the number goes before the extension, so the file
    keeps the type its name says.
    """
    if not os.path.lexists(path):
        return path
    stem, extension = os.path.splitext(path)
    number = 2
    while os.path.lexists(f"{stem}_{number}{extension}"):
        number += 1
    return f"{stem}_{number}{extension}"


def default_output(default: str, overwrite: bool) -> tuple[str, str | None]:
    """Return where a script saves when ``--out`` is not given, and a note to print if that is not ``default``.

    A second run of a script with a default output file (as README's first command) keeps the first
    run's file and saves to the next free numbered name (:func:`free_path`), unless ``overwrite``.

    Args:
        default: the script's default output file, e.g. ``"td_tictactoe.npz"``.
        overwrite: the script's ``--overwrite`` flag: then ``default`` itself is replaced.

    Returns:
        ``(path, note)``: ``note`` is None when ``path`` is ``default``, else one line saying where this run
        saves and how to replace ``default`` instead.
    """
    path = default if overwrite else free_path(default)
    if path == default:
        return path, None
    return path, f"{default} exists, so this run saves to {path} (--out {default} --overwrite replaces it)"
