"""TabularBlackjack-v0: Gymnasium's ``Blackjack-v1`` (``sab=True``) seen through one ``Discrete`` index.

The game itself is Gymnasium's: this module never deals a card. :class:`TabularBlackjackEnv` is an env of
this package in its own right (``env.unwrapped`` is it, so ``env.unwrapped.P`` works as GridWorld's does)
that plays a ``BlackjackEnv`` it holds as ``gymnasium_env``, made directly rather than through ``gymnasium.make``
so that no second tower of wrappers sits inside it. Its ``game`` is the rules and exact model,
:mod:`gym_boardgames.rules.blackjack`, as a board env's ``game`` is its rules object. It adds four things that
tabular methods need:

* a single integer state, ``env.unwrapped.s`` as in Gymnasium's toy_text envs and GridWorld-v0, with
  ``encode`` / ``decode`` to and from Gymnasium's observation ``(player_sum, dealer_card, usable_ace)``
  (the layout, and why a natural has its own index, are in :mod:`gym_boardgames.rules.blackjack`);
* the exact infinite-deck model ``P[s][a] = [(prob, next_s, reward, terminated), ...]`` in the format
  of Gymnasium's toy_text environments, and the initial-state distribution of the deal
  (:func:`gym_boardgames.rules.blackjack.blackjack_model`), so dynamic programming solves the game exactly and
  Monte Carlo estimates can be checked against the truth;
* ``reset(options={"start_state": s})``, which starts an episode in any non-terminal state (exploring starts;
  the option is GridWorld's, and ``nonterminal_states`` lists the states it accepts);
* rendering of its own (ansi text, and pygame through :mod:`gym_boardgames.render.blackjack_view`) that
  shows the end of a hand: the dealer's cards face up and the result.

Every ending (stick or bust) moves to ``TERMINAL``; Gymnasium's final observation (e.g. a bust total of 26)
stays available in ``info["raw_obs"]``. Pass ``env.unwrapped.P`` (or ``env.get_wrapper_attr("P")``, or
``blackjack_model()``'s) to dynamic programming.
"""

from __future__ import annotations

from types import ModuleType
from typing import Any, SupportsFloat

import gymnasium as gym
import numpy as np
from gymnasium import spaces
from gymnasium.envs.toy_text.blackjack import BlackjackEnv, is_natural, sum_hand, usable_ace

from gym_boardgames.checks import check_action, check_int
from gym_boardgames.envs.contract import check_reset_options, reset_needed
from gym_boardgames.render.modes import RenderModesMixin
from gym_boardgames.rules import blackjack as blackjack_rules
from gym_boardgames.rules.blackjack import (
    N_ACTIONS,
    N_STATES,
    NATURAL_OFFSET,
    TERMINAL,
    blackjack_model,
    card_label,
    decode,
    encode,
    is_natural_state,
)

#: The keys ``reset(options=...)`` understands (the same as GridWorld's).
RESET_OPTIONS = ("start_state",)

# Gymnasium observation -> index, for step (never a natural: every index below NATURAL_OFFSET) and for the
# deal (where a soft 21 is always a natural: the naturals, numbered last, replace the soft 21s).
_PLAY_INDEX: dict[tuple[int, int, int], int] = {decode(s): s for s in range(NATURAL_OFFSET)}
_DEAL_INDEX: dict[tuple[int, int, int], int] = {decode(s): s for s in range(TERMINAL)}


