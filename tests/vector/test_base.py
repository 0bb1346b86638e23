"""The vector envs keep the single envs' contract, sub-env by sub-env, with Gymnasium's vector conventions.

The main check replays the same action sequences through ``gymnasium.make_vec`` and through single envs
stepped one by one (with next-step autoreset done by hand): observations, masks, rewards, terminations,
winners and positions must agree at every step.
"""

from __future__ import annotations

import sys
from pathlib import Path

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.utils.env_checker import data_equivalence
from gymnasium.vector import AutoresetMode
from gymnasium.wrappers.vector import DictInfoToList

import gym_boardgames  # noqa: F401
from gym_boardgames.errors import ActionTypeError, ResetNeeded
from gym_boardgames.rules.batch import random_legal_actions
from gym_boardgames.vector.connect import ConnectFourVectorEnv, ConnectNVectorEnv, TicTacToeVectorEnv
from gym_boardgames.vector.dots import DotsAndBoxesVectorEnv

# importlib import mode: put the sibling helper and the board games the single env tests share on the path.
sys.path[:0] = [str(Path(__file__).parent), str(Path(__file__).parents[1] / "envs")]
from board_games import GAMES, IDS  # noqa: E402
from vector_helpers import make_vec, pick, play_vs_random  # noqa: E402


@pytest.fixture(params=GAMES, ids=IDS)
def spec(request):
    return request.param


# ---- make_vec ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("env_id", "kwargs", "cls"),
    [
        ("TicTacToe-v0", {}, TicTacToeVectorEnv),
        ("ConnectN-v0", {"rows": 5, "cols": 6, "n": 3, "gravity": False}, ConnectNVectorEnv),
        ("ConnectFour-v0", {}, ConnectFourVectorEnv),
        ("DotsAndBoxes-v0", {"rows": 2, "cols": 2, "tie_break": "second", "reward": "score"}, DotsAndBoxesVectorEnv),
    ],
)
def test_make_vec_uses_the_registered_vector_entry_point_with_the_game_kwargs(env_id, kwargs, cls):
    envs = gym.make_vec(env_id, num_envs=5, opponent=None, agent_player=1, illegal_action="raise", **kwargs)
    assert type(envs) is cls and envs.num_envs == 5 and envs.spec.id == env_id
    assert envs.metadata["autoreset_mode"] is AutoresetMode.NEXT_STEP
    single = gym.make(env_id, **kwargs)
    assert envs.single_observation_space == single.observation_space
    assert envs.single_action_space == single.action_space
    assert envs.observation_space.shape == (5, *single.observation_space.shape)
    assert envs.action_space == gym.spaces.MultiDiscrete([single.action_space.n] * 5)
    assert envs.game == single.unwrapped.game and envs.illegal_action == "raise"
    assert env_id in repr(envs)


# ---- the same moves as single envs ---------------------------------------------------------


def test_self_play_matches_single_envs_step_by_step(spec):
    """Same actions (some illegal) in self-play: identical outputs, with next-step autoreset by hand."""
    env_id, game_kwargs = spec
    n = 6
    envs = make_vec(spec, n, opponent=None)
    singles = [gym.make(env_id, opponent=None, **game_kwargs) for _ in range(n)]
    rng = np.random.default_rng(11)
    obs, info = envs.reset(seed=3)
    for i, env in enumerate(singles):
        single_obs, single_info = env.reset(seed=3)
        np.testing.assert_array_equal(obs[i], single_obs)
        np.testing.assert_array_equal(info["action_mask"][i], single_info["action_mask"])
    ended = np.zeros(n, dtype=bool)
    episodes = 0
    for _ in range(120):
        actions = pick(info, rng, illegal_rate=0.05)
        obs, rewards, terminated, truncated, info = envs.step(actions)
        assert not truncated.any()
        for i, env in enumerate(singles):
            if ended[i]:
                single_obs, single_info = env.reset()
                single_reward, single_terminated = 0.0, False
            else:
                single_obs, single_reward, single_terminated, _, single_info = env.step(int(actions[i]))
            ended[i] = single_terminated
            episodes += single_terminated
            np.testing.assert_array_equal(obs[i], single_obs)
            assert rewards[i] == single_reward and terminated[i] == single_terminated
            np.testing.assert_array_equal(info["action_mask"][i], single_info["action_mask"])
            assert info["current_player"][i] == single_info["current_player"]
            assert info["illegal_action"][i] == single_info.get("illegal_action", False)
            assert info["_winner"][i] == ("winner" in single_info)
            # A finished single env reports -1 for a draw, as the vector env does; -1 also fills games going on.
            assert info["winner"][i] == single_info.get("winner", -1)
            if "scores" in single_info:
                assert info["scores"][i].tolist() == single_info["scores"]
            assert envs.unwrapped.state(i) == env.unwrapped.state
    assert episodes >= n, "the replay should cover several whole episodes per sub-env"


