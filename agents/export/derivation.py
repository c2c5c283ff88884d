"""Words for the sidecar: how every observation field is derived, for apps that rebuild the vector.

The field table (name, offset, size, scale, description) comes from the ruleset's
``ObservationSpec``; this module adds what the table cannot say field by field: whose
view it is, the order of the slots, what a block of zeros means, the ruleset's own paragraph
and a link to its rules page. Every group of fields a ruleset's spec has (``self``, ``allyK``,
``enemyK``, ``machineK``, ...) must be described in the notes the ruleset ships (``OBSERVATION``
in its ``words.py``, read through its hooks), so a new group cannot ship undescribed
(:func:`describe_observation` refuses it).

Never imports torch or the engines' internals: only the spec and the ruleset id.
"""

from __future__ import annotations

import re
from typing import Any

from naval_env.core.hooks import hooks_of
from naval_env.core.spaces import ObservationSpec

RULES_PAGE = "docs/rules/{id}.md"

PERSPECTIVE = (
    "Every observation is the view of one captain, the seat it is computed for (the position's decider "
    "when a move is asked for): the 'self.' fields describe that captain's own ship, then come the "
    "ruleset's own-ship sub-blocks (if any), then its allies, then its enemies, then fixed features of "
    "the board (if any). Relative values (offsets, bearings, facings, arcs) are measured from the "
    "seat's ship; 'in the observer's frame' means projected on its heading: ahead, then to starboard."
)
SLOT_ORDER = (
    "Ships fill slots in the order the position lists them ('ships'), the seat's own ship skipped: "
    "allyK is the K-th other ship of its own side, enemyK the K-th ship of the other sides. Enemy slot "
    "K is target slot K of the action components (labels '...@enemyK'). A ship keeps its slot for the "
    "whole game, sunk or not. Slot counts come from the config (house_rules.max_ships_per_side: "
    "n - 1 ally and n enemy slots), so one captain fits every scenario."
)
SCALE = (
    "stored value = raw value * scale (the field's 'scale'; divide to get the raw units its "
    "description names). One-hot blocks and 0/1 flags have scale 1. Values are float32, computed "
    "in float64 and cast once at the end."
)
ZERO_BLOCKS = (
    "A block of zeros means nothing is there to describe: a slot beyond the ships (or machines, crew, "
    "weapons, icebergs) the scenario has, a ship that has left the board, or a block that only "
    "applies while the seat holds a particular decision. 'self.phase' is all zeros when the seat "
    "does not hold the decision. The groups below say what zeros mean in each."
)

_GROUP = re.compile(r"^([A-Za-z_]+?)(\d*)\.")


class DescriptionError(ValueError):
    """A ruleset's observation has a group (or the ruleset has no notes) its notes do not describe."""


def group_of(field_name: str) -> tuple[str, int | None]:
    """``("enemy", 2)`` for ``enemy2.offset``, ``("self", None)`` for ``self.phase``."""
    match = _GROUP.match(field_name)
    if match is None:
        return field_name, None
    return match.group(1), int(match.group(2)) if match.group(2) else None


def field_at(spec: ObservationSpec, index: int) -> tuple[str, int]:
    """The field holding element ``index`` of the vector and the element's index inside that field."""
    for f in spec.fields:
        start = spec.offsets[f.name]
        if start <= index < start + f.size:
            return f.name, index - start
    raise IndexError(f"element {index} is past the observation's {spec.size} values")


def describe_observation(ruleset_id: str, spec: ObservationSpec) -> dict[str, Any]:
    """The sidecar's ``observation.derivation``: perspective, slot order, scale, zero blocks, groups, the
    ruleset's paragraph and its rules page. Raises :class:`DescriptionError` for an undescribed group."""
    notes = hooks_of(ruleset_id).observation_notes()
    if notes is None:
        raise DescriptionError(f"ruleset {ruleset_id!r} ships no observation notes (OBSERVATION in its words.py; "
                               "naval_env/core/hooks.py lists a ruleset's hooks)")
    groups: list[dict[str, Any]] = []
    by_name: dict[str, dict[str, Any]] = {}
    for f in spec.fields:
        name, slot = group_of(f.name)
        entry = by_name.get(name)
        if entry is None:
            meaning = notes.groups.get(name)
            if meaning is None:
                raise DescriptionError(
                    f"ruleset {ruleset_id!r}: observation group {name!r} (field {f.name!r}) is not described "
                    f"in the ruleset's OBSERVATION notes (words.py); described groups: {sorted(notes.groups)}")
            entry = {"group": name, "offset": spec.offsets[f.name], "size": 0, "slots": 0, "fields": [],
                     "meaning": meaning}
            by_name[name] = entry
            groups.append(entry)
        entry["size"] += f.size
        if slot is None or slot == 0:
            entry["fields"].append(f.name.split(".", 1)[1] if "." in f.name else f.name)
        entry["slots"] = max(entry["slots"], 1 if slot is None else slot + 1)
    return {
        "perspective": PERSPECTIVE,
        "slot_order": SLOT_ORDER,
        "scale": SCALE,
        "zero_blocks": ZERO_BLOCKS,
        "ruleset": notes.paragraph,
        "groups": groups,
        "rules_page": RULES_PAGE.format(id=ruleset_id),
    }
