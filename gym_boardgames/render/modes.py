"""``render()`` and ``close()`` of every env, once: ansi text, or a pygame view on a Canvas.

An env mixes :class:`RenderModesMixin` in and supplies three things: :meth:`~RenderModesMixin._ansi` (its
text), :meth:`~RenderModesMixin.make_view` (a pygame view of this package) and
:meth:`~RenderModesMixin._draw`, which computes what the frame marks (the last move, the result, the status
line, an overlay) and hands the view the state and those marks. The views never see the env. A board game's
view is :func:`board_view`'s, here rather than in :mod:`.board`, which the views import.

pygame is imported only on the first pygame frame, so ``"ansi"`` and no rendering never load it.
"""

from __future__ import annotations

from abc import ABCMeta, abstractmethod
from typing import Any

import gymnasium as gym
import numpy as np

from gym_boardgames.checks import check_choice
from gym_boardgames.registration import load_layer
from gym_boardgames.render.board import BoardMarks, board_text


def board_view(game: Any) -> Any:
    """Return a new pygame view of a board game (imports pygame), its layers' ``view``.

    Its ``draw(surface, state, marks)`` draws a whole frame; ``size`` is the frame's ``(width, height)``.

    Raises:
        NotImplementedError: for a game the registry does not have, or one without a view.
    """
    return load_layer(game, "view")(game)


class RenderModesMixin(metaclass=ABCMeta):
    """Implements the render modes once; an env supplies :meth:`_ansi`, :meth:`make_view` and :meth:`_draw`.

    They are abstract: a class that misses one cannot be instantiated (``TypeError`` naming it).

    Put it before ``gymnasium.Env`` in the bases so its ``render``/``close`` are the ones used. The env
    sets ``metadata["render_modes"]`` and ``metadata["render_fps"]``, and its ``render_mode`` with
    :meth:`_set_render_mode` in its constructor.
    """

    #: The title of the human-mode window.
    window_title = "gym-boardgames"
    _canvas: Any = None

    def _set_render_mode(self, render_mode: str | None) -> None:
        """Set ``render_mode``, with no pygame backend yet (created on the first pygame frame).

        Raises:
            ValueError: for a mode other than None and those of ``metadata["render_modes"]``.
        """
        self.render_mode = check_choice("render_mode", render_mode, self.metadata["render_modes"], optional=True)
        self._canvas = None

    def render(self) -> str | np.ndarray | None:
        """Render per ``render_mode``: ansi text, an RGB array ``(H, W, 3)`` uint8, or a window frame.

        Returns:
            a string (``"ansi"``), an array (``"rgb_array"``), or None (``"human"`` or no mode).
        """
        if self.render_mode is None:
            gym.logger.warn(
                f"render() called without a render_mode: pass render_mode='ansi', 'rgb_array' or 'human' to "
                f"{self._maker_call()}"
            )
            return None
        if self.render_mode == "ansi":
            return self._ansi()
        if self._canvas is None:
            from gym_boardgames.render.pygame_canvas import Canvas

            view = self.make_view()
            self._canvas = Canvas(view.size, title=self.window_title, fps=self.metadata["render_fps"])
            self._canvas.view = view
        self._draw(self._canvas.view, self._canvas.surface)
        if self.render_mode == "human":
            self._canvas.show()
            return None
        return self._canvas.to_array()

    def _render_human(self) -> None:
        """Show the current frame in the window in human mode (``reset`` and ``step`` call it), else nothing."""
        if self.render_mode == "human":
            self.render()

    def _maker_call(self) -> str:
        """How the user makes this env with a render mode, for the warning of ``render()`` without one."""
        return f'gymnasium.make("{self.spec.id if self.spec else type(self).__name__}", render_mode=...)'

    @abstractmethod
    def _draw(self, view: Any, surface: Any) -> None:
        """Draw the current frame with ``view`` on ``surface``: the state and what it marks."""

    @abstractmethod
    def _ansi(self) -> str:
        """Return the current frame as text (``render_mode="ansi"``)."""

    @abstractmethod
    def make_view(self) -> Any:
        """Return the pygame view that draws this env (see :mod:`gym_boardgames.render`)."""

    def close(self) -> None:
        """Release the window (human mode) and the drawing surface; safe to call twice."""
        if self._canvas is not None:
            self._canvas.close()
            self._canvas = None


class BoardRenderMixin(RenderModesMixin):
    """:class:`RenderModesMixin` for a board game: every frame is ``(game, state, marks())`` drawn by the board views.

    The class supplies ``game``, ``state``, ``style`` (a :class:`~gym_boardgames.render.board.BoardStyle`) and
    :meth:`marks`; the single env and the PettingZoo adapter differ only in how they compute the marks.
    """

    @abstractmethod
    def marks(self) -> BoardMarks:
        """Return what the current frame marks: the last move, the status line, the result."""

    def _ansi(self) -> str:
        return board_text(self.game, self.state, self.marks(), self.style)

    def make_view(self) -> Any:
        """Return a new pygame view of this board (needs pygame)."""
        return board_view(self.game)

    def _draw(self, view: Any, surface: Any) -> None:
        view.draw(surface, self.state, self.marks())
