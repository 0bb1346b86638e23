"""MCTSAgent: Monte Carlo tree search with random rollouts (UCT), or PUCT with a prior, for any game here.

The agent is the search core of :mod:`agents.search.tree` (one tree: selection, expansion, backup, the
MCTS-Solver's proofs and tree reuse) plus an evaluator asked once per new leaf, with batch size 1:

* no hooks: UCT (Kocsis and Szepesvari, 2006), every leaf valued by a uniformly random playout;
* ``rollout``: UCT with a playout policy of your own;
* ``value``: UCT with leaves valued by a function instead of playouts;
* ``prior`` (with ``value`` or playouts): PUCT, AlphaZero's selection rule, with the prior's probabilities;
* ``evaluator``: PUCT with any batch evaluator (``evaluate(game, states) -> (priors, values)``), such as a
  policy-value network (:mod:`agents.alphazero`).

See :mod:`agents.search.tree` for the selection rules, the solver (a win in one is never missed, a loss in one
is blocked as soon as the opponent's winning replies are found, and the search stops once the root is
proven), the final-move order and tree reuse. With ``reuse_tree=True`` the agent keeps its tree between
moves: at the next ``act`` it finds the new position among the tree's nodes (breadth-first), for example
two plies below the old root after its own move and the opponent's reply, or several plies later after Dots
and Boxes' extra turns, and runs ``n_simulations`` more simulations on top of the kept statistics.
``reset()`` (the arena calls it before each game) drops the tree.

Randomness comes only from the agent's ``numpy.random.Generator`` (one stream of uniform floats shared by
the tree and the playouts), so the same seed gives the same moves. A custom ``rollout`` policy receives the
same generator.
"""

from __future__ import annotations

import math
from typing import Any

from agents._rng import SeedLike, make_rng, reseed_rng, uniform_stream
from agents.search.evaluators import CallbackEvaluator, Evaluator, PriorFn, RolloutEvaluator, RolloutPolicy, ValueFn
from agents.search.node import ChildStats
from agents.search.tree import SearchTree
from gym_boardgames.checks import check_bool, check_int, check_number

__all__ = ["MAX_SIMULATIONS", "ChildStats", "MCTSAgent", "PriorFn", "RolloutPolicy", "ValueFn"]

#: Most simulations per move. Random playouts run at roughly 10^5 simulations a second on tic-tac-toe and
#: far fewer on bigger boards, so 10^7 is already minutes per move; a larger count is a typo (an extra digit,
#: a pasted number), and refusing it beats a first move that never returns.
MAX_SIMULATIONS = 10_000_000


def _check_callable(name: str, fn: object, signature: str) -> None:
    if fn is not None and not callable(fn):
        raise ValueError(f"{name} must be None or a callable {signature}, got {fn!r}")


