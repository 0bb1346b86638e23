"""A rating ladder: every pair of agents plays from both seats until the ratings are known well enough.

The ladder plays in rounds. Each round, every *open* pair plays one block of games, seats alternating
(:func:`agents.arena.play_match`), and the ratings are refitted (:func:`agents.rating.fit_ratings`, Elo with
``random`` at 0). A pair is open while it has fewer than ``max_games`` games and it has not met yet or one of its
two agents has a 95% interval wider than ``target_width``; the run also stops when it has played ``max_total``
games.

Every block is a record of the results file (:func:`read_results`, :func:`write_results`): JSON lines, the
first naming the format and the game, each other one block. A block's agents are seeded from the run's seed,
the two names and the pair's block number alone, so the same file and seed give the same games whichever
worker plays them and in whatever order. A later run reads the file and adds to it: an agent that joins a
finished ladder opens only its own pairs, and the other pairs' games are not replayed.

Agents are named as :func:`agents.factory.make_agent` takes them, or as a user's class: ``module:Class`` (an
importable module) or ``path/to/file.py:Class``. The class is called with ``seed=`` if it takes one; its
instances need ``act(game, state) -> int`` (see docs/tutorials/opponent.md).
"""

from __future__ import annotations

import functools
import importlib
import importlib.util
import inspect
import json
import multiprocessing
import os
import zlib
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np

from agents.arena import play_match
from agents.factory import make_agent
from agents.rating import Ratings, fit_ratings
from gym_boardgames.utils import require_extra, write_text_atomic

#: The first field of a results file's first line.
FORMAT = "gym-boardgames ladder 1"
#: The agent every rating is measured from (0 Elo).
ANCHOR = "random"
#: The first part of the names :func:`agents.factory.make_agent` builds; any other ``X:Class`` is a user's class.
FACTORY_KINDS = frozenset("random alphabeta mcts td alphazero first_available always4never3 endgame exact".split())


def build_agent(spec: str, seed: int, game: Any) -> Any:
    """Return the agent named ``spec`` for ``game``, seeded with ``seed``, checked against the game.

    Raises:
        ValueError: an unknown name, a bad parameter, a user's class that cannot be loaded or built, or an
            agent that cannot play ``game`` (:func:`agents.factory.make_agent`).
        OSError: a saved agent's file cannot be read.
    """
    head, sep, name = spec.rpartition(":")
    if not sep or spec.partition(":")[0] in FACTORY_KINDS:
        return make_agent(spec, seed=seed, game=game)
    cls = _user_class(head, name)
    try:
        agent = cls(seed=seed) if "seed" in inspect.signature(cls).parameters else cls()
    except Exception as error:  # the user's constructor may raise anything: report it as theirs
        raise ValueError(f"cannot build {name}: {type(error).__name__}: {error}") from None
    if not callable(getattr(agent, "act", None)):
        raise ValueError(f"{name}'s instances have no act(game, state) method")
    check = getattr(agent, "check", None)
    if callable(check):
        check(game)
    return agent


@functools.cache  # a worker loads a user's file once, not once per block
def _user_class(source: str, name: str) -> Any:
    """The class ``name`` of the module ``source``: an importable module's name or a ``.py`` file's path."""
    if source.endswith(".py") and not os.path.isfile(source):
        raise ValueError(f"no file {source}")
    try:
        if source.endswith(".py"):
            loader = importlib.util.spec_from_file_location(f"ladder_agent_{zlib.crc32(source.encode())}", source)
            module = importlib.util.module_from_spec(loader)  # type: ignore[arg-type]
            loader.loader.exec_module(module)  # type: ignore[union-attr]
        else:
            module = importlib.import_module(source)
    except Exception as error:  # a user's module may raise anything while it loads: report it as theirs
        raise ValueError(f"cannot load {source}: {type(error).__name__}: {error}") from None
    cls = getattr(module, name, None)
    if not callable(cls):
        raise ValueError(f"{source} has no class {name!r}")
    return cls


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
        if header["format"] != FORMAT:
            raise ValueError(header["format"])
    except (ValueError, TypeError, KeyError):  # any bad first line, JSON or not: it is not our file
        raise ValueError(f"{where} is not a ladder results file (its first line is not {FORMAT!r})") from None
    if header.get("game") != repr(game):
        raise ValueError(f"{where} is a ladder of {header.get('game')}, not of {game!r}: give another file")
    blocks = []
    for number, line in enumerate(lines[1:], start=2):
        try:
            blocks.append(_block(json.loads(line)))
        except (ValueError, TypeError, KeyError):  # a torn or edited line: refuse the file, never rate a guess
            raise ValueError(f"{where} line {number} is not a ladder block: {line[:60]!r}") from None
    return blocks


