"""The Sutton & Barto chapter-1 tic-tac-toe player: a TD(0) value table over afterstates, learnt in self-play.

Each seat ``p`` keeps a table ``V[p]`` indexed by the compact key (``game.key``) of an *afterstate*,
the position right after one of ``p``'s own moves. ``V[p][s]`` estimates ``p``'s chance of winning from
``s``: it starts at 1 when ``s`` is a win for ``p``, 0 when ``s`` is a loss, and 0.5 for everything else
(draws included, whose true value stays 0.5).

A move is epsilon-greedy: with probability epsilon a uniformly random legal move (exploratory), otherwise a
move whose afterstate has the highest value (greedy; ties broken at random). After a greedy move, the
seat's previous afterstate ``s`` backs up towards the new one ``s'``::

    V(s) <- V(s) + alpha * (V(s') - V(s))

Exploratory moves cause no backup: the value of ``s`` should not be dragged down by a move the policy
would not make (book section 1.5, figure 1.1). When the game ends, the seat whose move ended it has
reached a terminal afterstate (the backup above, if that move was greedy), and the other seat's last
afterstate backs up towards the terminal position's true value in its own table (0 after a loss,
0.5 after a draw). Terminal afterstates keep their true values: no backup ever starts from them.

Both seats learn in the same self-play games (:func:`train_self_play`), so one saved file holds both
tables and a loaded :class:`TDAgent` plays whichever side is to move.

Tables are initialised lazily: every entry starts at 0.5, and the first time the agent looks at the
children of a position (in training or in play), its terminal children get their true values in both
tables (1 for the winner's seat, 0 for the loser's, 0.5 for a draw). An agent only ever reads children
of positions it has looked at, so it never sees an uninitialised terminal entry. Children are found with
the rules' ``apply`` and ``key`` once per position and cached, which is what makes training fast: after
the first few thousand games no rule code runs at all.

Works for any game whose rules object has the rules surface (docs/design.md, "Rules surface") plus ``key(state)`` and
``num_keys`` (every key is in ``0 .. num_keys - 1``), e.g. tic-tac-toe (19683 keys) and small
:class:`~gym_boardgames.rules.connect.ConnectN` boards (``3**cells`` keys).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any, NamedTuple

import numpy as np

from agents._rng import Seeded, SeedLike, make_rng, uniform_stream
from agents.persistence import MAX_DATA_BYTES, MAX_FILE_BYTES
from agents.tabular._episodes import check_callback, run_episodes
from agents.tabular.td_file import load_tables, save_tables, table_size
from gym_boardgames.checks import check_int, check_number

# Cached positions per agent before the cache is dropped and rebuilt (bounds memory on big boards).
_CACHE_LIMIT = 1_000_000
# How many uniforms are drawn from the Generator at once: one numpy call instead of one per move.
_UNIFORM_BLOCK = 1 << 16
#: A step size or exploration rate as a function of the 0-based episode number.
Schedule = Callable[[int], float]


class _Children(NamedTuple):
    """A position's children, computed once with the rules.

    Attributes:
        mover: the player to move.
        actions: the legal actions, ascending.
        keys: the key of each action's afterstate.
        states: each action's afterstate.
        outcomes: per child, None if it is not terminal, else its true value per seat ``(v0, v1)``.
    """

    mover: int
    actions: tuple[int, ...]
    keys: tuple[int, ...]
    states: tuple[Any, ...]
    outcomes: tuple[tuple[float, float] | None, ...]


def _expand(game: Any, state: Any, key: int, nodes: dict[int, _Children]) -> _Children:
    """Apply every legal action of ``state`` and record the children's keys and terminal values in ``nodes[key]``."""
    actions = tuple(int(a) for a in game.legal_actions(state))
    if not actions:
        raise ValueError("the game is over: there is no move to choose")
    states = tuple(game.apply(state, a) for a in actions)
    # A terminal child's payoffs +1/0/-1 become the values 1/0.5/0.
    outcomes = tuple(tuple((r + 1.0) / 2.0 for r in game.returns(s)) if game.is_terminal(s) else None for s in states)
    node = _Children(game.current_player(state), actions, tuple(game.key(s) for s in states), states, outcomes)
    if len(nodes) >= _CACHE_LIMIT:
        nodes.clear()  # bounds memory on big boards: nodes are recomputed on demand
    nodes[key] = node
    return node