def test_a_finished_game_restarts_on_the_next_step_whatever_its_action(spec):
    envs = make_vec(spec, 4, opponent=None)
    rng = np.random.default_rng(0)
    _, info = envs.reset(seed=0)
    first_obs, first_info = envs.reset(seed=0)
    terminated = np.zeros(4, dtype=bool)
    while not terminated[0]:
        _, _, terminated, _, info = envs.step(random_legal_actions(info["action_mask"], rng))
    assert info["_winner"][0] and not info["action_mask"][0].any()
    actions = random_legal_actions(info["action_mask"], rng)
    actions[0] = 0  # anything in the space: a restarting sub-env ignores it, legal or not
    obs, rewards, terminated, _, info = envs.step(actions)
    np.testing.assert_array_equal(obs[0], first_obs[0])
    assert rewards[0] == 0 and not terminated[0] and not info["_winner"][0] and info["winner"][0] == -1
    np.testing.assert_array_equal(info["action_mask"][0], first_info["action_mask"][0])
    assert info["current_player"][0] == 0 and not info["illegal_action"][0]


# ---- against the random opponent -----------------------------------------------------------


def test_the_random_opponent_never_plays_an_illegal_move(spec):
    envs = make_vec(spec, 64, agent_player="random")
    batch = envs.unwrapped.batch
    original_play = batch.play
    checked = []

    def checked_play(actions, moving=None):
        legal = batch.is_legal(actions)
        # Unmasked (the agent's moves), only finished games, about to restart, may get an illegal move.
        assert (legal | batch.over).all() if moving is None else legal[moving].all()
        checked.append(len(actions) if moving is None else int(moving.sum()))
        return original_play(actions, moving)

    batch.play = checked_play
    rng = np.random.default_rng(1)
    _, info = envs.reset(seed=1)
    for _ in range(60):
        _, _, _, _, info = envs.step(random_legal_actions(info["action_mask"], rng))
    assert sum(checked) > 64 * 60  # the agent's moves and the opponent's


@pytest.mark.parametrize("agent_player", [0, 1, "random"])
def test_against_the_opponent_every_step_returns_on_the_agents_turn_from_its_side(spec, agent_player):
    rewarded = 0
    for envs, _, _, (obs, rewards, terminated, _, info) in play_vs_random(spec, 60, agent_player=agent_player):
        agent = envs.unwrapped.agent_player
        if agent_player != "random":
            assert (agent == agent_player).all()
        going = ~terminated
        assert (info["current_player"][going] == agent[going]).all()
        assert (rewards[going] == 0).all() or envs.unwrapped.reward_mode == "score"
        for i in np.flatnonzero(terminated):
            winner = info["winner"][i]
            if getattr(envs.unwrapped, "reward_mode", "win") == "win":
                assert rewards[i] == (0 if winner == -1 else (1 if winner == agent[i] else -1))
                rewarded += rewards[i] != 0
        for i in range(envs.num_envs):
            state = envs.unwrapped.state(i)
            expected = envs.unwrapped.game.observation(state, agent[i])
            np.testing.assert_array_equal(obs[i], expected.reshape(obs[i].shape))
    if envs.unwrapped.game.num_actions > 2 and getattr(envs.unwrapped, "reward_mode", "win") == "win":
        assert rewarded > 0


