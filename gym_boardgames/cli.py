"""The scripts' shared pieces: parsers, the guard against replacing files, atomic figures, TensorBoard logs.

Every script builds its parser with :func:`make_parser`: a long option must be spelled out (argparse's
abbreviations would take ``--episode 100`` as ``--episodes 100``), the description keeps its line breaks
and ``--help`` ends each option's help with its default. Scripts that save a trained model, a table or a
figure take ``--overwrite`` (:func:`add_overwrite_flag`) and check each output with
:func:`check_new_output` before any long work, so a run never silently replaces an earlier one's file;
a script with a default output file saves to the next free numbered name instead (:func:`default_output`).
Figures go through :func:`save_figure`, so a run stopped mid-save leaves the earlier figure whole. Training
scripts take ``--tensorboard DIR`` (:func:`add_tensorboard_flag`, checked up front by
:func:`check_tensorboard`) and log scalars through :class:`TensorBoardLog`.

This module imports only the standard library and :mod:`gym_boardgames.utils`; the ``tensorboard`` package
(the ``tensorboard`` extra) is imported only when a log is checked or opened.
"""

from __future__ import annotations

import argparse
import io
import os
import time
from typing import Any

from gym_boardgames.utils import check_output_path, write_bytes_atomic

__all__ = [
    "TENSORBOARD_MISSING",
    "HelpFormatter",
    "TensorBoardLog",
    "add_overwrite_flag",
    "add_tensorboard_flag",
    "check_new_output",
    "check_tensorboard",
    "default_output",
    "free_path",
    "make_parser",
    "save_figure",
]

#: The refusal of ``--tensorboard`` when the ``tensorboard`` package is missing.
TENSORBOARD_MISSING = '--tensorboard needs the tensorboard extra: pip install "gym-boardgames[tensorboard]"'


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


def save_figure(fig: Any, path: str | os.PathLike[str], **savefig_kwargs: Any) -> None:
    """Save a matplotlib figure to ``path`` atomically.

    The figure is rendered in memory, in ``format`` if given, else the one ``path``'s suffix names (PNG
    without a suffix), as ``fig.savefig(path)`` would choose; then
    :func:`gym_boardgames.utils.write_bytes_atomic` writes it (a temporary file in the same folder, then a
    rename). An error or a kill mid-save leaves the earlier file at ``path`` whole and no partial file behind.

    Args:
        fig: a ``matplotlib.figure.Figure``.
        path: the file to write, e.g. ``curve.png``.
        **savefig_kwargs: passed to ``fig.savefig``, e.g. ``dpi=100`` or ``format="png"``.
    """
    suffix = os.path.splitext(os.fspath(path))[1].lstrip(".").lower()
    savefig_kwargs.setdefault("format", suffix or "png")
    buffer = io.BytesIO()
    fig.savefig(buffer, **savefig_kwargs)
    write_bytes_atomic(path, buffer.getvalue())


def add_tensorboard_flag(parser: argparse.ArgumentParser, what: str) -> None:
    """Add ``--tensorboard DIR``: log ``what`` (e.g. ``"the losses and evaluations"``) to TensorBoard."""
    parser.add_argument(
        "--tensorboard",
        metavar="DIR",
        help=f"log {what} to TensorBoard event files in DIR (created if missing; needs the tensorboard extra)",
    )


def check_tensorboard(logdir: str | os.PathLike[str] | None) -> None:
    """Check, before any work, that ``--tensorboard logdir`` can be written: the package and the folder.

    Does nothing when ``logdir`` is None (no ``--tensorboard``).

    Raises:
        ValueError: one line: :data:`TENSORBOARD_MISSING` without the ``tensorboard`` package, else the
            folder's problem (:func:`gym_boardgames.utils.check_output_path`).
    """
    if logdir is None:
        return
    try:
        _tensorboard_api()
    except ImportError:
        raise ValueError(TENSORBOARD_MISSING) from None
    check_output_path(logdir, "--tensorboard", kind="dir")


def _tensorboard_api() -> tuple[Any, Any, Any]:
    """Return TensorBoard's ``EventFileWriter``, ``Event`` and ``Summary`` (raises ImportError without them)."""
    from tensorboard.compat.proto.event_pb2 import Event
    from tensorboard.compat.proto.summary_pb2 import Summary
    from tensorboard.summary.writer.event_file_writer import EventFileWriter

    return EventFileWriter, Event, Summary


class TensorBoardLog:
    """Scalars to a TensorBoard event file in ``logdir``, written by the ``tensorboard`` package alone (no torch).

    Each :meth:`scalar` is one event with a ``simple_value`` summary, the record ``SummaryWriter.add_scalar``
    of PyTorch writes, so TensorBoard's Scalars tab and its ``EventAccumulator.Scalars`` read it. A run
    resumed into the same folder adds a new event file; TensorBoard shows both on one curve by step.
    Use it as a context manager, or call :meth:`close` (which flushes).

    Args:
        logdir: the folder (created if missing); :func:`check_tensorboard` has checked it.
        flush_secs: how often buffered events reach the file while training runs.
    """

    def __init__(self, logdir: str | os.PathLike[str], flush_secs: float = 10.0) -> None:
        event_file_writer, self._event, self._summary = _tensorboard_api()
        os.makedirs(logdir, exist_ok=True)
        self.logdir = os.fspath(logdir)
        self._writer = event_file_writer(self.logdir, flush_secs=flush_secs)

    def scalar(self, tag: str, value: float, step: int) -> None:
        """Log ``value`` under ``tag`` (e.g. ``"loss/policy"``) at ``step``."""
        summary = self._summary(value=[self._summary.Value(tag=tag, simple_value=float(value))])
        self._writer.add_event(self._event(summary=summary, step=int(step), wall_time=time.time()))

    def scalars(self, values: dict[str, float], step: int) -> None:
        """Log each ``tag: value`` of ``values`` at ``step``."""
        for tag, value in values.items():
            self.scalar(tag, value, step)

    def flush(self) -> None:
        """Write the buffered events to the file now."""
        self._writer.flush()

    def close(self) -> None:
        """Flush and close the event file."""
        self._writer.close()

    def __enter__(self) -> TensorBoardLog:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
