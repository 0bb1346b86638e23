"""The two-player contract (docs/design.md) bullet by bullet on TicTacToe-v0, a draw's winner, and named opponents."""

from __future__ import annotations

import subprocess
import sys

import gymnasium as gym
import numpy as np
import pytest

import gym_boardgames  # noqa: F401  (registers the ids)
from agents.search.minimax import AlphaBetaAgent
from gym_boardgames.envs import TicTacToeEnv
from gym_boardgames.errors import ActionTypeError, ResetNeeded
from gym_boardgames.rules import TicTacToe


def make(**kwargs):
    return gym.make("TicTacToe-v0", **kwargs)


class Scripted:
    """An opponent object that plays a fixed list of moves and records the states it saw."""

    def __init__(self, moves):
        self.moves = list(moves)
        self.seen = []

    def act(self, game, state):
        self.seen.append(state)
        return self.moves.pop(0)


# ---- opponents -----------------------------------------------------------------------------


def test_random_opponent_plays_a_legal_move_after_each_agent_move():
    env = make(opponent="random")
    obs, _ = env.reset(seed=3)
    obs, reward, terminated, _, info = env.step(4)
    assert obs[1, 1] == 1
    assert (obs == -1).sum() == 1  # exactly one opponent piece appeared
    assert info["current_player"] == 0
    assert not terminated and reward == 0.0


def test_opponent_object_with_act_is_asked_with_the_rules_and_the_state():
    opponent = Scripted([0, 1])
    env = make(opponent=opponent)
    env.reset(seed=0)
    env.step(4)
    assert opponent.seen[0] == env.unwrapped.game.apply(env.unwrapped.game.initial_state(), 4)
    obs, *_ = env.step(8)
    assert obs.tolist() == [[-1, -1, 0], [0, 1, 0], [0, 0, 1]]


def test_opponent_reset_hook_is_called_at_every_reset():
    class Remembering(Scripted):
        resets = 0

        def reset(self):
            self.resets += 1

    opponent = Remembering([0, 1, 2])
    env = make(opponent=opponent)
    env.reset(seed=0)
    env.reset(seed=1)
    assert opponent.resets == 2


def test_plain_callable_opponent():
    calls = []

    def first_free(game, state):
        calls.append(game.current_player(state))
        return game.legal_actions(state)[0]

    env = make(opponent=first_free)
    env.reset(seed=0)
    obs, *_ = env.step(4)
    assert obs[0, 0] == -1 and calls == [1]


def test_self_play_none_plays_no_move_at_reset_and_alternates_perspective():
    env = make(opponent=None)
    obs, info = env.reset(seed=0)
    assert not obs.any() and info["current_player"] == 0
    obs, _, _, _, info = env.step(0)
    # Player 1 to move: X's piece is the opponent's, so -1.
    assert info["current_player"] == 1 and obs[0, 0] == -1
    obs, _, _, _, info = env.step(4)
    assert info["current_player"] == 0 and obs[0, 0] == 1 and obs[1, 1] == -1


def test_unknown_opponent_raises_value_error_listing_choices():
    with pytest.raises(ValueError, match="'random', None"):
        make(opponent="minimax")
    with pytest.raises(ValueError, match=r"^unknown opponent '42': use 'random', None \(self-play\), an agent name"):
        make(opponent=42)


def test_custom_opponent_illegal_move_raises_naming_it_and_rolls_back():
    env = make(opponent=Scripted([4]))  # replies on the agent's own cell
    env.reset(seed=0)
    before = env.unwrapped.state
    with pytest.raises(ValueError, match=r"^agent .*Scripted.* played 4, which is an illegal move here: legal actions"):
        env.step(4)
    assert env.unwrapped.state == before  # the agent's move was not half-applied
    assert env.unwrapped.lastaction is None


def test_custom_opponent_returning_a_non_integer_raises_value_error():
    env = make(opponent=lambda game, state: "centre")
    env.reset(seed=0)
    with pytest.raises(ActionTypeError, match=r"^agent .*<lambda> played 'centre', which is not an integer in 0\.\.8$"):
        env.step(0)


