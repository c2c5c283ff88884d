"""`pursuit` in words: propulsion, commands, maneuvers and war machines as a person reads them, the
crew and machines in one line, and what the observation's groups mean (its hooks, naval_env/core/hooks.py:
moves by label, ship cards, an export's sidecar)."""

from __future__ import annotations

from naval_env.core import hooks

LABELS = hooks.OptionWords(
    rows=(
        ("propulsion", "none", "the crew makes no way this round"),
        ("propulsion", "row", "the crew rows"),
        ("propulsion", "tend_sails", "the crew tends the sails"),
        ("propulsion", "switch", "change between oars and sails (takes 1d6 minutes)"),
        ("command", "none", "no command"),
        ("command", "force_rowing", "goad the rowers: Will against the crew's Will, +1d6 Speed for an hour"),
        ("command", "inspire", "inspire the crew: Will challenge, +1d6 base Speed for an hour"),
        ("maneuver", "hold", "no maneuver"),
        ("maneuver", r"flee@enemy(?P<enemy>\d+)", "flee straight away from {enemy} (Intellect against its captain)"),
        ("maneuver", rf"flee_{hooks.SIDE_PATTERN}@enemy(?P<enemy>\d+)", "flee from {enemy}, veering to {side}"),
        ("maneuver", r"pursue@enemy(?P<enemy>\d+)", "pursue {enemy} straight on (Intellect against its captain)"),
        ("maneuver", rf"pursue_{hooks.SIDE_PATTERN}@enemy(?P<enemy>\d+)", "pursue {enemy}, veering to {side}"),
        ("maneuver", r"ram@enemy(?P<enemy>\d+)", "ram {enemy}"),
        (r"machine_\d", "idle", "the gunners stand by"),
        (r"machine_\d", "load", "the gunners load"),
        (r"machine_\d", "repair", "the gunners repair it"),
        (r"machine_\d", "fire", "fire at the point it is aimed at"),
        (r"machine_\d", r"aim@enemy(?P<enemy>\d+)", "aim at {enemy}"),
        (r"machine_\d", r"fire@enemy(?P<enemy>\d+)", "aim at {enemy} and fire in the same round"),
    ),
    parts={"machine": ("machines", "kind", "machine")},
    subjects=((r"machine_(?P<machine>\d+)", "machine"),),
)


def crew_summary(ship: hooks.Ship) -> str:
    working = sum(not m["destroyed"] for m in ship["machines"])
    return f"crew {ship['crew']}/{ship['crew_max']}, war machines {working}/{len(ship['machines'])}"


OBSERVATION = hooks.ObservationNotes(
    "An open plane in yards (x east, y north); there is no absolute position in the observation, only "
    "offsets from the observer's centre (other minus observer). Wind and current are unit vectors of "
    "where they flow toward. Unbounded values (distances, Speeds, displacements, the crew's Health "
    "penalty) are clipped to [-10, 10] after scaling; every value stays in that range. 'self.drive' "
    "reads 'no way' unless the seat holds a MANEUVER or GUNS decision (its drive for the round is set "
    "in COMMAND); enemy 'my_speeds' use that drive, or before it is set the drive the crew would work.",
    {
        "self": hooks.SELF_GROUP,
        "machine": "the own ship's war machines in the order the position lists them; all zeros for an "
                   "empty slot or a destroyed machine",
        "ally": "one block per other ship of the seat's side; an ally is never a target, so its "
                "'my_speeds', 'can_ram' and 'my_guns' are zeros. A sinking ship shows only 'sinking' = 1 "
                "(everything else zero); a sunk or escaped ship and an empty slot are all zeros",
        "enemy": "one block per enemy ship, in target slot order. A sinking ship shows only 'sinking' = 1 "
                 "(everything else zero); a sunk or escaped ship and an empty slot are all zeros",
    },
)
