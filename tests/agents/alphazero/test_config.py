"""agents.alphazero.config: a run's settings are checked when made and round-trip through a saved file."""

import json

import pytest

from agents.alphazero.config import MAX_SEED, MAX_THREADS, MAX_WORKERS, SelfPlayConfig, TrainConfig
from agents.alphazero.encoding import encoder_for
from gym_boardgames.rules import DotsAndBoxes


def test_settings_round_trip_through_json():
    config = TrainConfig(iterations=3, selfplay=SelfPlayConfig(n_simulations=7), lr=1e-3, inference="numpy")
    assert TrainConfig.from_dict(json.loads(json.dumps(config.to_dict()))) == config


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"workers": MAX_WORKERS + 1}, "workers must be an integer in [1, 64]"),
        ({"threads": MAX_THREADS + 1}, "threads must be an integer in [1, 64]"),
        ({"seed": MAX_SEED + 1}, "seed must be an integer in [0,"),
        ({"iterations": True}, "iterations must be an integer"),
        ({"lr": float("nan")}, "lr must be a number"),
        ({"inference": "jax"}, "inference must be 'torch' or 'numpy'"),
    ],
)
def test_out_of_bounds_settings_are_refused_naming_them(changes, message):
    with pytest.raises(ValueError, match=message.replace("[", r"\[")):
        TrainConfig(**changes)


def test_unknown_or_malformed_saved_settings_are_refused():
    with pytest.raises(ValueError, match="unknown training settings"):
        TrainConfig.from_dict({**TrainConfig().to_dict(), "epsilon": 0.1})
    with pytest.raises(ValueError, match="'selfplay' object"):
        TrainConfig.from_dict({"iterations": 3})


def test_the_network_follows_the_settings_and_the_games_encoding():
    encoder = encoder_for(DotsAndBoxes(2, 3))
    net = TrainConfig(channels=8, blocks=2, value_hidden=16, policy_channels=3, value_channels=2).net_config(encoder)
    assert (net.in_planes, net.height, net.width) == encoder.shape and net.num_actions == encoder.num_actions
    assert (net.channels, net.blocks, net.value_hidden, net.policy_channels, net.value_channels) == (8, 2, 16, 3, 2)


def test_describe_names_the_search_the_stop_and_the_network_in_four_lines():
    puct = TrainConfig(iterations=1200, time_limit=90, eval_every=0, channels=8, blocks=2, lr=1e-3)
    lines = puct.describe("G").splitlines()
    assert lines[0] == "training AlphaZero on 'G' until 1,200 iterations or 90 s of training, whichever comes first"
    assert "PUCT, 50 simulations, c_puct 1.5, Dirichlet(0.5) x 0.25, 8 moves at temperature 1" in lines[1]
    assert lines[2].startswith("  network: 8 channels x 2 blocks; AdamW lr 0.001 (to 10%)")
    assert lines[3] == "  no evaluation"
    gumbel = TrainConfig(selfplay=SelfPlayConfig(algorithm="gumbel", max_considered=4, random_opening_moves=3))
    lines = gumbel.describe("G").splitlines()
    assert lines[0].endswith("until 20 iterations")
    assert lines[1].endswith(
        "Gumbel AlphaZero, 50 simulations, 4 root moves considered; openings of up to 3 random moves"
    )
    assert lines[3] == "  evaluation every 1 iterations"


@pytest.mark.parametrize("selfplay", ["x", None, {"n_simulations": 8}])
def test_selfplay_must_be_a_selfplay_config(selfplay):
    with pytest.raises(ValueError, match="selfplay must be a SelfPlayConfig"):
        TrainConfig(selfplay=selfplay)
