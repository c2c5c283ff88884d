"""`broadside`: miniatures naval combat in inches (../shared/seeds/004_3729a42ba5f50e22.txt). Rules
page: docs/rules/broadside.md."""

from __future__ import annotations

from naval_env.core.hooks import RulesetHooks
from naval_env.core.ruleset import PackagedRuleset, register
from naval_env.rulesets.broadside.actions import build_actions
from naval_env.rulesets.broadside.config import load_config
from naval_env.rulesets.broadside.engine import BroadsideGame
from naval_env.rulesets.broadside.events import CATALOG
from naval_env.rulesets.broadside.observer import observation_spec
from naval_env.rulesets.broadside.position import BroadsidePositions
from naval_env.rulesets.pettingzoo import pettingzoo_factories

RULESET = register(PackagedRuleset(
    id="broadside", gym_name="Broadside", version="1.0", events=CATALOG,
    positions=BroadsidePositions(), read_config=load_config, build_actions=build_actions,
    build_observations=observation_spec, game=BroadsideGame,
    # the strongest scripted captain: docs/rules/broadside.md, "trained vs gunner (strongest)"
    hooks=RulesetHooks.of_package(__name__, strongest_scripted="gunner")))

env, parallel_env = pettingzoo_factories("broadside")
