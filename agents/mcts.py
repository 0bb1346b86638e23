"""Monte Carlo tree search: UCT with random rollouts, PUCT with a prior, and MCTS-Solver proofs.

Each simulation walks from the root to a leaf, evaluates the leaf, and backs the result up the path:

1. **Selection.** At a node whose moves have all been tried, UCT (Kocsis and Szepesvari, 2006) picks the
   child maximising ``Q(a) + c * sqrt(ln N / N(a))``. With a ``prior`` it is PUCT, AlphaZero's rule
   ``Q(a) + c * P(a) * sqrt(N) / (1 + N(a))``, where ``N`` counts the visits to the parent, ``N(a)`` to the
   child and ``Q(a)`` is the child's mean result for the player who chooses ``a``. In PUCT an untried
   child counts as ``Q = 0`` (AlphaZero's convention), so the prior decides which moves get tried first.
2. **Expansion.** UCT tries every move of a node once, in a uniformly random order, before selecting
   among them; PUCT creates a child the first time its score is the highest.
3. **Evaluation.** A terminal leaf is worth ``game.returns``. Otherwise ``value(game, state)`` if given,
   else a rollout to the end: uniformly random moves by default, or ``rollout(game, state, rng)``.
4. **Backup.** Every node on the path adds the result for the player who moved into it.

Whose turn it is comes from ``game.current_player(state)`` at every node, never from alternation, so Dots
and Boxes' extra turns are searched correctly. Results are kept as payoff tuples, one entry per player;
only a ``value`` function's single number is turned into one, as ``(v, -v)`` from the mover's side, which
assumes a two-player zero-sum game (every game of this package is one).

MCTS-Solver (Winands, Bjornsson and Saito, 2008): terminal nodes are *proven*, with their payoffs as exact
values. A node is proven too when one of its children is a proven win (payoff +1, the highest there is)
for the player to move there, or when all its children are proven; its value is then the best child's.
Selection never enters a child proven lost for the chooser, and a proven node is not searched below: its
exact value is backed up again. So a win in one is never missed, a loss in one is blocked as soon as the
opponent's winning replies are found, and the search stops early once the root itself is proven.

The final move, among the root's tried children, maximises in this order:

1. the proof: an immediate win (a terminal child), then any other proven win, then unproven or proven
   drawn children, and proven losses last;
2. the visit count;
3. the mean result for the player to move;
4. a draw from the seeded generator among children still tied.

Tree reuse: with ``reuse_tree=True`` the agent keeps its last search tree. At the next ``act`` it looks for
the new state among the tree's nodes (breadth-first, so the shallowest copy wins), for example two plies
below the old root after its own move and the opponent's reply, or several plies later after Dots and Boxes'
extra turns, and carries on from that subtree with its visits and proofs; ``n_simulations`` more
simulations are run on top. States are positions without history, so the statistics of a node stay valid
wherever it is reached from. ``reset()`` (the arena calls it before each game) drops the tree.

Randomness comes only from the agent's ``numpy.random.Generator``, read in batches of uniform floats (a
generator call per rollout move would cost more than the move itself), so the same seed gives the same
moves. A custom ``rollout`` policy receives the same generator.
"""

from __future__ import annotations

import itertools
import math
import numbers
from collections import deque
from collections.abc import Callable, Iterator, Mapping
from typing import Any, NamedTuple

import numpy as np

from agents._rng import SeedLike, make_rng

#: ``rollout(game, state, rng) -> action``: the move to play in a rollout from a non-terminal state.
RolloutPolicy = Callable[[Any, Any, np.random.Generator], int]
#: ``prior(game, state) -> probabilities``: see :class:`MCTSAgent` for the accepted formats.
PriorFn = Callable[[Any, Any], Any]
#: ``value(game, state) -> float`` in ``[-1, 1]``, for the player to move at ``state``.
ValueFn = Callable[[Any, Any], float]

