"""Train a Stable-Baselines3 policy on TicTacToe-v0 or ConnectFour-v0, then test it as an agent against random and
alpha-beta.

The learner plays both sides (agent_player="random": a side is drawn at every reset) against a built-in
opponent: any agent name the env takes (random, the default; alphabeta, exact on tic-tac-toe; alphabeta:2, two
plies with a heuristic; mcts:200; ...) or "self", the learner's own current policy sampling its moves (self-play:
the opponent improves with the learner). The algorithm:
  * maskableppo (the default): sb3-contrib's MaskablePPO, fed the legal-move mask by the env's
    action_masks() method, so it never even samples an illegal move;
  * ppo and dqn: plain Stable-Baselines3, without masks. An illegal move ends the episode as a loss
    (the env's illegal_action="lose"), so they must learn the rules from that penalty.
The trained policy is then wrapped as an agent (act(game, state) -> int: the observation is built by
game.observation(state, player to move), and for MaskablePPO the mask by game.legal_mask(state)) and
measured with agents.matches.arena.play_match against the random player and against alpha-beta (exact on
tic-tac-toe, 4 plies on Connect Four), from both sides.
Illegal moves are counted, in training and in evaluation (in evaluation an illegal choice is replaced by
the lowest legal move so the match can go on; MaskablePPO must make none).

On tic-tac-toe the default budget (200,000 steps, about a minute on a 2-core CPU) gives MaskablePPO a >= 90% win
rate against random over both sides. Connect Four takes millions of steps (--timesteps) and a larger network.
Needs the 'sb3' extra (stable-baselines3, sb3-contrib and torch).

--tensorboard DIR passes DIR to SB3's own TensorBoard logging (tensorboard_log: episode returns and
lengths, losses, in a run folder such as DIR/MaskablePPO_1).

The model is saved as an SB3 .zip. Note: SB3 zips contain pickled parts (cloudpickle), so only load
models you trust. This package's own agents are saved as .npz or JSON and never pickled.
"""

from __future__ import annotations

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))  # plumbing/, peers/: also when loaded by path
from plumbing import cli  # first, before the slower imports: a Ctrl-C during them is one line (cli's hook)

# isort: split
import argparse
import io
import time
from typing import Any

import gymnasium as gym
import numpy as np
from plumbing import figures
from plumbing.cli import positive_int

import gym_boardgames  # noqa: F401  (registers the ids)
from agents.factory import make_agent
from agents.matches.arena import play_match
from gym_boardgames.outputs import write_bytes_atomic
from gym_boardgames.utils import progress_bar

ALGOS = ("maskableppo", "ppo", "dqn")
#: The games, each with its env id, the alpha-beta of the evaluation and the MLP's hidden layers.
GAMES = {
    "tictactoe": ("TicTacToe-v0", "alphabeta", [128, 128]),
    "connectfour": ("ConnectFour-v0", "alphabeta:4", [256, 256]),
}
SELF_PLAY = "self"
SIDES = (("first", "first"), ("second", "second"))
MISSING_EXTRA = (
    "train_sb3.py needs stable-baselines3, sb3-contrib and torch: the 'sb3' extra. Without a GPU, install the CPU "
    "torch first (PIP_INDEX_URL=https://download.pytorch.org/whl/cpu pip install torch==2.13.0), then "
    'pip install -e ".[sb3]"'
)


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    """Parse and check the command line (bad values exit with status 2 and a message)."""
    parser = cli.make_parser(__doc__)
    parser.add_argument("--game", choices=tuple(GAMES), default="tictactoe", help="the game to learn")
    parser.add_argument("--algo", choices=ALGOS, default="maskableppo", help="learning algorithm")
    parser.add_argument(
        "--opponent",
        default="random",
        help=f"the env's opponent in training: an agent name (random, alphabeta, alphabeta:2, ...) or {SELF_PLAY!r}, "
        "the learner's own current policy (self-play)",
    )
    parser.add_argument("--timesteps", type=positive_int, default=200_000, help="training steps (agent moves)")
    parser.add_argument("--n-envs", type=positive_int, default=8, help="environments stepped together in training")
    cli.add_run_flags(parser, seed="seed of training and of the evaluation", json=None)
    parser.add_argument("--eval-games", type=positive_int, default=1000, help="games against random (seats alternate)")
    parser.add_argument(
        "--alphabeta-games", type=positive_int, default=200, help="games against alpha-beta (seats alternate)"
    )
    parser.add_argument(
        "--out",
        metavar="FILE",
        role="output",
        help="where to save the model (SB3 .zip; default: sb3_tictactoe_ALGO.zip, replaced only with --overwrite, so "
        "an earlier run's model is kept). SB3 zips contain pickled parts: "
        "load only files you trust",
    )
    figures.add_tensorboard_flag(parser, "SB3's training statistics (its tensorboard_log)")
    parser.add_argument("--no-progress", action="store_true", help="no progress bars")
    cli.add_run_flags(parser, overwrite=True)
    return cli.parse_checked(parser, argv, _check_outputs)


