"""What the rules classes share: their size limits and checks, and identity by configuration."""

from __future__ import annotations

from typing import Any, ClassVar

from gym_boardgames.checks import check_int

#: Largest side of a Connect-N board (rows or columns). Every size up to it builds in well under a second
#: and fits in memory; beyond it the board would not be playable or drawable anyway.
MAX_BOARD_SIDE = 64
#: Largest side of a Dots and Boxes board, in boxes.
MAX_DOTS_SIDE = 32


def check_board_side(name: str, value: object, limit: int, what: str = "") -> int:
    """Return ``value`` as an int if it is an integer in ``[1, limit]``, else raise ``ValueError``.

    Not an integer >= 1 is :func:`~gym_boardgames.checks.check_int`'s message; a larger size names the
    documented limit, so a hostile size (from a user or from a saved file's header) is refused, and said to be
    beyond the limit, before anything is allocated.

    Args:
        name: the parameter's name, for the message.
        value: the value given.
        limit: the largest accepted value.
        what: an optional explanation of the unit, e.g. ``" (a number of boxes)"``.
    """
    size = check_int(f"{name}{what}", value, 1)
    if size > limit:
        raise ValueError(f"{name}{what} must be at most {limit} (the documented limit), got {size}")
    return size


def value_for(player: int, value: float, holder: int) -> float:
    """Return a two-player zero-sum ``value`` held by ``holder`` as seen by ``player``.

    Searches ask whose turn it is at every node instead of flipping the sign each ply (Dots and Boxes gives
    extra turns): a child's value, from the side of the player to move there, is the parent mover's own
    value when the same player moves again, and its negation otherwise.

    Args:
        player: the player whose point of view is wanted (e.g. the mover at the parent).
        value: the value from ``holder``'s side.
        holder: the player ``value`` belongs to (e.g. the mover at the child).
    """
    return value if holder == player else -value


class RulesByConfig:
    """Identity by configuration: a rules class names its parameters, and the rest follows.

    ``config`` is the tuple of those parameters, ``repr`` shows them as keyword arguments, and two games
    are equal (and hash alike) when they belong to the same family of rules and have the same config. The
    family is the first class that derives from this one, so ``TicTacToe()`` (a ``ConnectN`` subclass)
    equals ``ConnectN(3, 3, 3, False)``: the same rules, and the same saved files.
    """

    #: The constructor's parameters, in order, each also an attribute of the game.
    config_names: ClassVar[tuple[str, ...]]
    _family: ClassVar[type]

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if RulesByConfig in cls.__bases__:
            cls._family = cls

    @property
    def config(self) -> tuple[Any, ...]:
        """The parameters named by ``config_names``: two games with the same config have the same rules."""
        return tuple(getattr(self, name) for name in self.config_names)

    def __repr__(self) -> str:
        arguments = ", ".join(f"{name}={getattr(self, name)!r}" for name in self.config_names)
        return f"{self._family.__name__}({arguments})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, self._family) and self.config == other.config

    def __hash__(self) -> int:
        return hash(self.config)
