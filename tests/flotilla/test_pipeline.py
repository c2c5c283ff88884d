"""flotilla's default training config. The pipeline itself (a tiny run, evaluation, export with parity) runs on
every ruleset in tests/training/test_pipeline.py."""

from __future__ import annotations

from naval_agents.training.config import load_train_config
from naval_env.envs.match import Match


def test_default_run_config_clones_the_tactician_then_plays_the_whole_field_on_both_sides():
    config = load_train_config("configs/train/flotilla.yaml")
    assert config.scenario == "duel" and config.learner == "random"
    assert config.opponents.mode == "pool"
    assert config.opponents.pool == ["tactician", "tactician", "boarder", "gunner"]
    assert config.eval.opponent == "tactician"   # the strongest scripted captain
    assert config.imitation.teacher == "tactician" and config.ppo.learning_rate_schedule == "linear"


def test_a_learned_captain_decides_reactions_too():
    """Reactions to attacks are a component of the policy's action, so an exported captain answers them."""
    names = [c.name for c in Match("flotilla", scenario="duel").action_spec.components]
    assert names == ["facing", "maneuver", "target", "mage_target", "boarding", "reaction"]
