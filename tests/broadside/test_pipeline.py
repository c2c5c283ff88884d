"""broadside's default training config. The pipeline itself (a tiny run with cloning, evaluation, export with
parity) runs on every ruleset in tests/training/test_pipeline.py."""

from naval_agents.training.config import load_train_config


def test_default_training_config_weights_the_galley_and_clones_a_teacher_per_side():
    config = load_train_config("configs/train/broadside.yaml")
    assert config.scenario == "galley_vs_sailing_ship"
    assert set(config.opponents.pool) == {"gunner", "rammer"}
    # The galley (red_0) is weighted, the sailing ship still played; each side cloned from its own teacher.
    assert set(config.learner) == {"red_0", "blue_0"} and config.learner.count("red_0") > config.learner.count("blue_0")
    assert config.imitation.teacher == {"red": "rammer", "blue": "gunner"}