def test_agent_player_random_draws_both_sides_and_reset_options_override_once(spec):
    envs = make_vec(spec, 64, agent_player="random")
    envs.reset(seed=5)
    sides = envs.unwrapped.agent_player
    assert 10 < sides.sum() < 54
    _, info = envs.reset(seed=5, options={"agent_player": 1})
    assert (envs.unwrapped.agent_player == 1).all() and (info["current_player"] == 1).all()
    rng = np.random.default_rng(0)
    restarted = np.zeros(64, dtype=bool)
    for _ in range(40):
        _, _, terminated, _, info = envs.step(random_legal_actions(info["action_mask"], rng))
        restarted |= terminated
    # Automatic resets go back to the constructor's setting: random sides again.
    assert (envs.unwrapped.agent_player[restarted] == 0).any()


def test_when_the_agent_moves_second_reset_plays_the_opening_move():
    envs = gym.make_vec("TicTacToe-v0", num_envs=50, agent_player=1)
    obs, info = envs.reset(seed=2)
    assert (obs.reshape(50, 9) == -1).sum(axis=1).tolist() == [1] * 50
    assert (obs == 1).sum() == 0 and (info["current_player"] == 1).all()
    assert len({tuple(o.ravel()) for o in obs}) > 3  # the opening is random


def test_a_game_the_opening_move_ends_restarts_instead_of_waiting_for_an_illegal_move():
    # n=1: whoever moves first wins, so with the agent second every game ends at the opponent's opening.
    envs = gym.make_vec("ConnectN-v0", num_envs=3, rows=1, cols=2, n=1, gravity=False, agent_player=1)
    _, info = envs.reset(seed=0)
    assert not info["action_mask"].any()
    for _ in range(3):
        _, rewards, terminated, _, info = envs.step(np.zeros(3, dtype=np.int64))
        assert not terminated.any() and not info["illegal_action"].any() and (rewards == 0).all()


# ---- illegal moves -------------------------------------------------------------------------


def test_illegal_action_raise_changes_nothing_and_the_env_stays_usable(spec):
    rng = np.random.default_rng(4)
    envs, twin = make_vec(spec, 8, illegal_action="raise"), make_vec(spec, 8, illegal_action="raise")
    _, info = envs.reset(seed=9)
    twin.reset(seed=9)
    for step in range(12):
        actions = random_legal_actions(info["action_mask"], rng)
        mask = info["action_mask"][1]
        if step % 3 == 2 and mask.any() and not mask.all():  # a game going on, with an occupied spot
            bad = actions.copy()
            bad[1] = np.flatnonzero(info["action_mask"][1] == 0)[0]
            with pytest.raises(ValueError, match="sub-env 1 is illegal"):
                envs.step(bad)
        out = envs.step(actions)
        assert data_equivalence(out, twin.step(actions), exact=True)
        info = out[4]


# ---- seeding -------------------------------------------------------------------------------


def test_the_same_seed_and_actions_give_the_same_episodes_against_the_random_opponent(spec):
    def rollout(seed):
        envs = make_vec(spec, 16, agent_player="random")
        rng = np.random.default_rng(0)
        outputs = [envs.reset(seed=seed)]
        for _ in range(30):
            outputs.append(envs.step(random_legal_actions(outputs[-1][-1]["action_mask"], rng)))
        return outputs

    assert data_equivalence(rollout(1), rollout(1), exact=True)
    assert not data_equivalence(rollout(1), rollout(2))


def test_reset_with_the_same_seed_replays_the_same_opponent_moves():
    envs = gym.make_vec("ConnectFour-v0", num_envs=32, agent_player=1)
    first = envs.reset(seed=7)
    actions = np.zeros(32, dtype=np.int64)
    step = envs.step(actions)
    assert data_equivalence((first, step), (envs.reset(seed=7), envs.step(actions)), exact=True)


# ---- the vector API ------------------------------------------------------------------------


