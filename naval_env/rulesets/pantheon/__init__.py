"""`pantheon`: VOD: Pantheon naval combat (../shared/seeds/002_826e153209e3ae75.txt). Rules page:
docs/rules/pantheon.md."""

from __future__ import annotations

from naval_env.core.hooks import RulesetHooks
from naval_env.core.ruleset import PackagedRuleset, register
from naval_env.rulesets.pantheon.actions import build_actions
from naval_env.rulesets.pantheon.config import load_config
from naval_env.rulesets.pantheon.engine import PantheonGame
from naval_env.rulesets.pantheon.events import CATALOG
from naval_env.rulesets.pantheon.observer import observation_spec
from naval_env.rulesets.pantheon.position import PantheonPositions
from naval_env.rulesets.pettingzoo import pettingzoo_factories

RULESET = register(PackagedRuleset(
    id="pantheon", gym_name="Pantheon", version="1.0", events=CATALOG,
    positions=PantheonPositions(), read_config=load_config, build_actions=build_actions,
    build_observations=observation_spec, game=PantheonGame,
    # the strongest scripted captain: configs/train/pantheon.yaml evaluates against it
    hooks=RulesetHooks.of_package(__name__, strongest_scripted="gunner")))

env, parallel_env = pettingzoo_factories("pantheon")