class TDAgent(Seeded):
    """A greedy (or epsilon-greedy) player reading two afterstate value tables, one per seat.

    Args:
        game: the rules object the tables belong to (needs ``key`` and ``num_keys``).
        values: a ``(2, num_keys)`` float64 array, ``values[p][key]`` the value for seat ``p`` of the
            afterstate ``key``; None for fresh tables (all 0.5, terminal entries filled in lazily).
            The array is used as is, not copied.
        seat: the seat these tables were trained for, if one (informational; :meth:`act` always plays
            the side to move).
        epsilon: probability of a uniformly random move in :meth:`act` (0: always greedy).
        seed: int, Generator or None; breaks ties between equally valued moves (and draws exploration).
        training: JSON-ready notes on how the tables were made, stored by :meth:`save`.

    Raises:
        ValueError: on a game without ``key``/``num_keys``, a table of the wrong shape or dtype, or an
            epsilon outside [0, 1].
    """

    def __init__(
        self,
        game: Any,
        values: np.ndarray | None = None,
        *,
        seat: int | None = None,
        epsilon: float = 0.0,
        seed: SeedLike = None,
        training: dict[str, Any] | None = None,
    ) -> None:
        num_keys = table_size(game)
        if values is None:
            values = np.full((2, num_keys), 0.5)
        elif not isinstance(values, np.ndarray) or values.shape != (2, num_keys) or values.dtype != np.float64:
            shape, dtype = getattr(values, "shape", None), getattr(values, "dtype", type(values).__name__)
            raise ValueError(f"values must be a float64 array of shape (2, {num_keys}), got {dtype} {shape}")
        check_number("epsilon", epsilon, 0, 1)
        seat = None if seat is None else check_int("seat (or None)", seat, 0, 1)
        self.game, self.values, self.seat, self.epsilon = game, values, seat, float(epsilon)
        super().__init__(seed)
        self.training = dict(training or {})
        self._nodes: dict[int, _Children] = {}
        self._checked_game: Any = game

    def __repr__(self) -> str:
        return f"TDAgent({self.game!r}, seat={self.seat}, epsilon={self.epsilon})"

    # ---- playing ---------------------------------------------------------------------------------

    def _node(self, game: Any, state: Any) -> _Children:
        """Return the cached children of ``state``, initialising terminal children's table entries.

        A game other than the one the tables index is refused (checked once per game object).
        """
        if game is not self._checked_game:
            if not (game is self.game or game == self.game):
                raise ValueError(f"this TDAgent's tables are for {self.game!r}, not {game!r}")
            self._checked_game = game
        key = game.key(state)
        node = self._nodes.get(key)
        if node is None:
            node = _expand(game, state, key, self._nodes)
            for child, outcome in zip(node.keys, node.outcomes, strict=True):
                if outcome is not None:
                    self.values[0, child], self.values[1, child] = outcome
        return node

    def action_values(self, game: Any, state: Any) -> dict[int, float]:
        """Return the value of each legal move's afterstate for the player to move in ``state``.

        Args:
            game: the rules object (equal to the agent's game).
            state: a non-terminal position.

        Returns:
            ``{action: V[mover][key of the afterstate]}``, in action order.

        Raises:
            ValueError: if ``state`` is terminal or ``game`` is not the agent's game.
        """
        node = self._node(game, state)
        table = self.values[node.mover]
        return {a: float(table[k]) for a, k in zip(node.actions, node.keys, strict=True)}

    def greedy_actions(self, game: Any, state: Any) -> list[int]:
        """Return every legal move of maximal afterstate value for the player to move (ascending).

        Raises:
            ValueError: if ``state`` is terminal or ``game`` is not the agent's game.
        """
        values = self.action_values(game, state)
        best = max(values.values())
        return [a for a, v in values.items() if v == best]

    def act(self, game: Any, state: Any) -> int:
        """Return a move for whichever player is to move in ``state``, read from that seat's table.

        Greedy (ties broken by the agent's rng), or with probability ``epsilon`` a uniformly random move.

        Args:
            game: the rules object (equal to the agent's game).
            state: a non-terminal position.

        Returns:
            A legal action.

        Raises:
            ValueError: if ``state`` is terminal or ``game`` is not the agent's game.
        """
        node = self._node(game, state)
        if self.epsilon > 0.0 and self.rng.random() < self.epsilon:
            return node.actions[int(self.rng.integers(len(node.actions)))]
        values = self.values[node.mover][list(node.keys)]
        best = np.flatnonzero(values == values.max())
        pick = best[0] if len(best) == 1 else best[self.rng.integers(len(best))]
        return node.actions[int(pick)]

    # ---- saving ----------------------------------------------------------------------------------

    def save(self, path: str | os.PathLike[str], *, replace: bool = True) -> str:
        """Write both seats' tables, the game and the training notes to one ``.npz`` file; return the path.

        The file's format is :mod:`agents.tabular.td_file`'s; written atomically, ``replace`` as
        :func:`agents.persistence.save_npz`'s.

        Raises:
            OSError: if the file cannot be written (an existing file at ``path`` is then untouched).
        """
        return save_tables(path, self.game, self.values, self.training, replace=replace)

    @classmethod
    def load(
        cls,
        path: str | os.PathLike[str],
        game: Any | None = None,
        *,
        epsilon: float = 0.0,
        seed: SeedLike = None,
        max_file_bytes: int = MAX_FILE_BYTES,
        max_data_bytes: int = MAX_DATA_BYTES,
    ) -> TDAgent:
        """Load an agent saved by :meth:`save`; it plays whichever side is to move.

        The file is checked before anything is built or allocated, as :func:`agents.tabular.td_file.load_tables`
        says.

        Args:
            path: the ``.npz`` file.
            game: the rules object to play; None rebuilds the stored one (tic-tac-toe and ConnectN
                boards can be rebuilt; other games must be passed).
            epsilon: exploration at play time.
            seed: int, Generator or None for tie-breaking.
            max_file_bytes: the largest file accepted, as :func:`agents.tabular.td_file.load_tables` takes it.
            max_data_bytes: the largest table accepted once decompressed, as ``load_tables`` takes it.

        Returns:
            The agent, with ``training`` holding the stored training notes.

        Raises:
            FileNotFoundError: if ``path`` does not exist.
            ValueError: (:class:`~agents.persistence.SavedFileError`) naming the file and the problem, as
                :func:`agents.tabular.td_file.load_tables` lists them.
        """
        game, values, training = load_tables(path, game, max_file_bytes=max_file_bytes, max_data_bytes=max_data_bytes)
        return cls(game, values, epsilon=epsilon, seed=seed, training=training)