def test_returned_arrays_are_fresh_and_in_their_spaces(spec):
    envs = make_vec(spec, 8)
    obs, info = envs.reset(seed=0)
    assert obs.dtype == np.int8 and obs in envs.observation_space
    assert info["action_mask"].dtype == np.int8 and info["action_mask"].shape == (8, envs.single_action_space.n)
    actions = random_legal_actions(info["action_mask"], np.random.default_rng(0))
    obs, rewards, terminated, truncated, info = envs.step(actions)
    assert obs in envs.observation_space and rewards.dtype == np.float64 and terminated.dtype == bool
    assert info["winner"].dtype == np.int64 and info["current_player"].dtype == np.int64
    np.testing.assert_array_equal(envs.unwrapped.action_masks(), info["action_mask"])
    snapshot = [envs.unwrapped.state(i) for i in range(8)]
    for array in (obs, rewards, terminated, truncated, *info.values()):
        array[...] = 0
    assert [envs.unwrapped.state(i) for i in range(8)] == snapshot
    assert envs.unwrapped.action_masks().any()


def test_dict_info_to_list_gives_finished_sub_envs_a_winner_key():
    envs = DictInfoToList(gym.make_vec("TicTacToe-v0", num_envs=16, opponent=None))
    rng = np.random.default_rng(0)
    _, infos = envs.reset(seed=0)
    seen = 0
    for _ in range(12):
        mask = np.array([info["action_mask"] for info in infos])
        _, _, terminated, _, infos = envs.step(random_legal_actions(mask, rng))
        for done, info in zip(terminated, infos, strict=True):
            assert ("winner" in info) == done
            seen += done
    assert seen > 0


# ---- bad arguments -------------------------------------------------------------------------


class AnAgent:
    def act(self, game, state):
        return game.legal_actions(state)[0]


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"opponent": AnAgent()}, "vectorization_mode='sync'"),
        ({"opponent": lambda game, state: 0}, "vectorization_mode='sync'"),
        ({"opponent": "minimax"}, "vectorization_mode='sync'"),
        ({"render_mode": "human"}, "vectorization_mode='sync'"),
        ({"render_mode": "rgb_array"}, "vectorization_mode='sync'"),
        ({"agent_player": 2}, "agent_player"),
        ({"agent_player": True}, "agent_player"),
        ({"illegal_action": "ignore"}, "illegal_action"),
        ({"num_envs": 0}, "num_envs"),
    ],
)
def test_unsupported_or_bad_options_raise_a_clear_error(spec, kwargs, message):
    kwargs = {"num_envs": 2, **kwargs}
    with pytest.raises(ValueError, match=message.replace("(", r"\(")):
        make_vec(spec, **kwargs)


@pytest.mark.parametrize(
    ("env_id", "kwargs", "message"),
    [
        ("ConnectN-v0", {"n": 9}, r"n \(on a 6x7 board\) must be an integer in \[1, 7\], got 9"),
        ("ConnectN-v0", {"rows": 0}, "rows"),
        ("DotsAndBoxes-v0", {"reward": "margin"}, "reward"),
        ("DotsAndBoxes-v0", {"tie_break": "first"}, "tie_break"),
    ],
)
def test_bad_game_parameters_raise_as_in_the_single_envs(env_id, kwargs, message):
    with pytest.raises(ValueError, match=message):
        gym.make_vec(env_id, num_envs=2, **kwargs)


def test_bad_actions_and_calls_out_of_order_raise(spec):
    envs = make_vec(spec, 3)
    with pytest.raises(ResetNeeded, match="reset"):
        envs.step(np.zeros(3, dtype=np.int64))
    with pytest.raises(ResetNeeded, match="reset"):
        envs.unwrapped.action_masks()
    envs.reset(seed=0)
    n = envs.single_action_space.n
    with pytest.raises(ValueError, match=rf"0\.\.{n - 1}"):
        envs.step(np.array([0, n, 0]))
    with pytest.raises(ValueError, match=rf"0\.\.{n - 1}"):
        envs.step(np.array([0, -1, 0]))
    with pytest.raises(ValueError, match="shape"):
        envs.step(np.zeros(4, dtype=np.int64))
    for bad in (np.zeros(3), np.zeros(3, dtype=bool), ["a", "b", "c"]):
        with pytest.raises(ActionTypeError):
            envs.step(bad)
    with pytest.raises(ValueError, match="unknown reset option"):
        envs.reset(options={"side": 1})
    with pytest.raises(ValueError, match="agent_player"):
        envs.reset(options={"agent_player": "first"})
    envs.step([0, 0, 0])  # a list of ints is fine, and the env is still usable