def test_custom_opponent_returning_a_bool_is_refused_like_the_agents_bool():
    env = make(opponent=lambda game, state: True, agent_player=1)
    with pytest.raises(ActionTypeError, match=r"^agent .*<lambda> played True, which is not an integer in 0\.\.8$"):
        env.reset(seed=0)


def test_opponent_numpy_integer_moves_are_accepted():
    env = make(opponent=lambda game, state: np.int64(game.legal_actions(state)[-1]))
    env.reset(seed=0)
    obs, *_ = env.step(0)
    assert obs[2, 2] == -1


# ---- agent_player -------------------------------------------------------------------------


def test_agent_player_one_means_the_opponent_opens_at_reset():
    env = make(opponent=Scripted([4, 0]), agent_player=1)
    obs, info = env.reset(seed=0)
    assert obs[1, 1] == -1 and info["current_player"] == 1
    obs, *_ = env.step(8)
    assert obs[2, 2] == 1 and obs[0, 0] == -1


def test_agent_player_random_draws_both_sides_over_resets():
    env = make(agent_player="random")
    sides = set()
    for seed in range(20):
        _, info = env.reset(seed=seed)
        sides.add(env.unwrapped.agent_player)
        # When the agent is player 1, the opponent has already opened.
        assert info["current_player"] == env.unwrapped.agent_player
    assert sides == {0, 1}


def test_reset_option_agent_player_applies_to_one_episode_only():
    env = make()
    env.reset(seed=0, options={"agent_player": 1})
    assert env.unwrapped.agent_player == 1
    env.reset(seed=0)
    assert env.unwrapped.agent_player == 0


@pytest.mark.parametrize("bad", [2, -1, "first", True, 0.0])
def test_bad_agent_player_raises_value_error(bad):
    with pytest.raises(ValueError, match="0, 1 or 'random'"):
        make(agent_player=bad)
    env = make()
    with pytest.raises(ValueError, match="0, 1 or 'random'"):
        env.reset(options={"agent_player": bad})


def test_unknown_reset_option_raises_naming_the_valid_ones():
    env = make()
    with pytest.raises(ValueError, match=r"unknown reset option.*\['agent_player'\]"):
        env.reset(options={"side": 1})


def test_agent_player_is_ignored_in_self_play():
    env = make(opponent=None, agent_player=1)
    obs, info = env.reset(seed=0)
    assert not obs.any() and info["current_player"] == 0


# ---- illegal actions ----------------------------------------------------------------------


def test_illegal_move_loses_by_default_with_board_unchanged():
    env = make(opponent=Scripted([0]))
    env.reset(seed=0)
    env.step(4)
    state = env.unwrapped.state
    obs, reward, terminated, truncated, info = env.step(0)  # taken by the opponent
    assert reward == -1.0 and terminated and not truncated
    assert info["illegal_action"] is True
    assert info["winner"] == 1
    assert info["current_player"] == 0  # the offender
    assert env.unwrapped.state == state
    assert not info["action_mask"].any()


def test_illegal_move_in_self_play_penalises_the_mover():
    env = make(opponent=None)
    env.reset(seed=0)
    env.step(4)
    _, reward, terminated, _, info = env.step(4)
    assert reward == -1.0 and terminated and info["winner"] == 0 and info["current_player"] == 1


def test_illegal_move_raise_mode_keeps_the_env_usable():
    env = make(opponent=None, illegal_action="raise")
    env.reset(seed=0)
    env.step(4)
    with pytest.raises(ValueError, match=r"illegal.*legal actions are \[0, 1, 2, 3, 5, 6, 7, 8\]"):
        env.step(4)
    obs, reward, terminated, _, _ = env.step(0)
    # X (player 0) is to move again: its centre is +1, O's corner -1.
    assert not terminated and obs[0, 0] == -1 and obs[1, 1] == 1 and reward == 0.0


def test_bad_illegal_action_mode_raises():
    with pytest.raises(ValueError, match=r"illegal_action must be one of \('lose', 'raise'\)"):
        make(illegal_action="ignore")


# ---- observation ---------------------------------------------------------------------------