# ---- self-play training -------------------------------------------------------------------------


class _SelfPlay:
    """The training loop: both seats learn from the same epsilon-greedy self-play games.

    The hot loop reads and writes Python dicts (``live[p][key]``), about twice as fast as numpy
    scalar indexing (measured); :meth:`flush` copies them into the agents' numpy tables. Every key the
    loop touches is a child of a position it expanded, so the dicts hold all of them.
    """

    def __init__(
        self, game: Any, values: np.ndarray, rng: np.random.Generator, alphas: Schedule, epsilons: Schedule
    ) -> None:
        self.game, self.values, self.alphas, self.epsilons = game, values, alphas, epsilons
        self.next_uniform = uniform_stream(rng, _UNIFORM_BLOCK)
        self.nodes: dict[int, _Children] = {}
        self.live: tuple[dict[int, float], dict[int, float]] = ({}, {})
        self.root = game.initial_state()
        self.root_key = game.key(self.root)

    def expand(self, key: int, state: Any) -> _Children:
        """Expand ``state`` once; seed the live tables with its children's values."""
        node = _expand(self.game, state, key, self.nodes)  # the live values outlive a cleared cache
        mover_table = self.live[node.mover]
        for child, outcome in zip(node.keys, node.outcomes, strict=True):
            if outcome is not None:
                # Terminal: its true value, in both tables (the other seat backs up towards it too).
                self.live[0][child], self.live[1][child] = outcome
            elif child not in mover_table:
                mover_table[child] = float(self.values[node.mover, child])
        return node

    def run(self, start: int, episodes: int) -> None:
        """Play ``episodes`` games, numbered from ``start`` for the step-size and exploration schedules."""
        nodes, expand, uniform = self.nodes, self.expand, self.next_uniform
        live, alphas, epsilons = self.live, self.alphas, self.epsilons
        for episode in range(start, start + episodes):
            alpha, epsilon = alphas(episode), epsilons(episode)
            state, key = self.root, self.root_key
            last: list[int | None] = [None, None]  # each seat's previous afterstate key
            while True:
                node = nodes.get(key) or expand(key, state)
                mover = node.mover
                table = live[mover]
                kids = node.keys
                greedy = uniform() >= epsilon
                if greedy:
                    vals = list(map(table.__getitem__, kids))
                    best = max(vals)
                    if vals.count(best) == 1:
                        j = vals.index(best)
                    else:
                        ties = [i for i, v in enumerate(vals) if v == best]
                        j = ties[int(uniform() * len(ties))]
                else:
                    j = int(uniform() * len(kids))  # exploratory: no backup below
                child = kids[j]
                previous = last[mover]
                if greedy and previous is not None:
                    table[previous] += alpha * (table[child] - table[previous])
                last[mover] = child
                if node.outcomes[j] is not None:
                    # The other seat's last afterstate learns the final result, whoever ended the game.
                    previous, other_table = last[1 - mover], live[1 - mover]
                    if previous is not None:
                        other_table[previous] += alpha * (other_table[child] - other_table[previous])
                    break
                state, key = node.states[j], child

    def flush(self) -> None:
        """Copy the live values into the numpy tables."""
        for seat, table in enumerate(self.live):
            if table:
                keys = np.fromiter(table.keys(), dtype=np.int64, count=len(table))
                self.values[seat, keys] = np.fromiter(table.values(), dtype=np.float64, count=len(table))


