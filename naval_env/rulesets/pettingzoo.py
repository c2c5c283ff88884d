"""The PettingZoo factories each ruleset package offers, ``env()`` (AEC) and ``parallel_env()``, as
``pettingzoo.classic.tictactoe_v3`` does. The envs are imported only when a factory is called, after
they are importable (they stand a layer above the rulesets)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any


def pettingzoo_factories(ruleset_id: str) -> tuple[Callable[..., Any], Callable[..., Any]]:
    """``(env, parallel_env)`` for ``ruleset_id``: one agent per ship captain, deciding in the rules' order."""

    def env(**kwargs: Any) -> Any:
        """PettingZoo AEC environment: one agent per ship captain, deciding in the rules' order."""
        from naval_env.envs.pettingzoo_env import aec_env

        return aec_env(ruleset_id, **kwargs)

    def parallel_env(**kwargs: Any) -> Any:
        """PettingZoo parallel environment (each step carries the one captain whose decision it is)."""
        from naval_env.envs.pettingzoo_env import NavalParallelEnv

        return NavalParallelEnv(ruleset=ruleset_id, **kwargs)

    return env, parallel_env
