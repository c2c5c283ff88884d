"""`pantheon`: VOD: Pantheon naval combat (../shared/seeds/002_826e153209e3ae75.txt).

Rules page: docs/rules/pantheon.md. Environments: ``gymnasium.make("naval/Pantheon-v0")``,
and the PettingZoo factories :func:`env` (AEC) and :func:`parallel_env`.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from naval_env.core.cache import PerObjectCache
from naval_env.core.dice import Dice
from naval_env.core.ruleset import Ruleset, register
from naval_env.core.spaces import ActionSpec, ObservationSpec
from naval_env.rulesets.pantheon.actions import PantheonActions, build_actions
from naval_env.rulesets.pantheon.config import PantheonConfig, Rewards, load_config
from naval_env.rulesets.pantheon.engine import PantheonGame
from naval_env.rulesets.pantheon.events import CATALOG
from naval_env.rulesets.pantheon.observer import observation_spec
from naval_env.rulesets.pantheon.position import PantheonPositions


class PantheonRuleset(Ruleset):
    id = "pantheon"
    gym_name = "Pantheon"
    version = "1.0"
    events = CATALOG
    positions = PantheonPositions()

    def load_config(self, path: str | Path | None = None) -> PantheonConfig:
        return load_config(path)

    def new_game(self, config: PantheonConfig, scenario: str | None = None, *, seed: int | None = None,
                 dice: Dice | None = None) -> PantheonGame:
        actions, observations = _specs(config)
        return PantheonGame(config, scenario, dice if dice is not None else Dice(seed), actions, observations)

    def action_spec(self, config: PantheonConfig) -> ActionSpec:
        return _specs(config)[0].spec

    def observation_spec(self, config: PantheonConfig) -> ObservationSpec:
        return _specs(config)[1]

    def scenarios(self, config: PantheonConfig) -> list[str]:
        return list(config.scenarios)

    def rewards(self, config: PantheonConfig) -> Rewards:
        return config.rewards


def _build_specs(config: PantheonConfig) -> tuple[PantheonActions, ObservationSpec]:
    """Action tables and the observation spec are fixed per config and costly to build: keep one each."""
    return build_actions(config), observation_spec(config)


#: Kept while the config object lives (an env made and dropped leaves nothing behind).
_specs = PerObjectCache(_build_specs)


RULESET = register(PantheonRuleset())


def env(**kwargs: Any) -> Any:
    """PettingZoo AEC environment: one agent per ship captain, acting in initiative order."""
    from naval_env.envs.pettingzoo_env import aec_env

    return aec_env("pantheon", **kwargs)


def parallel_env(**kwargs: Any) -> Any:
    """PettingZoo parallel environment (each step carries the one captain whose decision it is)."""
    from naval_env.envs.pettingzoo_env import NavalParallelEnv

    return NavalParallelEnv(ruleset="pantheon", **kwargs)
