"""`broadside`: miniatures naval combat in inches (../shared/seeds/004_3729a42ba5f50e22.txt).

Rules page: docs/rules/broadside.md. Environments: ``gymnasium.make("naval/Broadside-v0")``,
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
from naval_env.rulesets.broadside.actions import BroadsideActions, build_actions
from naval_env.rulesets.broadside.config import BroadsideConfig, load_config
from naval_env.rulesets.broadside.engine import BroadsideGame
from naval_env.rulesets.broadside.events import CATALOG
from naval_env.rulesets.broadside.observer import observation_spec
from naval_env.rulesets.broadside.position import BroadsidePositions


class BroadsideRuleset(Ruleset):
    id = "broadside"
    gym_name = "Broadside"
    version = "1.0"
    events = CATALOG
    positions = BroadsidePositions()

    def load_config(self, path: str | Path | None = None) -> BroadsideConfig:
        return load_config(path)

    def new_game(self, config: BroadsideConfig, scenario: str | None = None, *, seed: int | None = None,
                 dice: Dice | None = None) -> BroadsideGame:
        actions, observations = _specs(config)
        return BroadsideGame(config, scenario, dice if dice is not None else Dice(seed), actions, observations)

    def action_spec(self, config: BroadsideConfig) -> ActionSpec:
        return _specs(config)[0].spec

    def observation_spec(self, config: BroadsideConfig) -> ObservationSpec:
        return _specs(config)[1]

    def scenarios(self, config: BroadsideConfig) -> list[str]:
        return list(config.scenarios)

    def rewards(self, config: BroadsideConfig) -> Rewards:
        return config.rewards


def _build_specs(config: BroadsideConfig) -> tuple[BroadsideActions, ObservationSpec]:
    """Action tables and the observation spec are fixed per config: build them once each."""
    return build_actions(config), observation_spec(config)


#: Kept while the config object lives (an env made and dropped leaves nothing behind).
_specs = PerObjectCache(_build_specs)


RULESET = register(BroadsideRuleset())


def env(**kwargs: Any) -> Any:
    """PettingZoo AEC environment: one agent per ship captain, in the order the rules give decisions."""
    from naval_env.envs.pettingzoo_env import aec_env

    return aec_env("broadside", **kwargs)


def parallel_env(**kwargs: Any) -> Any:
    """PettingZoo parallel environment (each step carries the one captain whose decision it is)."""
    from naval_env.envs.pettingzoo_env import NavalParallelEnv

    return NavalParallelEnv(ruleset="broadside", **kwargs)
