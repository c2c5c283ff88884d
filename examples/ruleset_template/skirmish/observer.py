"""One captain's view of a `skirmish` battle: a float32 vector of named slices.

Cells are counted in the observer's own ``ahead`` direction (toward the enemy's end), so red and
blue captains see mirror images of the same situation. Enemy blocks come in target-slot order.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from naval_env.core.spaces import ObservationField as F
from naval_env.core.spaces import ObservationSpec, group_fields

from .config import SkirmishConfig
from .state import Boat

if TYPE_CHECKING:
    from .engine import SkirmishGame

#: (name, unit, meaning) of each one-value field; the unit sets the scale: "flag" 1, "cells" 1 / track
#: length, "hull" 1 / full hull, "round" 1 / the round limit (every value lies in [-1, 1]).
SELF_FIELDS = (
    ("to_act", "flag", "1 if this captain holds the decision now"),
    ("behind", "cells", "cells from the boat to the end of the track behind it"),
    ("ahead", "cells", "cells from the boat to the end of the track ahead of it"),
    ("hull", "hull", "hull left (hits it can still take before it sinks)"),
    ("round", "round", "round number (1 in the first round)"),
)
OTHER_FIELDS = (
    ("present", "flag", "1 if this slot holds a boat afloat"),
    ("offset", "cells", "its cell minus the observer's, counted ahead (negative: behind the observer)"),
    ("in_range", "flag", "1 if the observer can fire at it (within house_rules.fire_range)"),
    ("hull", "hull", "its hull left"),
)


def _fields(rows: tuple[tuple[str, str, str], ...], config: SkirmishConfig) -> list[F]:
    rules = config.house_rules
    scale = {"flag": 1.0, "cells": 1 / rules.track_length, "hull": 1 / rules.hull, "round": 1 / rules.max_rounds}
    return [F(name, 1, scale[unit], meaning) for name, unit, meaning in rows]


def observation_spec(config: SkirmishConfig) -> ObservationSpec:
    n = config.house_rules.max_ships_per_side
    others = _fields(OTHER_FIELDS, config)
    return ObservationSpec(tuple(
        [F(f"self.{f.name}", f.size, f.scale, f.description) for f in _fields(SELF_FIELDS, config)]
        + group_fields("ally", n - 1, others)
        + group_fields("enemy", n, others)
    ))


def observe(game: SkirmishGame, agent: str) -> np.ndarray:
    rules, state = game.rules, game.state
    me = state.ships[agent]
    cells = 1 / rules.track_length
    last = rules.track_length - 1
    behind, ahead = (me.cell, last - me.cell) if me.ahead > 0 else (last - me.cell, me.cell)
    out = [float(game.current_agent == agent), behind * cells, ahead * cells, me.hull / rules.hull,
           state.round / rules.max_rounds]
    n = rules.max_ships_per_side
    for group, size in ((game.allies_of(me), n - 1), (game.enemies_of(me), n)):
        for slot in range(size):
            other: Boat | None = group[slot] if slot < len(group) else None
            if other is None or not other.status.fighting:
                out += [0.0] * len(OTHER_FIELDS)
                continue
            offset = (other.cell - me.cell) * me.ahead
            out += [1.0, offset * cells, float(abs(offset) <= rules.fire_range), other.hull / rules.hull]
    return np.asarray(out, dtype=np.float32)
