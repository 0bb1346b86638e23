"""A rating ladder: every pair of agents plays from both seats until the ratings are known well enough.

The ladder plays in rounds. Each round, every *open* pair plays one block of games, seats alternating
(:func:`agents.matches.arena.play_match`), and the ratings are refitted
(:func:`agents.matches.rating.fit_ratings`, Elo with
``random`` at 0). A pair is open while it has fewer than ``max_games`` games and it has not met yet or one of its
two agents has a 95% interval wider than ``target_width``; the run also stops when it has played ``max_total``
games.

Every block is a record of the results file (:func:`read_results`, :func:`write_results`): JSON lines, the
first naming the format and the game, each other one block. A block's agents are seeded from the run's seed,
the two names and the pair's block number alone, so the same file and seed give the same games whichever
worker plays them and in whatever order. A later run reads the file and adds to it: an agent that joins a
finished ladder opens only its own pairs, and the other pairs' games are not replayed.

Agents are named as every surface names them (:func:`gym_boardgames.opponents.make_opponent`): a name of the
agent table, or a user's ``module:Class`` or ``path/to/file.py:Class`` (see docs/tutorials/opponent.md), whose
failures, and moves past the move time, end the ladder with one line naming the agent.
"""

from __future__ import annotations

import functools
import json
import os
import zlib
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import asdict, astuple, dataclass
from typing import Any

import numpy as np

from agents.matches.arena import play_match
from agents.matches.rating import Ratings, fit_ratings
from gym_boardgames.errors import describe_error
from gym_boardgames.opponents import Opponent, make_opponent
from gym_boardgames.outputs import write_text_atomic
from gym_boardgames.utils import as_finished, process_executor, require_extra

#: The first field of a results file's first line.
FORMAT = "gym-boardgames ladder 1"
#: The agent every rating is measured from (0 Elo).
ANCHOR = "random"
#: Games a block may hold: a results line claiming more was not written by a ladder.
MAX_BLOCK = 10_000
#: Seconds a ladder agent may take for one move by default (``--move-time``): a hang becomes one line.
MOVE_TIME = 60.0


def build_agent(spec: str, seed: int, game: Any, move_time: float | None = MOVE_TIME) -> Opponent:
    """Return the agent named ``spec`` for ``game``, seeded with ``seed``, checked against the game.

    Raises:
        ValueError: an unknown name, a bad parameter, a user's agent that cannot be loaded, built or checked
            (an :class:`~gym_boardgames.opponents.AgentError`), or an agent that cannot play ``game``.
        OSError: a saved agent's file cannot be read.
    """
    return make_opponent(spec, game, seed, move_time=move_time)


@dataclass(frozen=True)
class Block:
    """One block of games between agents ``a`` and ``b`` (``a < b``), with ``a``'s results by seat.

    Attributes:
        a: the first agent's name (the smaller).
        b: the second agent's name.
        index: the pair's block number, from 0.
        seed: the run's seed, which with the names and ``index`` seeds both agents.
        first: ``a``'s ``[win, draw, loss]`` when it moved first.
        second: ``a``'s ``[win, draw, loss]`` when it moved second.
    """

    a: str
    b: str
    index: int
    seed: int
    first: tuple[int, int, int]
    second: tuple[int, int, int]

    @property
    def games(self) -> int:
        """Games in the block."""
        return sum(self.first) + sum(self.second)

    @property
    def score(self) -> float:
        """``a``'s score: wins plus half the draws."""
        return self.first[0] + self.second[0] + (self.first[1] + self.second[1]) / 2


def read_results(path: str | os.PathLike[str], game: Any) -> list[Block]:
    """Return the blocks of the results file ``path`` for ``game`` (none if the file is missing or empty).

    Raises:
        ValueError: one line naming the file: a ladder of another game, or a line that is no block (a file
            that is not a ladder, one edited by hand, or a line cut off by a crash).
    """
    try:
        with open(path, encoding="utf-8") as handle:
            lines = handle.read().splitlines()
    except FileNotFoundError:
        return []
    except (OSError, UnicodeDecodeError) as error:
        raise ValueError(f"--results {os.fspath(path)}: cannot read it ({error})") from None
    if not lines:
        return []
    where = f"--results {os.fspath(path)}"
    try:
        header = json.loads(lines[0])
        ours = header["format"] == FORMAT
    except (ValueError, TypeError, KeyError):  # any bad first line, JSON or not: it is not our file
        ours = False
    if not ours:
        raise ValueError(f"{where} is not a ladder results file (its first line is not {FORMAT!r})")
    if header.get("game") != repr(game):
        raise ValueError(f"{where} is a ladder of {header.get('game')}, not of {game!r}: give another file")
    blocks: list[Block] = []
    seen: dict[tuple[str, str, int], int] = {}
    for number, line in enumerate(lines[1:], start=2):
        if (block := _block(line)) is None:  # a torn or edited line: refuse the file, never rate a guess
            raise ValueError(f"{where} line {number} is not a ladder block: {line[:60]!r}")
        key = (block.a, block.b, block.index)
        if key in seen:  # a block pasted twice would be counted twice
            pair = f"{key[0]} v {key[1]}, block {key[2]}"
            raise ValueError(f"{where} line {number} repeats line {seen[key]} ({pair}): a block counts once")
        seen[key] = number
        blocks.append(block)
    return blocks


