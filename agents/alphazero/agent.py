"""The AlphaZero player: a policy-value network as the search's evaluator, saved and loaded without pickle.

:class:`NetworkEvaluator` answers the search core's question (:class:`agents.search.evaluators.Evaluator`) for a batch
of states with one forward pass: the encoder's planes in, softmax priors over the legal moves and the
tanh value for the player to move out. :class:`AlphaZeroAgent` puts it under PUCT (the shared tree of
:mod:`agents.search.tree`, with the MCTS-Solver's proofs and tree reuse); with ``n_simulations=0`` it plays the
raw network's most probable legal move.

Saved models are ``.npz`` files through :mod:`agents.persistence` (format ``gym_boardgames.alphazero``):
the network's parameters as float32 arrays by name, and JSON metadata with the game (the registry's record,
:func:`gym_boardgames.rules.registry.game_to_config`), the network's shape and the training settings.
Loading checks everything before allocating and never unpickles, and playing needs numpy only
(:class:`agents.alphazero.network.NumpyNet`).
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from importlib import resources
from typing import Any

import numpy as np

from agents._rng import SeedLike, make_rng, reseed_rng
from agents.alphazero.config import NetConfig
from agents.alphazero.encoding import BoardEncoder, encoder_for, recorded_game
from agents.alphazero.network import NumpyNet, masked_softmax
from agents.persistence import ArraySpec, SavedFileError, check_file, load_npz, save_npz
from agents.search.mcts import MCTSAgent
from agents.search.tree import SearchTree
from gym_boardgames.checks import check_choice, check_int, check_number
from gym_boardgames.rules import TicTacToe
from gym_boardgames.rules.registry import connect_four, game_to_config

FORMAT = "gym_boardgames.alphazero"
VERSION = 1
#: Shipped models by name: file in ``agents/alphazero/models/``.
PRETRAINED = {"tictactoe": "tictactoe.npz", "connectfour": "connectfour.npz"}
#: Default PUCT exploration constant.
C_PUCT = 1.5
#: Most simulations per move (a million takes minutes per move on a CPU; more is a typo, not a plan).
MAX_SIMULATIONS = 1_000_000


class NetworkEvaluator:
    """The search's evaluator backed by a policy-value network: one forward pass per batch of states.

    Args:
        game: the rules object the network was trained on.
        net: anything with ``forward(planes) -> (logits (B, A), values (B,))``: a :class:`NumpyNet`, or the
            training library's model wrapped by the trainer.
        encoder: the game's encoder (made from ``game`` if None).
    """

    def __init__(self, game: Any, net: Any, encoder: BoardEncoder | None = None) -> None:
        self.game = game
        self.net = net
        self.encoder = encoder if encoder is not None else encoder_for(game)

    def evaluate(self, game: Any, states: Sequence[Any]) -> tuple[np.ndarray, np.ndarray]:
        """Return ``(priors (B, num_actions), values (B,))``: softmax over legal moves, tanh value for the mover.

        Raises:
            ValueError: if ``game`` is not the game of the network.
        """
        if game is not self.game and game != self.game:
            raise ValueError(f"this network plays {self.game!r}, not {game!r}")
        if len(states) == 0:
            return np.zeros((0, self.encoder.num_actions)), np.zeros(0)
        logits, values = self.net.forward(self.encoder.encode(states))
        mask = np.stack([game.legal_mask(s) for s in states]).astype(bool)
        logits, values = np.asarray(logits, dtype=np.float64), np.asarray(values, dtype=np.float64)
        broken = ~(np.isfinite(np.where(mask, logits, 0.0)).all(axis=1) & np.isfinite(values))
        if broken.any():
            # Weights that passed the load checks can still overflow on some input; never search on NaN.
            raise ValueError(
                f"the network's output is not finite (NaN or infinite) for {int(broken.sum())} of {len(states)} "
                "positions: the model is broken; retrain it or load another"
            )
        return masked_softmax(logits, mask), values


def _check_fits(config: NetConfig, game: Any, encoder: BoardEncoder) -> None:
    """Refuse a network whose input planes or policy size are not those of ``game``'s encoding."""
    expected = (*encoder.shape, encoder.num_actions)
    got = (config.in_planes, config.height, config.width, config.num_actions)
    if got != expected:
        raise ValueError(f"network input/output {got} does not fit {game!r}, which needs {expected}")


