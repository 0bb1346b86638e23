"""Monte Carlo prediction and control (Sutton and Barto, chapter 5), for any episodic Gymnasium env.

Three algorithms, each learning from whole episodes played through ``env.step``:

* :func:`mc_prediction`: first-visit or every-visit estimation of ``v_pi`` (S&B section 5.1);
* :func:`mc_control_es`: Monte Carlo control with exploring starts (section 5.3);
* :func:`mc_control_epsilon_soft`: on-policy first-visit control of epsilon-soft policies (section 5.4).

Observations are table keys. With a ``Discrete`` observation space the tables are numpy arrays indexed
by ``obs - space.start`` (``V`` of shape ``(n,)``, ``Q`` and policies of shape ``(n, num_actions)``);
otherwise observations must be hashable (Gymnasium's raw ``Blackjack-v1`` tuples, for instance) and the
tables are dicts keyed by observation. Unvisited states keep the value 0.

Exploring starts need episodes that begin in arbitrary state-action pairs. An env that accepts
``reset(options={"start_state": s})`` and lists those states as ``nonterminal_states`` (``GridWorld-v0``
and ``TabularBlackjack-v0`` do) gets a uniformly drawn start state, and the first action is drawn
uniformly and forced; after that the greedy policy acts. Any other env starts from its own ``reset``
with a uniformly drawn first action, which explores every pair only if its start distribution covers
every state.

Bookkeeping is kept to plain Python lists and dicts on the episode path (numpy scalar indexing costs
more than a blackjack card draw), so that learning costs little beside the game: a 500,000-episode
prediction run through ``TabularBlackjack-v0`` took 1.02 times the CPU time of a bare loop over
``Blackjack-v1`` playing the same policy (``scripts/train_blackjack_mc.py`` measures the ratio).
Truncated episodes (a time limit) are used as they are: their missing tail counts as zero return.
"""

from __future__ import annotations

import bisect
import functools
from collections.abc import Callable, Hashable, Iterator, Sequence
from typing import Any

import gymnasium as gym
import numpy as np

from agents._rng import SeedLike, make_rng, uniform_stream
from agents.tabular._episodes import check_callback, run_episodes
from gym_boardgames.checks import check_int, check_number
from gym_boardgames.tabular import check_policy

PolicyLike = Callable[[Any], int] | np.ndarray
Progress = Callable[[int], None]
Callback = Callable[[int, Any, Any], None]
Start = Callable[[], dict[str, Any]]  # the reset options of an episode's start

#: The reset option that starts an episode in a given state (GridWorld-v0's and TabularBlackjack-v0's).
START_OPTION = "start_state"
_BLOCK = 4096  # random numbers drawn per numpy call; one call per step would cost more than the step


def _start(
    episodes: int, gamma: float, seed: SeedLike, callback: Callback | None = None, every: int = 0
) -> tuple[int, float, int, np.random.Generator]:
    """Check what every learner takes (episodes, the discount, the callback's period) and make its generator."""
    episodes, gamma = check_int("episodes", episodes, 0), check_number("gamma", gamma, 0, 1)
    return episodes, gamma, check_callback(callback, every), make_rng(seed)


def _num_actions(env: gym.Env) -> int:
    space = env.action_space
    if not isinstance(space, gym.spaces.Discrete) or space.start != 0:
        raise ValueError(f"Monte Carlo control needs a Discrete action space starting at 0, got {space}")
    return int(space.n)


def _discrete_obs(env: gym.Env) -> tuple[int, int] | None:
    """``(n, start)`` of a Discrete observation space, None for any other space."""
    space = env.observation_space
    return (int(space.n), int(space.start)) if isinstance(space, gym.spaces.Discrete) else None


def _integers(rng: np.random.Generator, high: int) -> Iterator[int]:
    """An endless stream of integers in ``range(high)`` drawn in blocks."""
    while True:
        yield from rng.integers(high, size=_BLOCK).tolist()


def _array_actor(array: np.ndarray, start: int, rng: np.random.Generator) -> Callable[[Any], int]:
    """``obs -> action`` for a probability array, a plain table lookup when the policy is deterministic."""
    if np.all(array.max(axis=1) == 1.0):
        table = array.argmax(axis=1).tolist()
        return table.__getitem__ if start == 0 else (lambda obs: table[obs - start])
    cumulative = np.cumsum(array, axis=1)
    for row, probs in zip(cumulative, array, strict=True):
        # Rounding can leave the last sum just below 1; close the gap on the last possible action only,
        # so that an action with probability 0 can never be drawn.
        row[np.flatnonzero(probs > 0)[-1] :] = 1.0
    rows = cumulative.tolist()
    uniform = uniform_stream(rng, _BLOCK)

    def act(obs: Any) -> int:
        return bisect.bisect_right(rows[obs - start], uniform())

    return act