def _hand_for(state: int) -> list[int]:
    """A player hand that Gymnasium observes as ``decode(state)`` (a natural exactly when ``state`` is one)."""
    total, _, soft = decode(state)
    if is_natural_state(state):
        return [1, 10]
    if soft:
        return [1, 5, 5] if total == 21 else [1, total - 11]  # soft 12 is ace + ace
    if total == 21:
        return [2, 9, 10]
    return [total // 2, total - total // 2]  # two cards 2..10 for every hard total 4..20


def _hand_text(cards: list[int]) -> str:
    return "[" + ", ".join(card_label(card) for card in cards) + "]"


def _signed(reward: float | None) -> str:
    """A reward as ``+1``, ``-1`` or ``0``."""
    return f"{reward:+g}" if reward else "0"


class TabularBlackjackEnv(RenderModesMixin, gym.Env[int, int]):
    """Sutton and Barto's blackjack (Gymnasium ``Blackjack-v1``, ``sab=True``) with a ``Discrete`` state.

    ## Description
    The game and its dealing are Gymnasium's own: this env holds a ``BlackjackEnv(sab=True)`` as
    ``gymnasium_env`` (made directly, so with no wrappers of its own), steps it, and only renames its observation
    ``(player_sum, dealer_card, usable_ace)`` to one index (layout in the module docstring of
    :mod:`gym_boardgames.rules.blackjack`). A natural (ace + ten on the deal) has its own index, because
    sticking on it pays differently from sticking on another soft 21; ``(21, d, 1)`` at ``reset`` is
    always a natural and at ``step`` never is.

    It exposes the exact infinite-deck model ``P`` (toy_text format) and ``initial_state_distrib`` as
    ``env.unwrapped.P`` (or ``env.get_wrapper_attr("P")``);
    :func:`~gym_boardgames.rules.blackjack.blackjack_model` builds them without an env. ``game`` is that rules
    and model module, :mod:`gym_boardgames.rules.blackjack` (``encode``, ``decode``, ``blackjack_model``...),
    as a board env's ``game`` is its rules object.

    ## Action Space
    ``Discrete(2)``: 0 stick, 1 hit. Anything else, booleans included, raises ``ValueError`` (an
    ``ActionTypeError``, also a ``TypeError``, for a non-integer), as the board envs do.

    ## Observation Space
    ``Discrete(291)``: hard totals 4..21 (0..179), soft totals 12..21 (180..279), naturals (280..289),
    each ``10 * row + dealer_card - 1``; 290 is the absorbing terminal state. ``encode`` / ``decode``
    convert (also module functions).

    ## Rewards
    Blackjack-v1's: +1 win, 0 draw, -1 loss on the final step, 0 for a hit that does not bust. A
    natural that sticks wins +1 unless the dealer has a natural too (0).

    ## Episode End
    Terminated when the player sticks or busts; the observation is then ``TERMINAL`` (290) and
    ``info["raw_obs"]`` holds Gymnasium's final observation. After the end, ``step`` raises
    :class:`~gym_boardgames.errors.ResetNeeded` (a ``RuntimeError``) saying to call ``reset()``, as every env
    of this package does (and as it does before the first ``reset()``); ``TERMINAL`` stays absorbing in the
    model ``P``, which gives it value 0 in dynamic programming.
    Never truncated (unless ``max_episode_steps`` is passed to ``gymnasium.make``).

    ## Starting State
    Gymnasium's deal. ``reset(options={"start_state": s})`` starts in any non-terminal state ``s`` (one of
    ``nonterminal_states``) instead (for
    exploring starts): the deal is made as usual, so the dealer's hidden card is an ordinary random
    card, and then the player's hand and the dealer's showing card are replaced by cards that Gymnasium
    observes as ``decode(s)`` (ace + ten for a natural, three cards for another soft 21).

    ## Info
    ``raw_obs``: Gymnasium's ``(player_sum, dealer_card, usable_ace)`` after ``reset`` and ``step``.

    ## Rendering
    ``"ansi"``: one line of text, :meth:`status_text` (the player's total and the dealer's showing card; at
    the end both hands and the result). ``"rgb_array"`` and ``"human"``: the table drawn with pygame, the
    dealer's second card face down until the hand ends, then every dealer card face up and the result
    (win, lose or draw) in the status bar. ``hand_over``, ``result``, ``player_cards`` and ``dealer_cards``
    are the facts the drawings use.

    ## Arguments
    * ``render_mode``: ``None``, ``"human"``, ``"rgb_array"`` or ``"ansi"``.
    * ``sab=True``: must stay True, since the model ``P`` is of the Sutton and Barto rules.
    * ``natural=False``: passed to ``BlackjackEnv``, which ignores it under ``sab=True``.

    ## Version History
    * v0: initial version (over Gymnasium's Blackjack-v1). Then, with the same dynamics and encoding: an env
      of its own (``unwrapped`` is this class, not ``BlackjackEnv``), its own drawing of the end of a hand,
      booleans refused (see CHANGELOG.md). The exploring-start reset option is ``"start_state"`` and the
      current state index is ``s``, as in GridWorld and Gymnasium's toy_text envs. ``game`` is the rules
      module, as in the board envs; Gymnasium's ``BlackjackEnv`` moved to ``gymnasium_env``.
    """

    metadata: dict[str, Any] = {"render_modes": ["human", "rgb_array", "ansi"], "render_fps": 4}
    window_title = "Blackjack"
    encode = staticmethod(encode)
    decode = staticmethod(decode)

    def __init__(self, render_mode: str | None = None, sab: bool = True, natural: bool = False) -> None:
        if not sab:
            raise ValueError("TabularBlackjack-v0 models the Sutton and Barto rules: sab must be True")
        self._set_render_mode(render_mode)
        #: Gymnasium's env, which deals every card. It never renders: this env draws the table itself.
        self.gymnasium_env = BlackjackEnv(render_mode=None, natural=natural, sab=True)
        self.action_space = spaces.Discrete(N_ACTIONS)
        self.observation_space = spaces.Discrete(N_STATES)
        self.P, self.initial_state_distrib = blackjack_model()
        self.nonterminal_states: tuple[int, ...] = tuple(range(TERMINAL))
        self._state = TERMINAL
        self._raw: tuple[int, int, int] | None = None
        self._last_reward: float | None = None

    # A property, not an attribute: a module in the instance's __dict__ would stop copy.deepcopy and pickle.
    @property
    def game(self) -> ModuleType:
        """The rules and exact model, :mod:`gym_boardgames.rules.blackjack`, as a board env's ``game``.

        Blackjack's rules have no settings (the Sutton and Barto ones, an infinite deck), so there is no
        instance to build: the module is the rules object (``game.encode``, ``game.decode``,
        ``game.blackjack_model()``...). Gymnasium's env that deals the cards is :attr:`gymnasium_env`.
        """
        return blackjack_rules

    # One generator deals every card: Gymnasium's env's. This env's np_random is that same object, so seeding
    # either seeds the deal (and Gymnasium's checker sees the generator it expects to move). The checker inspects
    # ``env.unwrapped._np_random`` (the attribute ``gymnasium.Env`` keeps for its subclasses), so the setter and
    # ``reset`` point it at the generator that deals. The seed needs no copy: ``np_random_seed`` reads
    # ``gymnasium_env``'s.
    @property
    def np_random(self) -> np.random.Generator:
        """The generator that deals the cards (the same object as ``gymnasium_env.np_random``)."""
        return self.gymnasium_env.np_random

    @np_random.setter
    def np_random(self, value: np.random.Generator) -> None:
        self.gymnasium_env.np_random = self._np_random = value

    @property
    def np_random_seed(self) -> int:
        """The seed of :attr:`np_random` (-1 if it was set directly)."""
        return self.gymnasium_env.np_random_seed

    @property
    def s(self) -> int:
        """The current state index (``TERMINAL`` before the first reset and after the end); toy_text's name."""
        return self._state

    @property
    def hand_over(self) -> bool:
        """Whether a dealt hand has ended (the player stuck or bust)."""
        return self._state == TERMINAL and self._raw is not None

    @property
    def result(self) -> float | None:
        """The reward of the hand that has ended: +1 win, 0 draw, -1 loss; None while a hand is played."""
        return self._last_reward if self.hand_over else None

    @property
    def player_cards(self) -> list[int]:
        """The player's cards, 1 (ace) .. 10 (a ten or a face); empty before the first reset."""
        return list(self.gymnasium_env.player) if self._raw is not None else []

    @property
    def dealer_cards(self) -> list[int]:
        """The dealer's cards, the showing one first; all but the first are face down until :attr:`hand_over`."""
        return list(self.gymnasium_env.dealer) if self._raw is not None else []

    @property
    def dealer_showing(self) -> str:
        """The dealer's showing card as Gymnasium names it (``"A"``, ``"2"`` .. ``"10"``, ``"J"``, ``"Q"``, ``"K"``)."""
        return str(self.gymnasium_env.dealer_top_card_value_str) if self._raw is not None else ""

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[int, dict[str, Any]]:
        """Deal a new hand; ``options={"start_state": s}`` starts in state ``s`` instead.

        Args:
            seed: seeds the generator that deals the cards.
            options: ``{"start_state": s}`` for a non-terminal state index ``s``.

        Returns:
            The state index and ``{"raw_obs": Gymnasium's observation}``.

        Raises:
            ValueError: on an unknown option or a start state that is not a non-terminal index.
        """
        options = check_reset_options(options, RESET_OPTIONS)
        start = options.get("start_state")
        if "start_state" in options:  # checked before gymnasium_env is touched (None included)
            start = check_int('options["start_state"] (a non-terminal state index)', start, 0, TERMINAL - 1)
        raw, info = self.gymnasium_env.reset(seed=seed)
        self._np_random = self.gymnasium_env.np_random
        if start is None:
            self._state = _DEAL_INDEX[raw]
        else:
            raw = self._deal_state(start)
            self._state = start
        self._raw, self._last_reward = raw, None
        info["raw_obs"] = raw
        self._render_human()
        return self._state, info

    def _deal_state(self, state: int) -> tuple[int, int, int]:
        """Replace the dealt player hand and showing card by ones observed as ``decode(state)``."""
        dealt = self.gymnasium_env
        dealer_card = decode(state)[1]
        dealt.player = _hand_for(state)
        dealt.dealer[0] = dealer_card
        face = str(dealt.np_random.choice(["J", "Q", "K"])) if dealer_card == 10 else card_label(dealer_card)
        dealt.dealer_top_card_value_str = face
        raw = (sum_hand(dealt.player), dealt.dealer[0], usable_ace(dealt.player))
        # Guards against a Gymnasium release that renames the hands: fail loudly, never start elsewhere.
        if raw != decode(state) or is_natural(dealt.player) != is_natural_state(state):
            raise RuntimeError(f"could not start Blackjack-v1 in state {state}: Gymnasium observes {raw}")
        return raw

    def step(self, action: int | np.integer) -> tuple[int, SupportsFloat, bool, bool, dict[str, Any]]:
        """Play ``action`` (0 stick, 1 hit) in Gymnasium's game and return the new state index.

        Raises:
            ValueError: for an action outside ``Discrete(2)`` (``ActionTypeError``, also a ``TypeError``,
                for a non-integer such as ``True`` or ``0.5``).
            ResetNeeded: before the first ``reset`` or after the hand ended (a ``gymnasium.error.ResetNeeded``
                and a ``RuntimeError``).
        """
        action = check_action(action, N_ACTIONS, "0 stick, 1 hit")
        if self._state == TERMINAL:
            raise reset_needed(ended=self._raw is not None)
        raw, reward, terminated, truncated, info = self.gymnasium_env.step(action)
        # After a hit the hand has at least three cards, so a soft 21 here is never a natural.
        self._state = TERMINAL if terminated else _PLAY_INDEX[raw]
        self._raw, self._last_reward = raw, float(reward)
        info["raw_obs"] = raw
        self._render_human()
        return self._state, reward, terminated, truncated, info

    def outcome(self) -> str | None:
        """``"win"``, ``"lose"`` or ``"draw"`` once the hand has ended, else None."""
        result = self.result
        if result is None:
            return None
        return "win" if result > 0 else "lose" if result < 0 else "draw"

    def status_text(self) -> str:
        """A one-line description of the hand (the ansi rendering).

        While a hand is played: the player's total and the dealer's showing card. At the end: both hands,
        face up, and the result.
        """
        if self._raw is None:
            return "Blackjack: call reset() to deal"
        if not self.hand_over:
            total, _, ace = self._raw
            text = f"player {total}{' (usable ace)' if ace else ''}"
            if is_natural_state(self._state):
                text += " (natural)"
            return text + f", dealer shows {self.dealer_showing}"
        player, dealer = self.gymnasium_env.player, self.gymnasium_env.dealer
        player_total, dealer_total = sum_hand(player), sum_hand(dealer)
        text = f"player {player_total} {_hand_text(player)}"
        if player_total > 21:
            text += " busts"
        elif is_natural(player):
            text += " (natural)"
        text += f", dealer {dealer_total} {_hand_text(dealer)}{' busts' if dealer_total > 21 else ''}"
        return text + f": you {self.outcome()}, reward {_signed(self.result)}"

    def result_text(self) -> str:
        """A short line for the picture's status bar: the result at the end, else the question to the player."""
        if self._raw is None:
            return "call reset() to deal"
        if not self.hand_over:
            return "hit or stick?"
        if sum_hand(self.gymnasium_env.player) > 21:
            words = "Bust: you lose"
        elif is_natural(self.gymnasium_env.player) and self.outcome() == "win":
            words = "Natural: you win"
        else:
            words = {"win": "You win", "lose": "You lose", "draw": "Draw"}[self.outcome() or "draw"]
        return f"{words} ({_signed(self.result)})"

    def make_view(self) -> Any:
        """Return a new pygame view of the table (needs pygame)."""
        from gym_boardgames.render.blackjack_view import BlackjackView

        return BlackjackView()

    def _draw(self, view: Any, surface: Any) -> None:
        view.draw(
            surface, self.player_cards, self.dealer_cards, self.dealer_showing, self.hand_over, self.result_text()
        )

    def _ansi(self) -> str:
        return self.status_text()

    def close(self) -> None:
        """Release the window (human mode) and the drawing surface; safe to call twice."""
        super().close()
        self.gymnasium_env.close()
