"""Batched self-play: many games at once, every simulation step one network call for all their leaves.

Each game has its own search tree (:class:`agents.search.tree.SearchTree`); :func:`agents.search.tree.search_batch`
advances all of them together, so the network sees batches of ``parallel_games`` states instead of one.
On a CPU that is where the time goes: a small network costs about as much for 64 states as for one.

Per move, as in AlphaZero:

1. the root gets the network's priors, mixed with Dirichlet noise ``(1 - eps) * P + eps * Dir(alpha)`` so
   every move keeps a chance to be explored;
2. ``simulations`` PUCT simulations run (on top of what the tree kept from the previous move);
3. the search policy ``pi`` is the root's visit counts, normalised, without the moves the solver has
   proven lost (:meth:`agents.search.tree.SearchTree.search_policy`); the move is drawn from ``pi``
   (temperature 1) for the first ``temperature_moves`` moves of the game, then the most visited move is
   played (ties drawn at random). A root the solver has proven (won, drawn or lost) gets the exact policy,
   uniform over the moves that keep its value, and plays one of them;
4. the root moves to the child played (tree reuse).

With ``algorithm="gumbel"`` the search is Gumbel AlphaZero's (:mod:`agents.search.gumbel`): no Dirichlet noise
and no temperature; each move searches a fresh tree whose root spends the ``simulations`` on the
Gumbel-top-k moves by sequential halving, the move played is the last survivor (the Gumbel draw is the
exploration), and the training target is the improved policy ``softmax(logits + sigma(completed Q))``
instead of the visit counts. A root the solver has proven plays and targets the exact policy, as above.

With ``random_opening_moves = K > 0`` a game starts after ``U{0..K}`` uniformly random moves, which are
not recorded: self-play between two good players never reaches the positions a blunder leads to, and a
network never trained on them misplays them (most of the tic-tac-toe network's remaining mistakes were
won positions reached only after the opponent's blunder).

When a game ends, each of its positions becomes a training sample ``(planes, pi, z)``, ``z`` the final
result for the player who was to move there. (Where the solver proved a position, both sides then play
moves that keep its value, so ``z`` is that exact value.)
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NamedTuple

import numpy as np

from agents._rng import uniform_stream
from agents.alphazero.config import SelfPlayConfig
from agents.alphazero.encoding import BoardEncoder
from agents.search.tree import SearchTree, expand_roots, search_batch


class Samples(NamedTuple):
    """Training samples: ``planes (N, C, H, W)`` float32, ``policies (N, A)`` float32, ``values (N,)``."""

    planes: np.ndarray
    policies: np.ndarray
    values: np.ndarray

    @staticmethod
    def concat(parts: list[Samples]) -> Samples:
        """Join several sample sets into one."""
        return Samples(*(np.concatenate([getattr(p, f) for p in parts]) for f in Samples._fields))


class GameSummary(NamedTuple):
    """One finished self-play game: its length and the payoff of player 0."""

    moves: int
    result: float


class _Slot:
    """A game in progress: its tree, its state and the positions recorded so far."""

    def __init__(self, tree: SearchTree) -> None:
        self.tree = tree
        self.states: list[Any] = []
        self.policies: list[np.ndarray] = []
        self.players: list[int] = []


def _opening(game: Any, max_moves: int, rng: np.random.Generator) -> Any:
    """Return the state after ``U{0..max_moves}`` uniformly random moves (stopping before the game would end)."""
    state = game.initial_state()
    for _ in range(int(rng.integers(max_moves + 1)) if max_moves else 0):
        legal = game.legal_actions(state)
        child = game.apply(state, int(legal[int(rng.integers(len(legal)))]))
        if game.is_terminal(child):
            break
        state = child
    return state


def play_games(
    game: Any,
    encoder: BoardEncoder,
    evaluator: Any,
    n_games: int,
    config: SelfPlayConfig,
    rng: np.random.Generator,
    on_game: Callable[[GameSummary], None] | None = None,
) -> tuple[Samples, list[GameSummary]]:
    """Play ``n_games`` self-play games, ``config.parallel_games`` at a time, and return their samples.

    Args:
        game: the rules object.
        encoder: its encoder (the planes stored in the samples).
        evaluator: a batch evaluator (``evaluate(game, states) -> (priors, values)``).
        n_games: games to play (>= 1).
        config: search and move-selection settings.
        rng: the only source of randomness (noise, moves, tie-breaks).
        on_game: called with each finished game (e.g. to advance a progress bar).

    Returns:
        The samples of every position of every game, and a summary per game.
    """
    uniform = uniform_stream(rng)
    use_gumbel = config.algorithm == "gumbel"
    started, slots, parts, summaries = 0, [], [], []
    while started < n_games or slots:
        while started < n_games and len(slots) < config.parallel_games:
            opening = _opening(game, config.random_opening_moves, rng)
            slots.append(_Slot(SearchTree(game, opening, config.c_puct, True, uniform, gumbel=use_gumbel)))
            started += 1
        trees = [slot.tree for slot in slots]
        expand_roots(trees, evaluator)
        for tree in trees:
            if use_gumbel:
                tree.plan_gumbel_root(config.simulations, rng, config.max_considered)
            else:
                tree.add_dirichlet_noise(config.dirichlet_alpha, config.dirichlet_epsilon, rng)
        search_batch(trees, evaluator, config.simulations)
        still_playing = []
        for slot in slots:
            tree = slot.tree
            state = tree.root.state
            policy, exact = tree.improved_policy() if use_gumbel else tree.search_policy()
            if exact or (not use_gumbel and len(slot.states) < config.temperature_moves):
                action = int(rng.choice(len(policy), p=policy))
            elif use_gumbel:
                action = tree.gumbel_action()
            else:
                best = np.flatnonzero(policy == policy.max())
                action = int(best[int(uniform() * len(best))])
            slot.states.append(state)
            slot.policies.append(policy.astype(np.float32))
            slot.players.append(tree.root.player)
            if use_gumbel:
                tree.restart(game.apply(state, action))
            else:
                tree.advance(action)
            if game.is_terminal(tree.root.state):
                payoff = game.returns(tree.root.state)
                values = np.array([payoff[p] for p in slot.players], dtype=np.float32)
                parts.append(Samples(encoder.encode(slot.states), np.stack(slot.policies), values))
                summary = GameSummary(len(slot.states), float(payoff[0]))
                summaries.append(summary)
                if on_game is not None:
                    on_game(summary)
            else:
                still_playing.append(slot)
        slots = still_playing
    return Samples.concat(parts), summaries
