"""`broadside` in words: its sails, batteries, archers and boarding parties as a person reads them, a
ship's people in one line, and what the observation's groups mean (its hooks, naval_env/core/hooks.py:
moves by label, ship cards, an export's sidecar)."""

from __future__ import annotations

from naval_env.core import hooks

LABELS = hooks.OptionWords(
    rows=(
        ("speed", "hold", "stay where you are this turn"),
        ("speed", "cruising", "cruising speed for the whole turn"),
        ("speed", "battle", "battle speed for the whole turn (faster than cruising)"),
        ("speed", "ramming", "ramming speed for the whole turn (the fastest; for a ram)"),
        (r"turn_\d", "straight", "no turn at this point of the move"),
        (r"turn_\d", rf"{hooks.SIDE_PATTERN} (?P<deg>\d+)", "turn {deg} degrees to {side} at this point of the move"),
        ("port|starboard|turret", "hold", "this battery holds its fire"),
        ("port|starboard|turret", r"fire@enemy(?P<enemy>\d+)",
         "this battery fires at {enemy} (a d20 per cannon: the range or higher hits)"),
        ("archers", "hold", "keep the archers for the melee phase"),
        ("archers", r"shoot@enemy(?P<enemy>\d+)", "archers shoot at {enemy}'s people now (not in the melee phase)"),
        ("board", "none", "board nobody"),
        ("board", r"board@enemy(?P<enemy>\d+)", "send a boarding party onto {enemy}"),
        ("board", r"reinforce@ally(?P<ally>\d+)", "send boarders to reinforce {ally}'s melee"),
        ("boarders", "none", "send no marines"),
        ("boarders", "quarter", "send a quarter of the marines at home (rounded up)"),
        ("boarders", "half", "send half of the marines at home (rounded up)"),
        ("boarders", "three_quarters", "send three quarters of the marines at home (rounded up)"),
        ("boarders", "all", "send every marine at home"),
        ("heroes", "stay", "the heroes stay aboard"),
        ("heroes", "board_first", "the heroes go with the boarders and roll first"),
        ("heroes", "board_last", "the heroes go with the boarders and roll last"),
        ("melee", "fight", "fight the melee on, heroes rolling last"),
        ("melee", "fight_heroes_first", "fight the melee on, heroes rolling first"),
        ("melee", "withdraw", "withdraw every boarder to your ship, without further casualties"),
        ("on_tie", "stay", "a boarder whose die ties stays on the enemy deck"),
        ("on_tie", "retreat", "a boarder whose die ties goes home"),
    ),
)


def crew_summary(ship: hooks.Ship) -> str:
    people = ship["people"]
    return (f"crew {people['crew']}, archers {people['archers']}, marines {people['marines']}, "
            f"lieutenants {people['lieutenants']}, heroes {people['heroes']}")


OBSERVATION = hooks.ObservationNotes(
    "A table in inches (x east, y NORTH, unlike the grid rulesets); headings are compass degrees "
    "clockwise from north and are given as sin, cos pairs. Other ships and icebergs are placed in the "
    "observer's frame: 'along' ahead of its centre, 'across' to starboard. Edge-to-edge gaps are exact "
    "within 6 inches and a lower bound beyond. The round is given as round / round limit.",
    {
        "self": hooks.SELF_GROUP,
        "ally": hooks.ALLY_GROUP + " (sunk, taken as a prize or fled)",
        "enemy": hooks.ENEMY_GROUP + " (sunk, taken as a prize or fled)",
        "iceberg": "the scenario's icebergs in the order the position lists them; all zeros for an empty "
                   "slot",
    },
)
