"""Flags made from a settings dataclass: one ``--flag`` per field, its type, bounds and help read off the field.

A script whose settings are a dataclass (as CleanRL's ``Args``) declares each setting once, in the dataclass, with
``metadata`` holding its ``help`` and either its ``choices`` or its ``bounds`` (``(low, high)``, ``high`` None for
none); :func:`add_setting_flags` turns the fields into flags, whose values default to None (not given), so the
script can tell a flag given from a preset's value. :func:`flag_of` and :func:`shown` word a setting as its flag
takes it, for the script's messages.
"""

from __future__ import annotations

import argparse
import math
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from .cli import int_type, number_type

__all__ = ["add_setting_flags", "flag_of", "shown"]


def flag_of(name: str) -> str:
    """The flag of a setting: its name with dashes (``replay_window`` -> ``--replay-window``)."""
    return "--" + name.replace("_", "-")


def shown(value: Any) -> str:
    """A setting's value as its flag takes it (``0.002``, ``7200``)."""
    return f"{value:.12g}" if isinstance(value, float) else str(value)


def add_setting_flags(
    parser: argparse.ArgumentParser,
    fields: Iterable[Any],
    is_integer: Callable[[str], bool],
    presets: Mapping[str, Mapping[str, Any]],
) -> None:
    """Add one flag per field of a settings dataclass (``dataclasses.fields``), default None.

    Args:
        parser: the script's parser.
        fields: the dataclass's fields; each one's ``metadata`` has ``help``, and ``choices`` or ``bounds``.
        is_integer: whether the setting of this name takes an integer (else any number in its bounds).
        presets: each preset's settings by its name (a game, say): the help ends with their values, once if
            they agree (``(default 600)``), else by preset (``(default tictactoe: 600; connectfour: 10000)``).
    """
    for setting in fields:
        meta = setting.metadata
        if "choices" in meta:
            options: dict[str, Any] = {"choices": meta["choices"]}
        elif is_integer(setting.name):
            options = {"type": int_type(*meta["bounds"])}
        else:
            low, high = meta["bounds"]
            options = {"type": number_type(low, math.inf if high is None else high)}
        groups: dict[str, list[str]] = {}
        for name, values in presets.items():
            groups.setdefault(shown(values[setting.name]), []).append(name)
        if len(groups) == 1:
            defaults = f" (default {next(iter(groups))})"
        else:
            defaults = " (default " + "; ".join(f"{', '.join(names)}: {v}" for v, names in groups.items()) + ")"
        flag = flag_of(setting.name)
        metavar = None if "choices" in meta else flag[2:].upper().replace("-", "_")  # choices show themselves
        parser.add_argument(
            flag, dest=setting.name, metavar=metavar, **options, help=meta["help"].replace("%", "%%") + defaults
        )