def test_observation_is_a_new_int8_array_from_the_agents_side_including_the_last():
    env = make(opponent=Scripted([3, 4]), agent_player=0)
    obs0, _ = env.reset(seed=0)
    assert obs0.dtype == np.int8 and obs0.shape == (3, 3)
    obs1, *_ = env.step(0)
    obs2, *_ = env.step(1)
    obs3, reward, terminated, _, info = env.step(2)  # top row: agent wins
    assert terminated and reward == 1.0 and info["winner"] == 0
    assert obs3.tolist() == [[1, 1, 1], [-1, -1, 0], [0, 0, 0]]
    assert not np.shares_memory(obs1, obs2) and not np.shares_memory(obs2, obs3)


def test_final_self_play_observation_is_from_the_player_who_would_move_next():
    env = make(opponent=None)
    env.reset(seed=0)
    for move in [0, 3, 1, 4]:
        env.step(move)
    obs, reward, terminated, _, info = env.step(2)
    assert terminated and reward == 1.0 and info["current_player"] == 1
    assert obs[0].tolist() == [-1, -1, -1]


# ---- action space ------------------------------------------------------------------------


@pytest.mark.parametrize("bad", [-1, 9, 100])
def test_out_of_range_action_raises_value_error_with_the_valid_range(bad):
    env = make()
    env.reset(seed=0)
    with pytest.raises(ValueError, match=rf"^action {bad} is not an integer in 0\.\.8$"):
        env.step(bad)


@pytest.mark.parametrize("bad", [1.5, "4", None, True, np.array([1, 2])])
def test_wrong_type_action_raises_type_and_value_error(bad):
    env = make()
    env.reset(seed=0)
    with pytest.raises(ActionTypeError, match=r"integer in 0..8") as caught:
        env.step(bad)
    assert isinstance(caught.value, TypeError) and isinstance(caught.value, ValueError)
    assert not env.unwrapped.state.board.strip(b"\x00")  # still the empty board


def test_numpy_integer_and_zero_dim_actions_are_accepted():
    env = make(opponent=None)
    env.reset(seed=0)
    env.step(np.int64(0))
    obs, *_ = env.step(np.array(4))
    assert obs[0, 0] == 1 and obs[1, 1] == -1


# ---- info and masks ------------------------------------------------------------------------


def test_info_mask_is_fresh_int8_and_matches_action_masks_and_legal_actions():
    env = make(opponent=None)
    _, info = env.reset(seed=0)
    _, _, _, _, info2 = env.step(4)
    assert info2["action_mask"].dtype == np.int8
    assert info2["action_mask"].tolist() == [1, 1, 1, 1, 0, 1, 1, 1, 1]
    assert np.array_equal(env.unwrapped.action_masks(), info2["action_mask"])
    assert not np.shares_memory(info["action_mask"], info2["action_mask"])
    assert not np.shares_memory(env.unwrapped.action_masks(), env.unwrapped.action_masks())
    game = env.unwrapped.game
    assert np.flatnonzero(info2["action_mask"]).tolist() == game.legal_actions(env.unwrapped.state)


def test_winner_appears_only_at_the_end_and_is_minus_one_for_a_draw():
    env = make(opponent=None)
    _, info = env.reset(seed=0)
    assert "winner" not in info
    for move in [0, 1, 2, 4, 3, 5, 7, 6]:
        _, _, terminated, _, info = env.step(move)
        assert "winner" not in info and not terminated
    _, reward, terminated, _, info = env.step(8)
    assert terminated and reward == 0.0 and info["winner"] == -1 and type(info["winner"]) is int
    assert env.unwrapped.winner == -1
    assert not info["action_mask"].any() and not env.unwrapped.action_masks().any()


# ---- rewards -------------------------------------------------------------------------------


def test_agent_gets_minus_one_when_the_opponent_wins():
    env = make(opponent=Scripted([3, 4, 5]))
    env.reset(seed=0)
    env.step(0)
    env.step(1)
    _, reward, terminated, _, info = env.step(8)
    assert terminated and reward == -1.0 and info["winner"] == 1


def test_agent_as_second_player_wins_plus_one():
    env = make(opponent=Scripted([0, 1, 8]), agent_player=1)
    env.reset(seed=0)
    env.step(3)
    env.step(4)
    _, reward, terminated, _, info = env.step(5)
    assert terminated and reward == 1.0 and info["winner"] == 1


# ---- order ---------------------------------------------------------------------------------