def _block(line: str) -> Block | None:
    """The block a results line holds, or None if it holds none."""
    try:
        fields = json.loads(line)
        block = Block(**{**fields, "first": tuple(fields["first"]), "second": tuple(fields["second"])})
    except (ValueError, TypeError, KeyError):
        return None
    numbers = [block.index, block.seed, *block.first, *block.second]
    names = isinstance(block.a, str) and isinstance(block.b, str) and block.a < block.b
    counts = all(type(n) is int and n >= 0 for n in numbers)
    return block if names and len(numbers) == 8 and counts and 0 < block.games <= MAX_BLOCK else None


def write_results(path: str | os.PathLike[str], game: Any, blocks: Iterable[Block], *, replace: bool = True) -> str:
    """Write ``blocks`` to ``path`` as the ladder of ``game``, atomically (a reader sees the old file or the new).

    ``replace`` as :func:`gym_boardgames.outputs.write_text_atomic`'s; returns the path written.
    """
    lines = [json.dumps({"format": FORMAT, "game": repr(game)})]
    lines += [json.dumps(asdict(block)) for block in blocks]
    return write_text_atomic(path, "\n".join(lines) + "\n", replace=replace)


@dataclass(frozen=True)
class Budget:
    """When the ladder stops.

    Attributes:
        target_width: a pair is open while one of its agents' 95% intervals is wider than this (Elo).
        max_games: games per pair at most, earlier runs' included.
        max_total: games this run at most (None: no limit).
        block: games a pair plays between two fits (seats alternate).
    """

    target_width: float = 100.0
    max_games: int = 200
    max_total: int | None = None
    block: int = 10


#: A block to play: ``(a, b, index, seed, games)``.
Task = tuple[str, str, int, int, int]


def plan_round(names: Sequence[str], blocks: Sequence[Block], budget: Budget, seed: int, played: int) -> list[Task]:
    """Return the next round's blocks, one per open pair (see the module's docstring), within the budget.

    Args:
        names: the ladder's agents.
        blocks: every block played so far (the file's and this run's).
        budget: the stopping rules.
        seed: the run's seed.
        played: games played this run so far.
    """
    ratings = ladder_ratings(names, blocks)
    wide = {name for name, width in zip(names, ratings.width, strict=True) if width > budget.target_width}
    left = budget.max_total - played if budget.max_total is not None else np.inf
    tasks = []
    for a, b in pairs(names):
        mine = [block for block in blocks if (block.a, block.b) == (a, b)]
        games = int(min(budget.block, budget.max_games - sum(block.games for block in mine), left))
        if games > 0 and ({a, b} & wide or not mine):  # every pair meets at least once
            tasks.append((a, b, len(mine), seed, games))
            left -= games
    return tasks


def pairs(names: Sequence[str]) -> list[tuple[str, str]]:
    """Every pair of ``names``, each as ``(smaller, larger)``, in a fixed order."""
    ordered = sorted(names)
    return [(a, b) for i, a in enumerate(ordered) for b in ordered[i + 1 :]]


def ladder_ratings(names: Sequence[str], blocks: Iterable[Block]) -> Ratings:
    """Fit the ratings of ``names`` from ``blocks`` (blocks of other agents are skipped), ``random`` at 0."""
    return fit_ratings(names, ((block.a, block.b, block.score, block.games) for block in blocks), ANCHOR)


def play_block(game: Any, task: Task, move_time: float | None = MOVE_TIME) -> Block:
    """Play one block (a worker's job): both agents built from their names and the block's own seeds."""
    a, b, index, seed, games = task
    seeds = np.random.SeedSequence([seed, zlib.crc32(a.encode()), zlib.crc32(b.encode()), index]).generate_state(2)
    first, second = (build_agent(name, int(s), game, move_time) for name, s in ((a, seeds[0]), (b, seeds[1])))
    record = play_match(game, first, second, games)
    return Block(a, b, index, seed, astuple(record.first), astuple(record.second))


