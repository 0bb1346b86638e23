"""agents.alphazero.workers: an iteration's games split fairly into tasks, played the same wherever they run."""

import numpy as np
import pytest

from agents.alphazero.config import NetConfig, SelfPlayConfig
from agents.alphazero.encoding import encoder_for
from agents.alphazero.workers import SelfPlayPool, check_ray_reachable, make_forward, selfplay_tasks
from gym_boardgames.rules import TicTacToe


def tiny_net(game):
    encoder = encoder_for(game)
    return NetConfig(*encoder.shape, encoder.num_actions, channels=4, blocks=1, value_hidden=8)


def torch_params(net, seed):
    """A freshly initialised network's parameters (PyTorch's initialisation, seeded)."""
    torch = pytest.importorskip("torch", reason="the alphazero extra (PyTorch) is needed for self-play workers")
    from agents.alphazero.torch_model import PolicyValueNet, params_of

    torch.manual_seed(seed)
    return params_of(PolicyValueNet(net))


@pytest.mark.parametrize(("games", "workers", "shares"), [(10, 3, [4, 3, 3]), (2, 4, [1, 1]), (8, 1, [8])])
def test_games_are_shared_within_one_and_idle_workers_get_no_task(games, workers, shares):
    game = TicTacToe()
    net = tiny_net(game)
    params = {"stem.conv.weight": np.zeros(1, dtype=np.float32)}  # carried as is
    tasks = selfplay_tasks(game, net, params, SelfPlayConfig(), "numpy", games, list(range(10, 10 + workers)))
    assert [task["games"] for task in tasks] == shares
    assert [task["seed"] for task in tasks] == list(range(10, 10 + len(shares)))
    assert all(task["params"] is params and task["net"] == net.to_dict() for task in tasks)


def test_pytorch_and_numpy_run_the_same_network():
    game = TicTacToe()
    net = tiny_net(game)
    params = torch_params(net, 1)
    planes = np.random.default_rng(2).integers(0, 2, size=(5, *encoder_for(game).shape)).astype(np.float32)
    (torch_logits, torch_values), (numpy_logits, numpy_values) = (
        make_forward(inference, net, params).forward(planes) for inference in ("torch", "numpy")
    )
    np.testing.assert_allclose(torch_logits, numpy_logits, atol=1e-5)
    np.testing.assert_allclose(torch_values, numpy_values, atol=1e-5)


def test_a_pool_of_one_plays_every_task_in_this_process():
    game = TicTacToe()
    net = tiny_net(game)
    params = torch_params(net, 3)
    selfplay = SelfPlayConfig(simulations=2, parallel_games=2)
    pool = SelfPlayPool(1)
    try:
        assert pool.local
        results = pool.run(selfplay_tasks(game, net, params, selfplay, "numpy", 3, [5, 6]))
    finally:
        pool.close()
    assert [len(summaries) for _, summaries in results] == [2, 1]
    for samples, summaries in results:
        assert len(samples.values) == sum(summary.moves for summary in summaries)


def test_an_unreachable_ray_cluster_fails_at_once():
    with pytest.raises(ConnectionError, match="cannot reach the Ray cluster at 127.0.0.1:1"):
        check_ray_reachable("127.0.0.1:1", timeout=2.0)
    with pytest.raises(ConnectionError, match="HOST:PORT"):
        check_ray_reachable("nowhere")
    check_ray_reachable("auto")  # left to Ray
