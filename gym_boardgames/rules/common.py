"""Validation shared by the rules classes."""

from __future__ import annotations

import numpy as np


def check_size(name: str, value: object, what: str = "") -> int:
    """Return ``value`` as an int if it is an integer >= 1, else raise ``ValueError`` naming ``name``.

    Args:
        name: the parameter's name, for the message.
        value: the value given.
        what: an optional explanation of the unit, e.g. ``" (a number of boxes)"``.
    """
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)) or value < 1:
        raise ValueError(f"{name}{what} must be an integer >= 1, got {value!r}")
    return int(value)
