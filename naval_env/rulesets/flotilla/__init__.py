"""`flotilla`: point-built fleets on a 15 x 15 map (../shared/seeds/003_eda2a0c3eaa302fe.txt, in Spanish).

Rules page: docs/rules/flotilla.md. Environments: ``gymnasium.make("naval/Flotilla-v0")``,
and the PettingZoo factories :func:`env` (AEC) and :func:`parallel_env`.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from naval_env.core.cache import PerObjectCache
from naval_env.core.dice import Dice
from naval_env.core.rewards import Rewards
from naval_env.core.ruleset import Ruleset, register
from naval_env.core.spaces import ActionSpec, ObservationSpec
from naval_env.rulesets.flotilla.actions import FlotillaActions, build_actions
from naval_env.rulesets.flotilla.config import FlotillaConfig, load_config
from naval_env.rulesets.flotilla.engine import FlotillaGame
from naval_env.rulesets.flotilla.events import CATALOG
from naval_env.rulesets.flotilla.observer import observation_spec
from naval_env.rulesets.flotilla.position import FlotillaPositions


class FlotillaRuleset(Ruleset):
    id = "flotilla"
    gym_name = "Flotilla"
    version = "1.1"  # 1.1: a won dodge costs the attacker 1 cohesion (the seed's rule) by default
    events = CATALOG
    positions = FlotillaPositions()

    def load_config(self, path: str | Path | None = None) -> FlotillaConfig:
        return load_config(path)

    def new_game(self, config: FlotillaConfig, scenario: str | None = None, *, seed: int | None = None,
                 dice: Dice | None = None) -> FlotillaGame:
        actions, observations = _specs(config)
        return FlotillaGame(config, scenario, dice if dice is not None else Dice(seed), actions, observations)

    def action_spec(self, config: FlotillaConfig) -> ActionSpec:
        return _specs(config)[0].spec

    def observation_spec(self, config: FlotillaConfig) -> ObservationSpec:
        return _specs(config)[1]

    def scenarios(self, config: FlotillaConfig) -> list[str]:
        return list(config.scenarios)

    def rewards(self, config: FlotillaConfig) -> Rewards:
        return config.rewards


def _build_specs(config: FlotillaConfig) -> tuple[FlotillaActions, ObservationSpec]:
    """Action tables and the observation spec are fixed per config: keep one of each."""
    return build_actions(config), observation_spec(config)


#: Kept while the config object lives (an env made and dropped leaves nothing behind).
_specs = PerObjectCache(_build_specs)


RULESET = register(FlotillaRuleset())


def env(**kwargs: Any) -> Any:
    """PettingZoo AEC environment: one agent per ship captain, acting in initiative order."""
    from naval_env.envs.pettingzoo_env import aec_env

    return aec_env("flotilla", **kwargs)


def parallel_env(**kwargs: Any) -> Any:
    """PettingZoo parallel environment (each step carries the one captain whose decision it is)."""
    from naval_env.envs.pettingzoo_env import NavalParallelEnv

    return NavalParallelEnv(ruleset="flotilla", **kwargs)
