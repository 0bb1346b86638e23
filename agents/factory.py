"""Agents by name: the one table of agent kinds, and the builder every surface reaches through it.

:data:`AGENT_KINDS` lists every name form with what it plays; help texts, errors and the docs' lists come
from it (:func:`agent_forms`). A name whose first part is not a kind is a user's agent, ``module:Class`` or
``path/to/file.py:Class`` (:func:`gym_boardgames.opponents.load_user_agent`). Surfaces build agents through
:func:`gym_boardgames.opponents.make_opponent`, which calls :func:`make_agent` and guards user code.
"""

from __future__ import annotations

from typing import Any, NamedTuple

from agents._rng import SeedLike, make_rng
from gym_boardgames.checks import check_int
from gym_boardgames.opponents import USER_FORMS, UnknownAgentError, load_user_agent
from gym_boardgames.rules.registry import family_of


class AgentKind(NamedTuple):
    """One kind of agent name: its form (``alphabeta[:DEPTH]``), what it is, and the games it plays."""

    form: str
    summary: str
    dots_only: bool = False


#: Every kind of agent name, by its first part. The Dots and Boxes bots come last.
AGENT_KINDS = {
    kind.form.partition("[")[0].partition(":")[0]: kind
    for kind in (
        AgentKind("random", "uniformly random legal moves"),
        AgentKind("alphabeta[:DEPTH]", "alpha-beta search: exact, or DEPTH plies with a heuristic"),
        AgentKind("mcts[:SIMULATIONS]", "Monte Carlo tree search (default 1000 simulations)"),
        AgentKind("td:FILE", "a saved TD player (train_tictactoe_td.py)"),
        AgentKind("alphazero[:FILE][:SIMULATIONS]", "the shipped or a saved AlphaZero network (default 200)"),
        AgentKind("perfect", "the exact Connect Four solver (gravity boards, four in a row)"),
        AgentKind("first_available", "the first free edge", dots_only=True),
        AgentKind("always4never3", "takes every box, never offers a third side", dots_only=True),
        AgentKind("endgame:K", "always4never3, then exact play in the last K moves", dots_only=True),
        AgentKind("exact", "exact play from the solved table", dots_only=True),
    )
}
#: Simulations per move of ``alphazero`` when the name gives none.
ALPHAZERO_SIMULATIONS = 200
#: Boards alpha-beta solves within a second, where it is the default opponent: at most this many cells or edges.
SOLVED_AT_ONCE_CELLS, SOLVED_AT_ONCE_EDGES = 9, 12
#: What :func:`default_opponent` picks on every board, in words, for help texts (tests check it against the code).
DEFAULT_OPPONENTS = (
    f"exact on dotsandboxes 3x3 (the shipped solved table); alphabeta on boards of at most {SOLVED_AT_ONCE_CELLS} "
    f"cells or {SOLVED_AT_ONCE_EDGES} edges (tictactoe, connectn 3x3, dotsandboxes 2x2 and 1x3); alphazero on the "
    "6x7 Connect Four board (the shipped network); mcts on every other board"
)


def agent_forms(dots: bool | None = None, user: bool = True) -> list[str]:
    """Return the name forms of :data:`AGENT_KINDS`, then the user forms (``module:Class``, ``file.py:Class``).

    Args:
        dots: True for Dots and Boxes (every kind), False for other games (no Dots bots), None for all.
        user: include the user forms.
    """
    forms = [kind.form for kind in AGENT_KINDS.values() if dots is not False or not kind.dots_only]
    return forms + list(USER_FORMS) if user else forms


def default_opponent(game: Any) -> str:
    """Return the agent that plays ``game`` at once and well: the opponent ``scripts/play.py`` picks by default.

    Every default replies within a second on a quiet 2-core machine, its first move included
    (``scripts/bench.py`` measures it): the solved table on Dots and Boxes 3x3 (``exact``, shipped with the
    package), exact alpha-beta on games small enough to solve at once (tic-tac-toe, Dots and Boxes up to 12
    edges), the shipped network where there is one (``alphazero``: Connect Four), and ``mcts`` elsewhere
    (:data:`DEFAULT_OPPONENTS` says it for the help texts).
    ``perfect`` is not the default on Connect Four although it plays perfectly: most of its replies take
    milliseconds, but the hardest positions (12 to 17 stones) take the solver about a second, and more on a
    slower machine; it is offered second (:func:`suggested_opponents`).
    """
    return suggested_opponents(game)[0]


