"""The tactics atlas: every scripted and shipped trained captain in every scenario of every ruleset.

``naval-tactics atlas`` is the command line; the work is importable, one concept per module:

- :mod:`.plan`: the settings, and which captains play which scenarios (read from the registry and the zoo);
- :mod:`.play`: the games, through the tournament machinery (local processes or Ray);
- :mod:`.measure`: win-rate matrices, side advantage, mirror matches and game lengths, with intervals;
- :mod:`.reading`: the plain-language claims, each made only where its numbers support it;
- :mod:`.figures` and :mod:`.markdown`: ``docs/atlas.md`` and its pictures;
- :mod:`.build`: all of it, end to end (:func:`make_atlas`).
"""

from naval_agents.atlas.plan import AtlasError, AtlasSettings, ScenarioPlan, plan_atlas

__all__ = ["AtlasError", "AtlasSettings", "ScenarioPlan", "plan_atlas"]
