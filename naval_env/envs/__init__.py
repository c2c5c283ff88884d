"""Gymnasium and PettingZoo environments over any registered ruleset."""

from naval_env.envs import pickling  # noqa: F401 - registers what lets every env pickle
