"""crew_phase's default training config. The pipeline itself (a tiny run with cloning, evaluation, export with
parity) runs on every ruleset in tests/training/test_pipeline.py."""

from naval_agents.training.config import load_train_config


def test_default_training_config_clones_the_breaker_then_decays_the_learning_rate():
    config = load_train_config("configs/train/crew_phase.yaml")
    assert config.scenario == "duel" and config.learner == "random"
    assert config.opponents.pool == ["breaker", "breaker", "gunner", "rammer"] and config.eval.opponent == "breaker"
    assert config.imitation.teacher == "breaker" and config.ppo.learning_rate_schedule == "linear"