def suggested_opponents(game: Any) -> list[str]:
    """Return the named agents a person may pick against ``game`` in the browser page, the default first.

    Each answers within a few seconds on the game's default board; slower searches stay on the command line.
    ``perfect`` comes second, never first (see :func:`default_opponent`), where the exact solver answers every
    move within a few seconds: compiled (the ``solver`` extra), on 6x7 with the extra's opening book or on a
    gravity board of at most 25 cells (5x5: 1.2 million positions, 0.7 s from the empty board on a quiet 2-core
    machine; 4x7 already takes 9.6 million and 3.5 s, 5x7 99 s: those stay on the command line).
    """
    import importlib.util

    from agents.alphazero.agent import pretrained_name
    from agents.dots.layer_table import SHIPPED_TABLES

    best = []
    if family_of(game) == "dots" and (game.rows, game.cols) in SHIPPED_TABLES:
        best.append("exact")
    if (
        getattr(game, "num_cells", 10**9) <= SOLVED_AT_ONCE_CELLS
        or getattr(game, "num_edges", 10**9) <= SOLVED_AT_ONCE_EDGES
    ):
        best.append("alphabeta")  # solved in well under a second: perfect play
    if pretrained_name(game) is not None:
        best += ["alphazero", "alphazero:0"]
    names = [*best, "mcts", "mcts:200", "alphabeta:4", "alphabeta:2", "random"]
    if solver_plays(game):
        from agents.search.connect_four import COMPILED

        standard = (game.rows, game.cols) == (6, 7)
        book = importlib.util.find_spec("bitbully_databases") is not None
        if COMPILED and (book if standard else game.rows * game.cols <= 25):
            names.insert(1, "perfect")
    return list(dict.fromkeys(names))


def solver_plays(game: Any) -> bool:
    """Return whether the exact Connect Four solver plays ``game`` (:mod:`agents.search.connect_four`)."""
    if family_of(game) != "connect" or not getattr(game, "gravity", False):
        return False  # decided without importing the solver (and numba)
    from agents.search.connect_four import check_solvable

    try:
        check_solvable(game)
    except ValueError:
        return False
    return True


def _count(text: str, what: str, spec: str, low: int = 1, high: int | None = None) -> int:
    """Return ``text`` as an integer in ``[low, high]``, or raise check_int's ``ValueError`` prefixed by ``spec``."""
    try:
        value: Any = int(text)
    except ValueError:
        value = text  # not a number: check_int refuses it, naming the range
    try:
        return check_int(what, value, low, high)
    except ValueError as error:
        raise ValueError(f"bad agent {spec!r}: {error}") from None


def make_agent(spec: str, seed: SeedLike = None, game: Any = None, *, table: Any = None) -> Any:
    """Return the agent named by ``spec``.

    Args:
        spec: a form of :data:`AGENT_KINDS` or a user's ``module:Class`` / ``file.py:Class``: ``"random"``,
            ``"alphabeta"`` (exact) or ``"alphabeta:4"`` (4 plies), ``"mcts"`` (1000
            simulations) or ``"mcts:200"``, ``"td:path/to/file.npz"``; for Dots and Boxes also
            ``"first_available"``, ``"always4never3"``, ``"endgame:10"`` and ``"exact"``; ``"alphazero"`` (the
            shipped model of ``game``, 200 simulations), ``"alphazero:50"``, ``"alphazero:model.npz"`` or
            ``"alphazero:model.npz:50"`` (0 simulations: the raw network's most probable move); ``"perfect"``
            (Connect Four and smaller gravity boards with four in a row: the exact solver's best move).
        seed: seeds the agent's tie-breaking and exploration.
        game: the rules object the agent will play; needed for ``"exact"`` (the board size). Given, it
            also lets every agent be checked against the game before any match: Dots and Boxes bots are
            refused on other games, a ``td:`` file holding tables for another game is refused with the
            file's game named, and an agent with a ``check(game)`` method (alpha-beta: a search deeper
            than it can go) is asked.
        table: for ``"endgame:K"`` and ``"exact"``, a solved :class:`~agents.dots.LayerTable` of the board
            to share (without one, bots of the same board and ``K`` share a table solved on first use).

    Raises:
        UnknownAgentError: (a ``ValueError``) on an unknown name, naming the valid forms.
        ValueError: on a bad parameter (a count past its upper bound included), naming the range; on an
            agent that cannot play ``game``
            (:class:`~agents.persistence.SavedFileError`, a ``ValueError``, for a TD file that is not a TD
            file or is for another game).
        OSError: if a ``td:`` file cannot be read (``FileNotFoundError`` if it does not exist).
    """
    kind, _, arg = spec.partition(":")
    if arg and kind not in AGENT_KINDS:  # a user's agent: an int seed, as a user's class most likely expects
        user_seed = seed if seed is None or isinstance(seed, int) else int(make_rng(seed).integers(2**32))
        return load_user_agent(spec, user_seed)
    agent = _build(spec, make_rng(seed), game, table)
    check = getattr(agent, "check", None)
    if game is not None and callable(check):
        check(game)  # e.g. exact alpha-beta on a board too long to search: refused now, not at its first move
    return agent


