"""`pursuit`: naval movement and combat with d20 chase maneuvers (../shared/seeds/000_ab9df10dd4bcfefc.txt).

Rules page: docs/rules/pursuit.md. Environments: ``gymnasium.make("naval/Pursuit-v0")``,
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
from naval_env.rulesets.pursuit.actions import PursuitActions, build_actions
from naval_env.rulesets.pursuit.config import PursuitConfig, load_config
from naval_env.rulesets.pursuit.engine import PursuitGame
from naval_env.rulesets.pursuit.events import CATALOG
from naval_env.rulesets.pursuit.observer import observation_spec
from naval_env.rulesets.pursuit.position import PursuitPositions


class PursuitRuleset(Ruleset):
    id = "pursuit"
    gym_name = "Pursuit"
    version = "1.0"
    events = CATALOG
    positions = PursuitPositions()

    def load_config(self, path: str | Path | None = None) -> PursuitConfig:
        return load_config(path)

    def new_game(self, config: PursuitConfig, scenario: str | None = None, *, seed: int | None = None,
                 dice: Dice | None = None) -> PursuitGame:
        actions, observations = _specs(config)
        return PursuitGame(config, scenario, dice if dice is not None else Dice(seed), actions, observations)

    def action_spec(self, config: PursuitConfig) -> ActionSpec:
        return _specs(config)[0].spec

    def observation_spec(self, config: PursuitConfig) -> ObservationSpec:
        return _specs(config)[1]

    def scenarios(self, config: PursuitConfig) -> list[str]:
        return list(config.scenarios)

    def rewards(self, config: PursuitConfig) -> Rewards:
        return config.rewards


def _build_specs(config: PursuitConfig) -> tuple[PursuitActions, ObservationSpec]:
    """Action tables and the observation spec are fixed per config: build them once each."""
    return build_actions(config), observation_spec(config)


#: Kept while the config object lives (an env made and dropped leaves nothing behind).
_specs = PerObjectCache(_build_specs)


RULESET = register(PursuitRuleset())


def env(**kwargs: Any) -> Any:
    """PettingZoo AEC environment: one agent per ship captain, in the round order."""
    from naval_env.envs.pettingzoo_env import aec_env

    return aec_env("pursuit", **kwargs)


def parallel_env(**kwargs: Any) -> Any:
    """PettingZoo parallel environment (each step carries the one captain whose decision it is)."""
    from naval_env.envs.pettingzoo_env import NavalParallelEnv

    return NavalParallelEnv(ruleset="pursuit", **kwargs)