def _check_outputs(args: argparse.Namespace) -> None:
    if args.opponent != SELF_PLAY:
        try:
            gym.make(GAMES[args.game][0], opponent=args.opponent).close()  # the env's own check of the name
        except ValueError as error:
            raise ValueError(f"--opponent: {error}") from None
    cli.default_output(args, f"sb3_{args.game}_{args.algo}.zip")
    if not args.out.endswith(".zip"):
        raise ValueError("--out must end with .zip (SB3 adds the suffix otherwise)")


class IllegalMoveCounter(gym.Wrapper):
    """Counts the episodes the agent ended with an illegal move (``info["illegal_action"]``)."""

    def __init__(self, env: gym.Env) -> None:
        super().__init__(env)
        self.illegal_moves = 0

    def step(self, action: Any) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        """Step the env and count an illegal move."""
        step = self.env.step(action)
        self.illegal_moves += bool(step[-1].get("illegal_action"))
        return step


class SelfPlayOpponent:
    """The learner's own current policy as the env's opponent: it samples its moves (``deterministic=False``), so
    self-play games vary. :attr:`model` is set once the model is built (the model needs the envs first)."""

    def __init__(self, masked: bool) -> None:
        self.model: Any = None
        self.masked = masked

    def act(self, game: Any, state: Any) -> int:
        """Return a move sampled from the learner's policy for the player to move; an illegal one (no mask) is
        replaced by the lowest legal move, so the learner's game goes on."""
        observation = game.observation(state, game.current_player(state))
        masks = {"action_masks": game.legal_mask(state)} if self.masked else {}
        action, _ = self.model.predict(observation, deterministic=False, **masks)
        move = int(np.asarray(action).reshape(-1)[0])
        return move if game.is_legal(state, move) else int(game.legal_actions(state)[0])


def make_env(env_id: str, opponent: Any, seed: int) -> gym.Env:
    """One training env: ``env_id``, the agent on a random side, counting illegal moves.

    MaskablePPO finds the env's ``action_masks()`` through the wrappers (``get_wrapper_attr``).
    """
    from stable_baselines3.common.monitor import Monitor

    env = gym.make(env_id, opponent=opponent, agent_player="random")
    return Monitor(IllegalMoveCounter(env))


def make_vec_env(env_id: str, opponent: Any, n_envs: int, seed: int) -> Any:
    """``n_envs`` training envs in one process (a DummyVecEnv), seeded ``seed, seed + 1, ...``; a named opponent
    is built in each env, a :class:`SelfPlayOpponent` shared by all."""
    from stable_baselines3.common.vec_env import DummyVecEnv

    venv = DummyVecEnv([lambda i=i: make_env(env_id, opponent, seed + i) for i in range(n_envs)])
    venv.seed(seed)
    return venv


def illegal_moves_in(venv: Any) -> int:
    """Illegal moves the agent made in the training envs so far."""
    return int(sum(venv.get_attr("illegal_moves")))


#: Hyperparameters that suit a small board on a CPU; PPO's serve MaskablePPO too.
HYPERPARAMETERS = {
    "dqn": dict(
        learning_rate=5e-4,
        buffer_size=50_000,
        learning_starts=1_000,
        batch_size=128,
        gamma=0.99,
        train_freq=4,
        target_update_interval=1_000,
        exploration_fraction=0.3,
        exploration_final_eps=0.05,
    ),
    "ppo": dict(learning_rate=1e-3, n_steps=256, batch_size=256, n_epochs=10, gamma=0.99, ent_coef=0.01),
}


