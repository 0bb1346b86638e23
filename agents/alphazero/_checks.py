"""The settings checks shared by the AlphaZero configurations and agent (one message style for all)."""

from __future__ import annotations

from typing import Any

import numpy as np


def check_int(name: str, value: Any, low: int, high: int | None = None) -> None:
    """Raise ``ValueError`` naming ``name`` unless ``value`` is an integer (not a bool) in ``[low, high]``."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
        ok = False
    else:
        ok = value >= low and (high is None or value <= high)
    if not ok:
        bounds = f">= {low}" if high is None else f"in [{low}, {high}]"
        raise ValueError(f"{name} must be an integer {bounds}, got {value!r}")


def check_number(name: str, value: Any, low: float, high: float) -> None:
    """Raise ``ValueError`` naming ``name`` unless ``value`` is a real number (not a bool) in ``[low, high]``."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, float, np.integer, np.floating)):
        ok = False
    else:
        ok = low <= value <= high  # also refuses NaN
    if not ok:
        raise ValueError(f"{name} must be a number in [{low}, {high}], got {value!r}")
