"""`pantheon` in words: turn order, maneuvers, attacks, the crew's actions and retests as a person
reads them, the PCs aboard in one line, and what the observation's groups mean (its hooks, naval_env/core/hooks.py:
moves by label, ship cards, an export's sidecar)."""

from __future__ import annotations

from naval_env.core import hooks

LABELS = hooks.OptionWords(
    rows=(
        ("turn_order", "proceed", "go on with your turn"),
        ("turn_order", "release", "release the ship you boarded, before moving"),
        ("turn_order", "fair_escape", ("declare Fair Escape: your ship leaves the battle for good and counts as "
                                       "lost; with no other ship left your side loses (in a duel: you lose)")),
        ("maneuver|escape_maneuver", "hold", "stay where you are"),
        ("maneuver|escape_maneuver", rf"turn {hooks.SIDE_PATTERN}(?P<points>\d+)", "turn {points} point(s) to {side} without moving"),
        ("maneuver|escape_maneuver", r"ahead (?P<n>\d+)", "{n} space(s) straight ahead"),
        ("maneuver|escape_maneuver", rf"ahead (?P<n>\d+), {hooks.SIDE_PATTERN} after (?P<k>\d+)",
         "{n} space(s) ahead, turning one point to {side} after space {k}"),
        ("attack", "none", "no attack"),
        ("attack", r"ram@enemy(?P<enemy>\d+)", "Ram! {enemy}"),
        ("attack", r"fire@enemy(?P<enemy>\d+)", "Fire! at {enemy}"),
        ("attack", r"board@enemy(?P<enemy>\d+)", "Board Them! {enemy} (press the advantage if already tied)"),
        ("attack", "get_us_out", "Get Us Out Of Here!: give up the attack for an extra move of up to 2 spaces"),
        ("attack", "repair", "repair the wrecked ship: Wits or Charisma + Seamanship against 8"),
        (r"crew_\d", "none", "no crew action"),
        (r"crew_\d", r"damage\+(?P<scope>ram|fire|board)", "+1 damage on {scope} attacks until your next attack step"),
        (r"crew_\d", r"damage\+exceptional", "+2 damage on an exceptional success"),
        (r"crew_\d", r"attack\+(?P<scope>ram|fire|board)", "+2 to your {scope} tests"),
        (r"crew_\d", r"attack\+exceptional", "exceptional successes come two easier"),
        (r"crew_\d", r"dodge\+(?P<scope>ram|fire|board)", "+2 against enemy {scope} attacks"),
        (r"crew_\d", r"dodge\+exceptional", "enemy exceptional successes come two harder"),
        (r"crew_\d", "repair", "restore twice the shipwright's Crafts in health (once per battle)"),
        ("retest_on_failure|retest_when_hit", "no", "keep your retests"),
        ("retest_on_failure", "yes", "spend a retest if your own test fails"),
        ("retest_when_hit", "yes", "spend a retest when an enemy's test against you succeeds"),
    ),
)


def crew_summary(ship: hooks.Ship) -> str:
    return f"PCs aboard {ship['crew_slots']}, retests {ship['retests']}"


OBSERVATION = hooks.ObservationNotes(
    "A square grid (x east, y south, in squares from the north-west corner). Facings and the wind are "
    "eight compass points numbered clockwise from N (0) to NW (7); the wind is the direction it blows "
    "toward, so 'wind_relative' one-hot index 0 means sailing with the wind (+2 movement). Offsets are "
    "other minus observer; 'ahead_starboard' projects them on the unit vector of the observer's facing "
    "(diagonal steps normalised, so values are not whole squares) and on that vector turned 90 degrees "
    "clockwise. Health may be negative below Wrecked. 'self.allowance' is this turn's allowance during "
    "the MOVE decision, otherwise speed plus the wind modifier (at least 1).",
    {
        "self": hooks.SELF_GROUP,
        "ally": hooks.ALLY_GROUP + " (sunk or escaped by Fair Escape); wrecked and sinking ships stay, with their "
                        "status one-hot",
        "enemy": hooks.ENEMY_GROUP + " (sunk or escaped by Fair Escape); wrecked and sinking ships stay, with their "
                          "status one-hot",
    },
)
