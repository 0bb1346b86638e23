"""Vector versions of TicTacToe-v0, ConnectN-v0 and ConnectFour-v0 (``gymnasium.make_vec``)."""

from __future__ import annotations

from collections.abc import Callable
from functools import partial

from gym_boardgames.rules.batch import ConnectNBatch
from gym_boardgames.rules.connect import ConnectN
from gym_boardgames.rules.tictactoe import TicTacToe
from gym_boardgames.vector.base import TwoPlayerVectorEnv


class ConnectNVectorEnv(TwoPlayerVectorEnv):
    """``num_envs`` games of ConnectN-v0 (n in a row, with or without gravity) stepped together.

    ## Description
    The rules, actions, observations, rewards and info of :class:`~gym_boardgames.envs.connectn.ConnectNEnv`
    per sub-env, batched as in :class:`~gym_boardgames.vector.base.TwoPlayerVectorEnv` and advanced by
    :class:`~gym_boardgames.rules.batch.ConnectNBatch` on the same win lines as the scalar rules.

    ## Action Space
    ``MultiDiscrete([A] * num_envs)``, ``A = cols`` with gravity, else ``rows * cols``
    (``single_action_space`` is ``Discrete(A)``).

    ## Observation Space
    ``Box(-1, 1, (num_envs, rows, cols), int8)``: per sub-env +1 the agent's pieces (in self-play: the
    player to move), -1 the other player's, 0 empty.

    ## Arguments
    ``num_envs=1``, ``rows=6``, ``cols=7``, ``n=4``, ``gravity=True``, ``opponent="random"`` (or None, or an
    agent name of the scripts such as ``"alphabeta"`` or ``"mcts:200"``, asked per sub-env in a Python loop),
    ``agent_player=0`` (0, 1 or ``"random"``), ``illegal_action="lose"`` (or ``"raise"``),
    ``render_mode=None``.

    ## Version History
    * v0: initial version.
    """

    def __init__(
        self,
        num_envs: int = 1,
        rows: int = 6,
        cols: int = 7,
        n: int = 4,
        gravity: bool = True,
        *,
        opponent: str | None = "random",
        agent_player: int | str = 0,
        illegal_action: str = "lose",
        render_mode: str | None = None,
    ) -> None:
        batch = ConnectNBatch(ConnectN(rows, cols, n, gravity), num_envs)
        super().__init__(
            batch, opponent=opponent, agent_player=agent_player, illegal_action=illegal_action, render_mode=render_mode
        )


class _FixedBoardVectorEnv(ConnectNVectorEnv):
    """A :class:`ConnectNVectorEnv` on the one board its subclass makes: it takes ``num_envs`` and the keywords."""

    #: Makes the rules of the board (a class or a ``functools.partial``, called once per env).
    make_game: Callable[[], ConnectN]

    def __init__(
        self,
        num_envs: int = 1,
        *,
        opponent: str | None = "random",
        agent_player: int | str = 0,
        illegal_action: str = "lose",
        render_mode: str | None = None,
    ) -> None:
        # The board is fixed: TwoPlayerVectorEnv's constructor directly, without ConnectNVectorEnv's sizes.
        batch = ConnectNBatch(self.make_game(), num_envs)
        super(ConnectNVectorEnv, self).__init__(
            batch, opponent=opponent, agent_player=agent_player, illegal_action=illegal_action, render_mode=render_mode
        )


class TicTacToeVectorEnv(_FixedBoardVectorEnv):
    """``num_envs`` games of TicTacToe-v0 stepped together: :class:`ConnectNVectorEnv` on 3x3, 3 in a row.

    ``Discrete(9)`` actions per sub-env (the cell ``row * 3 + col``), ``(num_envs, 3, 3)`` int8 observations.
    """

    make_game = TicTacToe


class ConnectFourVectorEnv(_FixedBoardVectorEnv):
    """``num_envs`` games of ConnectFour-v0 stepped together: :class:`ConnectNVectorEnv` on 6x7, 4 in a row.

    ``Discrete(7)`` actions per sub-env (the column), ``(num_envs, 6, 7)`` int8 observations.
    """

    make_game = partial(ConnectN, 6, 7, 4, True)