def test_step_before_reset_names_reset():
    env = make().unwrapped
    with pytest.raises(ResetNeeded, match=r"reset\(\)"):
        env.step(0)
    with pytest.raises(ResetNeeded, match=r"reset\(\)"):
        env.action_masks()


def test_step_after_the_end_names_reset_until_reset():
    env = make(opponent=None)
    env.reset(seed=0)
    for move in [0, 3, 1, 4, 2]:
        env.step(move)
    with pytest.raises(ResetNeeded, match=r"reset\(\)"):
        env.step(8)
    with pytest.raises(RuntimeError):  # ResetNeeded is also a RuntimeError
        env.step(8)
    env.reset()
    obs, *_ = env.step(8)
    assert obs[2, 2] == -1


def test_failed_opening_move_leaves_the_env_needing_reset():
    env = make(opponent=lambda game, state: 99, agent_player=1)
    with pytest.raises(ValueError, match=r"played 99, which is not an integer in 0\.\.8$"):
        env.reset(seed=0)
    with pytest.raises(ResetNeeded):
        env.step(0)


# ---- seeding -------------------------------------------------------------------------------


def rollout(env, seed, policy_seed):
    rng = np.random.default_rng(policy_seed)
    obs, info = env.reset(seed=seed)
    trace = [(obs.tobytes(), info["current_player"], env.unwrapped.agent_player)]
    terminated = False
    while not terminated:
        action = int(rng.choice(np.flatnonzero(info["action_mask"])))
        obs, reward, terminated, _, info = env.step(action)
        trace.append((obs.tobytes(), reward, info["action_mask"].tobytes(), info.get("winner")))
    return trace


def test_two_envs_with_the_same_seeds_give_identical_episodes():
    a = make(agent_player="random")
    b = make(agent_player="random")
    for seed in range(30):
        assert rollout(a, seed, seed) == rollout(b, seed, seed)


def test_different_seeds_give_different_opponent_play():
    env = make()
    traces = {tuple(rollout(env, seed, 0)) for seed in range(10)}
    assert len(traces) > 1


def test_reset_without_seed_continues_the_seeded_stream():
    a, b = make(), make()
    a.reset(seed=7)
    b.reset(seed=7)
    assert rollout(a, None, 1) == rollout(b, None, 1)


# ---- rules and state are exposed ---------------------------------------------------------


def test_unwrapped_exposes_the_rules_object_and_current_state():
    env = make(opponent=None)
    env.reset(seed=0)
    env.step(4)
    game, state = env.unwrapped.game, env.unwrapped.state
    assert isinstance(game, TicTacToe)
    assert state == game.apply(game.initial_state(), 4)
    assert env.unwrapped.action_space.n == game.num_actions == 9


# ---- constructor --------------------------------------------------------------------------


def test_bad_render_mode_raises_value_error_listing_modes():
    with pytest.raises(ValueError, match=r"\['human', 'rgb_array', 'ansi'\]"):
        TicTacToeEnv(render_mode="video")


def test_the_last_move_is_lastaction_and_a_tabular_state_is_s():
    env = gym.make("TicTacToe-v0", opponent=None).unwrapped
    env.reset(seed=0)
    env.step(4)
    assert env.lastaction == 4
    blackjack = gym.make("TabularBlackjack-v0").unwrapped
    s, _ = blackjack.reset(seed=0)
    assert blackjack.s == s


# ---- the winner of a draw ------------------------------------------------------------------------
# ``info["winner"]`` is 0, 1 or -1 for a draw, so Gymnasium's vector envs can stack it.
#
# A None for a draw beside an int for a win in the same step made Gymnasium's ``_add_info`` raise
# ``TypeError`` in sync and async mode.


# X completes 0-4-8 on the ninth move; the other sequence fills the board with no line (a draw).
WIN_SEQUENCE = [0, 1, 2, 3, 4, 5, 7, 6, 8]
DRAW_SEQUENCE = [0, 1, 2, 3, 4, 6, 5, 8, 7]


def _play_win_and_draw_side_by_side(envs: gym.vector.VectorEnv) -> dict:
    envs.reset(seed=0)
    info: dict = {}
    for a, b in zip(WIN_SEQUENCE, DRAW_SEQUENCE, strict=True):
        _, _, terminated, _, info = envs.step(np.array([a, b]))
    assert terminated.tolist() == [True, True]
    return info