# Payoffs are in [-1, 1] (DESIGN.md: +1 win, -1 loss, 0 draw), so +1 is a win nothing can beat and -1 a
# loss nothing can save; the solver relies on both bounds.
_WIN = 1.0
_LOSS = -1.0
# Floats read from the generator per batch: large enough that refills are rare, small enough that a
# short search does not draw much it never uses.
_UNIFORM_BATCH = 2048


class ChildStats(NamedTuple):
    """Search statistics of one move at the root, from the side of the player to move there.

    Attributes:
        action: the move.
        visits: simulations that went through the move.
        value: their mean result in ``[-1, 1]``.
        proven: the exact game value of the move (+1 win, 0 draw, -1 loss) once the solver has proven it,
            else None.
    """

    action: int
    visits: int
    value: float
    proven: float | None


class _Node:
    """One state of the search tree.

    ``w`` sums the results for ``mover``, the player who moved into this node, so a parent compares its
    children's means ``q = w / n`` directly. ``proven`` is the payoff tuple of a terminal or solved node,
    else None. ``actions`` and ``children`` are parallel lists, filled the first time the search passes
    through the node (leaves never need their moves listed); in UCT the first ``n_expanded`` entries are
    the tried moves, and in PUCT an untried move's child is None.
    """

    __slots__ = (
        "state",
        "player",
        "mover",
        "n",
        "w",
        "q",
        "inv_sqrt_n",
        "proven",
        "terminal",
        "actions",
        "children",
        "n_expanded",
        "priors",
    )

    def __init__(self, state: Any, player: int, mover: int, proven: tuple[float, ...] | None) -> None:
        self.state = state
        self.player = player
        self.mover = mover
        self.n = 0
        self.w = 0.0
        self.q = 0.0  # w / n
        self.inv_sqrt_n = math.inf  # 1 / sqrt(n)
        self.proven = proven
        self.terminal = proven is not None
        self.actions: list[int] | None = None
        self.children: list[_Node | None] = []
        self.n_expanded = 0
        self.priors: list[float] | None = None


def _uniform_stream(rng: np.random.Generator) -> Iterator[list[float]]:
    """Yield batches of uniform floats in [0, 1) forever, as Python lists (fast to index one by one)."""
    while True:
        yield rng.random(_UNIFORM_BATCH).tolist()


def _check_callable(name: str, fn: object, signature: str) -> None:
    if fn is not None and not callable(fn):
        raise ValueError(f"{name} must be None or a callable {signature}, got {fn!r}")


