"""One line on what each option of a decision does, for people choosing moves by label.

The explanations are data: per ruleset, rows of ``(component regex, label regex, text)``
matched in order (full matches); the first row that matches a component and a label
explains it. Named groups of the label regex fill the text: ``enemy`` and ``ally`` are
slots (the captain's enemies or own other ships, in side order) and become ship ids;
a group named in the ruleset's :data:`PARTS` (``weapon``, ``member``, ``machine``) becomes
that part of the ship (the enemy's when the label names an enemy, else the deciding
ship's) with its name; any other group is inserted as written.
"""

from __future__ import annotations

import re
from functools import cache
from typing import Any

from naval_env.core.game import Game, ShipBattle
from naval_env.core.spaces import ActionComponent

Row = tuple[str, str, str]   # (component regex, label regex, explanation)

_SIDE = r"(?P<side>port|starboard)"

EXPLANATIONS: dict[str, tuple[Row, ...]] = {
    "broadside": (
        ("speed", "hold", "stay where you are this turn"),
        ("speed", "cruising", "cruising speed for the whole turn"),
        ("speed", "battle", "battle speed for the whole turn (faster than cruising)"),
        ("speed", "ramming", "ramming speed for the whole turn (the fastest; for a ram)"),
        (r"turn_\d", "straight", "no turn at this point of the move"),
        (r"turn_\d", rf"{_SIDE} (?P<deg>\d+)", "turn {deg} degrees to {side} at this point of the move"),
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
    "crew_phase": (
        (r"crew_\d+", "none", "no crew action"),
        (r"crew_\d+", r"navigate@s(?P<section>\d+)",
         "work navigation section {section}: Strength check DC 10, the speed unit on a success, half on a failure"),
        (r"crew_\d+", "steer", "take the helm: the ship may turn in the Ship Phase"),
        (r"crew_\d+", r"operate@w(?P<weapon>\d+)", "operate {weapon}: one attack with it in the Ship Phase"),
        (r"crew_\d+", r"ready@w(?P<weapon>\d+)",
         "ready {weapon}: it fires when an enemy ends a move in its range and arc"),
        (r"crew_\d+", "command", "Charisma check DC 10: +2 ship initiative in the next Ship Phase (stacks)"),
        (r"crew_\d+", "repair_hull", "repair the hull now"),
        (r"crew_\d+", r"repair@w(?P<weapon>\d+)", "repair {weapon} now"),
        (r"crew_\d+", "heal", "heal a wounded crew member now"),
        (r"crew_\d+", "cut_lines", "cut the grappling lines: the grapple ends in the Ship Phase"),
        ("maneuver", "hold", "stay where you are"),
        ("maneuver", rf"pivot {_SIDE} (?P<points>\d+)", "turn {points} x 45 degrees to {side} in place (agile ships)"),
        ("maneuver", r"ahead (?P<n>\d+)", "sail {n} square(s) straight ahead"),
        ("maneuver", rf"ahead (?P<n>\d+), {_SIDE} (?P<points>\d+) early",
         "sail {n} square(s) ahead, turning {points} x 45 degrees to {side} as soon as paid for"),
        ("maneuver", rf"ahead (?P<n>\d+), {_SIDE} (?P<points>\d+) late",
         "sail {n} square(s) ahead, turning {points} x 45 degrees to {side} after the last square"),
        ("ram", "none", "no ram"),
        ("ram", r"ram@e(?P<enemy>\d+)",
         "ram {enemy}, directly ahead: attack +5; a hit deals your maximum hull, you take half of its"),
        (r"weapon_\d+", "none", "this weapon does not attack"),
        (r"weapon_\d+", r"ship@e(?P<enemy>\d+)", "attack {enemy}'s hull"),
        (r"weapon_\d+", r"crew@e(?P<enemy>\d+)\.c(?P<member>\d+)", "attack {member} aboard {enemy}"),
        (r"weapon_\d+", r"part@e(?P<enemy>\d+)\.w(?P<weapon>\d+)", "attack {weapon} of {enemy}"),
    ),
    "flotilla": (
        ("facing", "keep", "keep the facing the scenario gives"),
        ("facing", r"(?P<direction>[NESW]{1,2})", "start the battle facing {direction}"),
        ("maneuver", "ahead", "the base move: your full movement straight ahead, no roll"),
        ("maneuver", "heave_to", "heave to and stay put (opposed 2d6; a failure makes the base move)"),
        ("maneuver", "half_sail", "half your movement ahead (opposed 2d6; a failure makes the base move)"),
        ("maneuver", rf"turn_{_SIDE}", "turn 45 degrees to {side} on the full move (opposed 2d6)"),
        ("maneuver", rf"tack_{_SIDE}", "turn 45 degrees to {side} on half the move (opposed 2d6)"),
        ("maneuver", rf"hard_turn_{_SIDE}", "turn 90 degrees to {side} without moving on (opposed 2d6)"),
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
    "pantheon": (
        ("turn_order", "proceed", "go on with your turn"),
        ("turn_order", "release", "release the ship you boarded, before moving"),
        ("turn_order", "fair_escape", ("declare Fair Escape: your ship leaves the battle for good and counts as "
                                       "lost; with no other ship left your side loses (in a duel: you lose)")),
        ("maneuver|escape_maneuver", "hold", "stay where you are"),
        ("maneuver|escape_maneuver", rf"turn {_SIDE}(?P<points>\d+)", "turn {points} point(s) to {side} without moving"),
        ("maneuver|escape_maneuver", r"ahead (?P<n>\d+)", "{n} space(s) straight ahead"),
        ("maneuver|escape_maneuver", rf"ahead (?P<n>\d+), {_SIDE} after (?P<k>\d+)",
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
    "pursuit": (
        ("propulsion", "none", "the crew makes no way this round"),
        ("propulsion", "row", "the crew rows"),
        ("propulsion", "tend_sails", "the crew tends the sails"),
        ("propulsion", "switch", "change between oars and sails (takes 1d6 minutes)"),
        ("command", "none", "no command"),
        ("command", "force_rowing", "goad the rowers: Will against the crew's Will, +1d6 Speed for an hour"),
        ("command", "inspire", "inspire the crew: Will challenge, +1d6 base Speed for an hour"),
        ("maneuver", "hold", "no maneuver"),
        ("maneuver", r"flee@enemy(?P<enemy>\d+)", "flee straight away from {enemy} (Intellect against its captain)"),
        ("maneuver", rf"flee_{_SIDE}@enemy(?P<enemy>\d+)", "flee from {enemy}, veering to {side}"),
        ("maneuver", r"pursue@enemy(?P<enemy>\d+)", "pursue {enemy} straight on (Intellect against its captain)"),
        ("maneuver", rf"pursue_{_SIDE}@enemy(?P<enemy>\d+)", "pursue {enemy}, veering to {side}"),
        ("maneuver", r"ram@enemy(?P<enemy>\d+)", "ram {enemy}"),
        (r"machine_\d", "idle", "the gunners stand by"),
        (r"machine_\d", "load", "the gunners load"),
        (r"machine_\d", "repair", "the gunners repair it"),
        (r"machine_\d", "fire", "fire at the point it is aimed at"),
        (r"machine_\d", r"aim@enemy(?P<enemy>\d+)", "aim at {enemy}"),
        (r"machine_\d", r"fire@enemy(?P<enemy>\d+)", "aim at {enemy} and fire in the same round"),
    ),
}

#: Parts of a ship a label or a component names by index: group -> (state list, name field, noun).
PARTS: dict[str, dict[str, tuple[str, str, str]]] = {
    "crew_phase": {"weapon": ("weapons", "name", "weapon"), "member": ("crew", "role", "crew member")},
    "pursuit": {"machine": ("machines", "kind", "machine")},
}

#: Components that stand for one part of the deciding ship: component regex -> its part group.
SUBJECTS: dict[str, tuple[tuple[str, str], ...]] = {
    "crew_phase": ((r"crew_(?P<member>\d+)", "member"), (r"weapon_(?P<weapon>\d+)", "weapon")),
    "pursuit": ((r"machine_(?P<machine>\d+)", "machine"),),
}


@cache
def _compiled(ruleset_id: str) -> tuple[tuple[re.Pattern[str], re.Pattern[str], str], ...]:
    return tuple((re.compile(c), re.compile(label), text) for c, label, text in EXPLANATIONS.get(ruleset_id, ()))


def explain_label(ruleset_id: str, component: str, label: str) -> tuple[str, dict[str, str]] | None:
    """The first row's text for ``label`` of ``component`` with the label's groups, or None if no row matches."""
    for component_re, label_re, text in _compiled(ruleset_id):
        if component_re.fullmatch(component):
            found = label_re.fullmatch(label)
            if found:
                return text, found.groupdict()
    return None


class Explainer:
    """Explains the options of one decision: slots become ship ids, parts their names (state read once)."""

    def __init__(self, game: Game, agent: str) -> None:
        self.game = game
        self.agent = agent
        self._ships: dict[str, Any] | None = None

    def option(self, component: ActionComponent, label: str) -> str:
        """What choosing ``label`` for ``component`` does (the component's description if no row matches)."""
        found = explain_label(self.game.ruleset_id, component.name, label)
        if found is None:
            return component.description
        text, groups = found
        enemy = groups.get("enemy")
        return text.format(**{name: self._resolve(name, value, enemy) for name, value in groups.items()})

    def subject(self, component: ActionComponent) -> str | None:
        """The part of the deciding ship a component stands for (``crew member 2 (gunner)``), if any."""
        for pattern, group in SUBJECTS.get(self.game.ruleset_id, ()):
            found = re.fullmatch(pattern, component.name)
            if found:
                return self._resolve(group, found.group(group), None)
        return None

    def _slot(self, kind: str, index: int) -> str:
        game = self.game
        if isinstance(game, ShipBattle):
            ship = game.state.ships[self.agent]
            ships = game.enemies_of(ship) if kind == "enemy" else game.allies_of(ship)
            if index < len(ships):
                return str(ships[index].id)
        return f"{kind} slot {index} (empty)"

    def _resolve(self, name: str, value: str | None, enemy: str | None) -> str:
        if value is None:
            return ""
        if name in ("enemy", "ally"):
            return self._slot(name, int(value))
        part = PARTS.get(self.game.ruleset_id, {}).get(name)
        if part is None:
            return value
        key, field, noun = part
        owner = self._slot("enemy", int(enemy)) if enemy is not None else self.agent
        if self._ships is None:
            self._ships = self.game.state_dict()["ships"]
        items: Any = self._ships.get(owner, {}).get(key, [])
        index = int(value)
        if index < len(items):
            return f"{noun} {index} ({items[index][field]})"
        return f"{noun} {index}"
