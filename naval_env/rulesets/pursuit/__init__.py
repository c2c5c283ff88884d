"""`pursuit`: naval movement and combat with d20 chase maneuvers
(../shared/seeds/000_ab9df10dd4bcfefc.txt). Rules page: docs/rules/pursuit.md."""

from __future__ import annotations

from naval_env.core.hooks import RulesetHooks
from naval_env.core.ruleset import PackagedRuleset, register
from naval_env.rulesets.pettingzoo import pettingzoo_factories
from naval_env.rulesets.pursuit.actions import build_actions
from naval_env.rulesets.pursuit.config import load_config
from naval_env.rulesets.pursuit.engine import PursuitGame
from naval_env.rulesets.pursuit.events import CATALOG
from naval_env.rulesets.pursuit.observer import observation_spec
from naval_env.rulesets.pursuit.position import PursuitPositions

RULESET = register(PackagedRuleset(
    id="pursuit", gym_name="Pursuit", version="1.0", events=CATALOG, positions=PursuitPositions(),
    read_config=load_config, build_actions=build_actions, build_observations=observation_spec,
    game=PursuitGame,
    # the strongest scripted captain: docs/rules/pursuit.md, "hunter (the strongest scripted captain)"
    hooks=RulesetHooks.of_package(__name__, strongest_scripted="hunter")))

env, parallel_env = pettingzoo_factories("pursuit")
