"""Board encodings for the policy-value network, from the side of the player to move, and their symmetries.

Every game is drawn on a grid of cells so that one convolutional network fits all of them:

* **Connect-N, tic-tac-toe, Connect Four** (``rows x cols``): planes ``own pieces``, ``opponent's
  pieces``, ``colour to play`` (all ones when player 0 is to move) and ``ones`` (so the convolutions see the
  board's edge through zero padding); gravity boards add ``landing cells``, where each column's next piece
  would fall. The source's fourth plane, the last move, is left out on purpose: states here are positions
  without history (the rules' contract), so an evaluator asked about a state cannot know the last move, and
  the game is Markov without it.
* **Dots and Boxes** (``rows x cols`` boxes) on the ``(2 rows + 1) x (2 cols + 1)`` lattice of dots, edges
  and boxes: dot ``(r, c)`` at ``(2r, 2c)``, horizontal edge ``(r, c)`` at ``(2r, 2c + 1)``, vertical edge
  ``(r, c)`` at ``(2r + 1, 2c)`` and box ``(r, c)`` at ``(2r + 1, 2c + 1)``. Planes: ``drawn edges``,
  ``own boxes``, ``opponent's boxes``, ``sides drawn / 4`` (on the boxes), ``edge cells`` (where moves
  are), ``colour to play`` and ``ones``. On the lattice every mirror or rotation of the board is a plain
  mirror or rotation of the grid, so symmetries need no special case.

The encoders read the rules surface only: ``current_player``, ``observation(state, player)`` (the
board or the edge vector and box owners from one player's side) and ``legal_mask``.

Symmetries (data augmentation): the 8 of a square board without gravity, the mirrors and half-turn of a
rectangular one, the left-right mirror of gravity boards, and the same groups for Dots and Boxes'
lattice. Each is a pair of permutations: ``planes[:, cell_perm]`` on the flattened grid, and a policy
``pi`` over actions becomes ``pi[action_perm]``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, NamedTuple

import numpy as np

from gym_boardgames.rules import ConnectN, DotsAndBoxes
from gym_boardgames.rules.registry import game_from_config, row_of


class Symmetry(NamedTuple):
    """One symmetry of a board as index permutations.

    Attributes:
        name: e.g. ``"identity"``, ``"mirror"``, ``"rot90"``.
        cell_perm: ``(H * W,)``: the transformed grid is ``grid.ravel()[cell_perm]``.
        action_perm: ``(num_actions,)``: a policy over actions becomes ``pi[action_perm]``.
    """

    name: str
    cell_perm: np.ndarray
    action_perm: np.ndarray


_GridMap = Callable[[np.ndarray], np.ndarray]
_DIHEDRAL: tuple[tuple[str, _GridMap], ...] = (
    ("identity", lambda g: g),
    ("rot90", lambda g: np.rot90(g, 1)),
    ("rot180", lambda g: np.rot90(g, 2)),
    ("rot270", lambda g: np.rot90(g, 3)),
    ("mirror", lambda g: np.fliplr(g)),
    ("flip", lambda g: np.flipud(g)),
    ("transpose", lambda g: g.T),
    ("antitranspose", lambda g: np.rot90(g, 2).T),
)
_RECTANGLE = tuple(s for s in _DIHEDRAL if s[0] in ("identity", "rot180", "mirror", "flip"))
_MIRROR = tuple(s for s in _DIHEDRAL if s[0] in ("identity", "mirror"))


class BoardEncoder:
    """Turns states of one game into network input planes and knows the game's symmetries.

    Use :func:`encoder_for` to get the encoder of a rules object.

    Attributes:
        game: the rules object.
        shape: ``(planes, height, width)`` of one encoded state.
        num_actions: the size of the policy.
        symmetries: the board's symmetries, identity first.
    """

    def __init__(self, game: Any, planes: int, height: int, width: int, action_cells: np.ndarray, maps) -> None:
        self.game = game
        self.shape = (planes, height, width)
        self.num_actions = int(game.num_actions)
        self._action_cells = action_cells
        self.symmetries = tuple(self._symmetry(name, grid_map) for name, grid_map in maps)

    def _symmetry(self, name: str, grid_map: _GridMap) -> Symmetry:
        _, height, width = self.shape
        cell_perm = np.ascontiguousarray(grid_map(np.arange(height * width).reshape(height, width))).ravel()
        # where[k] = the new position of old cell k; an action follows its cell.
        where = np.empty_like(cell_perm)
        where[cell_perm] = np.arange(cell_perm.size)
        cell_to_action = np.full(height * width, -1, dtype=np.int64)
        cell_to_action[self._action_cells] = np.arange(self.num_actions)
        new_action_of = cell_to_action[where[self._action_cells]]
        if np.any(new_action_of < 0):
            raise AssertionError(f"symmetry {name} maps a move outside the moves")  # a bug, not user input
        action_perm = np.empty_like(new_action_of)
        action_perm[new_action_of] = np.arange(self.num_actions)  # pi_new[a'] = pi_old[a]
        return Symmetry(name, cell_perm, action_perm)

    def encode(self, states: Sequence[Any]) -> np.ndarray:
        """Return the ``(B, planes, height, width)`` float32 input of ``states``, each from its mover's side."""
        raise NotImplementedError

    def augment(self, planes: np.ndarray, policies: np.ndarray, which: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Apply symmetry ``which[i]`` to sample ``i``.

        Args:
            planes: ``(B, C, H, W)`` encoded states.
            policies: ``(B, num_actions)`` search policies.
            which: ``(B,)`` indices into :attr:`symmetries`.

        Returns:
            The transformed planes and policies (new arrays).
        """
        batch, channels, height, width = planes.shape
        cell_perms = np.stack([s.cell_perm for s in self.symmetries])[which]  # (B, HW)
        action_perms = np.stack([s.action_perm for s in self.symmetries])[which]  # (B, A)
        flat = planes.reshape(batch, channels, height * width)
        out = np.take_along_axis(flat, cell_perms[:, None, :], axis=2).reshape(planes.shape)
        return out, np.take_along_axis(policies, action_perms, axis=1)


class ObservationEncoder(BoardEncoder):
    """Planes of any game from its rules' ``observation(state, player)``: a registered game without an encoder.

    One row of cells (the observation flattened, padded to at least ``num_actions``): plane 0 the observation
    from the mover's side, plane 1 ones where it has values. No symmetries, and action ``a`` sits at cell ``a``
    (the policy head is a linear layer over every cell, so the layout only matters to the convolutions).
    """

    def __init__(self, game: Any) -> None:
        self._size = np.asarray(game.observation(game.initial_state(), 0)).size
        width = max(self._size, int(game.num_actions))
        super().__init__(game, 2, 1, width, np.arange(int(game.num_actions)), _DIHEDRAL[:1])

    def encode(self, states: Sequence[Any]) -> np.ndarray:
        """Return the ``(B, 2, 1, width)`` float32 input of ``states``, each from its mover's side."""
        planes = np.zeros((len(states), *self.shape), dtype=np.float32)
        for i, state in enumerate(states):
            seen = np.asarray(self.game.observation(state, self.game.current_player(state)), dtype=np.float32)
            planes[i, 0, 0, : self._size] = seen.ravel()
        planes[:, 1, 0, : self._size] = 1.0
        return planes


class ConnectEncoder(BoardEncoder):
    """Planes of a Connect-N board (see the module docstring)."""

    def __init__(self, game: ConnectN) -> None:
        rows, cols = game.rows, game.cols
        maps = _MIRROR if game.gravity else _DIHEDRAL if rows == cols else _RECTANGLE
        action_cells = np.arange(cols if game.gravity else rows * cols)  # a column is represented by its top cell
        super().__init__(game, 5 if game.gravity else 4, rows, cols, action_cells, maps)

    def encode(self, states: Sequence[Any]) -> np.ndarray:
        """Return the ``(B, planes, rows, cols)`` float32 input of ``states``, each from its mover's side."""
        game = self.game
        movers = [game.current_player(s) for s in states]
        players = np.array(movers, dtype=np.float32)
        boards = np.stack([game.observation(s, p) for s, p in zip(states, movers, strict=True)]).astype(np.float32)
        planes = np.empty((len(states), *self.shape), dtype=np.float32)
        planes[:, 0] = boards > 0
        planes[:, 1] = boards < 0
        planes[:, 2] = (players == 0)[:, None, None]
        planes[:, 3] = 1.0
        if game.gravity:
            rows = game.rows
            filled = (boards != 0).sum(axis=1)  # (B, cols): pieces per column
            landing = rows - 1 - filled  # -1 for a full column
            planes[:, 4] = np.arange(rows)[None, :, None] == landing[:, None, :]
        return planes


class DotsEncoder(BoardEncoder):
    """Planes of a Dots and Boxes board on its lattice (see the module docstring)."""

    def __init__(self, game: DotsAndBoxes) -> None:
        rows, cols = game.rows, game.cols
        height, width = 2 * rows + 1, 2 * cols + 1
        # An edge sits midway between its two dots, (2r, 2c) and its neighbour: at their coordinates' sum.
        ends = [game.edge_endpoints(e) for e in range(game.num_edges)]
        self._edge_cells = np.array([(r0 + r1) * width + c0 + c1 for (r0, c0), (r1, c1) in ends])
        self._box_cells = np.array([(2 * r + 1) * width + 2 * c + 1 for r in range(rows) for c in range(cols)])
        maps = _DIHEDRAL if rows == cols else _RECTANGLE
        super().__init__(game, 7, height, width, self._edge_cells, maps)

    def encode(self, states: Sequence[Any]) -> np.ndarray:
        """Return the ``(B, 7, 2 rows + 1, 2 cols + 1)`` float32 input of ``states``, from each mover's side."""
        game = self.game
        num_edges = game.num_edges
        players = np.array([game.current_player(s) for s in states])
        obs = np.stack([game.observation(s, p) for s, p in zip(states, players, strict=True)]).astype(np.float32)
        edges, owners = obs[:, :num_edges], obs[:, num_edges:]
        batch = len(states)
        _, height, width = self.shape
        planes = np.zeros((batch, 7, height * width), dtype=np.float32)
        planes[:, 0, self._edge_cells] = edges
        planes[:, 1, self._box_cells] = owners > 0
        planes[:, 2, self._box_cells] = owners < 0
        planes[:, 3, self._box_cells] = edges[:, game.geometry.box_edges].sum(axis=2) / 4.0
        planes[:, 4, self._edge_cells] = 1.0
        planes[:, 5] = (players == 0)[:, None]
        planes[:, 6] = 1.0
        return planes.reshape(batch, *self.shape)


#: The encoder class of each board game, by its rules row's name (:data:`gym_boardgames.rules.registry.GAMES`);
#: a registered game missing here is encoded from its observation (:class:`ObservationEncoder`, no symmetries).
#: Connect Four's rules are a ConnectN: its rules row is ConnectN's.
ENCODERS: dict[str, Callable[[Any], BoardEncoder]] = {
    "TicTacToe": ConnectEncoder,
    "ConnectN": ConnectEncoder,
    "DotsAndBoxes": DotsEncoder,
}


def encoder_for(game: Any) -> BoardEncoder:
    """Return the encoder of a rules object: its game's in :data:`ENCODERS`, else an :class:`ObservationEncoder`.

    Raises:
        ValueError: for a game not registered (:func:`gym_boardgames.registration.register_game`).
    """
    row = row_of(game)
    if row is None:
        raise ValueError(f"no AlphaZero encoder for {game!r}: register the game (gym_boardgames.registration)")
    return ENCODERS.get(row.name, ObservationEncoder)(game)


def recorded_game(record: Any) -> tuple[Any, BoardEncoder]:
    """Return the game a saved file records (:func:`~gym_boardgames.rules.registry.game_from_config`) and its encoder.

    Raises:
        ValueError: on a record the registry refuses (sizes are checked by the constructors' limits before
            anything is allocated), or a game without an encoder.
    """
    game = game_from_config(record)
    if game is None:
        raise ValueError(f"no AlphaZero encoder for {record!r}: use TicTacToe, ConnectN or DotsAndBoxes")
    return game, encoder_for(game)
