"""The environment pages' animated GIFs: real games, drawn from each env's own ``rgb_array`` frames.

Every game is played through the public API: ``gymnasium.make(id, render_mode="rgb_array")``, the agents of
``agents.factory.make_agent`` choosing moves from ``env.unwrapped.game`` and ``env.unwrapped.state`` (the
env in self-play, so both sides are agents), and for the tabular tasks the optimal policy that
:func:`agents.tabular.dp.value_iteration` computes from the env's exact model ``P``. Pillow writes the frames.

Run by the ``envdocs`` extension at every build; a GIF is drawn again only when it is missing or older than
the code (``gym_boardgames/``, ``agents/`` or this file). By hand: ``python docs/_ext/envgifs.py OUT_DIR``;
``python docs/_ext/envgifs.py --stills docs/screenshots/envs`` writes README's pictures (each game's last
frame), the only images of these games kept in git.
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
MOVE_MS = 700  # one frame per move
END_MS = 2500  # the final position stays on screen before the loop restarts
WIDTH = 360  # pixels: frames are scaled down to this width


@dataclass(frozen=True)
class Game:
    """One page's animation: the env to make, who plays, and the caption the page shows under it."""

    env_id: str
    caption: str
    play: Callable[[Any], Iterator[tuple[np.ndarray, int]]]
    kwargs: dict[str, Any] = field(default_factory=dict)


def board_game(first: str, second: str, seed: int = 0) -> Callable[[Any], Iterator[tuple[np.ndarray, int]]]:
    """Frames of one game between the agents named ``first`` (player 0) and ``second`` (player 1)."""

    def play(env: Any) -> Iterator[tuple[np.ndarray, int]]:
        from agents.factory import make_agent

        env.reset(seed=seed)
        game = env.unwrapped.game
        players = [make_agent(first, seed=seed, game=game), make_agent(second, seed=seed + 1, game=game)]
        yield env.render(), MOVE_MS
        done = False
        while not done:
            state = env.unwrapped.state
            action = players[game.current_player(state)].act(game, state)
            _, _, terminated, truncated, _ = env.step(action)
            done = terminated or truncated
            yield env.render(), END_MS if done else MOVE_MS

    return play


def gridworld_walks(starts: tuple[int, ...]) -> Callable[[Any], Iterator[tuple[np.ndarray, int]]]:
    """The value-iteration policy walking from each start cell, with its values and arrows drawn."""

    def play(env: Any) -> Iterator[tuple[np.ndarray, int]]:
        from agents.tabular.dp import value_iteration

        policy, values = value_iteration(env.unwrapped.P)
        env.unwrapped.set_overlay(values=values, policy=policy)
        for start in starts:
            state, _ = env.reset(seed=0, options={"start_state": start})
            yield env.render(), MOVE_MS
            done = False
            while not done:
                state, _, terminated, truncated, _ = env.step(int(np.argmax(policy[state])))
                done = terminated or truncated
                yield env.render(), END_MS if done else MOVE_MS

    return play


def blackjack_hands(hands: int, seed: int = 0) -> Callable[[Any], Iterator[tuple[np.ndarray, int]]]:
    """Hands played by the optimal policy that value iteration finds on the exact model ``P``."""

    def play(env: Any) -> Iterator[tuple[np.ndarray, int]]:
        from agents.tabular.dp import value_iteration

        policy, _ = value_iteration(env.unwrapped.P)
        for hand in range(hands):
            state, _ = env.reset(seed=seed + hand)
            yield env.render(), MOVE_MS * 2
            done = False
            while not done:
                state, _, terminated, truncated, _ = env.step(int(np.argmax(policy[state])))
                done = terminated or truncated
                yield env.render(), END_MS if done else MOVE_MS * 2

    return play


# The board envs in self-play, so that both sides are the GIF's agents.
SELF_PLAY = {"opponent": None}

