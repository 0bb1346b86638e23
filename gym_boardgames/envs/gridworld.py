"""GridWorld-v0: the gridworld of Sutton & Barto's example 4.1, with its exact model ``P``.

States are the cells in row-major order, ``s = row * cols + col``, row 0 at the top. Actions are
``UP=0, DOWN=1, LEFT=2, RIGHT=3``. The model ``P[s][a] = [(prob, next_state, reward, terminated), ...]``
is built once in the constructor, in the format of Gymnasium's toy_text envs, and ``step`` samples from
it with the env's ``np_random``, so dynamic programming on ``env.unwrapped.P`` and the simulated episodes
can never disagree.

A grid comes from a map (see :mod:`gym_boardgames.rules.gridworld`, which parses, checks and loads maps, and
holds the size limit :data:`~gym_boardgames.rules.gridworld.MAX_CELLS`) or from ``shape``, ``terminals`` and
``walls``. The ansi text (the map, and the value and policy tables) is drawn by
:mod:`gym_boardgames.render.text`, the pygame frames by :mod:`gym_boardgames.render.gridworld_view`.

Names are Gymnasium toy_text's: the current state is ``s``, the last action ``lastaction``, the model ``P``
(with ``nS`` and ``nA``); TabularBlackjack-v0 uses the same ones.
"""

from __future__ import annotations

import gc
from collections.abc import Iterable, Sequence
from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from gym_boardgames.checks import check_action, check_int, check_number
from gym_boardgames.envs.contract import check_reset_options, reset_needed
from gym_boardgames.render.modes import RenderModesMixin
from gym_boardgames.render.text import gridworld_text
from gym_boardgames.rules.gridworld import FREE, START, TERMINAL, WALL, map_from_parts, parse_map
from gym_boardgames.tabular import best_actions, check_policy

UP, DOWN, LEFT, RIGHT = 0, 1, 2, 3
ACTION_NAMES = ("UP", "DOWN", "LEFT", "RIGHT")
#: (row, col) change of each action.
MOVES = ((-1, 0), (1, 0), (0, -1), (0, 1))
#: The keys ``reset(options=...)`` understands.
RESET_OPTIONS = ("start_state",)


def _slip_template(key: tuple[int, ...], stay: float, move: float) -> tuple[list[tuple[float, int]], ...]:
    """``(prob, rank)`` rows of each action for a state whose four directions reach the cells ranked ``key``.

    ``key[d]`` is the rank (in increasing state order) of the cell reached by direction ``d``. Outcomes that
    land on the same cell (two bumps, say) are merged, summed in direction order, and sorted by cell.
    """
    rows = []
    for a in range(4):
        merged: dict[int, float] = {}
        for direction, rank in enumerate(key):
            p = stay if direction == a else move
            if p > 0.0:
                merged[rank] = merged.get(rank, 0.0) + p
        rows.append(sorted(((p, rank) for rank, p in merged.items()), key=lambda item: item[1]))
    return tuple(rows)


