"""The search core shared by every tree-search agent: one tree, and evaluators asked once per new leaf.

A search tree grows from its root by *simulations*. Each simulation:

1. **Selection** walks from the root through moves already tried. UCT (Kocsis and Szepesvari, 2006) picks
   the child maximising ``Q(a) + c * sqrt(ln N / N(a))``; PUCT (AlphaZero) maximises
   ``Q(a) + c * P(a) * sqrt(N) / (1 + N(a))``, where ``N`` counts the visits to the parent, ``N(a)`` to the
   child, ``P(a)`` is the evaluator's prior and ``Q(a)`` the child's mean result for the player who chooses
   ``a``. In PUCT an untried move counts as ``Q = 0`` (AlphaZero's convention), so the prior decides which
   moves are tried first; in UCT every move of a node is tried once, in a uniformly random order, before any
   is selected twice.
2. **Expansion** applies the selected untried move: the new child is the simulation's leaf.
3. **Evaluation**: a terminal leaf is worth ``game.returns``; any other leaf is handed to the *evaluator*,
   in one call that returns both its prior over moves (kept for when the leaf is selected through later)
   and its value for the player to move there. That single call per new leaf is what lets a network serve
   many trees at once: :func:`search_batch` runs B trees side by side and asks the
   evaluator once per step for all their leaves.
4. **Backup**: every node on the path adds the result for the player who moved into it.

The evaluator protocol and the evaluators that need no network (rollouts, callbacks) are in
:mod:`agents.search.evaluators`, and what a node records in :mod:`agents.search.node`; this module is the search.

Whose turn it is comes from ``game.current_player(state)`` at every node, never from alternation, so Dots
and Boxes' extra turns are searched correctly. Results are payoff tuples, one entry per player; an
evaluator's single value ``v`` becomes ``(v, -v)`` from the mover's side, which assumes a two-player
zero-sum game (every game of this package is one).

MCTS-Solver (Winands, Bjornsson and Saito, 2008): terminal nodes are *proven*, with their payoffs as exact
values. A node is proven too when one of its children is a proven win (payoff +1, the highest there is) for
the player to move there, or when all its children are proven; its value is then the best child's.
Selection never enters a child proven lost for the chooser, and a proven node is not searched below: its
exact value is backed up again. So a win in one is never missed, a loss in one is blocked as soon as the
opponent's winning replies are found, and a search stops early once its root is proven.

The final move (:meth:`SearchTree.best_action`), among the root's tried children, maximises in this order:
the proof (an immediate win, then any other proven win, then unproven or drawn children, proven losses
last), the visit count, the mean result, and a seeded draw among children still tied.

Tree reuse: :meth:`SearchTree.find` looks for a new position among the kept tree's nodes (breadth-first, so
the shallowest copy wins) and :meth:`SearchTree.advance` moves the root to the child of the move played, so
statistics and proofs carry over. States are positions without history, so a node's statistics stay valid
wherever it is reached from.

Randomness comes only from the tree's ``numpy.random.Generator``, read in batches of uniform floats (a
generator call per rollout move would cost more than the move itself), so the same seed gives the same
search.
"""

from __future__ import annotations

import math
from collections import deque
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from agents.search import gumbel
from agents.search.evaluators import Evaluator, check_value, evaluate_state, legal_row
from agents.search.node import ChildStats, Node
from gym_boardgames.cancel import check_cancelled
from gym_boardgames.rules.common import value_for

# Payoffs are in [-1, 1] (+1 win, -1 loss, 0 draw), so +1 is a win nothing can beat and -1 a loss nothing
# can save; the solver relies on both bounds.
WIN = 1.0
LOSS = -1.0