def _policy_array(env: gym.Env, policy: np.ndarray, num_actions: int) -> tuple[np.ndarray, int]:
    """Check a policy array against the env's Discrete observation space; return it and the space's start."""
    discrete = _discrete_obs(env)
    if discrete is None:
        raise ValueError(
            f"a policy array needs a Discrete observation space, got {env.observation_space}; pass a callable"
        )
    return check_policy(policy, discrete[0], num_actions), discrete[1]


def _play(step: Callable[..., tuple], act: Callable[[Any], int], obs: Any, first_action: int | None = None) -> tuple:
    """Play one episode from ``obs``; return its lists of observations, actions and rewards."""
    states, actions, rewards = [], [], []
    action = act(obs) if first_action is None else first_action
    while True:
        states.append(obs)
        actions.append(action)
        obs, reward, terminated, truncated, _ = step(action)
        rewards.append(reward)
        if terminated or truncated:
            return states, actions, rewards
        action = act(obs)


def _returns(keys: list[Any], rewards: list[float], gamma: float, first_visit: bool) -> Iterator[tuple[Any, float]]:
    """Yield ``(key, return)`` for an episode's steps from the last back, only at first visits if ``first_visit``."""
    # Each key's first step: an earlier step overwrites a later one.
    first = {key: t for t, key in reversed(list(enumerate(keys)))} if first_visit and len(keys) > 1 else None
    g = 0.0
    for t in range(len(keys) - 1, -1, -1):
        g = gamma * g + rewards[t]
        if first is None or first[keys[t]] == t:
            yield keys[t], g


def _episode_runner(
    env: gym.Env, rng: np.random.Generator, learn: Callable[[Any], None], start: Start | None = None
) -> Callable[[int, int], None]:
    """Return ``run(first, n)`` for :func:`agents.tabular._episodes.run_episodes`: ``learn(first obs)`` per episode.

    Each episode starts with ``env.reset(options=start())`` (no options without ``start``). The env is
    seeded once, at the first reset, from ``rng`` (drawn now); later resets continue the env's own stream.
    The first observation is checked to be hashable, as the tables key on observations.
    """
    seed_for_env: int | None = int(rng.integers(2**31))

    def run(_first: int, n: int) -> None:
        nonlocal seed_for_env
        for _ in range(n):
            obs, _ = env.reset(seed=seed_for_env, options=None if start is None else start())
            if seed_for_env is not None:
                seed_for_env = None
                try:
                    hash(obs)
                except TypeError:
                    raise ValueError(
                        f"Monte Carlo tables key on observations; {type(obs).__name__} observations are not hashable "
                        "(use a Discrete or tuple observation space)"
                    ) from None
            learn(obs)

    return run


def mc_prediction(
    env: gym.Env,
    policy: PolicyLike,
    episodes: int,
    first_visit: bool = True,
    gamma: float = 1.0,
    seed: SeedLike = None,
    progress: Progress | None = None,
) -> np.ndarray | dict[Hashable, float]:
    """Estimate ``v_pi`` as the average return after visits to each state (S&B section 5.1).

    Args:
        env: an episodic env; ``reset(seed=...)`` is called once with a seed drawn from ``seed``.
        policy: a callable ``observation -> action``, or an ``(num_states, num_actions)`` probability array
            for a Discrete observation space (a one-hot array is followed without random draws).
        episodes: number of episodes (>= 0).
        first_visit: True averages the return after the first visit to a state in each episode only;
            False averages after every visit. (On blackjack the two coincide: no state recurs.)
        gamma: discount factor in [0, 1].
        seed: int, Generator or None; with the same seed, env and policy the estimate is the same.
        progress: called with the number of episodes finished since its last call (e.g. a tqdm
            ``update``), about a hundred times per run.

    Returns:
        For a Discrete observation space, ``V`` as a float array of length ``n`` (index
        ``obs - space.start``); otherwise a dict ``observation -> value`` over the visited states.
        Unvisited states are 0.

    Raises:
        ValueError: on a bad policy array (wrong shape, negative entries, rows not summing to 1),
            a parameter out of range, or unhashable observations.
    """
    episodes, gamma, _, rng = _start(episodes, gamma, seed)
    act = policy if callable(policy) else _array_actor(*_policy_array(env, policy, _num_actions(env)), rng)
    sums: dict[Any, float] = {}
    counts: dict[Any, int] = {}
    step = env.step

    def learn(obs: Any) -> None:
        states, _, rewards = _play(step, act, obs)
        for s, g in _returns(states, rewards, gamma, first_visit):
            sums[s] = sums.get(s, 0.0) + g
            counts[s] = counts.get(s, 0) + 1

    run_episodes(episodes, _episode_runner(env, rng, learn), progress)
    return _as_table({s: total / counts[s] for s, total in sums.items()}, _discrete_obs(env))


