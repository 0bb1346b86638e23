"""agents.alphazero.replay: the window keeps the most recent samples, oldest first, in the memory it announces."""

import numpy as np
import pytest

from agents.alphazero.encoding import encoder_for
from agents.alphazero.replay import MAX_REPLAY_BYTES, ReplayWindow, check_replay_window, replay_bytes
from agents.alphazero.selfplay import Samples
from gym_boardgames.rules import ConnectN, TicTacToe


def numbered(encoder, first, n):
    """``n`` samples whose value is their number, from ``first`` on (planes and policies follow it)."""
    ids = np.arange(first, first + n, dtype=np.float32)
    planes = np.broadcast_to(ids[:, None, None, None], (n, *encoder.shape)).astype(np.float32)
    policies = np.broadcast_to(ids[:, None], (n, encoder.num_actions)).astype(np.float32)
    return Samples(planes, policies, ids)


def test_the_window_keeps_the_most_recent_samples_oldest_first():
    encoder = encoder_for(TicTacToe())
    window = ReplayWindow(5, encoder)
    window.add(numbered(encoder, 0, 3))
    assert window.size == 3 and window.ordered().values.tolist() == [0, 1, 2]
    window.add(numbered(encoder, 3, 4))  # wraps around: 0 and 1 are overwritten
    kept = window.ordered()
    assert window.size == 5 and kept.values.tolist() == [2, 3, 4, 5, 6]
    assert (kept.planes[:, 0, 0, 0] == kept.values).all() and (kept.policies[:, 0] == kept.values).all()
    window.add(numbered(encoder, 7, 12))  # more than the window at once: only the newest 5 stay
    assert window.ordered().values.tolist() == [14, 15, 16, 17, 18]


def test_replay_bytes_counts_what_resuming_holds_at_once():
    encoder = encoder_for(ConnectN(5, 5, 4, gravity=False))
    window = ReplayWindow(7, encoder)
    floats = window.planes.nbytes + window.policies.nbytes + window.values.nbytes
    # The window, the float32 arrays read from the file before it takes them, and the file's uint8 planes.
    assert replay_bytes(7, encoder) == 2 * floats + window.planes.size
    assert replay_bytes(MAX_REPLAY_BYTES // replay_bytes(1, encoder), encoder) <= MAX_REPLAY_BYTES


def test_ordered_samples_are_views_until_the_window_wraps():
    encoder = encoder_for(ConnectN(3, 3, 3, gravity=False))
    window = ReplayWindow(4, encoder)
    planes = np.arange(3 * 4 * 9, dtype=np.float32).reshape(3, 4, 3, 3)
    window.add(Samples(planes, np.ones((3, 9), np.float32) / 9, np.arange(3, dtype=np.float32)))
    assert np.shares_memory(window.ordered().planes, window.planes)
    window.add(Samples(planes[:2] + 100, np.ones((2, 9), np.float32) / 9, np.array([3.0, 4.0], np.float32)))
    ordered = window.ordered()  # wrapped: oldest first, a copy
    assert ordered.values.tolist() == [1.0, 2.0, 3.0, 4.0]
    assert not np.shares_memory(ordered.planes, window.planes)


def test_check_replay_window_refuses_a_window_over_the_memory_limit():
    """The one check the Trainer and a read training state both call: the largest window passes, one more does not."""
    encoder = encoder_for(ConnectN(rows=6, cols=7, n=4, gravity=True))
    most = MAX_REPLAY_BYTES // replay_bytes(1, encoder)
    check_replay_window(most, encoder)
    with pytest.raises(ValueError, match=f"more than the 4 GiB limit: use at most {most:,} positions"):
        check_replay_window(most + 1, encoder)