GAMES = (
    Game(
        "TicTacToe-v0",
        "Exact alpha-beta (X) against MCTS with 200 simulations a move (O).",
        board_game("alphabeta", "mcts:200"),
        SELF_PLAY,
    ),
    Game(
        "ConnectN-v0",
        "Five in a row on an 8x8 board without gravity (`rows=8, cols=8, n=5, gravity=False`): MCTS with 400 "
        "simulations a move on both sides.",
        board_game("mcts:400", "mcts:400"),
        {**SELF_PLAY, "rows": 8, "cols": 8, "n": 5, "gravity": False},
    ),
    Game(
        "ConnectFour-v0",
        "The shipped AlphaZero model, 100 simulations a move (Red), against MCTS with 300 simulations (Yellow).",
        board_game("alphazero:100", "mcts:300"),
        SELF_PLAY,
    ),
    Game(
        "DotsAndBoxes-v0",
        "3x3 boxes: the study's `endgame:10` bot (Blue, optimal once 10 edges are left) against `always4never3` (Red).",
        board_game("endgame:10", "always4never3"),
        SELF_PLAY,
    ),
    Game(
        "GridWorld-v0",
        "Example 4.1's gridworld: the optimal policy from value iteration on the env's model `P` walking from "
        "three start cells, over its values and arrows (`set_overlay`).",
        gridworld_walks((3, 6, 12)),
    ),
    Game(
        "TabularBlackjack-v0",
        "Five hands played by the optimal policy that value iteration finds on the exact model `P`.",
        blackjack_hands(5),
    ),
)


def gif_name(env_id: str) -> str:
    """The GIF's file name for ``env_id``."""
    return f"{env_id}.gif"


def _newest_source() -> float:
    files = [Path(__file__), *(ROOT / "gym_boardgames").rglob("*.py"), *(ROOT / "agents").rglob("*.py")]
    return max(path.stat().st_mtime for path in files)


def write_gif(frames: list[tuple[np.ndarray, int]], path: Path) -> None:
    """Write ``(rgb frame, milliseconds)`` pairs as a looping GIF, scaled to :data:`WIDTH` pixels."""
    from PIL import Image

    images = []
    for frame, _ in frames:
        image = Image.fromarray(frame)
        height = round(image.height * WIDTH / image.width)
        images.append(image.resize((WIDTH, height), Image.Resampling.LANCZOS).convert("P", palette=Image.ADAPTIVE))
    path.parent.mkdir(parents=True, exist_ok=True)
    images[0].save(
        path, save_all=True, append_images=images[1:], duration=[ms for _, ms in frames], loop=0, optimize=True
    )


def frames_of(game: Game) -> list[tuple[np.ndarray, int]]:
    """Play ``game`` and return its ``(rgb frame, milliseconds)`` pairs."""
    import gymnasium as gym

    import gym_boardgames  # noqa: F401  (registers the ids)

    os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
    env = gym.make(game.env_id, render_mode="rgb_array", **game.kwargs)
    try:
        return list(game.play(env))
    finally:
        env.close()


def write_all(out: Path, logger: Any = None) -> None:
    """Draw every GIF into ``out`` that is missing or older than the code."""
    newest = _newest_source()
    for game in GAMES:
        path = out / gif_name(game.env_id)
        if path.is_file() and path.stat().st_mtime >= newest:
            continue
        start = time.perf_counter()
        frames = frames_of(game)
        write_gif(frames, path)
        if logger is not None:
            logger.info(f"envgifs: {path.name}, {len(frames)} frames in {time.perf_counter() - start:.1f} s")


def write_stills(out: Path, width: int = 240) -> None:
    """The last frame of every game as ``<env id>.png``: README's pictures, which must be files in git."""
    from PIL import Image

    out.mkdir(parents=True, exist_ok=True)
    for game in GAMES:
        image = Image.fromarray(frames_of(game)[-1][0])
        image = image.resize((width, round(image.height * width / image.width)), Image.Resampling.LANCZOS)
        image.save(out / f"{game.env_id}.png", optimize=True)


def caption(env_id: str) -> str:
    """The caption of ``env_id``'s GIF (empty if it has none)."""
    return next((spec.caption for spec in GAMES if spec.env_id == env_id), "")


if __name__ == "__main__":
    import argparse

    parser = argparse.ArgumentParser(description="Draw the env pages' GIFs (or README's stills) from real games.")
    parser.add_argument("out", nargs="?", type=Path, default=ROOT / "docs" / "_generated" / "gifs", help="GIF folder")
    parser.add_argument("--stills", type=Path, metavar="DIR", help="write each game's last frame as a PNG here instead")
    args = parser.parse_args()
    sys.path.insert(0, str(ROOT))
    if args.stills:
        write_stills(args.stills)
    else:
        write_all(args.out)
