"""`crew_phase`: 5e-style ship combat with a Character Phase and a Ship Phase
(../shared/seeds/001_24a27e25055821a4.txt, in Spanish). Rules page: docs/rules/crew_phase.md."""

from __future__ import annotations

from naval_env.core.hooks import RulesetHooks
from naval_env.core.ruleset import PackagedRuleset, register
from naval_env.rulesets.crew_phase.actions import build_actions
from naval_env.rulesets.crew_phase.config import load_config
from naval_env.rulesets.crew_phase.engine import CrewPhaseGame
from naval_env.rulesets.crew_phase.events import CATALOG
from naval_env.rulesets.crew_phase.observer import observation_spec
from naval_env.rulesets.crew_phase.position import CrewPhasePositions
from naval_env.rulesets.pettingzoo import pettingzoo_factories

RULESET = register(PackagedRuleset(
    id="crew_phase", gym_name="CrewPhase", version="1.0", events=CATALOG,
    positions=CrewPhasePositions(), read_config=load_config, build_actions=build_actions,
    build_observations=observation_spec, game=CrewPhaseGame,
    # the strongest scripted captain: docs/rules/crew_phase.md, "breaker is the strongest scripted captain"
    hooks=RulesetHooks.of_package(__name__, strongest_scripted="breaker")))

env, parallel_env = pettingzoo_factories("crew_phase")