def _block(fields: dict[str, Any]) -> Block:
    """The block a results line holds, or ``ValueError``, ``TypeError`` or ``KeyError``."""
    block = Block(**{**fields, "first": tuple(fields["first"]), "second": tuple(fields["second"])})
    numbers = [block.index, block.seed, *block.first, *block.second]
    names = isinstance(block.a, str) and isinstance(block.b, str) and block.a < block.b
    if not names or len(numbers) != 8 or not all(type(n) is int and n >= 0 for n in numbers) or not block.games:
        raise ValueError(fields)
    return block


def write_results(path: str | os.PathLike[str], game: Any, blocks: Iterable[Block]) -> None:
    """Write ``blocks`` to ``path`` as the ladder of ``game``, atomically (a reader sees the old file or the new)."""
    lines = [json.dumps({"format": FORMAT, "game": repr(game)})]
    lines += [json.dumps(asdict(block)) for block in blocks]
    write_text_atomic(path, "\n".join(lines) + "\n")


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


def play_block(game: Any, task: Task) -> Block:
    """Play one block (a worker's job): both agents built from their names and the block's own seeds."""
    a, b, index, seed, games = task
    seeds = np.random.SeedSequence([seed, zlib.crc32(a.encode()), zlib.crc32(b.encode()), index]).generate_state(2)
    record = play_match(game, build_agent(a, int(seeds[0]), game), build_agent(b, int(seeds[1]), game), games)
    first, second = record.first.as_dict(), record.second.as_dict()
    return Block(a, b, index, seed, tuple(first.values()), tuple(second.values()))  # type: ignore[arg-type]


@contextmanager
def block_runner(
    game: Any, workers: int = 1, ray_address: str | None = None
) -> Iterator[Callable[[list[Task]], Iterator[Block]]]:
    """Yield ``run(tasks)``, which plays the blocks and yields them in the tasks' order as they finish.

    Args:
        game: the rules object (sent to every worker).
        workers: processes; 1 plays in this process.
        ray_address: a Ray cluster (``"auto"``, ``"ray://host:10001"``): play the blocks as Ray tasks there
            (the ``rllib`` extra).

    Raises:
        MissingExtraError: ``ray_address`` given without Ray installed.
        ConnectionError: nothing listens at ``ray_address``.
    """
    job = functools.partial(play_block, game)
    if ray_address is not None:
        require_extra("rllib", "ray", needed_for="--ray-address")
        from agents.alphazero.workers import check_ray_reachable

        check_ray_reachable(ray_address)
        import ray

        ray.init(address=ray_address, ignore_reinit_error=True, log_to_driver=False)
        remote = ray.remote(num_cpus=1)(play_block)
        try:
            yield lambda tasks: (ray.get(ref) for ref in [remote.remote(game, task) for task in tasks])
        finally:
            ray.shutdown()
    elif workers > 1:
        # spawn, not fork: a worker starts clean, as on macOS and Windows, whatever threads this process runs.
        with multiprocessing.get_context("spawn").Pool(workers) as pool:
            yield lambda tasks: pool.imap(job, tasks)
    else:
        yield lambda tasks: map(job, tasks)


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
        on_round: called after each round with every block so far (to save them).
        progress: called with the games of each block as it finishes.
    """
    everything, new = list(blocks), []
    while tasks := plan_round(names, everything, budget, seed, sum(block.games for block in new)):
        for block in run(tasks):
            new.append(block)
            progress(block.games)
        everything += new[len(new) - len(tasks) :]
        on_round(everything)
    return ladder_ratings(names, everything), new
