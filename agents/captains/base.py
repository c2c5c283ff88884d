"""The captain interface, defined under the environments in :mod:`naval_env.core.captain` (the envs play
captains and may not import ``agents``); re-exported here, where the captains are written."""

from naval_env.core.captain import Captain, Decision, RandomCaptain, masked_argmax

__all__ = ["Captain", "Decision", "RandomCaptain", "masked_argmax"]
