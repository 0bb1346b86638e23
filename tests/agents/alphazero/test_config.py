"""agents.alphazero.config: a run's settings are checked when made and round-trip through a saved file."""

import json

import pytest

from agents.alphazero.config import (
    FIXED_ON_RESUME,
    MAX_SEED,
    MAX_THREADS,
    MAX_WORKERS,
    PRESETS,
    SelfPlayConfig,
    TrainConfig,
    setting_fields,
)
from agents.alphazero.encoding import encoder_for
from gym_boardgames.rules import DotsAndBoxes


def test_settings_round_trip_through_json():
    config = TrainConfig(iterations=3, selfplay=SelfPlayConfig(simulations=7), lr=1e-3, inference="numpy")
    assert TrainConfig.from_dict(json.loads(json.dumps(config.to_dict()))) == config


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"workers": MAX_WORKERS + 1}, "workers must be an integer in [1, 64]"),
        ({"threads": MAX_THREADS + 1}, "threads must be an integer in [1, 64]"),
        ({"seed": MAX_SEED + 1}, "seed must be an integer in [0,"),
        ({"iterations": True}, "iterations must be an integer"),
        ({"lr": float("nan")}, "lr must be a number"),
        ({"inference": "jax"}, "inference must be one of torch, numpy, got 'jax'"),
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


@pytest.mark.parametrize("selfplay", ["x", None, {"simulations": 8}])
def test_selfplay_must_be_a_selfplay_config(selfplay):
    with pytest.raises(ValueError, match="selfplay must be a SelfPlayConfig"):
        TrainConfig(selfplay=selfplay)


def test_every_setting_has_one_name_and_replace_reaches_the_nested_selfplay_settings():
    names = [f.name for f in setting_fields()]
    assert len(names) == len(set(names)) and "selfplay" not in names
    config = TrainConfig().replace(lr=0.01, simulations=7, algorithm="gumbel")
    assert (config.lr, config.selfplay.simulations, config.selfplay.algorithm) == (0.01, 7, "gumbel")
    assert config.settings() == {**TrainConfig().settings(), "lr": 0.01, "simulations": 7, "algorithm": "gumbel"}
    with pytest.raises(ValueError, match=r"unknown training settings \['window'\]"):
        TrainConfig().replace(window=10)
    with pytest.raises(ValueError, match="algorithm must be one of puct, gumbel, got 'alphabeta'"):
        TrainConfig().replace(algorithm="alphabeta")


def test_a_resumed_run_may_change_any_setting_but_the_network_shape_and_the_seed():
    saved = TrainConfig(channels=8, seed=3)
    assert saved.resumed({"lr": 0.01, "workers": 2, "channels": 8, "seed": 3}).settings() == {
        **saved.settings(),
        "lr": 0.01,
        "workers": 2,
    }
    for name, value in (("channels", 16), ("blocks", 1), ("value_hidden", 4), ("seed", 4)):
        with pytest.raises(ValueError, match=f"^--{name} {value}: cannot change on resume: .*the saved run has"):
            saved.resumed({name: value}, name=lambda n: "--" + n)
    assert set(FIXED_ON_RESUME) == {"channels", "blocks", "value_hidden", "policy_channels", "value_channels", "seed"}


def test_the_presets_are_checked_settings_per_game():
    assert sorted(PRESETS) == ["connectfour", "connectn", "dotsandboxes", "tictactoe"]
    connectfour = PRESETS["connectfour"].settings()
    assert connectfour["random_opening_moves"] == 16 and connectfour["time_limit"] == 7200
    # Connect Four plays 8 games against the exact solver at each evaluation; no other board has that solver.
    assert connectfour["perfect_games"] == 8 and connectfour["eval_simulations"] == 200
    others = {"time_limit": 1200.0, "eval_games": 10, "random_opening_moves": 0, "perfect_games": 0}
    others["eval_simulations"] = 50
    assert PRESETS["connectn"].settings() == {**connectfour, **others}
    assert PRESETS["dotsandboxes"].settings() == {
        **connectfour,
        **others,
        "dirichlet_alpha": 0.5,
        "temperature_moves": 6,
    }
    assert PRESETS["tictactoe"].replace(games=8).games == 8 and PRESETS["tictactoe"].games == 16


def test_check_bounds_reads_the_resolved_annotation_not_its_text():
    """A settings class whose annotations are real types (no postponed annotations, as here) is checked the same."""
    from dataclasses import dataclass

    from agents.alphazero.config import bounded, check_bounds

    @dataclass
    class Plain:
        count: int = bounded(0, 10, 1)
        rate: float = bounded(0.0, 1.0, 0.5)

    check_bounds(Plain(count=3, rate=0.25))
    with pytest.raises(ValueError, match="count must be an integer"):
        check_bounds(Plain(count=2.5))  # an int setting refuses a float even when its type is not the string "int"
    with pytest.raises(ValueError, match="rate"):
        check_bounds(Plain(rate=2.0))