class SearchTree:
    """One search tree over a rules object: selection, expansion, backup, proofs and tree reuse.

    The tree does not evaluate leaves itself: :meth:`run` asks an evaluator one leaf at a time, and
    :func:`search_batch` asks one evaluator for the leaves of many trees at once.

    Args:
        game: the rules object (``current_player``, ``legal_actions``, ``apply``, ``is_terminal``,
            ``returns``, ``num_actions``).
        state: the root position (non-terminal).
        c: the exploration constant of UCT or PUCT (a finite number >= 0).
        puct: PUCT with the evaluator's priors if True, else UCT (priors unused).
        uniform: the tree's :func:`agents._rng.uniform_stream`; it orders untried moves and breaks ties.
        gumbel: select as Gumbel AlphaZero (:mod:`agents.search.gumbel`) instead of PUCT: deterministically by the
            improved policy below the root, and at the root by the sequential halving that
            :meth:`plan_gumbel_root` sets up (needs ``puct=True``: the priors; ``c`` is unused).
    """

    def __init__(
        self, game: Any, state: Any, c: float, puct: bool, uniform: Callable[[], float], gumbel: bool = False
    ) -> None:
        if gumbel and not puct:
            raise ValueError("gumbel=True needs puct=True (Gumbel selection reads the evaluator's priors)")
        self.game = game
        self.c = c
        self.puct = puct
        self.gumbel = gumbel
        self.uniform = uniform
        self.restart(state)

    def _new_root(self, state: Any) -> Node:
        player = self.game.current_player(state)
        # The root's own totals are never read: only its children are compared.
        return Node(state, player, 1 - player, None)

    # ---- reuse -------------------------------------------------------------------------------------

    def find(self, state: Any) -> bool:
        """Make the kept node of ``state`` the root (breadth-first search); else start a fresh root.

        Returns:
            True if the state was found in the tree (its statistics and proofs are kept).
        """
        queue = deque([self.root])
        while queue:
            node = queue.popleft()
            if node.state == state:
                self.root = node
                return True
            queue.extend(child for child in node.children if child is not None)
        self.restart(state)
        return False

    def restart(self, state: Any) -> None:
        """Start a fresh tree at ``state``, keeping nothing (Gumbel self-play searches each move afresh)."""
        self.root = self._new_root(state)
        self._root_noise: list[float] = []  # Gumbel(0, 1) per root move, aligned with root.actions
        self._schedule: list[int] = []  # sequential halving: the visits a root move needs, per simulation
        self._root_simulations = 0

    def advance(self, action: int) -> None:
        """Move the root to the child reached by ``action`` (a fresh node if that move was never tried)."""
        tried = dict(self.root.tried())
        self.root = tried[action] if action in tried else self._new_root(self.game.apply(self.root.state, action))

    # ---- one simulation, in three steps ----------------------------------------------------------------

    def select(self) -> tuple[list[Node], bool]:
        """Walk from the root to a leaf, creating the leaf if the walk ends at an untried move.

        Returns:
            ``(path, created)``: the nodes from the root to the leaf, and whether the leaf was created by
            this walk. A proven leaf (terminal, or solved earlier) needs no evaluation: back up
            ``leaf.proven``, proving ancestors only if ``created``. Otherwise the leaf needs the evaluator.
        """
        game = self.game
        c, puct, uniform = self.c, self.puct, self.uniform
        sqrt, log, inf = math.sqrt, math.log, math.inf
        node = self.root
        path = [node]
        while True:
            if node.proven is not None:
                return path, False  # terminal or solved: nothing below can change its value
            actions = node.actions if node.actions is not None else self._list_moves(node)
            children = node.children
            p = node.player
            if self.gumbel:
                if node is self.root and self._root_simulations < len(self._schedule):
                    i = gumbel.root_choice(node, self._root_noise, self._schedule[self._root_simulations])
                    self._root_simulations += 1
                else:
                    i = gumbel.select_child(node)
                child = children[i]
            elif puct:
                # N counts as at least 1, so the first choice at a fresh root follows the prior too instead
                # of a tie among zero scores.
                k = c * sqrt(node.n or 1)
                priors = node.priors
                # Defaults only matter if every child were a proven loss, which proves the node first.
                i, best = 0, -inf
                for j, child in enumerate(children):
                    if child is None:
                        score = k * priors[j]  # Q = 0 for an untried move
                    else:
                        proven = child.proven
                        if proven is not None and proven[p] <= LOSS:
                            continue  # a proven loss for the chooser is never worth a visit
                        score = child.q + k * priors[j] / (1 + child.n)
                    if score > best:
                        i, best = j, score
                child = children[i]
            else:
                i = node.n_expanded
                if i < len(actions):
                    # Try an untried move, chosen uniformly: swap it into slot i so tried moves stay first.
                    j = i + int(uniform() * (len(actions) - i))  # uniform() < 1, so j < len(actions)
                    actions[i], actions[j] = actions[j], actions[i]
                    child = None
                else:
                    explore = c * sqrt(log(node.n))
                    child, best = children[0], -inf
                    for candidate in children:
                        proven = candidate.proven
                        if proven is not None and proven[p] <= LOSS:
                            continue
                        score = candidate.q + explore * candidate.inv_sqrt_n
                        if score > best:
                            child, best = candidate, score
            if child is None:
                state = game.apply(node.state, actions[i])
                proven = tuple(game.returns(state)) if game.is_terminal(state) else None
                child = children[i] = Node(state, game.current_player(state), p, proven)
                node.n_expanded += 1
                path.append(child)
                return path, True
            node = child
            path.append(node)

    def _list_moves(self, node: Node) -> list[int]:
        """Fill in ``node.actions`` and ``node.children`` the first time a walk passes through ``node``."""
        actions = list(self.game.legal_actions(node.state))
        node.children = [None] * len(actions)
        node.actions = actions
        if self.puct and node.priors is None:
            node.priors = [1.0 / len(actions)] * len(actions)  # not evaluated (a root): uniform
        return actions

    def expand(
        self, node: Node, priors: Sequence[float] | None, actions: list[int] | None = None, value: float = 0.0
    ) -> None:
        """Give the new leaf ``node`` its priors, aligned with its ascending legal moves (None: uniform).

        In PUCT the moves and priors are shuffled together with the tree's stream, so equal scores resolve
        in a random (seeded) order instead of always favouring the lowest action number. UCT needs neither.

        Args:
            node: the new leaf.
            priors: probabilities aligned with ``actions``, or None for uniform.
            actions: the leaf's legal moves, ascending, if the caller has listed them already (the list is
                taken over and shuffled); listed here if None.
            value: the evaluator's value of the leaf for its player to move (kept for Gumbel's completed Q).
        """
        node.v = value
        if not self.puct:
            return
        if actions is None:
            actions = list(self.game.legal_actions(node.state))
        probs = [1.0 / len(actions)] * len(actions) if priors is None else list(priors)
        uniform = self.uniform
        for i in range(len(actions) - 1, 0, -1):
            j = int(uniform() * (i + 1))
            actions[i], actions[j] = actions[j], actions[i]
            probs[i], probs[j] = probs[j], probs[i]
        node.actions, node.priors = actions, probs
        node.children = [None] * len(actions)

    @staticmethod
    def backup(path: list[Node], result: Sequence[float], proving: bool) -> None:
        """Add ``result`` along ``path`` and, if the leaf was just proven, propagate the proof upwards.

        Args:
            path: the nodes from the root to the leaf.
            result: the payoff tuple of the simulation, one entry per player.
            proving: whether the leaf is a newly created terminal node; proofs only ever start there.
        """
        child = None
        for node in reversed(path):
            n = node.n = node.n + 1
            w = node.w = node.w + result[node.mover]
            # Cached for UCT's selection loop, which reads them for every sibling on every pass.
            node.q = w / n
            node.inv_sqrt_n = n**-0.5
            if proving and child is not None:
                p = node.player
                if child.proven[p] >= WIN:
                    node.proven = child.proven  # the player to move here can win: nothing is better
                elif node.n_expanded == len(node.actions) and all(ch.proven is not None for ch in node.children):
                    node.proven = max((ch.proven for ch in node.children), key=lambda r: r[p])
                else:
                    proving = False
            child = node

    def backup_value(self, path: list[Node], value: float) -> None:
        """Back up an evaluator's ``value`` of the new leaf ``path[-1]`` (for its player to move) along ``path``.

        The value becomes a payoff tuple ``(v, -v)`` from the leaf player's side (a two-player zero-sum game).
        """
        first = value_for(0, value, path[-1].player)
        self.backup(path, (first, -first), False)

    def run(self, evaluator: Any, n_simulations: int) -> int:
        """Run up to ``n_simulations`` simulations, asking ``evaluator`` about one leaf at a time.

        Returns:
            How many simulations ran: fewer than ``n_simulations`` once the root is proven.
        """
        game, select, backup, expand = self.game, self.select, self.backup, self.expand
        one = getattr(evaluator, "evaluate_one", None)
        expand_roots([self], evaluator)
        root = self.root
        for done in range(n_simulations):
            check_cancelled()  # a reply nobody wants any more (a restart, a closed page) stops here
            if root.proven is not None:
                return done
            path, created = select()
            leaf = path[-1]
            if leaf.proven is not None:
                backup(path, leaf.proven, created)
                continue
            if one is not None:
                priors, v = one(game, leaf.state)
                actions = None
            else:
                priors, v, actions = evaluate_state(evaluator, game, leaf.state)
            expand(leaf, priors, actions, v)
            self.backup_value(path, v)
        return n_simulations

    # ---- Gumbel AlphaZero at the root -----------------------------------------------------------------

    def plan_gumbel_root(self, n_simulations: int, rng: np.random.Generator, max_considered: int) -> None:
        """Draw the root's Gumbel noise and the sequential-halving schedule of the next ``n_simulations``.

        The root must be evaluated (:func:`expand_roots`) and not yet visited: the schedule counts visits from zero.

        Raises:
            ValueError: if the tree is not a Gumbel tree, or the root is not evaluated or already visited.
        """
        root = self.root
        if not self.gumbel:
            raise ValueError("plan_gumbel_root needs a tree built with gumbel=True")
        if root.proven is not None:
            return
        if root.priors is None or root.n:
            raise ValueError("plan_gumbel_root needs an evaluated root that has not been searched yet")
        self._root_noise = rng.gumbel(size=len(root.priors)).tolist()
        considered = min(max_considered, len(root.priors))
        self._schedule = gumbel.halving_schedule(considered, n_simulations)
        self._root_simulations = 0

    def gumbel_action(self) -> int:
        """Return Gumbel AlphaZero's move: of the most visited root moves, the best by ``g + logits + sigma(q)``.

        A proven root plays a move proven to keep its value, as :meth:`best_action` does.
        """
        root = self.root
        if root.proven is not None or not self._root_noise:
            return self.best_action()
        return int(root.actions[gumbel.final_choice(root, self._root_noise)])

    def improved_policy(self) -> tuple[np.ndarray, bool]:
        """Return Gumbel's training target at the root, a ``(num_actions,)`` distribution, and whether it is exact.

        ``softmax(logits + sigma(completed Q))`` over the legal moves; a proven root gets the exact policy of
        :meth:`search_policy` instead.
        """
        root = self.root
        if root.proven is not None:
            return self.search_policy()
        policy = np.zeros(self.game.num_actions)
        policy[root.actions] = gumbel.improved_policy(root)
        return policy, False

    # ---- reading the result --------------------------------------------------------------------------

    def add_dirichlet_noise(self, alpha: float, epsilon: float, rng: np.random.Generator) -> None:
        """Mix ``Dir(alpha)`` noise into the root's priors: ``(1 - epsilon) * P + epsilon * noise``.

        AlphaZero does this at the root of every self-play search so that every move keeps some chance of
        being explored. The root must already have priors (:func:`expand_roots`).
        """
        root = self.root
        if root.priors is None or len(root.priors) == 0:
            return
        noise = rng.dirichlet([alpha] * len(root.priors))
        root.priors = [(1 - epsilon) * p + epsilon * float(x) for p, x in zip(root.priors, noise, strict=True)]

    def visit_counts(self) -> np.ndarray:
        """Return the root's visit count per action, a ``(num_actions,)`` float array (0 for untried moves)."""
        counts = np.zeros(self.game.num_actions)
        for action, child in self.root.tried():
            counts[action] = child.n
        return counts

    def search_policy(self) -> tuple[np.ndarray, bool]:
        """Return the search's policy at the root, a ``(num_actions,)`` distribution, and whether it is exact.

        When the solver has proven the root, the policy is uniform over the moves proven to keep its value
        (exact). Otherwise it is the visit counts, normalised, without the moves proven lost: their visits
        were spent before the proof, and a learner copying them would copy a known mistake (unless every
        tried move is lost).
        """
        root = self.root
        policy = np.zeros(self.game.num_actions)
        p = root.player
        tried = root.tried()
        if root.proven is not None:
            keep = [a for a, child in tried if child.proven is not None and child.proven[p] == root.proven[p]]
            if keep:
                policy[keep] = 1.0
                return policy / policy.sum(), True
        alive = [(a, child) for a, child in tried if child.proven is None or child.proven[p] > LOSS]
        counted = alive if any(child.n for _, child in alive) else tried  # every move proven lost: count them all
        for action, child in counted:
            policy[action] = child.n
        return policy / policy.sum(), False

    def root_statistics(self) -> list[ChildStats]:
        """Return the statistics of every tried move at the root, in action order."""
        return self.root.statistics()

    def best_action(self) -> int:
        """Pick the final move by the order in the module docstring (proof, visits, mean, seeded draw)."""
        root = self.root
        p = root.player
        keys = []
        for action, child in root.tried():
            value = 0.0 if child.proven is None else child.proven[p]  # unproven ranks with the draws
            tier = (3 if child.terminal else 2) if value >= WIN else 0 if value <= LOSS else 1
            keys.append(((tier, child.n, child.q), action))
        top = max(key for key, _ in keys)
        tied = [action for key, action in keys if key == top]
        return int(tied[0] if len(tied) == 1 else tied[int(self.uniform() * len(tied))])

    def proven_action(self) -> int | None:
        """Return a move proven to win for the player at the root, if the solver found one."""
        p = self.root.player
        won = (int(a) for a, child in self.root.tried() if child.proven is not None and child.proven[p] >= WIN)
        return next(won, None)


