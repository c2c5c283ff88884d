"""`skirmish`: a toy sixth ruleset, the template for adding one from a single folder.

Two sides (red, blue) of one or two boats on a track of cells; each turn the boat to act may fire at an
enemy in range (a d6 of ``hit_roll`` or more removes one hull; at 0 it sinks) and then moves one cell back
or ahead, or holds. A side with no boat afloat loses; the round limit ends it in a draw. ``engine.py``
states the rules; ``skirmish.yaml`` beside this file is its config.

Importing this package registers nothing: it offers :data:`RULESET`, and the caller registers it (and
can take it back, as a test must)::

    import naval_env, skirmish
    naval_env.register_ruleset(skirmish.RULESET)     # gym.make("naval/Skirmish-v0"), captains, server, viewer
    ...
    naval_env.unregister_ruleset("skirmish")

examples/ruleset_template/README.md says how to copy it into a ruleset of your own.
"""

from __future__ import annotations

from naval_env.core.hooks import RulesetHooks
from naval_env.core.ruleset import PackagedRuleset
from naval_env.rulesets.pettingzoo import pettingzoo_factories

from .actions import SkirmishActions, build_actions
from .config import SkirmishConfig, load_config
from .engine import SkirmishGame
from .events import CATALOG
from .observer import observation_spec
from .position import SkirmishPositions

RULESET: PackagedRuleset[SkirmishConfig, SkirmishActions, SkirmishGame] = PackagedRuleset(
    id="skirmish", gym_name="Skirmish", version="1.0", events=CATALOG,
    positions=SkirmishPositions(), read_config=load_config, build_actions=build_actions,
    build_observations=observation_spec, game=SkirmishGame,
    hooks=RulesetHooks.of_package(__name__, strongest_scripted="closer"))

#: PettingZoo factories, ``env()`` (AEC) and ``parallel_env()``: they work once :data:`RULESET` is registered.
env, parallel_env = pettingzoo_factories("skirmish")

__all__ = ["RULESET", "env", "parallel_env"]