def _as_table(rows: dict[Any, Any], discrete: tuple[int, int] | None, *width: int) -> Any:
    """``rows`` in the output format: the dict itself, or for a Discrete space an array indexed by ``obs - start``."""
    if discrete is None:
        return rows
    num_states, start = discrete
    array = np.zeros((num_states, *width))
    for s, row in rows.items():
        array[int(s) - start] = row
    return array


class _Control:
    """Q tables, counts and the greedy policy shared by the two control algorithms."""

    def __init__(self, env: gym.Env, initial_policy: PolicyLike | None) -> None:
        self.num_actions, self.discrete = _num_actions(env), _discrete_obs(env)
        self.q: dict[Any, list[float]] = {}
        self.n: dict[Any, list[int]] = {}
        self.greedy: dict[Any, int] = {}
        self.initial: Callable[[Any], int] = initial_policy if callable(initial_policy) else lambda obs: 0
        if initial_policy is not None and not callable(initial_policy):
            array, start = _policy_array(env, initial_policy, self.num_actions)
            table = array.argmax(axis=1).tolist()  # a probability array's starting greedy action: its most probable
            self.initial = lambda obs: table[obs - start]
        if self.discrete is not None:
            num_states, start = self.discrete
            for s in range(start, start + num_states):
                self.greedy[s] = int(self.initial(s))

    def act(self, obs: Any) -> int:
        action = self.greedy.get(obs)
        if action is None:
            action = self.greedy[obs] = int(self.initial(obs))
        return action

    def update(
        self, states: list[Any], actions: list[int], rewards: list[float], gamma: float, first_visit: bool
    ) -> None:
        """Average the returns into Q (incremental means) and make the policy greedy where visited."""
        num_actions = self.num_actions
        for (s, a), g in _returns(list(zip(states, actions, strict=True)), rewards, gamma, first_visit):
            q = self.q.get(s)
            if q is None:
                q = self.q[s] = [0.0] * num_actions
                self.n[s] = [0] * num_actions
            n = self.n[s]
            n[a] += 1
            q[a] += (g - q[a]) / n[a]
            # Ties go to the lowest action, as np.argmax would.
            self.greedy[s] = max(range(num_actions), key=q.__getitem__)

    def tables(self, epsilon: float = 0.0) -> tuple[Any, Any]:
        """``(Q, policy)`` in the output format; the policy is epsilon-greedy on the greedy actions."""
        num_actions = self.num_actions
        rows = np.full((num_actions, num_actions), epsilon / num_actions) + (1.0 - epsilon) * np.eye(num_actions)
        q = {s: np.array(values) for s, values in self.q.items()}
        policy = {s: rows[a].copy() for s, a in self.greedy.items()}
        return _as_table(q, self.discrete, num_actions), _as_table(policy, self.discrete, num_actions)


def _start_states(env: gym.Env, start_states: Sequence[Any] | None) -> list[Any] | None:
    """The states to start exploring episodes in, or None to start from the env's own reset."""
    if start_states is None:
        try:
            start_states = env.get_wrapper_attr("nonterminal_states")
        except AttributeError:
            return None
    states = list(start_states)
    if not states:
        raise ValueError("start_states must not be empty")
    return states