class AlphaZeroAgent:
    """An AlphaZero player: PUCT search guided by a policy-value network (numpy inference).

    Args:
        game: the rules object the network plays.
        config: the network's shape.
        params: its parameters by name (see :class:`agents.alphazero.config.NetConfig`).
        n_simulations: simulations per move; 0 plays the raw network's most probable legal move.
        c_puct: PUCT's exploration constant.
        seed: an int, a Generator or None: breaks ties among equally visited moves.
        reuse_tree: keep the subtree of the new position between moves.
        meta: free metadata kept with the model (training settings, results), saved with it.

    Raises:
        ValueError: on a bad ``n_simulations`` or ``c_puct``, or parameters that do not fit ``config``.
    """

    def __init__(
        self,
        game: Any,
        config: NetConfig,
        params: dict[str, np.ndarray],
        n_simulations: int = 100,
        c_puct: float = C_PUCT,
        seed: SeedLike = None,
        reuse_tree: bool = True,
        meta: dict[str, Any] | None = None,
    ) -> None:
        check_int("n_simulations (0: the raw network)", n_simulations, 0, MAX_SIMULATIONS)
        check_number("c_puct", c_puct, 0.0, 1e6)
        encoder = encoder_for(game)
        _check_fits(config, game, encoder)
        self.game = game
        self.config = config
        self.params = {name: np.asarray(params[name], dtype=np.float32) for name in config.param_shapes()}
        self.n_simulations = int(n_simulations)
        self.c_puct = float(c_puct)
        self.rng = make_rng(seed)
        self.reuse_tree = reuse_tree
        self.meta = dict(meta or {})
        self.evaluator = NetworkEvaluator(game, NumpyNet(config, self.params), encoder)
        # The search is MCTSAgent's (the shared core, tree reuse included) with the network as its evaluator,
        # built at the first search: the raw network (0 simulations) never searches.
        self._mcts: MCTSAgent | None = None

    def __repr__(self) -> str:
        c = self.config
        return f"AlphaZeroAgent({self.game!r}, {c.channels}x{c.blocks} net, n_simulations={self.n_simulations})"

    # ---- playing -------------------------------------------------------------------------------

    def reset(self) -> None:
        """Drop the search tree (the arena calls this before each game)."""
        if self._mcts is not None:
            self._mcts.reset()

    def reseed(self, seed: SeedLike) -> None:
        """Search from now on as a new agent built with ``seed`` would, on the loaded network (no file read)."""
        if self._mcts is None:
            reseed_rng(self.rng, seed)  # the search, built later, draws from this generator
        else:
            self._mcts.reseed(seed)  # the search shares this agent's generator: both are reseeded

    def evaluate(self, game: Any, states: Sequence[Any]) -> tuple[np.ndarray, np.ndarray]:
        """Return the network's ``(priors (N, num_actions), values (N,))`` for non-terminal ``states``.

        Priors are zero on illegal moves and sum to 1; values are in ``[-1, 1]`` for the player to move.
        """
        return self.evaluator.evaluate(game, states)

    def act(self, game: Any, state: Any) -> int:
        """Return the move for ``state``: the most visited after the search, or the network's best guess.

        Raises:
            ValueError: if ``state`` is terminal or ``game`` is not the network's game.
        """
        if game.is_terminal(state):
            raise ValueError("cannot act on a terminal state: the game is over")
        # Another game is refused by the evaluator, searching or not.
        if self.n_simulations == 0:
            priors, _ = self.evaluate(game, [state])
            legal = list(game.legal_actions(state))
            # Only legal moves are candidates, whatever the priors hold elsewhere.
            return int(max(legal, key=lambda a: priors[0][a]))
        return self.search(game, state).best_action()

    def search(self, game: Any, state: Any) -> SearchTree:
        """Run this move's simulations from ``state`` and return the tree (for its statistics)."""
        if self._mcts is None:
            simulations = max(self.n_simulations, 1)
            self._mcts = MCTSAgent(
                simulations, c=self.c_puct, seed=self.rng, reuse_tree=self.reuse_tree, evaluator=self.evaluator
            )
        return self._mcts.search(game, state)

    # ---- files ---------------------------------------------------------------------------------

    def save(self, path: str | os.PathLike[str], *, replace: bool = True) -> str:
        """Write the network and its metadata to ``path`` (``.npz``), atomically; return the path.

        ``replace`` as :func:`agents.persistence.save_npz`'s.
        """
        meta = {"game": game_to_config(self.game), "net": self.config.to_dict(), "info": self.meta}
        return save_npz(path, self.params, format=FORMAT, version=VERSION, meta=meta, replace=replace)

    @classmethod
    def load(
        cls,
        path: str | os.PathLike[str],
        game: Any = None,
        n_simulations: int = 100,
        c_puct: float = C_PUCT,
        seed: SeedLike = None,
    ) -> AlphaZeroAgent:
        """Load a model saved by :meth:`save` (or by the training script).

        Args:
            path: the ``.npz`` file.
            game: if given, the file must be a model of this game.
            n_simulations: simulations per move of the returned agent.
            c_puct: its exploration constant.
            seed: its tie-breaking seed.

        Raises:
            SavedFileError: naming the file, if it is not a valid model (or is one of another game).
            FileNotFoundError: if it does not exist.
        """
        found: dict[str, Any] = {}

        def schema(version: int, meta: dict[str, Any]) -> dict[str, ArraySpec]:
            stored_game, _ = recorded_game(meta.get("game"))  # each refuses a missing record, naming it
            config = NetConfig.from_dict(meta.get("net"))  # whether it fits the game: checked by the constructor
            found.update(game=stored_game, config=config, info=meta.get("info", {}))
            return {name: ArraySpec(shape, np.float32, finite=True) for name, shape in config.param_shapes().items()}

        check_int("n_simulations (0: the raw network)", n_simulations, 0, MAX_SIMULATIONS)
        loaded = load_npz(path, format=FORMAT, versions={VERSION}, schema=schema, allow_extra=False)
        stored_game = found["game"]
        check_file(game is None or game == stored_game, path, f"a model of {stored_game!r}, not of {game!r}")
        game = stored_game if game is None else game
        info = found["info"] if isinstance(found["info"], dict) else {}
        try:
            return cls(game, found["config"], dict(loaded.arrays), n_simulations, c_puct, seed, meta=info)
        except ValueError as error:  # poisoned weights: a negative variance, an overflow when folding
            raise SavedFileError(path, str(error)) from None


def pretrained_path(name: str) -> str:
    """Return the path of a shipped model (see :data:`PRETRAINED`).

    Raises:
        ValueError: on an unknown name, listing the shipped ones.
    """
    check_choice("the shipped AlphaZero model", name, sorted(PRETRAINED))
    return str(resources.files("agents.alphazero").joinpath("models", PRETRAINED[name]))


def pretrained_name(game: Any) -> str | None:
    """Return the name of the shipped model for ``game`` (``"tictactoe"``, ``"connectfour"``), or None."""
    for name, shipped in (("tictactoe", TicTacToe()), ("connectfour", connect_four())):
        if game == shipped:
            return name
    return None


def load_pretrained(name: str, n_simulations: int = 100, seed: SeedLike = None) -> AlphaZeroAgent:
    """Return the shipped AlphaZero player for ``"tictactoe"`` or ``"connectfour"`` (numpy only).

    Args:
        name: the game of the shipped model.
        n_simulations: simulations per move (0: the raw network).
        seed: tie-breaking seed.

    Raises:
        ValueError: on an unknown name.
    """
    return AlphaZeroAgent.load(pretrained_path(name), n_simulations=n_simulations, seed=seed)