@pytest.mark.parametrize("mode", ["sync", "async"])
def test_gymnasium_vector_envs_over_the_single_envs_stack_a_win_beside_a_draw(mode: str) -> None:
    envs = gym.make_vec("TicTacToe-v0", num_envs=2, vectorization_mode=mode, opponent=None)
    try:
        info = _play_win_and_draw_side_by_side(envs)
    finally:
        # A failed async step leaves the workers waiting; terminate them so a failure cannot hang the test.
        if mode == "async":
            envs.close(terminate=True)
        else:
            envs.close()
    assert info["winner"].tolist() == [0, -1]
    assert info["_winner"].tolist() == [True, True]


def test_native_vector_env_agrees_with_the_single_envs_on_a_win_and_a_draw() -> None:
    native = gym.make_vec("TicTacToe-v0", num_envs=2, opponent=None)
    info = _play_win_and_draw_side_by_side(native)
    assert info["winner"].tolist() == [0, -1] and info["_winner"].tolist() == [True, True]
    for sequence, expected in ((WIN_SEQUENCE, 0), (DRAW_SEQUENCE, -1)):
        env = gym.make("TicTacToe-v0", opponent=None)
        env.reset(seed=0)
        for move in sequence:
            _, _, terminated, _, single = env.step(move)
        assert terminated and single["winner"] == expected and env.unwrapped.winner == expected


def test_eight_sync_envs_against_alphabeta_run_through_autoresets() -> None:
    envs = gym.make_vec("TicTacToe-v0", num_envs=8, vectorization_mode="sync", opponent=AlphaBetaAgent(seed=0))
    envs.reset(seed=0)
    rng = np.random.default_rng(0)
    ended = 0
    for _ in range(30):
        masks = np.stack([env.unwrapped.action_masks() for env in envs.envs])
        actions = np.array([rng.choice(np.flatnonzero(m)) if m.any() else 0 for m in masks])
        _, _, terminated, _, info = envs.step(actions)
        if terminated.any():
            ended += int(terminated.sum())
            assert set(info["winner"][terminated].tolist()) <= {-1, 0, 1}
    envs.close()
    assert ended > 8  # many games ended, draws among them, and nothing crashed


def test_single_env_draw_is_minus_one_and_winner_is_none_only_while_the_game_goes_on() -> None:
    env = gym.make("TicTacToe-v0", opponent=None)
    env.reset(seed=0)
    assert env.unwrapped.winner is None
    for move in DRAW_SEQUENCE[:-1]:
        env.step(move)
        assert env.unwrapped.winner is None
    _, reward, terminated, _, info = env.step(DRAW_SEQUENCE[-1])
    assert terminated and reward == 0.0
    assert info["winner"] == -1 and type(info["winner"]) is int
    assert env.unwrapped.winner == -1
    assert env.unwrapped.status_text() == "Draw"
    env.reset()
    assert env.unwrapped.winner is None


def test_connectn_draw_is_minus_one() -> None:
    env = gym.make("ConnectN-v0", rows=1, cols=2, n=2, opponent=None)
    env.reset(seed=0)
    env.step(0)
    _, reward, terminated, _, info = env.step(1)  # the board is full, no line of two
    assert terminated and reward == 0.0 and info["winner"] == -1 == env.unwrapped.winner


def test_dots_draw_is_minus_one() -> None:
    env = gym.make("DotsAndBoxes-v0", rows=1, cols=2, opponent=None)
    env.reset(seed=0)
    game = env.unwrapped.game
    state = game.initial_state()
    found = None
    stack = [(state, [])]
    while stack and found is None:  # a depth-first search for a drawn game (7 edges: quick)
        state, moves = stack.pop()
        if game.is_terminal(state):
            if game.returns(state) == (0.0, 0.0):
                found = moves
            continue
        for action in game.legal_actions(state):
            stack.append((game.apply(state, action), [*moves, action]))
    assert found is not None
    for move in found:
        _, reward, terminated, _, info = env.step(move)
    assert terminated and info["winner"] == -1 and info["scores"] == [1, 1]


# ---- agent names as the opponent -----------------------------------------------------------------
# The board envs' ``opponent`` takes the agent names every script takes (``agents.factory.make_agent``).