def mc_control_es(
    env: gym.Env,
    episodes: int,
    gamma: float = 1.0,
    seed: SeedLike = None,
    *,
    start_states: Sequence[Any] | None = None,
    initial_policy: PolicyLike | None = None,
    first_visit: bool = True,
    progress: Progress | None = None,
    callback: Callback | None = None,
    callback_every: int = 0,
) -> tuple[Any, Any]:
    """Monte Carlo control with exploring starts (S&B section 5.3): sample-average Q, greedy policy.

    Each episode starts in a state drawn uniformly from the start states, with ``reset(options={"start_state":
    s})``, and takes a uniformly drawn first action; then it follows the policy that is greedy in the
    current Q, and after the episode Q and the policy are updated at the visited pairs.

    Args:
        env: an episodic env with a Discrete action space.
        episodes: number of episodes (>= 0).
        gamma: discount factor in [0, 1].
        seed: int, Generator or None; it seeds the start draws and, once, ``env.reset(seed=...)``.
        start_states: states that ``env.reset(options={"start_state": s})`` accepts. Default: the env's
            ``nonterminal_states`` attribute if it has one (``TabularBlackjack-v0``: all 290 live
            states; ``GridWorld-v0``: every free non-terminal cell); else episodes start from the env's
            own ``reset`` (only the first action explores).
        initial_policy: the greedy policy before any data (a callable or a probability array, whose
            most probable action counts); default action 0 everywhere. S&B's Figure 5.2 starts from
            "stick only on 20 or 21".
        first_visit: average first-visit returns of each pair (S&B's algorithm) or every-visit ones.
        progress: called with the number of episodes finished since its last call.
        callback: called as ``callback(episodes_done, Q, policy)`` every ``callback_every`` episodes
            with tables in the output format (e.g. to record a learning curve).
        callback_every: episodes between callbacks (0: never).

    Returns:
        ``(Q, policy)``. For a Discrete observation space, ``Q`` has shape ``(n, num_actions)`` and
        ``policy`` is the greedy deterministic policy as a one-hot ``(n, num_actions)`` array; otherwise both
        are dicts keyed by observation (Q rows and one-hot policy rows as arrays).

    Raises:
        ValueError: on a parameter out of range, an empty ``start_states`` or a bad ``initial_policy``.
    """
    episodes, gamma, callback_every, rng = _start(episodes, gamma, seed, callback, callback_every)
    control = _Control(env, initial_policy)
    starts = _start_states(env, start_states)
    first_actions = _integers(rng, control.num_actions)
    start_indices = _integers(rng, len(starts)) if starts is not None else None
    act, step, update = control.act, env.step, control.update

    def learn(obs: Any) -> None:
        update(*_play(step, act, obs, next(first_actions)), gamma, first_visit)

    start: Start | None = None if starts is None else lambda: {START_OPTION: starts[next(start_indices)]}
    run_episodes(episodes, _episode_runner(env, rng, learn, start), progress, callback, callback_every, control.tables)
    return control.tables()


def mc_control_epsilon_soft(
    env: gym.Env,
    episodes: int,
    epsilon: float = 0.1,
    gamma: float = 1.0,
    seed: SeedLike = None,
    *,
    initial_policy: PolicyLike | None = None,
    first_visit: bool = True,
    progress: Progress | None = None,
    callback: Callback | None = None,
    callback_every: int = 0,
) -> tuple[Any, Any]:
    """On-policy Monte Carlo control of an epsilon-soft policy (S&B section 5.4).

    Episodes start from the env's own ``reset``. The behaviour policy is epsilon-greedy in the current
    Q (a uniformly random action with probability ``epsilon``, else the greedy one), and after each
    episode Q is updated by sample averages at the visited pairs and the greedy action recomputed.

    Args:
        env: an episodic env with a Discrete action space.
        episodes: number of episodes (>= 0).
        epsilon: exploration probability in [0, 1].
        gamma: discount factor in [0, 1].
        seed: int, Generator or None; it seeds the exploration draws and, once, ``env.reset(seed=...)``.
        initial_policy: the greedy policy before any data (callable or probability array); default 0.
        first_visit: average first-visit returns (S&B's algorithm) or every-visit ones.
        progress: called with the number of episodes finished since its last call.
        callback: called as ``callback(episodes_done, Q, policy)`` every ``callback_every`` episodes.
        callback_every: episodes between callbacks (0: never).

    Returns:
        ``(Q, policy)``: ``policy`` is the epsilon-soft policy being followed (``1 - epsilon +
        epsilon / num_actions`` on the greedy action, ``epsilon / num_actions`` elsewhere), as an ``(n,
        num_actions)`` array for a Discrete observation space or a dict of rows otherwise; ``Q`` likewise.
        ``policy.argmax(axis=1)`` is the greedy policy.

    Raises:
        ValueError: on a parameter out of range or a bad ``initial_policy``.
    """
    epsilon = check_number("epsilon", epsilon, 0, 1)
    episodes, gamma, callback_every, rng = _start(episodes, gamma, seed, callback, callback_every)
    control = _Control(env, initial_policy)
    num_actions = control.num_actions
    uniform = uniform_stream(rng, _BLOCK)
    greedy_act = control.act

    def act(obs: Any) -> int:
        u = uniform()
        # One uniform decides both: below epsilon it also picks the random action uniformly.
        return min(int(u / epsilon * num_actions), num_actions - 1) if u < epsilon else greedy_act(obs)

    step, update = env.step, control.update

    def learn(obs: Any) -> None:
        update(*_play(step, act, obs), gamma, first_visit)

    tables = functools.partial(control.tables, epsilon)
    run_episodes(episodes, _episode_runner(env, rng, learn), progress, callback, callback_every, tables)
    return tables()
