"""`crew_phase` in words: each crew member's action, the maneuvers and the weapons as a person reads
them, the crew's health in one line, and what the observation's groups mean (its hooks, naval_env/core/hooks.py:
moves by label, ship cards, an export's sidecar)."""

from __future__ import annotations

from naval_env.core import hooks

LABELS = hooks.OptionWords(
    rows=(
        (r"crew_\d+", "none", "no crew action"),
        (r"crew_\d+", r"navigate@s(?P<section>\d+)",
         "work navigation section {section}: Strength check DC 10, the speed unit on a success, half on a failure"),
        (r"crew_\d+", "steer", "take the helm: the ship may turn in the hooks.Ship Phase"),
        (r"crew_\d+", r"operate@w(?P<weapon>\d+)", "operate {weapon}: one attack with it in the hooks.Ship Phase"),
        (r"crew_\d+", r"ready@w(?P<weapon>\d+)",
         "ready {weapon}: it fires when an enemy ends a move in its range and arc"),
        (r"crew_\d+", "command", "Charisma check DC 10: +2 ship initiative in the next hooks.Ship Phase (stacks)"),
        (r"crew_\d+", "repair_hull", "repair the hull now"),
        (r"crew_\d+", r"repair@w(?P<weapon>\d+)", "repair {weapon} now"),
        (r"crew_\d+", "heal", "heal a wounded crew member now"),
        (r"crew_\d+", "cut_lines", "cut the grappling lines: the grapple ends in the hooks.Ship Phase"),
        ("maneuver", "hold", "stay where you are"),
        ("maneuver", rf"pivot {hooks.SIDE_PATTERN} (?P<points>\d+)", "turn {points} x 45 degrees to {side} in place (agile ships)"),
        ("maneuver", r"ahead (?P<n>\d+)", "sail {n} square(s) straight ahead"),
        ("maneuver", rf"ahead (?P<n>\d+), {hooks.SIDE_PATTERN} (?P<points>\d+) early",
         "sail {n} square(s) ahead, turning {points} x 45 degrees to {side} as soon as paid for"),
        ("maneuver", rf"ahead (?P<n>\d+), {hooks.SIDE_PATTERN} (?P<points>\d+) late",
         "sail {n} square(s) ahead, turning {points} x 45 degrees to {side} after the last square"),
        ("ram", "none", "no ram"),
        ("ram", r"ram@e(?P<enemy>\d+)",
         "ram {enemy}, directly ahead: attack +5; a hit deals your maximum hull, you take half of its"),
        (r"weapon_\d+", "none", "this weapon does not attack"),
        (r"weapon_\d+", r"ship@e(?P<enemy>\d+)", "attack {enemy}'s hull"),
        (r"weapon_\d+", r"crew@e(?P<enemy>\d+)\.c(?P<member>\d+)", "attack {member} aboard {enemy}"),
        (r"weapon_\d+", r"part@e(?P<enemy>\d+)\.w(?P<weapon>\d+)", "attack {weapon} of {enemy}"),
    ),
    parts={"weapon": ("weapons", "name", "weapon"), "member": ("crew", "role", "crew member")},
    subjects=((r"crew_(?P<member>\d+)", "member"), (r"weapon_(?P<weapon>\d+)", "weapon")),
)


def crew_summary(ship: hooks.Ship) -> str:
    standing = [m for m in ship["crew"] if m["hp"] > 0]
    return f"{len(standing)}/{len(ship['crew'])} standing: " + ", ".join(
        f"{m['role']} {m['hp']}/{m['max_hp']}" for m in ship["crew"])


OBSERVATION = hooks.ObservationNotes(
    "A square grid (x east, y south, in squares; distances count diagonals as one). Facings are eight "
    "compass points clockwise from N. Speeds and ranges are in feet, hull in hit points (negative while "
    "sinking). A round has a Character Phase (the CREW decision) and a hooks.Ship Phase (MOVE, then ATTACK). "
    "Sizes come from the config's maxima (ships a side, crew, weapons), so one captain fits every "
    "scenario.",
    {
        "self": hooks.SELF_GROUP,
        "crew": "the own ship's crew members in the order the position lists them; all zeros for an "
                "empty slot",
        "weapon": "the own ship's weapon mounts in the order the position lists them; all zeros for an "
                  "empty slot. 'covers' has one value per enemy slot (in its arc within long range), "
                  "then one per enemy slot (within normal range)",
        "ally": hooks.ALLY_GROUP + " (sunk); a sinking ship stays, with its status one-hot. Its crew and weapon "
                        "sub-fields are zeros past its last crew member and weapon",
        "enemy": hooks.ENEMY_GROUP + " (sunk); a sinking ship stays, with its status one-hot. Its crew and weapon "
                          "sub-fields are zeros past its last crew member and weapon",
        "move": "one value per value of the 'maneuver' action component (in value order): what that "
                "maneuver would lead to; all zeros unless the seat holds its MOVE decision, and zero at "
                "maneuvers not allowed now",
    },
)