def _play(env: gym.Env, seed: int, agent_seed: int) -> list[tuple]:
    """Play one episode with uniformly random agent moves; return the trace of observations and rewards."""
    rng = np.random.default_rng(agent_seed)
    obs, info = env.reset(seed=seed)
    trace = [obs.tobytes()]
    terminated = False
    while not terminated:
        action = int(rng.choice(np.flatnonzero(info["action_mask"])))
        obs, reward, terminated, _, info = env.step(action)
        trace.append((obs.tobytes(), reward))
    return trace


def test_alphabeta_by_name_never_loses_at_tictactoe() -> None:
    env = gym.make("TicTacToe-v0", opponent="alphabeta")
    rewards = [_play(env, seed, seed)[-1][1] for seed in range(4)]
    assert max(rewards) <= 0.0  # perfect play: the random agent never wins
    assert env.unwrapped.agent_player == 0


@pytest.mark.parametrize(
    ("env_id", "kwargs", "name"),
    [
        ("TicTacToe-v0", {}, "alphabeta:2"),
        ("TicTacToe-v0", {"agent_player": 1}, "mcts:20"),
        ("ConnectFour-v0", {}, "mcts:8"),
        ("ConnectN-v0", {"rows": 3, "cols": 4, "n": 3}, "alphabeta:3"),
        ("DotsAndBoxes-v0", {"rows": 2, "cols": 2}, "always4never3"),
        ("DotsAndBoxes-v0", {"rows": 1, "cols": 2}, "exact"),  # needs the game: the env passes it
        ("DotsAndBoxes-v0", {"rows": 2, "cols": 2}, "endgame:4"),
    ],
)
def test_named_opponents_play_whole_games(env_id: str, kwargs: dict, name: str) -> None:
    env = gym.make(env_id, opponent=name, **kwargs)
    trace = _play(env, 0, 0)
    assert len(trace) > 1


def test_a_named_opponent_is_reproducible_from_the_env_seed() -> None:
    first = gym.make("ConnectFour-v0", opponent="mcts:10")
    second = gym.make("ConnectFour-v0", opponent="mcts:10")
    assert _play(first, 7, 1) == _play(second, 7, 1)
    # The same seed again on the same env replays the same games, whatever was played in between.
    _play(first, 8, 2)
    assert _play(first, 7, 1) == _play(second, 7, 1)
    # A different seed changes the opponent's choices (MCTS breaks ties and rolls out from the seed).
    traces = {tuple(_play(first, seed, 1)) for seed in range(4)}
    assert len(traces) > 1


def test_random_stays_the_envs_own_np_random_opponent() -> None:
    env = gym.make("TicTacToe-v0", opponent="random")
    assert env.unwrapped._opponent_name == "random"
    assert "agents" not in type(env.unwrapped._opponent.__self__).__module__


@pytest.mark.parametrize("name", ["alphabeta:0", "mcts:x", "nonsense", "td:", "Random"])
def test_a_bad_name_lists_the_valid_opponents(name: str) -> None:
    with pytest.raises(ValueError, match=r"opponent") as caught:
        gym.make("TicTacToe-v0", opponent=name)
    message = str(caught.value)
    assert repr(name) in message
    for valid in ("'random'", "None", "alphabeta", "mcts", "td:FILE"):
        assert valid in message


def test_a_dots_bot_on_another_game_is_refused_with_the_valid_names() -> None:
    with pytest.raises(ValueError, match=r"Dots and Boxes.*alphabeta"):
        gym.make("TicTacToe-v0", opponent="always4never3")


def test_a_named_opponent_works_in_gymnasium_sync_vector_envs() -> None:
    envs = gym.make_vec("TicTacToe-v0", num_envs=3, vectorization_mode="sync", opponent="alphabeta")
    envs.reset(seed=0)
    agents_seen = {id(env.unwrapped._opponent.__self__) for env in envs.envs}
    assert len(agents_seen) == 3  # one agent per sub-env, not one object shared by all
    for _ in range(12):
        masks = np.stack([env.unwrapped.action_masks() for env in envs.envs])
        envs.step(np.array([int(np.flatnonzero(m)[0]) if m.any() else 0 for m in masks]))
    envs.close()