def make_model(algo: str, venv: Any, seed: int, net_arch: list[int], tensorboard: str | None = None) -> Any:
    """A fresh SB3 model for ``algo`` on ``venv``, with :data:`HYPERPARAMETERS` and an MLP of ``net_arch``, on the CPU.

    ``tensorboard`` is SB3's ``tensorboard_log`` folder (None: no TensorBoard logging).
    """
    import sb3_contrib
    import stable_baselines3

    algorithm = {"dqn": stable_baselines3.DQN, "ppo": stable_baselines3.PPO, "maskableppo": sb3_contrib.MaskablePPO}
    return algorithm[algo](
        "MlpPolicy",
        venv,
        policy_kwargs={"net_arch": net_arch},
        seed=seed,
        device="cpu",
        verbose=0,
        tensorboard_log=tensorboard,
        **HYPERPARAMETERS["dqn" if algo == "dqn" else "ppo"],
    )


def train(model: Any, timesteps: int, show: bool) -> int:
    """Run ``model.learn`` for ``timesteps`` steps, with a progress bar unless ``show`` is False.

    Returns:
        the steps SB3 actually took: it only stops between rollouts (PPO collects ``n_steps`` per env), so
        often more than ``timesteps``.
    """
    from stable_baselines3.common.callbacks import BaseCallback

    class _Progress(BaseCallback):
        def __init__(self, bar: Any) -> None:
            super().__init__()
            self.bar = bar
            self.shown = 0

        def _on_step(self) -> bool:
            # The bar counts the asked-for steps only: SB3's last rollout runs past them, and a bar at
            # "6,144/5,000 (110%)" looks like a bug. The real count is reported after training.
            step = min(self.training_env.num_envs, timesteps - self.shown)
            if step > 0:
                self.bar.update(step)
                self.shown += step
            return True

    with progress_bar(timesteps, "training", enabled=show) as bar:
        model.learn(total_timesteps=timesteps, callback=_Progress(bar))
    return int(model.num_timesteps)


class SB3Agent:
    """A trained SB3 policy as an agent: ``act(game, state) -> int``, greedy (deterministic) moves.

    Args:
        model: a trained SB3 model (MaskablePPO, PPO or DQN).
        masked: pass ``action_masks=game.legal_mask(state)`` to ``predict`` (MaskablePPO only).

    The observation is ``game.observation(state, player to move)``, as the env builds it for its agent.
    An illegal choice (possible only without masks) is counted in :attr:`illegal_moves` (and the game in
    :attr:`illegal_games`) and replaced by the lowest legal move, so a match can go on; in the env, with
    ``illegal_action="lose"``, it would have lost that game.
    """

    def __init__(self, model: Any, masked: bool) -> None:
        self.model = model
        self.masked = masked
        self.illegal_moves = 0
        self.illegal_games = 0
        self.moves = 0
        self._clean_game = True

    def reset(self) -> None:
        """A new game starts (``agents.matches.arena.play_game`` calls this before each game)."""
        self._clean_game = True

    def act(self, game: Any, state: Any) -> int:
        """Return the policy's greedy move for the player to move in ``state``."""
        observation = game.observation(state, game.current_player(state))
        masks = {"action_masks": game.legal_mask(state)} if self.masked else {}
        action, _ = self.model.predict(observation, deterministic=True, **masks)
        move = int(np.asarray(action).reshape(-1)[0])
        self.moves += 1
        if not game.is_legal(state, move):
            self.illegal_moves += 1
            self.illegal_games += self._clean_game  # the game's first illegal move counts it
            self._clean_game = False
            return int(game.legal_actions(state)[0])
        return move

    def __repr__(self) -> str:
        return f"SB3Agent({type(self.model).__name__}, masked={self.masked})"


def save_model(model: Any, path: str, replace: bool = True) -> str:
    """Save ``model`` to ``path`` (.zip) atomically, with the mode any other output has; return the path written.

    SB3 writes the zip into memory; :func:`~gym_boardgames.outputs.write_bytes_atomic` then writes a temporary
    file in the same folder and publishes it, over a file there only with ``replace`` (a temporary file alone
    would keep ``mkstemp``'s private 0600).
    """
    buffer = io.BytesIO()
    model.save(buffer)
    return write_bytes_atomic(path, buffer.getvalue(), replace=replace)