class MCTSAgent:
    """Monte Carlo tree search player for any two-player rules object of this package.

    Args:
        n_simulations: simulations per move, an integer from 1 to :data:`MAX_SIMULATIONS` (10^7). The
            search stops earlier when the root is proven won, drawn or lost.
        c: exploration constant (a finite number >= 0): UCT's ``c`` in ``Q + c * sqrt(ln N / N(a))``, or
            PUCT's in ``Q + c * P(a) * sqrt(N) / (1 + N(a))`` when a prior or an evaluator is given. 0 is
            pure greed.
        seed: an int, a ``numpy.random.Generator`` or None; the only source of randomness.
        rollout: None for uniformly random rollouts, or ``rollout(game, state, rng) -> action``, the move to
            play from a non-terminal ``state`` (``rng`` is the agent's generator).
        prior: None for UCT, or ``prior(game, state) -> probabilities`` for PUCT. It is called once per
            new tree node, on a non-terminal state, and may return:

            * a mapping ``{action: p}`` (legal actions it leaves out get 0);
            * a 1-D sequence or array of length ``game.num_actions``, indexed by action;
            * a 1-D sequence or array of length ``len(game.legal_actions(state))``, aligned with that
              ascending list. (When both lengths are equal, every action is legal and the two agree.)

            Entries must be finite and >= 0. Only the legal actions' entries are used, renormalised to sum
            to 1; if they sum to 0 the prior is uniform over the legal actions.
        value: None to evaluate leaves by rollouts, or ``value(game, state) -> float`` in ``[-1, 1]`` from
            the side of the player to move at ``state``, called on non-terminal leaves instead of a rollout.
        reuse_tree: keep the subtree of the new position between calls (see the module docstring).
        evaluator: a batch evaluator (``evaluate(game, states) -> (priors, values)``, see
            :class:`agents.search.evaluators.Evaluator`) for PUCT; it replaces ``rollout``, ``prior`` and ``value``.

    Raises:
        ValueError: on ``n_simulations`` not an integer in ``[1, MAX_SIMULATIONS]``, ``c`` negative or not
            finite, a bad seed, ``rollout``/``prior``/``value`` not callable, both ``rollout`` and ``value``
            given (a value function replaces rollouts), an ``evaluator`` without ``evaluate`` or given with a
            hook, or ``reuse_tree`` not a bool.
    """

    def __init__(
        self,
        n_simulations: int = 1000,
        c: float = 1.4,
        seed: SeedLike = None,
        rollout: RolloutPolicy | None = None,
        prior: PriorFn | None = None,
        value: ValueFn | None = None,
        reuse_tree: bool = True,
        evaluator: Evaluator | None = None,
    ) -> None:
        check_int("n_simulations", n_simulations, 1, MAX_SIMULATIONS)
        check_number("c", c, 0, math.inf, high_open=True)
        _check_callable("rollout", rollout, "(game, state, rng) -> action")
        _check_callable("prior", prior, "(game, state) -> probabilities")
        _check_callable("value", value, "(game, state) -> float in [-1, 1]")
        if rollout is not None and value is not None:
            raise ValueError("give rollout or value, not both: a value function replaces the rollouts")
        if evaluator is not None:
            if not callable(getattr(evaluator, "evaluate", None)):
                raise ValueError(f"evaluator must have evaluate(game, states) -> (priors, values), got {evaluator!r}")
            if rollout is not None or prior is not None or value is not None:
                raise ValueError("give an evaluator or the rollout/prior/value hooks, not both")
        self.n_simulations = int(n_simulations)
        self.c = float(c)
        self.rng = make_rng(seed)
        self.rollout = rollout
        self.prior = prior
        self.value = value
        self.reuse_tree = check_bool("reuse_tree", reuse_tree)
        #: Visits the root already had when the last search started (> 0 only when a tree was reused).
        self.reused_visits = 0
        #: Simulations the last search ran (fewer than ``n_simulations`` if the root got proven).
        self.last_simulations = 0
        self.puct = prior is not None or evaluator is not None
        self._given_evaluator = evaluator
        self._start_streams()
        self._tree: SearchTree | None = None

    def __repr__(self) -> str:
        mode = "PUCT" if self.puct else "UCT"
        return f"MCTSAgent({mode}, n_simulations={self.n_simulations}, c={self.c})"

    # ---- public API ----------------------------------------------------------------------------

    def reset(self) -> None:
        """Drop the search tree, so the next move is searched from scratch (the generator keeps its state)."""
        self._tree = None

    def reseed(self, seed: SeedLike) -> None:
        """Search from now on as a new agent built with ``seed`` would (an env's seeded reset calls this)."""
        reseed_rng(self.rng, seed)
        self._start_streams()  # the uniforms already drawn in a block came from the old stream
        self._tree = None

    def _start_streams(self) -> None:
        """Start the uniforms drawn from ``self.rng`` and the evaluator that reads them (unless one was given)."""
        self._uniform = uniform_stream(self.rng)
        evaluator = self._given_evaluator
        if evaluator is None:
            rollouts = RolloutEvaluator(self.rng, self.rollout, self._uniform)
            if self.prior is None and self.value is None:
                evaluator = rollouts  # plain UCT: the playouts are the whole evaluator
            else:
                evaluator = CallbackEvaluator(self.prior, self.value, None if self.value is not None else rollouts)
        #: What values (and, in PUCT, orders) the new leaves.
        self.evaluator = evaluator

    def act(self, game: Any, state: Any) -> int:
        """Search ``state`` and return the chosen move.

        Args:
            game: a rules object (``TicTacToe``, ``ConnectN``, ``DotsAndBoxes`` or anything with the same
                surface: ``current_player``, ``legal_actions``, ``apply``, ``is_terminal``, ``returns``).
            state: a non-terminal state of ``game``.

        Returns:
            A legal action of ``state``, as a Python int.

        Raises:
            ValueError: if ``state`` is terminal, or a ``prior``/``value``/``rollout`` callable or the
                evaluator returns something invalid (see the class docstring).
        """
        if game.is_terminal(state):
            raise ValueError("cannot act on a terminal state: the game is over")
        return self.search(game, state).best_action()

    def search(self, game: Any, state: Any) -> SearchTree:
        """Run this move's simulations from ``state`` (on the kept tree if it holds ``state``).

        Returns:
            The search tree, rooted at ``state``, for reading its statistics (``visit_counts``,
            ``root_statistics``, ``best_action``).
        """
        tree = self._tree
        if self.reuse_tree and tree is not None and (game is tree.game or game == tree.game):
            tree.find(state)
        else:
            tree = SearchTree(game, state, self.c, self.puct, self._uniform)
        self._tree = tree
        self.reused_visits = tree.root.n
        self.last_simulations = tree.run(self.evaluator, self.n_simulations)
        return tree

    def root_statistics(self) -> list[ChildStats]:
        """Return the statistics of every tried move at the root of the last search, in action order.

        The last root is kept for this even with ``reuse_tree=False``; it is only never searched again.

        Returns:
            One :class:`ChildStats` per tried move; an empty list before the first search or after
            :meth:`reset`.
        """
        return [] if self._tree is None else self._tree.root_statistics()