def test_importing_the_envs_and_a_random_opponent_never_import_agents() -> None:
    code = (
        "import sys, gymnasium as gym, gym_boardgames\n"
        "import gym_boardgames.envs.tictactoe, gym_boardgames.envs.connectn, gym_boardgames.envs.dots\n"
        "import gym_boardgames.vector.connect, gym_boardgames.vector.dots\n"
        "env = gym.make('TicTacToe-v0', opponent='random'); env.reset(seed=0); env.step(4)\n"
        "envs = gym.make_vec('TicTacToe-v0', num_envs=2); envs.reset(seed=0)\n"
        "print(sorted(m for m in sys.modules if m == 'agents' or m.startswith('agents.')))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_a_saved_td_player_by_name_and_its_file_errors_name_the_file(tmp_path) -> None:
    from agents.persistence import SavedFileError
    from agents.tabular.td import train_self_play
    from gym_boardgames.rules import TicTacToe

    agent = train_self_play(TicTacToe(), episodes=50, seed=0)
    agent = agent[0] if isinstance(agent, tuple) else agent
    path = tmp_path / "td.npz"
    agent.save(path)
    env = gym.make("TicTacToe-v0", opponent=f"td:{path}", agent_player=1)
    assert len(_play(env, 0, 0)) > 1
    with pytest.raises(SavedFileError, match=str(path)):
        gym.make("ConnectFour-v0", opponent=f"td:{path}")  # a tic-tac-toe table on another game
    with pytest.raises(FileNotFoundError):
        gym.make("TicTacToe-v0", opponent=f"td:{tmp_path / 'missing.npz'}")


def test_the_agent_factory_that_cannot_be_imported_says_what_may_shadow_it(monkeypatch) -> None:
    from gym_boardgames import opponents

    monkeypatch.setattr(opponents, "FACTORY", "agents.no_such_module")
    opponents._factory.cache_clear()
    try:
        with pytest.raises(ImportError, match=r"agent names need agents.no_such_module .*OpenAI Agents SDK"):
            gym.make("TicTacToe-v0", opponent="alphabeta")
    finally:
        opponents._factory.cache_clear()


def test_an_unknown_name_is_the_typed_unknown_agent_error_and_a_bad_parameter_is_not() -> None:
    from gym_boardgames.opponents import UnknownAgentError

    forms = (
        r"'random', None \(self-play\), an agent name \(random, alphabeta\[:DEPTH\], .*module:Class, file.py:Class\)"
    )
    with pytest.raises(UnknownAgentError, match=rf"^unknown opponent 'nonsense': use {forms}, an object with act"):
        gym.make("TicTacToe-v0", opponent="nonsense")
    with pytest.raises(ValueError, match=r"^bad opponent 'mcts:x'") as caught:
        gym.make("TicTacToe-v0", opponent="mcts:x")
    assert not isinstance(caught.value, UnknownAgentError)


class _Lowest:
    def act(self, game, state):
        return game.legal_actions(state)[0]


_BUILT: list = []


class _Counted(_Lowest):
    """A user's agent, named ``module:Class``; with ``reseed`` in the subclass."""

    def __init__(self, seed):
        _BUILT.append(seed)


class _Reseedable(_Counted):
    def reseed(self, seed):
        _BUILT.append(("reseed", seed))


@pytest.mark.parametrize("vector", [False, True])
def test_a_users_agent_with_reseed_is_built_once_and_one_without_is_built_at_every_seeded_reset(vector) -> None:
    for name, builds in (("_Reseedable", 1), ("_Counted", 4)):
        _BUILT.clear()
        spec = f"{__name__}:{name}"
        env = gym.make_vec("TicTacToe-v0", num_envs=2, opponent=spec) if vector else make(opponent=spec)
        for seed in (1, 2, None, 1):
            env.reset(seed=seed)
        assert sum(not isinstance(entry, tuple) for entry in _BUILT) == builds
        # Either way the agent's random state is the seed's own stream (a child of the seed apart from np_random).
        if builds == 1:
            seeded = [entry[1].random() for entry in _BUILT[1:]]
        else:
            seeded = _BUILT[1:]
            assert all(type(seed) is int for seed in seeded)  # a user's class gets an int seed
        assert len(seeded) == 3 and seeded[0] == seeded[2] != seeded[1]
