"""Words for the sidecar: how every observation field is derived, for apps that rebuild the vector.

The field table (name, offset, size, scale, description) comes from the ruleset's
``ObservationSpec``; this module adds what the table cannot say field by field: whose
view it is, the order of the slots, what a block of zeros means, one paragraph per
ruleset and a link to its rules page. Every group of fields a ruleset's spec has
(``self``, ``allyK``, ``enemyK``, ``machineK``, ...) must be described here, so a new
group cannot ship undescribed (:func:`describe_observation` refuses it).

Never imports torch or the engines' internals: only the spec and the ruleset id.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

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

_SELF = "the seat's own ship (one block)"
_ALLY = ("one block per other ship of the seat's side, in position order; all zeros for an empty slot "
         "or a ship no longer on the board")
_ENEMY = ("one block per enemy ship, in position order = target slot order of the actions; all zeros for "
          "an empty slot or a ship no longer on the board")


@dataclass(frozen=True)
class RulesetNotes:
    """One paragraph and per-group words for one ruleset's observation."""

    paragraph: str
    groups: dict[str, str] = field(default_factory=dict)


NOTES: dict[str, RulesetNotes] = {
    "pantheon": RulesetNotes(
        "A square grid (x east, y south, in squares from the north-west corner). Facings and the wind are "
        "eight compass points numbered clockwise from N (0) to NW (7); the wind is the direction it blows "
        "toward, so 'wind_relative' one-hot index 0 means sailing with the wind (+2 movement). Offsets are "
        "other minus observer; 'ahead_starboard' projects them on the unit vector of the observer's facing "
        "(diagonal steps normalised, so values are not whole squares) and on that vector turned 90 degrees "
        "clockwise. Health may be negative below Wrecked. 'self.allowance' is this turn's allowance during "
        "the MOVE decision, otherwise speed plus the wind modifier (at least 1).",
        {
            "self": _SELF,
            "ally": _ALLY + " (sunk or escaped by Fair Escape); wrecked and sinking ships stay, with their "
                            "status one-hot",
            "enemy": _ENEMY + " (sunk or escaped by Fair Escape); wrecked and sinking ships stay, with their "
                              "status one-hot",
        },
    ),
    "pursuit": RulesetNotes(
        "An open plane in yards (x east, y north); there is no absolute position in the observation, only "
        "offsets from the observer's centre (other minus observer). Wind and current are unit vectors of "
        "where they flow toward. Unbounded values (distances, Speeds, displacements, the crew's Health "
        "penalty) are clipped to [-10, 10] after scaling; every value stays in that range. 'self.drive' "
        "reads 'no way' unless the seat holds a MANEUVER or GUNS decision (its drive for the round is set "
        "in COMMAND); enemy 'my_speeds' use that drive, or before it is set the drive the crew would work.",
        {
            "self": _SELF,
            "machine": "the own ship's war machines in the order the position lists them; all zeros for an "
                       "empty slot or a destroyed machine",
            "ally": "one block per other ship of the seat's side; an ally is never a target, so its "
                    "'my_speeds', 'can_ram' and 'my_guns' are zeros. A sinking ship shows only 'sinking' = 1 "
                    "(everything else zero); a sunk or escaped ship and an empty slot are all zeros",
            "enemy": "one block per enemy ship, in target slot order. A sinking ship shows only 'sinking' = 1 "
                     "(everything else zero); a sunk or escaped ship and an empty slot are all zeros",
        },
    ),
    "flotilla": RulesetNotes(
        "A square map (x east, y south, in squares; positions are the bow square). Facings and the wind "
        "are eight compass points clockwise from N; 'self.wind' is the wind minus the facing, one-hot, then "
        "1 when calm. Position scales are 1 / map size and the round scale 1 / round limit, from the "
        "config. Dice and odds are computed for every exchange both ways (highest die only), so a policy "
        "need not learn the dice arithmetic. The REACTION slices ('self.incoming_*') are zeros unless the "
        "seat is answering an attack; 'self.boarding_odds' are zeros unless grappled; "
        "'self.maneuver_outlook' is zeros outside a MOVE decision (and while grappled), and per maneuver "
        "value zeros where that value is not allowed.",
        {
            "self": _SELF,
            "ally": _ALLY + " (sunk)",
            "enemy": _ENEMY + " (sunk)",
        },
    ),
    "crew_phase": RulesetNotes(
        "A square grid (x east, y south, in squares; distances count diagonals as one). Facings are eight "
        "compass points clockwise from N. Speeds and ranges are in feet, hull in hit points (negative while "
        "sinking). A round has a Character Phase (the CREW decision) and a Ship Phase (MOVE, then ATTACK). "
        "Sizes come from the config's maxima (ships a side, crew, weapons), so one captain fits every "
        "scenario.",
        {
            "self": _SELF,
            "crew": "the own ship's crew members in the order the position lists them; all zeros for an "
                    "empty slot",
            "weapon": "the own ship's weapon mounts in the order the position lists them; all zeros for an "
                      "empty slot. 'covers' has one value per enemy slot (in its arc within long range), "
                      "then one per enemy slot (within normal range)",
            "ally": _ALLY + " (sunk); a sinking ship stays, with its status one-hot. Its crew and weapon "
                            "sub-fields are zeros past its last crew member and weapon",
            "enemy": _ENEMY + " (sunk); a sinking ship stays, with its status one-hot. Its crew and weapon "
                              "sub-fields are zeros past its last crew member and weapon",
            "move": "one value per value of the 'maneuver' action component (in value order): what that "
                    "maneuver would lead to; all zeros unless the seat holds its MOVE decision, and zero at "
                    "maneuvers not allowed now",
        },
    ),
    "broadside": RulesetNotes(
        "A table in inches (x east, y NORTH, unlike the grid rulesets); headings are compass degrees "
        "clockwise from north and are given as sin, cos pairs. Other ships and icebergs are placed in the "
        "observer's frame: 'along' ahead of its centre, 'across' to starboard. Edge-to-edge gaps are exact "
        "within 6 inches and a lower bound beyond. The round is given as round / round limit.",
        {
            "self": _SELF,
            "ally": _ALLY + " (sunk, taken as a prize or fled)",
            "enemy": _ENEMY + " (sunk, taken as a prize or fled)",
            "iceberg": "the scenario's icebergs in the order the position lists them; all zeros for an empty "
                       "slot",
        },
    ),
}

_GROUP = re.compile(r"^([A-Za-z_]+?)(\d*)\.")


class DescriptionError(ValueError):
    """A ruleset's observation has a group (or the ruleset has no paragraph) described nowhere here."""


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
    notes = NOTES.get(ruleset_id)
    if notes is None:
        raise DescriptionError(f"ruleset {ruleset_id!r} has no observation notes in agents/export/derivation.py "
                               f"(described: {sorted(NOTES)})")
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
                    f"in agents/export/derivation.py; described groups: {sorted(notes.groups)}")
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
