"""A new game's rules and its text picture: one-pile Nim (take 1 to 3 stones; whoever takes the last one wins).

File 1 of the new game (docs/tutorials/new_game.md). Nothing here imports gymnasium or pygame.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np


class NimState(NamedTuple):
    """A position: the stones left and the player to move (a tuple: immutable and hashable)."""

    stones: int
    player: int


class Nim:
    """One-pile Nim with ``stones`` stones; action ``a`` takes ``a + 1`` stones (at most ``max_take``)."""

    def __init__(self, stones: int = 9, max_take: int = 3) -> None:
        if not (1 <= stones <= 60 and 1 <= max_take <= stones):
            raise ValueError(f"stones must be in [1, 60] and max_take in [1, stones], got {stones}, {max_take}")
        self.stones, self.max_take = stones, max_take
        self.config = (stones, max_take)  # how saved files record it (the registry's game_to_config)
        self.num_actions = max_take
        self.num_keys = 2 * (stones + 1)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Nim) and other.config == self.config

    def __hash__(self) -> int:
        return hash(self.config)

    def __repr__(self) -> str:
        return f"Nim(stones={self.stones}, max_take={self.max_take})"

    def initial_state(self) -> NimState:
        return NimState(self.stones, 0)

    def current_player(self, state: NimState) -> int:
        return state.player

    def legal_actions(self, state: NimState) -> list[int]:
        return list(range(min(self.max_take, state.stones)))

    def is_legal(self, state: NimState, action: object) -> bool:
        return isinstance(action, (int, np.integer)) and 0 <= action < min(self.max_take, state.stones)

    def legal_mask(self, state: NimState) -> np.ndarray:
        mask = np.zeros(self.num_actions, dtype=np.int8)
        mask[self.legal_actions(state)] = 1
        return mask

    def apply(self, state: NimState, action: int) -> NimState:
        if not self.is_legal(state, action):
            raise ValueError(f"illegal action {action!r} with {state.stones} stones left")
        return NimState(state.stones - (int(action) + 1), 1 - state.player)

    def is_terminal(self, state: NimState) -> bool:
        return state.stones == 0

    def returns(self, state: NimState) -> tuple[float, float]:
        if not self.is_terminal(state):
            raise ValueError("returns() is defined only at the end of the game")
        return (1.0, -1.0) if state.player == 1 else (-1.0, 1.0)  # the player who took the last stone wins

    def key(self, state: NimState) -> int:
        return 2 * state.stones + state.player

    def observation(self, state: NimState, player: int) -> np.ndarray:
        """The stones as a row of 0/1 cells (an impartial game looks the same from either side)."""
        return (np.arange(self.stones) < state.stones).astype(np.int8)


def nim_text(game: Nim, state: NimState | None, last: int | None, status: str, symbols: tuple[str, str]) -> str:
    """The pile as text, the last move's take in brackets, then the status line."""
    if state is None:
        return status + "\n"
    taken = f" [took {last + 1}]" if last is not None else ""
    return "o" * state.stones + "." * (game.stones - state.stones) + taken + "\n" + status + "\n"