# ---- agent names as the opponent ------------------------------------------------------------


def _run(envs: gym.vector.VectorEnv, seed: int, steps: int) -> list[bytes]:
    """Step with the first legal action of each sub-env; return every observation batch."""
    obs, info = envs.reset(seed=seed)
    trace = [obs.tobytes()]
    for _ in range(steps):
        mask = info["action_mask"]
        actions = np.where(mask.any(axis=1), mask.argmax(axis=1), 0)
        obs, rewards, terminated, _, info = envs.step(actions)
        trace.append(obs.tobytes() + rewards.tobytes() + terminated.tobytes())
    return trace


def test_native_vector_env_plays_alphabeta_by_name_and_never_loses() -> None:
    envs = gym.make_vec("TicTacToe-v0", num_envs=4, opponent="alphabeta", agent_player="random")
    envs.reset(seed=0)
    rng = np.random.default_rng(0)
    info = envs.reset(seed=0)[1]
    finished = 0
    for _ in range(40):
        mask = info["action_mask"]
        actions = np.array([rng.choice(np.flatnonzero(m)) if m.any() else 0 for m in mask])
        _, rewards, terminated, _, info = envs.step(actions)
        finished += int(terminated.sum())
        assert (rewards <= 0).all()  # perfect play: the random agent never wins
        # After the step it is the agent's turn in every game still going.
        going = ~terminated
        assert (info["current_player"][going] == envs.unwrapped.agent_player[going]).all()
    assert finished >= 4


@pytest.mark.parametrize(
    ("env_id", "kwargs", "name"),
    [("ConnectFour-v0", {}, "mcts:8"), ("DotsAndBoxes-v0", {"rows": 2, "cols": 2}, "always4never3")],
)
def test_native_named_opponent_is_reproducible_from_the_seed(env_id: str, kwargs: dict, name: str) -> None:
    first = gym.make_vec(env_id, num_envs=3, opponent=name, agent_player=1, **kwargs)
    second = gym.make_vec(env_id, num_envs=3, opponent=name, agent_player=1, **kwargs)
    assert _run(first, 5, 25) == _run(second, 5, 25)
    assert _run(first, 5, 25) == _run(second, 5, 25)  # the same seed on a used env replays the same games


def test_native_vector_env_bad_name_lists_the_valid_opponents() -> None:
    with pytest.raises(ValueError, match=r"unknown opponent 'grandmaster'.*'random', None.*alphabeta"):
        gym.make_vec("TicTacToe-v0", num_envs=2, opponent="grandmaster")


def test_native_vector_env_still_refuses_agent_objects_and_points_to_sync_mode() -> None:
    from agents.search.minimax import AlphaBetaAgent

    with pytest.raises(ValueError, match="vectorization_mode='sync'"):
        gym.make_vec("TicTacToe-v0", num_envs=2, opponent=AlphaBetaAgent())


class _Interrupted:
    """A named opponent that plays the lowest legal move, until told to raise (as Ctrl-C while it thinks)."""

    def __init__(self):
        self.fail_with = None

    def act(self, game, state):
        if self.fail_with is not None:
            raise self.fail_with
        return game.legal_actions(state)[0]


