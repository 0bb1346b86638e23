"""The Connect-N vector envs (tic-tac-toe, Connect Four, m,n,k): their boards from the mover's side, and memory."""

import subprocess
import sys
from pathlib import Path

import gymnasium as gym
import numpy as np
import pytest

import gym_boardgames  # noqa: F401

sys.path.insert(0, str(Path(__file__).parent))  # importlib import mode: put the sibling helper on the path


def test_observations_follow_the_player_to_move_in_self_play():
    envs = gym.make_vec("ConnectFour-v0", num_envs=1, opponent=None)
    envs.reset(seed=0)
    obs, *_ = envs.step(np.array([3]))
    assert obs[0, 5, 3] == -1  # player 1 to move sees player 0's piece as the other's
    obs, *_ = envs.step(np.array([3]))
    assert obs[0, 5, 3] == 1 and obs[0, 4, 3] == -1


def test_an_illegal_move_loses_and_leaves_the_board():
    envs = gym.make_vec("TicTacToe-v0", num_envs=2, opponent=None)
    envs.reset(seed=0)
    envs.step(np.array([4, 4]))
    obs, rewards, terminated, _, info = envs.step(np.array([4, 0]))  # sub-env 0: the occupied centre
    assert rewards.tolist() == [-1.0, 0.0] and terminated.tolist() == [True, False]
    assert info["illegal_action"].tolist() == [True, False]
    assert info["winner"].tolist() == [0, -1] and info["_winner"].tolist() == [True, False]
    assert info["current_player"].tolist() == [1, 0]  # the offender stays to move
    assert not info["action_mask"][0].any() and info["action_mask"][1].sum() == 7
    assert obs[0].ravel().tolist() == [0, 0, 0, 0, -1, 0, 0, 0, 0]  # unchanged, from the offender's side
    assert envs.unwrapped.state(0).board == bytes([0, 0, 0, 0, 1, 0, 0, 0, 0])


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc/self/status")
def test_4096_tictactoe_games_stay_under_200_mb_of_resident_memory():
    code = (
        "import numpy as np, gymnasium as gym, gym_boardgames\n"
        "from gym_boardgames.rules.batch import random_legal_actions\n"
        "envs = gym.make_vec('TicTacToe-v0', num_envs=4096, opponent=None)\n"
        "_, info = envs.reset(seed=0)\n"
        "rng = np.random.default_rng(0)\n"
        "for _ in range(200):\n"
        "    _, _, _, _, info = envs.step(random_legal_actions(info['action_mask'], rng))\n"
        # VmHWM: the peak RSS of this process image (ru_maxrss would include pytest's, from before exec).
        "print(next(line.split()[1] for line in open('/proc/self/status') if line.startswith('VmHWM')))\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    peak_mb = int(result.stdout.split()[-1]) / 1024
    assert 20 < peak_mb < 200