def linear_schedule(start: float, end: float | None, episodes: int) -> Schedule:
    """Return ``episode -> value`` going linearly from ``start`` (first episode) to ``end`` (last).

    Args:
        start: the value at episode 0.
        end: the value at episode ``episodes - 1``; None keeps ``start`` throughout.
        episodes: the length of the run.

    Returns:
        The schedule, a function of the 0-based episode number.
    """
    if end is None or end == start or episodes <= 1:
        return lambda episode: start
    slope = (end - start) / (episodes - 1)
    return lambda episode: start + slope * episode


def train_self_play(
    game: Any,
    episodes: int,
    alpha: float = 0.1,
    epsilon: float = 0.1,
    seed: SeedLike = None,
    progress: Callable[[int], None] | None = None,
    *,
    alpha_final: float | None = None,
    epsilon_final: float | None = None,
    callback: Callable[[int, TDAgent, TDAgent], None] | None = None,
    callback_every: int = 0,
    initial: TDAgent | None = None,
) -> tuple[TDAgent, TDAgent]:
    """Learn both seats' afterstate tables by TD(0) in epsilon-greedy self-play.

    Args:
        game: the rules object (needs ``key`` and ``num_keys``).
        episodes: self-play games to play (>= 0).
        alpha: step size in (0, 1] (at the first episode, if ``alpha_final`` is given).
        epsilon: exploration probability in [0, 1] (at the first episode, if ``epsilon_final`` is given).
        seed: int, Generator or None; the same seed gives the same tables.
        progress: called with the number of episodes finished since its last call (e.g. a tqdm
            ``update``), about a hundred times per run.
        alpha_final: if given, alpha decays linearly to this value at the last episode.
        epsilon_final: if given, epsilon decays linearly to this value at the last episode.
        callback: called as ``callback(episodes_done, agent0, agent1)`` every ``callback_every``
            episodes (tables up to date), e.g. to record a learning curve.
        callback_every: episodes between callbacks (0: never).
        initial: start from a copy of this agent's tables (to continue training) instead of fresh ones.

    Returns:
        ``(agent for player 0, agent for player 1)``. They share one ``(2, num_keys)`` value array (both
        seats learnt in the same games; either agent plays whichever side is to move and saves both
        tables), and each has its own tie-breaking rng drawn from ``seed``.

    Raises:
        ValueError: on a game without ``key``/``num_keys`` or a parameter out of range.
    """
    episodes = check_int("episodes", episodes, 0)
    rates = {"alpha": alpha, "alpha_final": alpha_final, "epsilon": epsilon, "epsilon_final": epsilon_final}
    for name, value in rates.items():
        if value is not None:  # a step size of 0 would learn nothing: alpha is in (0, 1]
            check_number(name, value, 0, 1, low_open=name.startswith("alpha"))
    callback_every = check_callback(callback, callback_every)
    num_keys = table_size(game)
    rng = make_rng(seed)
    if initial is not None and not (initial.game is game or initial.game == game):
        raise ValueError(f"initial holds tables for {initial.game!r}, not for {game!r}")
    values = np.full((2, num_keys), 0.5) if initial is None else initial.values.copy()
    training = {"episodes": episodes, **rates, "seed": seed if isinstance(seed, int) else None}
    training["continued"] = initial is not None
    agent_seeds = rng.integers(2**63, size=2)
    agents = tuple(TDAgent(game, values, seat=seat, seed=int(agent_seeds[seat]), training=training) for seat in (0, 1))
    schedules = linear_schedule(alpha, alpha_final, episodes), linear_schedule(epsilon, epsilon_final, episodes)
    loop = _SelfPlay(game, values, rng, *schedules)

    def tables() -> tuple[TDAgent, ...]:
        loop.flush()  # a callback sees the tables as they are after its episodes
        return agents

    run_episodes(episodes, loop.run, progress, callback, callback_every, tables)
    loop.flush()
    return agents[0], agents[1]