@contextmanager
def block_runner(
    game: Any, workers: int = 1, ray_address: str | None = None, move_time: float | None = MOVE_TIME
) -> Iterator[Callable[[list[Task]], Iterator[Block]]]:
    """Yield ``run(tasks)``, which plays the blocks and yields each as it finishes (on workers, in any order).

    Args:
        game: the rules object (sent to every worker).
        workers: processes; 1 plays in this process.
        ray_address: a Ray cluster (``"auto"``, ``"ray://host:10001"``): play the blocks as Ray tasks there
            (the ``rllib`` extra).
        move_time: seconds an agent may take for one move (None: no limit).

    Raises:
        MissingExtraError: ``ray_address`` given without Ray installed.
        ConnectionError: nothing listens at ``ray_address``.
    """
    job = functools.partial(play_block, game, move_time=move_time)
    if ray_address is not None:
        require_extra("rllib", "ray", needed_for="--ray-address")
        from agents.alphazero.workers import check_ray_reachable

        check_ray_reachable(ray_address)
        import ray

        ray.init(address=ray_address, ignore_reinit_error=True, log_to_driver=False)
        remote = ray.remote(num_cpus=1)(play_block)
        try:
            yield lambda tasks: (ray.get(ref) for ref in [remote.remote(game, task, move_time) for task in tasks])
        finally:
            ray.shutdown()
    elif workers > 1:
        yield from _pool_runner(workers, job)
    else:
        yield lambda tasks: map(job, tasks)


class LostBlockError(ValueError):
    """A block that no worker will finish: its worker died, or it raised what a pool cannot carry back."""


def _pool_runner(workers: int, job: Callable[[Task], Block]) -> Iterator[Callable[[list[Task]], Iterator[Block]]]:
    """:func:`block_runner`'s worker processes: a lost block ends the run with one line, never a wait forever.

    ``concurrent.futures``, not ``multiprocessing.Pool``: a pool replaces a worker that dies (killed, out of
    memory, ``os._exit``) and waits for its task forever, and a ``BaseException`` that escapes a task kills
    the worker the same way; the executor reports both (``BrokenProcessPool``, the exception itself).
    """
    from concurrent.futures.process import BrokenProcessPool

    with process_executor(workers) as pool:

        def run(tasks: list[Task]) -> Iterator[Block]:
            futures = {pool.submit(job, task): task for task in tasks}
            for future in as_finished(futures):  # as they finish, so each is saved before a Ctrl-C can lose it
                a, b, index, _, _ = futures[future]
                error = future.exception()  # None if it finished
                lost = "a worker process died" if isinstance(error, BrokenProcessPool) else None
                if error is not None and not isinstance(error, (Exception, KeyboardInterrupt)):
                    lost = f"it raised {describe_error(error)}"  # e.g. a SystemExit from package code
                if lost:
                    raise LostBlockError(f"block {index} of {a} vs {b} was lost: {lost}")
                # Outside any try: closing this generator throws GeneratorExit at the yield, not a lost block.
                yield future.result()  # an ordinary exception of the block comes out as it was raised

        yield run


def run_ladder(
    game: Any,
    names: Sequence[str],
    blocks: Sequence[Block],
    budget: Budget,
    seed: int,
    run: Callable[[list[Task]], Iterable[Block]],
    on_round: Callable[[list[Block]], None] = lambda blocks: None,
    progress: Callable[[int], None] = lambda games: None,
) -> tuple[Ratings, list[Block]]:
    """Play rounds until no pair is open, and return the ratings and the blocks this run played.

    Args:
        game: the rules object.
        names: the agents, ``random`` among them.
        blocks: the blocks played before (a results file's); they count towards each pair's budget.
        budget: when to stop.
        seed: the run's seed.
        run: plays a round's blocks (:func:`block_runner`).
        on_round: called after each block with every block so far (to save them: an interrupted round keeps
            its finished blocks).
        progress: called with the games of each block as it finishes.
    """
    new: list[Block] = []
    everything = list(blocks)
    while tasks := plan_round(names, everything, budget, seed, sum(block.games for block in new)):
        for block in run(tasks):
            # In a fixed order whatever order the workers finish in, so the same seed writes the same file.
            new = sorted([*new, block], key=lambda block: (block.index, block.a, block.b))
            everything = [*blocks, *new]
            progress(block.games)
            on_round(everything)
    return ladder_ratings(names, everything), new
