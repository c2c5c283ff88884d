"""`flotilla` in words: facings, maneuvers, targets, mages and reactions as a person reads them, the
captain, crew hits and mages in one line, and what the observation's groups mean (its hooks, naval_env/core/hooks.py:
moves by label, ship cards, an export's sidecar)."""

from __future__ import annotations

from naval_env.core import hooks

LABELS = hooks.OptionWords(
    rows=(
        ("facing", "keep", "keep the facing the scenario gives"),
        ("facing", r"(?P<direction>[NESW]{1,2})", "start the battle facing {direction}"),
        ("maneuver", "ahead", "the base move: your full movement straight ahead, no roll"),
        ("maneuver", "heave_to", "heave to and stay put (opposed 2d6; a failure makes the base move)"),
        ("maneuver", "half_sail", "half your movement ahead (opposed 2d6; a failure makes the base move)"),
        ("maneuver", rf"turn_{hooks.SIDE_PATTERN}", "turn 45 degrees to {side} on the full move (opposed 2d6)"),
        ("maneuver", rf"tack_{hooks.SIDE_PATTERN}", "turn 45 degrees to {side} on half the move (opposed 2d6)"),
        ("maneuver", rf"hard_turn_{hooks.SIDE_PATTERN}", "turn 90 degrees to {side} without moving on (opposed 2d6)"),
        ("maneuver", r"ram@enemy(?P<enemy>\d+)", "ram {enemy}"),
        ("maneuver", r"board@enemy(?P<enemy>\d+)",
         "board {enemy}: steering roll against its captain; a success grapples both ships"),
        ("maneuver", "break_free", "try to break free of the grapple (1d6 penalty per earlier failure)"),
        ("target|mage_target", "hold", "hold"),
        ("target", r"ship@enemy(?P<enemy>\d+)", "the guns fire at {enemy} (the loser of the exchange loses cohesion)"),
        ("target", r"mages@enemy(?P<enemy>\d+)", "the guns fire at {enemy}'s mage squad"),
        ("mage_target", r"ship@enemy(?P<enemy>\d+)", "the mage squad attacks {enemy}"),
        ("mage_target", r"mages@enemy(?P<enemy>\d+)", "the mage squad attacks {enemy}'s mage squad"),
        ("boarding", "hold", "no boarding fight this round"),
        ("boarding", "fight", "fight the grappled ship with boarding rolls; each loser loses 1 cohesion"),
        ("reaction", "dodge", "dodge: a steering roll with 1d6 penalty per square of your ship"),
        ("reaction", "counter", "counter-attack toward the attacker: the loser loses 1 cohesion"),
    ),
)


def crew_summary(ship: hooks.Ship) -> str:
    text = f"captain {'alive' if ship['captain_alive'] else 'dead'}, crew hits {ship['crew_hits']}"
    return text + (f", mages {ship['mages']}/{ship['max_mages']}" if ship["max_mages"] else "")


OBSERVATION = hooks.ObservationNotes(
    "A square map (x east, y south, in squares; positions are the bow square). Facings and the wind "
    "are eight compass points clockwise from N; 'self.wind' is the wind minus the facing, one-hot, then "
    "1 when calm. Position scales are 1 / map size and the round scale 1 / round limit, from the "
    "config. Dice and odds are computed for every exchange both ways (highest die only), so a policy "
    "need not learn the dice arithmetic. The REACTION slices ('self.incoming_*') are zeros unless the "
    "seat is answering an attack; 'self.boarding_odds' are zeros unless grappled; "
    "'self.maneuver_outlook' is zeros outside a MOVE decision (and while grappled), and per maneuver "
    "value zeros where that value is not allowed.",
    {
        "self": hooks.SELF_GROUP,
        "ally": hooks.ALLY_GROUP + " (sunk)",
        "enemy": hooks.ENEMY_GROUP + " (sunk)",
    },
)