def _build(spec: str, rng: Any, game: Any, table: Any) -> Any:
    """Build the agent of ``spec`` (see :func:`make_agent`) from the generator ``rng``."""
    kind, _, arg = spec.partition(":")
    if kind == "random" and not arg:
        from agents.random_agent import RandomAgent

        return RandomAgent(rng)
    if kind == "alphabeta":
        from agents.search.minimax import MAX_SEARCH_PLIES, AlphaBetaAgent

        # The search itself stops at MAX_SEARCH_PLIES plies (Python's stack), so a deeper limit never helps.
        depth = _count(arg, "the depth", spec, high=MAX_SEARCH_PLIES) if arg else None
        return AlphaBetaAgent(depth=depth, seed=rng)
    if kind == "mcts":
        from agents.search.mcts import MAX_SIMULATIONS, MCTSAgent

        simulations = _count(arg, "the simulations", spec, high=MAX_SIMULATIONS) if arg else 1000
        return MCTSAgent(n_simulations=simulations, seed=rng)
    if kind == "td" and arg:
        from agents.persistence import SavedFileError
        from agents.tabular.td import TDAgent
        from agents.tabular.td_file import table_size

        try:
            table_size(game) if game is not None else None
        except ValueError as error:
            # The game itself cannot have a TD table (Connect Four has ~10^20 positions), so no file fits
            # it; say which game this file is for, read from the file itself.
            try:
                stored = TDAgent.load(arg).game
            except ValueError:
                raise error from None
            raise SavedFileError(arg, f"holds tables for {stored!r}, not for {game!r} ({error})") from None
        # With the game, load() compares the file's stored game with it before building any table, so a
        # tic-tac-toe file offered for another board fails here, not mid-match.
        return TDAgent.load(arg, game=game, seed=rng)
    if kind == "alphazero":
        return _alphazero(spec, arg, rng, game)
    if kind == "perfect" and not arg:
        from agents.search.connect_four import PerfectAgent

        return PerfectAgent(rng)
    if kind in ("first_available", "always4never3", "endgame", "exact"):
        if game is not None and family_of(game) != "dots":
            raise ValueError(
                f"{spec!r} plays Dots and Boxes only; for {game!r} use one of {', '.join(agent_forms(False))}"
            )
        from agents.dots.bots import EndgameBot, make_bot

        if kind == "exact" and not arg:
            if game is None:
                raise ValueError("'exact' needs the game (its board size)")
            return EndgameBot(game.num_edges, table=table, seed=rng)
        if kind == "endgame":
            _count(arg, "K (the last moves played exactly)", spec)
        return make_bot(spec, seed=rng, table=table)
    raise UnknownAgentError(f"unknown agent {spec!r}: use one of {', '.join(agent_forms())}")


def _alphazero(spec: str, arg: str, rng: Any, game: Any) -> Any:
    """Build ``alphazero[:FILE][:SIMULATIONS]`` (see :func:`make_agent`)."""
    from agents.alphazero.agent import MAX_SIMULATIONS, AlphaZeroAgent, load_pretrained, pretrained_name

    path, simulations = arg, ALPHAZERO_SIMULATIONS
    head, sep, tail = ("", ":", arg) if arg.isdigit() else arg.rpartition(":")  # alphazero:50 has no file
    # 0 simulations is the raw network: its most probable legal move, no search. The count is checked here,
    # before a model file is read, with the agent's own bound.
    if sep and tail.isdigit():
        path, simulations = head, _count(tail, "the simulations", spec, low=0, high=MAX_SIMULATIONS)
    if path:
        return AlphaZeroAgent.load(path, game=game, n_simulations=simulations, seed=rng)
    if game is None:
        raise ValueError(f"{spec!r} needs the game to pick its shipped model (or give a file: alphazero:FILE)")
    name = pretrained_name(game)
    if name is None:
        raise ValueError(
            f"no shipped AlphaZero model for {game!r}: train one with scripts/train_alphazero.py and use alphazero:FILE"
        )
    return load_pretrained(name, n_simulations=simulations, seed=rng)
