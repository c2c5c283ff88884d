"""`flotilla`: point-built fleets on a 15 x 15 map (../shared/seeds/003_eda2a0c3eaa302fe.txt, in
Spanish). Rules page: docs/rules/flotilla.md."""

from __future__ import annotations

from naval_env.core.hooks import RulesetHooks
from naval_env.core.ruleset import PackagedRuleset, register
from naval_env.rulesets.flotilla.actions import build_actions
from naval_env.rulesets.flotilla.config import load_config
from naval_env.rulesets.flotilla.engine import FlotillaGame
from naval_env.rulesets.flotilla.events import CATALOG
from naval_env.rulesets.flotilla.observer import observation_spec
from naval_env.rulesets.flotilla.position import FlotillaPositions
from naval_env.rulesets.pettingzoo import pettingzoo_factories

# version 1.1: a won dodge costs the attacker 1 cohesion (the seed's rule) by default
RULESET = register(PackagedRuleset(
    id="flotilla", gym_name="Flotilla", version="1.1", events=CATALOG,
    positions=FlotillaPositions(), read_config=load_config, build_actions=build_actions,
    build_observations=observation_spec, game=FlotillaGame,
    # the strongest scripted captain: docs/rules/flotilla.md, "tactician, the strongest scripted captain"
    hooks=RulesetHooks.of_package(__name__, strongest_scripted="tactician")))

env, parallel_env = pettingzoo_factories("flotilla")