class GridWorldEnv(RenderModesMixin, gym.Env[int, int]):
    """The gridworld of Sutton & Barto's example 4.1, and any grid map with walls and slip.

    ## Description
    An agent moves between the cells of a grid until it enters a terminal cell. The default is the book's
    example 4.1: a 4x4 grid whose top-left and bottom-right cells (states 0 and 15) are terminal::

        T  1  2  3
        4  5  6  7
        8  9 10 11
       12 13 14  T

    A move that would leave the grid or enter a wall leaves the agent where it is. With ``slip > 0`` the
    agent moves in the chosen direction with probability ``1 - slip`` and in each of the other three with
    probability ``slip / 3``. The exact model is ``env.unwrapped.P`` (see Model), so the dynamic
    programming of :mod:`agents.tabular.dp` can solve it: ``policy, V = value_iteration(env.unwrapped.P)``.

    ## Action Space
    ``Discrete(4)``: ``0`` UP, ``1`` DOWN, ``2`` LEFT, ``3`` RIGHT (as in the book).

    ## Observation Space
    ``Discrete(rows * cols)``: the agent's cell ``row * cols + col``, row 0 at the top. Wall cells keep
    their numbers (so the formula holds) but are never occupied.

    ## Starting State
    Uniform over the start cells: the map's ``S`` cells if it has any, else every free non-terminal cell
    (states 1..14 by default). ``reset(options={"start_state": s})`` starts from a chosen free
    non-terminal cell instead, one of ``nonterminal_states`` (the option and attribute that
    ``TabularBlackjack-v0`` has too, and that :func:`agents.tabular.mc.mc_control_es` uses for exploring starts).

    ## Rewards
    -1 for every step taken outside a terminal state, including bumps into an edge or a wall.

    ## Episode End
    Terminated on entering a terminal cell. ``gymnasium.make`` adds a 100-step limit (truncation), so that
    a random policy's episodes end. After the end, ``step`` raises
    :class:`~gym_boardgames.errors.ResetNeeded` (a ``RuntimeError``) saying to call ``reset()``, as every env
    of this package does (and as it does before the first ``reset()``). The model still loops a terminal
    state to itself (see Model), which is what gives it value 0 in dynamic programming. (A truncation is
    the ``TimeLimit`` wrapper's: the env itself would go on.)

    ## Info
    ``prob``: the probability of the transition just sampled (at reset: of the start cell), as in
    Gymnasium's toy_text envs.

    ## Model
    ``P[s][a]`` is a list of ``(prob, next_state, reward, terminated)``: one entry per distinct next
    state, in increasing order of ``next_state``, probabilities summing to 1. A terminal state, and a wall
    cell, loops to itself with probability 1, reward 0 and ``terminated=True``, so its value is 0. Also
    available: ``nS``, ``nA``, ``shape``, ``desc`` (the map rows), ``terminals``, ``walls``, ``starts``,
    ``nonterminal_states``, ``initial_state_distrib``, ``s`` (the current state).

    ## Rendering
    ``"ansi"``: the map with the agent's cell in brackets, then a status line. ``"rgb_array"`` and
    ``"human"``: the grid drawn with pygame (walls dark, terminals shaded, the agent as a red ring).
    ``env.unwrapped.set_overlay(values=V, policy=pi)`` adds a value heat map (with the numbers when
    cells are large enough) and arrows for each state's most probable actions to every later frame, and
    to the ansi text; ``set_overlay()`` removes them. :meth:`render_frame` (or :func:`render_gridworld`)
    draws a frame with an overlay whatever the render mode.

    ## Arguments
    * ``shape=(4, 4)``: ``(rows, cols)``, at most 40,000 cells in all
      (:data:`~gym_boardgames.rules.gridworld.MAX_CELLS`).
    * ``terminals=(0, rows * cols - 1)``: terminal states (at most ``rows * cols`` of them).
    * ``walls=()``: wall states (at most ``rows * cols`` of them).
    * ``desc=None``: a map (see :func:`~gym_boardgames.rules.gridworld.parse_map`, and
      :func:`~gym_boardgames.rules.gridworld.load_map` for a file) given instead of
      ``shape``/``terminals``/``walls``, at most 40,000 cells too.
    * ``slip=0.0``: the probability, in [0, 1], of moving in a random other direction.
    * ``render_mode``: ``None``, ``"human"``, ``"rgb_array"`` or ``"ansi"``.

    ## Version History
    * v0: initial version.
    """

    metadata: dict[str, Any] = {"render_modes": ["human", "rgb_array", "ansi"], "render_fps": 4}

    def __init__(
        self,
        shape: tuple[int, int] | None = None,
        terminals: Iterable[int] | None = None,
        walls: Iterable[int] | None = None,
        desc: str | Sequence[str] | None = None,
        slip: float = 0.0,
        render_mode: str | None = None,
    ) -> None:
        if desc is not None:
            given = [
                name
                for name, value in (("shape", shape), ("terminals", terminals), ("walls", walls))
                if value is not None
            ]
            if given:
                raise ValueError(f"desc (a map) already sets the grid: do not also pass {', '.join(given)}")
            rows = parse_map(desc)
        else:
            rows = map_from_parts((4, 4) if shape is None else shape, terminals, walls)
        slip = check_number("slip", slip, 0, 1)
        self._set_render_mode(render_mode)

        self.desc: tuple[str, ...] = rows
        self.shape: tuple[int, int] = (len(rows), len(rows[0]))
        self.slip = float(slip)
        cells = "".join(rows)
        self.nS = len(cells)
        self.nA = 4
        self.terminals: tuple[int, ...] = tuple(s for s, ch in enumerate(cells) if ch == TERMINAL)
        self.walls: tuple[int, ...] = tuple(s for s, ch in enumerate(cells) if ch == WALL)
        #: The states ``reset(options={"start_state": s})`` accepts: every free non-terminal cell. Exploring
        #: starts (``agents.tabular.mc.mc_control_es``) draw from these, not from ``starts``, which an ``S`` may narrow.
        self.nonterminal_states: tuple[int, ...] = tuple(s for s, ch in enumerate(cells) if ch in (FREE, START))
        marked = tuple(s for s, ch in enumerate(cells) if ch == START)
        self.starts: tuple[int, ...] = marked or self.nonterminal_states
        if not self.starts:
            raise ValueError("the map has no start cell: every cell is a wall or a terminal")
        self._terminal_mask = np.array([ch == TERMINAL for ch in cells])
        self._wall_mask = np.array([ch == WALL for ch in cells])

        self.P: dict[int, dict[int, list[tuple[float, int, float, bool]]]] = self._build_model()
        self._check_terminals_reachable()
        self.initial_state_distrib = np.zeros(self.nS)
        self.initial_state_distrib[list(self.starts)] = 1.0 / len(self.starts)

        self.observation_space = spaces.Discrete(self.nS)
        self.action_space = spaces.Discrete(self.nA)

        self.s: int | None = None  # the current state; None until reset()
        self.lastaction: int | None = None
        self.steps = 0
        self.episode_return = 0.0
        self._overlay_values: np.ndarray | None = None
        self._overlay_policy: np.ndarray | None = None

    # ---- the model ---------------------------------------------------------------------------

    def _targets(self) -> np.ndarray:
        """``(nS, 4)``: the state reached from each state by a move in each direction.

        A move off the grid or into a wall leaves the agent where it is.
        """
        rows, cols = self.shape
        r, c = np.divmod(np.arange(self.nS), cols)
        targets = np.empty((self.nS, 4), dtype=np.int64)
        for direction, (dr, dc) in enumerate(MOVES):
            r2, c2 = r + dr, c + dc
            inside = (r2 >= 0) & (r2 < rows) & (c2 >= 0) & (c2 < cols)
            s_next = np.where(inside, r2 * cols + c2, np.arange(self.nS))
            targets[:, direction] = np.where(self._wall_mask[s_next], np.arange(self.nS), s_next)
        return targets

    def _build_model(self) -> dict[int, dict[int, list[tuple[float, int, float, bool]]]]:
        terminal = self._terminal_mask.tolist()
        absorbing = (self._terminal_mask | self._wall_mask).tolist()
        stay, move = 1.0 - self.slip, self.slip / 3.0
        P: dict[int, dict[int, list[tuple[float, int, float, bool]]]] = {}
        # Slip rows depend only on which directions reach the same cell and on the order of the cells
        # reached: one template per such pattern (a few dozen at most) gives (prob, rank) for each action.
        templates: dict[tuple[int, ...], tuple[list[tuple[float, int]], ...]] = {}
        # The model is hundreds of thousands of small tuples and lists that cannot form cycles; the cyclic
        # garbage collector would rescan the growing heap again and again as they are made, which doubled
        # the build time, so it is paused meanwhile.
        collecting = gc.isenabled()
        gc.disable()
        try:
            for s, targets in enumerate(self._targets().tolist()):
                if absorbing[s]:
                    loop = (1.0, s, 0.0, True)
                    P[s] = {0: [loop], 1: [loop], 2: [loop], 3: [loop]}
                elif move == 0.0:
                    P[s] = {a: [(1.0, t, -1.0, terminal[t])] for a, t in enumerate(targets)}
                else:
                    reached = sorted(set(targets))
                    key = tuple(reached.index(t) for t in targets)
                    template = templates.get(key)
                    if template is None:
                        template = templates[key] = _slip_template(key, stay, move)
                    cells = [(t, terminal[t]) for t in reached]
                    P[s] = {a: [(p, cells[rank][0], -1.0, cells[rank][1]) for p, rank in template[a]] for a in range(4)}
        finally:
            if collecting:
                gc.enable()
        return P

    def _check_terminals_reachable(self) -> None:
        """Refuse maps with free cells that cannot reach a terminal: their episodes could never end."""
        rows, cols = self.shape
        wall = self._wall_mask.tolist()
        reached = self._terminal_mask.tolist()
        frontier = list(self.terminals)
        while frontier:
            s_next = frontier.pop()
            r, c = divmod(s_next, cols)
            # A free neighbour can step into s_next by the opposite move.
            for s, inside in (
                (s_next - cols, r > 0),
                (s_next + cols, r < rows - 1),
                (s_next - 1, c > 0),
                (s_next + 1, c < cols - 1),
            ):
                if inside and not reached[s] and not wall[s]:
                    reached[s] = True
                    frontier.append(s)
        stuck = np.flatnonzero(~np.array(reached) & ~self._wall_mask)
        if stuck.size:
            cells = [divmod(int(s), self.shape[1]) for s in stuck[:5]]
            raise ValueError(
                f"no terminal can be reached from cells (row, col) {cells}{' ...' if stuck.size > 5 else ''}: "
                "wall them off with '#' or add a terminal 'T' they can reach"
            )

    def to_state(self, row: int, col: int) -> int:
        """Return the state of cell ``(row, col)``: ``row * cols + col``."""
        return row * self.shape[1] + col

    def to_cell(self, state: int) -> tuple[int, int]:
        """Return the ``(row, col)`` of ``state``."""
        return divmod(int(state), self.shape[1])

    def is_terminal(self, state: int) -> bool:
        """Whether ``state`` is a terminal cell."""
        return bool(self._terminal_mask[state])

    def is_wall(self, state: int) -> bool:
        """Whether ``state`` is a wall cell."""
        return bool(self._wall_mask[state])

    # ---- the gymnasium API -------------------------------------------------------------------

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[int, dict[str, Any]]:
        """Start an episode in a start cell drawn uniformly with ``np_random``.

        Args:
            seed: seeds ``np_random``.
            options: ``{"start_state": s}`` starts in the free non-terminal cell ``s`` instead.

        Returns:
            The state and ``{"prob": probability of that start}``.

        Raises:
            ValueError: on an unknown option or a start state that is a wall, a terminal or out of range.
        """
        super().reset(seed=seed)
        if "start_state" in check_reset_options(options, RESET_OPTIONS):
            start = check_int('options["start_state"]', options["start_state"], 0, self.nS - 1)
            if self._wall_mask[start] or self._terminal_mask[start]:
                raise ValueError(
                    f'options["start_state"] must be a free non-terminal state, got {start}: a wall or a terminal'
                )
            prob = 1.0
        else:
            start = int(self.starts[self.np_random.integers(len(self.starts))])
            prob = float(self.initial_state_distrib[start])
        self.s = start
        self.lastaction = None
        self.steps = 0
        self.episode_return = 0.0
        self._render_human()
        return start, {"prob": prob}

    def step(self, action: int | np.integer) -> tuple[int, float, bool, bool, dict[str, Any]]:
        """Move by sampling one outcome of ``P[s][action]`` with ``np_random``.

        Returns:
            state, reward, terminated, truncated (always False; ``gymnasium.make`` adds the step limit),
            ``{"prob": probability of the sampled outcome}``.

        Raises:
            ResetNeeded: before the first ``reset()`` or after the episode ended (a terminal cell entered).
            ValueError: an action outside ``Discrete(4)`` (``ActionTypeError``, also a ``TypeError``,
                for a non-integer).
        """
        if self.s is None or self._terminal_mask[self.s]:
            raise reset_needed(ended=self.s is not None)
        a = check_action(action, self.nA, "UP, DOWN, LEFT, RIGHT")
        outcomes = self.P[self.s][a]
        # The same draw as toy_text's categorical_sample, so one uniform number per step.
        i = int(np.argmax(np.cumsum([outcome[0] for outcome in outcomes]) > self.np_random.random()))
        prob, s_next, reward, terminated = outcomes[i]
        self.s = s_next
        self.lastaction = a
        self.steps += 1
        self.episode_return += reward
        self._render_human()
        return s_next, reward, terminated, False, {"prob": prob}

    # ---- overlay and rendering ---------------------------------------------------------------

    def set_overlay(self, values: np.ndarray | None = None, policy: np.ndarray | None = None) -> None:
        """Show a value function and/or a policy on every later frame (and in the ansi text).

        Args:
            values: ``(nS,)`` or ``(rows, cols)`` state values, drawn as a heat map (with the numbers when
                the cells are large enough). None removes the values.
            policy: ``(nS, nA)`` action probabilities (the format of :mod:`agents.tabular.dp`), drawn as arrows
                for each state's most probable actions (several on ties). None removes the arrows.

        Raises:
            ValueError: on a wrong shape, non-finite values, or a policy that is not rows of probabilities.
        """
        self._overlay_values, self._overlay_policy = self._checked_overlay(values, policy)

    def _checked_overlay(
        self, values: np.ndarray | None, policy: np.ndarray | None
    ) -> tuple[np.ndarray | None, np.ndarray | None]:
        """Return the overlay arrays validated, as new float arrays (values flattened to ``(nS,)``)."""
        if values is not None:
            array = np.array(values, dtype=np.float64)
            shaped = array.shape in ((self.nS,), self.shape)
            if not shaped or not np.isfinite(array).all():
                got = "NaN or infinite entries" if shaped else f"shape {array.shape}"
                raise ValueError(f"values must have shape ({self.nS},) or {self.shape} and finite entries, got {got}")
            values = array.reshape(self.nS)
        if policy is not None:
            policy = check_policy(policy, self.nS, self.nA)
        return values, policy

    @property
    def overlay(self) -> tuple[np.ndarray | None, np.ndarray | None]:
        """The ``(values, policy)`` set by :meth:`set_overlay` (copies; None where unset)."""
        values, policy = self._overlay_values, self._overlay_policy
        return (None if values is None else values.copy(), None if policy is None else policy.copy())

    def status_text(self) -> str:
        """A one-line description of the episode, used by every renderer."""
        if self.s is None:
            return "call reset() to start"
        if self._terminal_mask[self.s]:
            return f"done: return {self.episode_return:g} in {self.steps} steps"
        moved = f" after {ACTION_NAMES[self.lastaction]}" if self.lastaction is not None else ""
        return f"state {self.s}{moved}, return {self.episode_return:g}"

    window_title = "GridWorld"

    def make_view(self, max_board_px: int = 640) -> Any:
        """Return a new pygame view of this grid (needs pygame)."""
        from gym_boardgames.render.gridworld_view import GridWorldView

        # A map's S cells are marked; without any, every free cell is a start and none is marked.
        marked = self.starts if START in "".join(self.desc) else ()
        return GridWorldView(self.shape, self.walls, self.terminals, marked, max_board_px=max_board_px)

    def _draw(self, view: Any, surface: Any) -> None:
        self._paint(view, surface, self._overlay_values, self._overlay_policy, None)

    def _paint(
        self, view: Any, surface: Any, values: np.ndarray | None, policy: np.ndarray | None, caption: str | None
    ) -> None:
        """Hand the view the agent's state, the status line and the overlay (arrows: each state's best actions)."""
        arrows = None if policy is None else [best_actions(row) for row in policy]
        view.draw(surface, self.s, self.status_text() if caption is None else caption, values, arrows)

    def render_frame(
        self,
        values: np.ndarray | None = None,
        policy: np.ndarray | None = None,
        caption: str | None = None,
        max_board_px: int = 640,
    ) -> np.ndarray:
        """Draw one frame with an optional value/policy overlay, whatever the render mode (needs pygame).

        The overlay set by :meth:`set_overlay` is neither used nor changed.

        Args:
            values: ``(nS,)`` or ``(rows, cols)`` state values for the heat map, or None.
            policy: ``(nS, nA)`` action probabilities for the arrows, or None.
            caption: the status-bar text (default: :meth:`status_text`).
            max_board_px: the largest side of the grid in pixels.

        Returns:
            A new ``(H, W, 3)`` uint8 array.

        Raises:
            ValueError: on overlay arrays of the wrong shape or content (as :meth:`set_overlay`).
        """
        from gym_boardgames.render.pygame_canvas import Canvas

        values, policy = self._checked_overlay(values, policy)
        view = self.make_view(max_board_px)
        canvas = Canvas(view.size, title=self.window_title, fps=self.metadata["render_fps"])
        self._paint(view, canvas.surface, values, policy, caption)
        return canvas.to_array()

    def _ansi(self) -> str:
        return gridworld_text(self, self.status_text(), self._overlay_values, self._overlay_policy)


def render_gridworld(
    env: Any,
    values: np.ndarray | None = None,
    policy: np.ndarray | None = None,
    caption: str | None = None,
    max_board_px: int = 640,
) -> np.ndarray:
    """Draw one frame of a ``GridWorld-v0`` env, wrapped or not, with an optional value/policy overlay.

    It is ``env.unwrapped.render_frame(...)``: the arguments, the ``(H, W, 3)`` uint8 result and the errors are
    those of :meth:`GridWorldEnv.render_frame`. The agent is drawn if an episode has started.
    """
    return env.unwrapped.render_frame(values=values, policy=policy, caption=caption, max_board_px=max_board_px)