class MCTSAgent:
    """Monte Carlo tree search player for any two-player rules object of this package.

    Args:
        n_simulations: simulations per move (an integer >= 1). The search stops earlier when the root is
            proven won, drawn or lost.
        c: exploration constant (a finite number >= 0): UCT's ``c`` in ``Q + c * sqrt(ln N / N(a))``, or
            PUCT's in ``Q + c * P(a) * sqrt(N) / (1 + N(a))`` when a prior is given. 0 is pure greed.
        seed: an int, a ``numpy.random.Generator`` or None; the only source of randomness.
        rollout: None for uniformly random rollouts, or ``rollout(game, state, rng) -> action``, the move to
            play from a non-terminal ``state`` (``rng`` is the agent's generator).
        prior: None for UCT, or ``prior(game, state) -> probabilities`` for PUCT. It is called once per
            tree node, on a non-terminal state, and may return:

            * a mapping ``{action: p}`` (legal actions it leaves out get 0);
            * a 1-D sequence or array of length ``game.num_actions``, indexed by action;
            * a 1-D sequence or array of length ``len(game.legal_actions(state))``, aligned with that
              ascending list. (When both lengths are equal, every action is legal and the two agree.)

            Entries must be finite and >= 0. Only the legal actions' entries are used, renormalised to sum
            to 1; if they sum to 0 the prior is uniform over the legal actions.
        value: None to evaluate leaves by rollouts, or ``value(game, state) -> float`` in ``[-1, 1]`` from
            the side of the player to move at ``state``, called on non-terminal leaves instead of a rollout.
        reuse_tree: keep the subtree of the new position between calls (see the module docstring).

    Raises:
        ValueError: on ``n_simulations < 1`` or not an integer, ``c`` negative or not finite, a bad seed,
            ``rollout``/``prior``/``value`` not callable, both ``rollout`` and ``value`` given (a value
            function replaces rollouts), or ``reuse_tree`` not a bool.
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
    ) -> None:
        if isinstance(n_simulations, (bool, np.bool_)) or not isinstance(n_simulations, (int, np.integer)):
            raise ValueError(f"n_simulations must be an integer >= 1, got {n_simulations!r}")
        if n_simulations < 1:
            raise ValueError(f"n_simulations must be an integer >= 1, got {n_simulations}")
        if isinstance(c, (bool, np.bool_)) or not isinstance(c, numbers.Real) or not math.isfinite(c) or c < 0:
            raise ValueError(f"c must be a finite number >= 0, got {c!r}")
        _check_callable("rollout", rollout, "(game, state, rng) -> action")
        _check_callable("prior", prior, "(game, state) -> probabilities")
        _check_callable("value", value, "(game, state) -> float in [-1, 1]")
        if rollout is not None and value is not None:
            raise ValueError("give rollout or value, not both: a value function replaces the rollouts")
        if not isinstance(reuse_tree, (bool, np.bool_)):
            raise ValueError(f"reuse_tree must be True or False, got {reuse_tree!r}")
        self.n_simulations = int(n_simulations)
        self.c = float(c)
        self.rng = make_rng(seed)
        self.rollout = rollout
        self.prior = prior
        self.value = value
        self.reuse_tree = bool(reuse_tree)
        #: Visits the root already had when the last search started (> 0 only when a tree was reused).
        self.reused_visits = 0
        #: Simulations the last search ran (fewer than ``n_simulations`` if the root got proven).
        self.last_simulations = 0
        self._next_uniform = itertools.chain.from_iterable(_uniform_stream(self.rng)).__next__
        self._game: Any = None
        self._root: _Node | None = None

    def __repr__(self) -> str:
        mode = "PUCT" if self.prior is not None else "UCT"
        return f"MCTSAgent({mode}, n_simulations={self.n_simulations}, c={self.c})"

    # ---- public API ----------------------------------------------------------------------------

    def reset(self) -> None:
        """Drop the search tree, so the next move is searched from scratch (the generator keeps its state)."""
        self._root = None
        self._game = None

    def act(self, game: Any, state: Any) -> int:
        """Search ``state`` and return the chosen move.

        Args:
            game: a rules object (``TicTacToe``, ``ConnectN``, ``DotsAndBoxes`` or anything with the same
                surface: ``current_player``, ``legal_actions``, ``apply``, ``is_terminal``, ``returns``).
            state: a non-terminal state of ``game``.

        Returns:
            A legal action of ``state``, as a Python int.

        Raises:
            ValueError: if ``state`` is terminal, or a ``prior``/``value``/``rollout`` callable returns
                something invalid (see the class docstring).
        """
        if game.is_terminal(state):
            raise ValueError("cannot act on a terminal state: the game is over")
        root = self._find_root(game, state)
        self._game, self._root = game, root
        self.reused_visits = root.n
        self.last_simulations = self._search(game, root, self.n_simulations)
        return self._best_action(root)

    def root_statistics(self) -> list[ChildStats]:
        """Return the statistics of every tried move at the root of the last search, in action order.

        The last root is kept for this even with ``reuse_tree=False``; it is only never searched again.

        Returns:
            One :class:`ChildStats` per tried move; an empty list before the first search or after
            :meth:`reset`.
        """
        root = self._root
        if root is None or root.actions is None:
            return []
        stats = []
        for action, child in zip(root.actions, root.children, strict=True):
            if child is None:
                continue
            proven = None if child.proven is None else child.proven[root.player]
            stats.append(ChildStats(int(action), child.n, child.q, proven))
        return sorted(stats)

    # ---- the search ----------------------------------------------------------------------------

    def _find_root(self, game: Any, state: Any) -> _Node:
        """Return the node of ``state`` in the kept tree (breadth-first), or a fresh root."""
        old = self._root
        if self.reuse_tree and old is not None and (game is self._game or game == self._game):
            queue = deque([old])
            while queue:
                node = queue.popleft()
                if node.state == state:
                    return node
                queue.extend(child for child in node.children if child is not None)
        player = game.current_player(state)
        # The root's own totals are never read: only its children are compared.
        return _Node(state, player, 1 - player, None)

    def _search(self, game: Any, root: _Node, n_simulations: int) -> int:
        """Run up to ``n_simulations`` simulations from ``root``; return how many ran."""
        # Local names: this loop is the hot path, and attribute lookups cost as much as the arithmetic.
        apply, is_terminal, returns = game.apply, game.is_terminal, game.returns
        current_player = game.current_player
        list_moves, backup, uniform = self._list_moves, self._backup, self._next_uniform
        if self.value is not None:
            evaluate = self._value_leaf
        elif self.rollout is not None:
            evaluate = self._policy_rollout
        else:
            evaluate = self._random_rollout
        log, sqrt, inf = math.log, math.sqrt, math.inf
        c = self.c
        puct = self.prior is not None
        for done in range(n_simulations):
            if root.proven is not None:
                return done
            node = root
            path = [root]
            while True:
                if node.proven is not None:
                    # Terminal or solved: the exact value replaces a rollout, and nothing below can change it.
                    backup(path, node.proven, False)
                    break
                actions = node.actions
                if actions is None:
                    actions = list_moves(game, node)
                children = node.children
                p = node.player
                if puct:
                    # N counts as at least 1, so the first choice at a fresh root follows the prior too
                    # instead of a tie among zero scores.
                    k = c * sqrt(node.n or 1)
                    priors = node.priors
                    # Defaults only matter if every child were a proven loss, which proves the node first.
                    i, best = 0, -inf
                    for j, child in enumerate(children):
                        if child is None:
                            score = k * priors[j]  # Q = 0 for an untried move
                        else:
                            proven = child.proven
                            if proven is not None and proven[p] <= _LOSS:
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
                            if proven is not None and proven[p] <= _LOSS:
                                continue
                            score = candidate.q + explore * candidate.inv_sqrt_n
                            if score > best:
                                child, best = candidate, score
                if child is None:
                    # Expansion: the new child is the leaf; a terminal one is proven at once.
                    state = apply(node.state, actions[i])
                    terminal = is_terminal(state)
                    child = _Node(state, current_player(state), p, tuple(returns(state)) if terminal else None)
                    children[i] = child
                    node.n_expanded += 1
                    path.append(child)
                    backup(path, child.proven if terminal else evaluate(game, child), terminal)
                    break
                node = child
                path.append(node)
        return n_simulations

    def _list_moves(self, game: Any, node: _Node) -> list[int]:
        """Fill in ``node.actions`` and ``node.children`` (and, for PUCT, the priors) the first time."""
        actions = list(game.legal_actions(node.state))
        node.children = [None] * len(actions)
        if self.prior is not None:
            priors = self._legal_priors(game, node.state, actions)
            # Shuffle moves and priors together: equal scores then resolve in a random (seeded) order
            # instead of always favouring the lowest action number.
            uniform = self._next_uniform
            for i in range(len(actions) - 1, 0, -1):
                j = int(uniform() * (i + 1))
                actions[i], actions[j] = actions[j], actions[i]
                priors[i], priors[j] = priors[j], priors[i]
            node.priors = priors
        node.actions = actions
        return actions

    def _legal_priors(self, game: Any, state: Any, actions: list[int]) -> list[float]:
        """Call the prior on ``state`` and return probabilities aligned with ``actions``, summing to 1."""
        raw = self.prior(game, state)  # type: ignore[misc]
        if isinstance(raw, Mapping):
            probs = np.array([float(raw.get(a, 0.0)) for a in actions], dtype=float)
        else:
            array = np.asarray(raw, dtype=float)
            num_actions = getattr(game, "num_actions", None)
            if array.ndim != 1:
                raise ValueError(f"prior must return a mapping or a 1-D sequence, got shape {array.shape}")
            if len(array) == num_actions:
                probs = array[actions]
            elif len(array) == len(actions):
                probs = array
            else:
                raise ValueError(
                    f"prior returned {len(array)} probabilities: expected game.num_actions={num_actions} "
                    f"(indexed by action) or {len(actions)} (one per legal action, ascending)"
                )
        if not np.all(np.isfinite(probs)) or np.any(probs < 0):
            raise ValueError(f"prior probabilities must be finite and >= 0, got {probs.tolist()} for {actions}")
        total = probs.sum()
        if total <= 0:
            return [1.0 / len(actions)] * len(actions)
        return (probs / total).tolist()

    def _value_leaf(self, game: Any, node: _Node) -> tuple[float, ...]:
        """Return the payoffs of the non-terminal leaf ``node`` as estimated by the value function."""
        v = self.value(game, node.state)  # type: ignore[misc]
        try:
            v = float(v)
        except (TypeError, ValueError):
            raise ValueError(f"value must return a float in [-1, 1], got {v!r}") from None
        if not -1.0 <= v <= 1.0:  # also rejects NaN
            raise ValueError(f"value must return a float in [-1, 1], got {v!r}")
        # Zero-sum: the other player's result is the negation.
        return (v, -v) if node.player == 0 else (-v, v)

    def _policy_rollout(self, game: Any, node: _Node) -> tuple[float, ...]:
        """Play the ``rollout`` policy from the leaf ``node`` to the end and return the payoffs."""
        policy, rng = self.rollout, self.rng
        is_terminal, apply = game.is_terminal, game.apply
        state = node.state
        while not is_terminal(state):
            state = apply(state, policy(game, state, rng))  # type: ignore[misc]
        return game.returns(state)

    def _random_rollout(self, game: Any, node: _Node) -> tuple[float, ...]:
        """Play uniformly random moves from the leaf ``node`` to the end and return the payoffs."""
        is_terminal, legal_actions, apply = game.is_terminal, game.legal_actions, game.apply
        uniform = self._next_uniform
        state = node.state
        while True:  # the leaf is not terminal, so the first test can wait until after a move
            legal = legal_actions(state)
            state = apply(state, legal[int(uniform() * len(legal))])
            if is_terminal(state):
                return game.returns(state)

    @staticmethod
    def _backup(path: list[_Node], result: tuple[float, ...], proving: bool) -> None:
        """Add ``result`` along ``path`` and, if the leaf was just proven, propagate the proof upwards.

        Args:
            path: the nodes from the root to the leaf.
            result: the payoff tuple of the simulation.
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
                if child.proven[p] >= _WIN:
                    node.proven = child.proven  # the player to move here can win: nothing is better
                elif node.n_expanded == len(node.actions) and all(ch.proven is not None for ch in node.children):
                    node.proven = max((ch.proven for ch in node.children), key=lambda r: r[p])
                else:
                    proving = False
            child = node

    def _best_action(self, root: _Node) -> int:
        """Pick the final move by the order documented in the module docstring."""
        p = root.player
        keys = []
        for action, child in zip(root.actions, root.children, strict=True):
            if child is None:
                continue
            proven = child.proven
            if proven is None:
                tier = 1
            elif proven[p] >= _WIN:
                tier = 3 if child.terminal else 2
            elif proven[p] <= _LOSS:
                tier = 0
            else:
                tier = 1
            keys.append(((tier, child.n, child.q), action))
        top = max(key for key, _ in keys)
        tied = [action for key, action in keys if key == top]
        return int(tied[0] if len(tied) == 1 else tied[int(self._next_uniform() * len(tied))])