def main(argv: list[str] | None = None) -> dict:
    """Train, save, evaluate; return the summary (printed as JSON with --json)."""
    args = parse_args(argv)
    try:
        import sb3_contrib  # noqa: F401
        import stable_baselines3  # noqa: F401
        import torch
    except ImportError as error:
        cli.fail(f"{MISSING_EXTRA} ({error})")
    torch.set_num_threads(1)  # a small MLP: more threads only add overhead
    show = not args.no_progress
    env_id, evaluator, net_arch = GAMES[args.game]
    masked = args.algo == "maskableppo"

    start = time.perf_counter()
    opponent: Any = SelfPlayOpponent(masked) if args.opponent == SELF_PLAY else args.opponent
    venv = make_vec_env(env_id, opponent, args.n_envs, args.seed)
    model = make_model(args.algo, venv, args.seed, net_arch, args.tensorboard)
    if isinstance(opponent, SelfPlayOpponent):
        opponent.model = model
    steps_done = train(model, args.timesteps, show)
    train_seconds = time.perf_counter() - start
    train_illegal = illegal_moves_in(venv)
    args.out = save_model(model, args.out, args.overwrite)

    game = gym.make(env_id).unwrapped.game
    agent = SB3Agent(model, masked=masked)
    began = time.perf_counter()
    with progress_bar(args.eval_games + args.alphabeta_games, "evaluation", enabled=show) as bar:
        vs_random = play_match(game, agent, "random", args.eval_games, seed=args.seed, progress=bar.update)
        alphabeta = make_agent(evaluator, seed=args.seed, game=game)
        vs_alphabeta = play_match(game, agent, alphabeta, args.alphabeta_games, progress=bar.update)
    eval_seconds = time.perf_counter() - began

    steps = f"{steps_done:,} steps" + (
        f" (--timesteps {args.timesteps:,}, rounded up to whole rollouts)" if steps_done != args.timesteps else ""
    )
    print(
        f"{args.algo} on {env_id} against {args.opponent}: {steps} in {train_seconds:.1f} s "
        f"({args.n_envs} envs, seed {args.seed}); illegal moves in training: {train_illegal}"
    )
    print(f"{'policy vs':<12} {'as':<11} {'games':>6} {'win':>6} {'draw':>6} {'loss':>6}")
    for label, result in (("random", vs_random), (evaluator, vs_alphabeta)):
        for side_label, side in (*SIDES, ("both", "total")):
            rec = getattr(result, side)
            print(f"{label:<12} {side_label:<11} {rec.games:>6} {rec.win:>6} {rec.draw:>6} {rec.loss:>6}")
    win_rate = vs_random.total.win / vs_random.total.games
    print(
        f"win rate against random: {100 * win_rate:.1f}%; illegal moves in evaluation: "
        f"{agent.illegal_moves} of {agent.moves} (evaluation {eval_seconds:.1f} s)"
    )
    if agent.illegal_moves:
        print(
            f"the policy chose an illegal move in {agent.illegal_games} of {args.eval_games + args.alphabeta_games} "
            "games; each was replaced by the lowest legal move (in the env it loses the game)"
        )
    print(f"model saved to {args.out} (an SB3 .zip: it contains pickled parts, load only files you trust)")
    if args.tensorboard:
        print(f"TensorBoard log in {args.tensorboard} (view it: tensorboard --logdir {args.tensorboard})")

    summary = {
        **{key: getattr(args, key) for key in ("game", "algo", "opponent", "timesteps")},
        "timesteps_done": steps_done,
        "n_envs": args.n_envs,
        "seed": args.seed,
        "train_seconds": round(train_seconds, 3),
        "eval_seconds": round(eval_seconds, 3),
        "train_illegal_moves": train_illegal,
        "eval_illegal_moves": agent.illegal_moves,
        "eval_illegal_games": agent.illegal_games,
        "eval_moves": agent.moves,
        "vs_random": vs_random.as_dict(),
        "alphabeta": evaluator,
        "vs_alphabeta": vs_alphabeta.as_dict(),
        "win_rate_vs_random": round(win_rate, 4),
        "out": args.out,
    }
    cli.emit_summary(summary, None, args.json)
    return summary


if __name__ == "__main__":
    cli.run(main)
