"""`crew_phase`: 5e-style ship combat with a Character Phase and a Ship Phase
(../shared/seeds/001_24a27e25055821a4.txt, in Spanish).

Rules page: docs/rules/crew_phase.md. Environments: ``gymnasium.make("naval/CrewPhase-v0")``,
and the PettingZoo factories :func:`env` (AEC) and :func:`parallel_env`.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from naval_env.core.cache import PerObjectCache
from naval_env.core.dice import Dice
from naval_env.core.ruleset import Ruleset, register
from naval_env.core.spaces import ActionSpec, ObservationSpec
from naval_env.rulesets.crew_phase.actions import CrewPhaseActions, build_actions
from naval_env.rulesets.crew_phase.config import CrewPhaseConfig, Rewards, load_config
from naval_env.rulesets.crew_phase.engine import CrewPhaseGame
from naval_env.rulesets.crew_phase.events import CATALOG
from naval_env.rulesets.crew_phase.observer import observation_spec
from naval_env.rulesets.crew_phase.position import CrewPhasePositions


class CrewPhaseRuleset(Ruleset):
    id = "crew_phase"
    gym_name = "CrewPhase"
    version = "1.0"
    events = CATALOG
    positions = CrewPhasePositions()

    def load_config(self, path: str | Path | None = None) -> CrewPhaseConfig:
        return load_config(path)

    def new_game(self, config: CrewPhaseConfig, scenario: str | None = None, *, seed: int | None = None,
                 dice: Dice | None = None) -> CrewPhaseGame:
        actions, observations = _specs(config)
        return CrewPhaseGame(config, scenario, dice if dice is not None else Dice(seed), actions, observations)

    def action_spec(self, config: CrewPhaseConfig) -> ActionSpec:
        return _specs(config)[0].spec

    def observation_spec(self, config: CrewPhaseConfig) -> ObservationSpec:
        return _specs(config)[1]

    def scenarios(self, config: CrewPhaseConfig) -> list[str]:
        return list(config.scenarios)

    def rewards(self, config: CrewPhaseConfig) -> Rewards:
        return config.rewards


def _build_specs(config: CrewPhaseConfig) -> tuple[CrewPhaseActions, ObservationSpec]:
    """Action tables and the observation spec are fixed per config and costly to build: keep one each."""
    return build_actions(config), observation_spec(config)


#: Kept while the config object lives (an env made and dropped leaves nothing behind).
_specs = PerObjectCache(_build_specs)


RULESET = register(CrewPhaseRuleset())


def env(**kwargs: Any) -> Any:
    """PettingZoo AEC environment: one agent per ship captain, deciding in the rules' order."""
    from naval_env.envs.pettingzoo_env import aec_env

    return aec_env("crew_phase", **kwargs)


def parallel_env(**kwargs: Any) -> Any:
    """PettingZoo parallel environment (each step carries the one captain whose decision it is)."""
    from naval_env.envs.pettingzoo_env import NavalParallelEnv

    return NavalParallelEnv(ruleset="crew_phase", **kwargs)
