"""The one builder of the play doors (:func:`gym_boardgames.play`).

:func:`resolve` checks a game, an opponent, a side, the hints and a seed once, into a :class:`Table` that every
door makes its sessions from.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from agents.factory import default_opponent, suggested_opponents
from agents.hints import HintProvider, hint_labels
from gym_boardgames.checks import check_choice, check_int
from gym_boardgames.envs import env_for_game
from gym_boardgames.human.session import SIDES, PlaySession
from gym_boardgames.opponents import make_opponent
from gym_boardgames.rules.registry import make_game

__all__ = ["Table", "resolve"]


@dataclass(frozen=True)
class Table:
    """A game ready to be played through any door: everything :func:`play` was given, resolved once.

    Attributes:
        game: the rules object.
        opponents: the opponents a door offers, by name, the chosen one first (then the game's suggested
            agents); each maps to what :func:`~gym_boardgames.opponents.make_opponent` builds it from.
        side: the person's side, one of :data:`SIDES`.
        hints: the hint provider, or None (every move ``"?"``).
        seed: seeds each game's agent.
        title: the game's title.
    """

    game: Any
    opponents: dict[str, Any]
    side: str
    hints: HintProvider | None
    seed: int | None
    #: The game's title (``"Connect Four"``), for the window's caption and the page's heading.
    title: str

    @property
    def opponent(self) -> str:
        """The name of the opponent chosen (the first offered)."""
        return next(iter(self.opponents))

    def session(
        self, opponent: str | None = None, side: str | None = None, kind: type[PlaySession] = PlaySession, **extra: Any
    ) -> PlaySession:
        """Return a new game against ``opponent`` (a name of :attr:`opponents`; default the chosen one) on ``side``.

        ``kind`` is the session's class (the window's :class:`~gym_boardgames.human.window.PlayApp`), given
        ``extra`` keywords.

        Raises:
            ValueError: a name that is not offered, or a side not in :data:`SIDES` (the page and the widget pass
                what a person's browser sent); an opponent that cannot be built names itself.
        """
        opponent = self.opponent if opponent is None else opponent
        side = check_choice("side", self.side if side is None else side, SIDES)
        if not isinstance(opponent, str) or opponent not in self.opponents:
            raise ValueError(f"unknown opponent {opponent!r:.60}: use one of {', '.join(self.opponents)}")
        agent = None if side == "both" else self.opponents[opponent]
        env = env_for_game(self.game, opponent=None)
        return kind(env, agent, side=int(side == "second"), hints=self.hints, seed=self.seed, **extra)


def resolve(
    game: Any, opponent: Any = None, side: str = "first", hints: Any = True, seed: int | None = 0, **sizes: Any
) -> Table:
    """Return the :class:`Table` of :func:`play`'s arguments: each checked once, here (see :func:`play`).

    The chosen opponent is built once now, so that one that cannot play the game is refused before any door
    opens; a door builds each game's agent again from the same form.
    """
    if isinstance(game, str):
        game = make_game(game, **sizes)
    elif sizes:
        raise ValueError(f"size options ({', '.join(sizes)}) go with a game's name, not a rules object")
    side = check_choice("side", side, SIDES)
    if hints is True:
        hints = hint_labels
    elif hints is False or hints is None:
        hints = None
    elif not callable(hints):
        raise ValueError(f"hints must be True, False or a provider (game, state, player) -> labels, got {hints!r:.60}")
    if seed is not None:
        check_int("seed", seed, 0)
    title = env_for_game(game, opponent=None).window_title  # a game without a board env is refused here
    chosen = default_opponent(game) if opponent is None else opponent
    first = make_opponent(chosen, game, seed)
    # A name is built again for each game (a fresh agent, seeded alike); an object is played as it is.
    opponents = {first.name: chosen if isinstance(chosen, str) else first}
    for name in suggested_opponents(game):
        opponents.setdefault(name, name)
    return Table(game, opponents, side, hints, seed, title)