def expand_roots(trees: Sequence[SearchTree], evaluator: Evaluator) -> None:
    """Give every PUCT root that has no priors yet its evaluator priors and value, in ONE ``evaluate`` call.

    :meth:`SearchTree.run` calls it for its own root; self-play calls it before mixing Dirichlet noise into
    the roots' priors.

    Raises:
        ValueError: if a value is not a number in ``[-1, 1]`` (:func:`~agents.search.evaluators.check_value`).
    """
    need = [t for t in trees if t.puct and t.root.priors is None and t.root.proven is None]
    if need:
        game = need[0].game
        priors, values = evaluator.evaluate(game, [t.root.state for t in need])
        for tree, row, value in zip(need, priors, np.asarray(values, dtype=float).tolist(), strict=True):
            tree.expand(tree.root, *legal_row(game, tree.root.state, row), check_value(value, "evaluate"))


def search_batch(trees: Sequence[SearchTree], evaluator: Evaluator, n_simulations: int) -> None:
    """Run ``n_simulations`` simulations in each tree, with ONE ``evaluator.evaluate`` call per step.

    Each step takes one leaf from every tree that still has simulations to run (proven leaves are backed up
    at once and do not count against the batch), and evaluates all their states in a single call: the
    point of batching on a CPU is that a network's cost barely grows with the batch. All trees must share
    the evaluator's game. Roots without priors are evaluated first, in one call too.

    Args:
        trees: the trees, each with its own root.
        evaluator: a batch evaluator (see :class:`agents.search.evaluators.Evaluator`).
        n_simulations: simulations to add to each tree (a tree whose root gets proven stops early).
    """
    game = trees[0].game if trees else None
    expand_roots(trees, evaluator)
    remaining = [n_simulations] * len(trees)
    while True:
        check_cancelled()
        pending: list[tuple[SearchTree, list[Node]]] = []
        for t, tree in enumerate(trees):
            while remaining[t] > 0 and tree.root.proven is None:
                path, created = tree.select()
                remaining[t] -= 1
                leaf = path[-1]
                if leaf.proven is None:
                    pending.append((tree, path))
                    break
                tree.backup(path, leaf.proven, created)
        if not pending:
            return
        priors, values = evaluator.evaluate(game, [path[-1].state for _, path in pending])
        for (tree, path), row, v in zip(pending, priors, np.asarray(values, dtype=float).tolist(), strict=True):
            if tree.puct:
                tree.expand(path[-1], *legal_row(game, path[-1].state, row), v)
            tree.backup_value(path, v)
