"""Deprecated: the Connect-N view is :mod:`gym_boardgames.render.connect_view` (``ConnectView``).

This module stays for one version so that old imports keep working; importing it warns.
``GridView`` is ``ConnectView``, whose ``draw(surface, state, marks)`` takes a state and its marks
(:class:`~gym_boardgames.render.board.BoardMarks`) instead of an env.
"""

from __future__ import annotations

import warnings

from gym_boardgames.render.connect_view import ConnectView

warnings.warn(
    "gym_boardgames.render.grid_view is deprecated: use gym_boardgames.render.connect_view.ConnectView",
    DeprecationWarning,
    stacklevel=2,
)

GridView = ConnectView

__all__ = ["GridView"]
