"""Self-play wrapper: snapshots as opponents, and as allies when the learner commands a fleet."""

from __future__ import annotations

import pytest

pytest.importorskip("sb3_contrib")  # the [train] extra: without it this module is skipped

from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy

from naval_agents.captains.scripted.pantheon import GunnerCaptain
from naval_agents.training.selfplay import SelfPlayEnv, SnapshotCaptain
from naval_env.envs.gym_env import NavalEnv

pytestmark = pytest.mark.train


def add_snapshot(env: SelfPlayEnv, name: str) -> None:
    policy = MaskableActorCriticPolicy(env.observation_space, env.action_space, lambda _: 0.0)
    env.add_snapshot(policy.state_dict(), MaskableActorCriticPolicy, {}, name)


def squadron(allies_are_snapshots: bool) -> SelfPlayEnv:
    base = NavalEnv("pantheon", scenario="squadron", learner="red_0", opponent="gunner")
    return SelfPlayEnv(base, ["gunner"], snapshot_share=0.0, max_snapshots=2,
                       allies_are_snapshots=allies_are_snapshots)


def captains_by_side(env: SelfPlayEnv) -> tuple[set[str], set[str]]:
    base = env.unwrapped
    game = base.match.game
    allies = {type(c).__name__ for a, c in base.captains.items() if game.side_of(a) == "red"}
    enemies = {type(c).__name__ for a, c in base.captains.items() if game.side_of(a) != "red"}
    return allies, enemies


def test_allies_follow_the_newest_snapshot_and_enemies_stay_anchors():
    env = squadron(allies_are_snapshots=True)
    env.reset(seed=1)
    assert captains_by_side(env) == ({GunnerCaptain.__name__}, {GunnerCaptain.__name__})
    add_snapshot(env, "snapshot1")
    add_snapshot(env, "snapshot2")
    env.reset(seed=2)
    allies, enemies = captains_by_side(env)
    assert allies == {SnapshotCaptain.__name__} and enemies == {GunnerCaptain.__name__}
    names = {c.name for a, c in env.unwrapped.captains.items() if env.unwrapped.match.game.side_of(a) == "red"}
    assert names == {"snapshot2"}
    _, _, terminated, truncated, _ = env.step(env.action_space.sample())
    assert isinstance(terminated, bool) and isinstance(truncated, bool)


def test_allies_stay_with_the_opponent_captain_by_default():
    env = squadron(allies_are_snapshots=False)
    add_snapshot(env, "snapshot1")
    env.reset(seed=3)
    assert captains_by_side(env) == ({GunnerCaptain.__name__}, {GunnerCaptain.__name__})