@pytest.mark.parametrize("error", [KeyboardInterrupt(), RuntimeError("the agent broke")])
@pytest.mark.parametrize("vector_env", [TicTacToeVectorEnv, DotsAndBoxesVectorEnv])
def test_an_opponent_that_raises_leaves_every_game_as_it_was(monkeypatch, vector_env, error):
    import gym_boardgames.vector.base as vector_base
    from gym_boardgames.opponents import Opponent

    agent = _Interrupted()
    monkeypatch.setattr(vector_base, "make_opponent", lambda name, game: Opponent(agent, name))
    env = vector_env(num_envs=3, opponent="lowest", agent_player=0)
    obs, info = env.reset(seed=0)
    rng = np.random.default_rng(0)
    actions = random_legal_actions(info["action_mask"], rng)
    obs, *_, info = env.step(actions)
    before = {name: value.copy() for name, value in vars(env.batch).items() if isinstance(value, np.ndarray)}
    rng_state = env.np_random.bit_generator.state
    agent.fail_with = error
    actions = random_legal_actions(info["action_mask"], rng)
    with pytest.raises(type(error)):
        env.step(actions)
    for name, value in before.items():
        np.testing.assert_array_equal(getattr(env.batch, name), value, err_msg=name)
    assert env.np_random.bit_generator.state == rng_state
    agent.fail_with = None
    after, *_ = env.step(actions)  # the same actions play as the agent's moves, and the opponent replies
    assert (env.batch.player == 0).all() or env.batch.over.any()
    np.testing.assert_array_equal(after != 0, (after != 0) | (obs != 0))  # nothing was taken back


@pytest.mark.parametrize("move", [True, 0.7, "0", np.array([0]), 2**70, None, 4], ids=repr)
def test_a_named_opponents_bad_or_illegal_move_is_refused_naming_it_and_the_sub_env(monkeypatch, move):
    import gym_boardgames.vector.base as vector_base
    from gym_boardgames.opponents import Opponent

    class Stubborn:
        def act(self, game, state):
            return move

    monkeypatch.setattr(vector_base, "make_opponent", lambda name, game: Opponent(Stubborn(), name))
    env = TicTacToeVectorEnv(num_envs=2, opponent="stubborn", agent_player=0)
    env.reset(seed=0)
    with pytest.raises(ValueError) as caught:
        env.step(np.array([4, 4]))  # the centre: the stubborn 4 is then illegal
    why = "an illegal move here: legal actions are [0, 1, 2, 3, 5, 6, 7, 8]" if move == 4 else "not an integer in 0..8"
    assert str(caught.value) == f"agent stubborn (sub-env 0) played {move!r}, which is {why}"


# ---- a move that is no integer, inside a list (issue 50) ---------------------------------------------------


@pytest.mark.parametrize(
    "actions, shown",
    [
        ([0, True], "True"),  # np.asarray makes this [0, 1], an integer array
        ((0, np.True_), "np.True_"),
        ([0, np.array(True)], "array(True)"),
        ([0, 1.0], "1.0"),
        ([0, "1"], "'1'"),
        ([0, None], "None"),
        (np.array([0, True], dtype=object), "True"),
    ],
    ids=repr,
)
def test_a_bool_or_float_among_the_actions_is_refused_as_the_single_env_refuses_it(actions, shown):
    envs = gym.make_vec("TicTacToe-v0", num_envs=2)
    envs.reset(seed=0)
    single = gym.make("TicTacToe-v0")
    single.reset(seed=0)
    with pytest.raises(ActionTypeError) as alone:
        single.step(actions[1])
    before = envs.unwrapped.state(0), envs.unwrapped.state(1)
    with pytest.raises(ActionTypeError) as caught:
        envs.step(actions)
    assert str(caught.value) == f"sub-env 1: {alone.value}" == f"sub-env 1: action {shown} is not an integer in 0..8"
    assert (envs.unwrapped.state(0), envs.unwrapped.state(1)) == before  # nothing was played
    envs.step([0, np.int64(1)])  # plain integers of any kind still pass


def test_a_long_or_huge_action_is_shown_cut():
    envs = gym.make_vec("TicTacToe-v0", num_envs=2)
    envs.reset(seed=0)
    with pytest.raises(ValueError, match=r"^sub-env 0: action an integer of about 5,001 digits is not an integer"):
        envs.step([10**5000, 0])
    with pytest.raises(ActionTypeError, match=r"^sub-env 1: action 'aaa+\.\.\. \(5,000,002 characters\) is not an"):
        envs.step([0, "a" * 5_000_000])
    with pytest.raises(ValueError, match=r"shape \(2,\); got 'bbb+\.\.\. \(5,000,002 characters\)$"):
        envs.step("b" * 5_000_000)
