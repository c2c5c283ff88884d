"""Oars, sails, wind and current: the ship's Speed along a heading, and the crew's orders each round.

Speed along a heading, in this order (see Assumptions in docs/rules/pursuit.md):
rowed: (oars + inspiring) scaled by rowers aboard / rowers needed, + forced rowing,
then the current (x1.5 with it, x0.5 against); sailed: sails + inspiring + the
Sailing Speed by Wind modifier, never below 0 (0 when becalmed); then halved when
scuttled, halved again when slowed by a crash or a mishap. Halves round down.
"""

from __future__ import annotations

import math
from enum import IntEnum

from naval_env.core.events import Event
from naval_env.rulesets.pursuit.events import (
    BoostEnded,
    CrewOrdered,
    CrewTired,
    PropulsionChanged,
    SpeedBoost,
    roll_event,
)
from naval_env.rulesets.pursuit.geometry import ACROSS, relation
from naval_env.rulesets.pursuit.rolls import RollResult, attack_roll, challenge_roll
from naval_env.rulesets.pursuit.state import OARS, ROWED, SAILED, SAILS, Drive, Ship
from naval_env.rulesets.pursuit.table import Table


class PropulsionOrder(IntEnum):
    NONE = 0
    ROW = 1
    TEND_SAILS = 2
    SWITCH = 3


class Command(IntEnum):
    NONE = 0
    FORCE_ROWING = 1
    INSPIRE = 2


# PropulsionOrder and Command: members as module constants for the hot paths (see ``state.py``: an Enum
# member lookup on its class is slow in Python 3.11).
ROW, TEND_SAILS, SWITCH = PropulsionOrder.ROW, PropulsionOrder.TEND_SAILS, PropulsionOrder.SWITCH
FORCE_ROWING, INSPIRE = Command.FORCE_ROWING, Command.INSPIRE
PROPULSION_LABELS = ("none", "row", "tend_sails", "switch")
COMMAND_LABELS = ("none", "force_rowing", "inspire")
_NO_SPEED = (0, 0, 0)


def speed_along(t: Table, ship: Ship, ux: float, uy: float, drive: Drive) -> int:
    """Speed of ``ship`` moving along the heading (ux, uy) when driven by ``drive`` (see the module doc)."""
    if drive is ROWED:
        if not t.has_current:
            return relation_speeds(t, ship, drive)[ACROSS]  # the same on every heading
        wx, wy = t.current_x, t.current_y
    elif drive is SAILED:
        wx, wy = t.wind_x, t.wind_y
    else:
        return 0
    return relation_speeds(t, ship, drive)[relation(ux, uy, wx, wy, t.cos_arc)]


def relation_speeds(t: Table, ship: Ship, drive: Drive) -> tuple[int, int, int]:
    """Speed heading against, across and with what drives the ship: the current when rowed (the same three
    without a fast current), the wind when sailed. Callers with several headings pay for the Speed once."""
    if drive is ROWED:
        speed = ship.oars + ship.inspire_bonus
        if ship.crew < ship.rowers:
            speed = speed * ship.crew // ship.rowers
        speed += ship.forced_bonus
        if t.has_current:
            rules = t.rules
            speeds = (math.floor(speed * rules.current_against_factor), speed,
                      math.floor(speed * rules.current_with_factor))
        else:
            speeds = (speed, speed, speed)
    elif drive is SAILED:
        if t.wind.becalmed:
            return _NO_SPEED
        base = ship.sails + ship.inspire_bonus
        row = t.wind  # the Sailing Speed by Wind modifiers
        against, across, with_ = base + row.against, base + row.across, base + row.with_
        speeds = (against if against > 0 else 0, across if across > 0 else 0, with_ if with_ > 0 else 0)  # noqa: FURB136 - hot path: a comparison is cheaper than a call
    else:
        return _NO_SPEED
    if ship.scuttled:
        speeds = (speeds[0] // 2, speeds[1] // 2, speeds[2] // 2)
    if ship.slowed:
        speeds = (speeds[0] // 2, speeds[1] // 2, speeds[2] // 2)
    return speeds


def switching(t: Table, ship: Ship) -> bool:
    return ship.switching_until >= t.state.round


#: Positions in the :func:`crew_options` flags.
CAN_ROW, CAN_TEND, CAN_SWITCH, CAN_FORCE, CAN_INSPIRE = range(5)


def crew_options(t: Table, ship: Ship) -> tuple[bool, bool, bool, bool, bool]:
    """Which COMMAND orders the ship may give now: row, tend the sails, switch propulsion, force the rowing,
    inspire. One pass over their shared conditions: every mask and observation asks for all five."""
    rnd = t.state.round
    free = not ship.grounded and ship.switching_until < rnd  # neither aground nor changing over
    oars = ship.oars > 0
    on_oars = ship.propulsion is OARS
    captain = ship.controller.is_captain
    return (
        oars and on_oars and free and ship.crew > 0 and ship.crew_effective_health > 0,
        ship.sails > 0 and ship.propulsion is SAILS and free and ship.crew >= ship.sail_crew,
        oars and ship.sails > 0 and free,
        captain and oars and on_oars and not ship.forced_locked and ship.forced_bonus == 0 and not ship.grounded
        and ship.crew > 0,
        captain and ship.inspire_bonus == 0 and ship.inspire_retry_after < rnd,
    )


def working_drive(t: Table, ship: Ship, options: tuple[bool, ...]) -> Drive:
    """The drive the ship would have if its crew works it this round (for masks of later phases and observers);
    ``options``: its :func:`crew_options`."""
    if ship.grounded:
        return Drive.AGROUND
    if switching(t, ship):
        return Drive.SWITCHING
    if ship.propulsion is OARS:
        return ROWED if options[CAN_ROW] else Drive.NONE
    return SAILED if options[CAN_TEND] else Drive.NONE


def order_crew(t: Table, ship: Ship, order: PropulsionOrder, command: Command, events: list[Event]) -> None:
    """Apply the COMMAND phase: the crew's propulsion order first, then the captain's command roll."""
    state = t.state
    events.append(CrewOrdered(ship.id, PROPULSION_LABELS[order], COMMAND_LABELS[command]))
    if order is SWITCH:
        minutes = t.dice.d(6, f"{ship.id} changes propulsion: minutes")
        ship.switching_until = state.round + minutes * t.rules.rounds_per_minute - 1
        ship.propulsion = SAILS if ship.propulsion is OARS else OARS
        events.append(PropulsionChanged(ship.id, ship.propulsion.value, ship.switching_until))
    if order is ROW:
        ship.drive = ROWED
        ship.rowed_this_round = True
    elif order is TEND_SAILS:
        ship.drive = SAILED
    elif ship.grounded:
        ship.drive = Drive.AGROUND
    elif switching(t, ship):
        ship.drive = Drive.SWITCHING
    else:
        ship.drive = Drive.NONE
    hour = t.rules.rounds_per_hour
    if command is FORCE_ROWING:
        roll = attack_roll(t.dice, ship.controller.will, ship.crew_will, 0, f"{ship.id} goads the crew")
        boost = _speed_boost(t, ship, roll, ("forced rowing", "forced rowing", "forced rowing"), events)
        if boost is None:
            ship.forced_locked = True
        else:
            ship.forced_bonus, ship.forced_until = boost
    elif command is INSPIRE:
        roll = challenge_roll(t.dice, ship.controller.will, 0, f"{ship.id} inspires the crew")
        boost = _speed_boost(t, ship, roll, ("inspire", "inspired", "inspiring"), events)
        if boost is None:
            ship.inspire_retry_after = state.round + hour - 1
        else:
            ship.inspire_bonus, ship.inspire_until = boost


def _speed_boost(t: Table, ship: Ship, roll: RollResult, names: tuple[str, str, str],
                 events: list[Event]) -> tuple[int, int] | None:
    """What a goad to the crew (forced rowing, inspiring) earns on ``roll``: d6 Speed until the end of the hour
    (the bonus and the last round it holds), or None when the roll failed. ``names``: the roll's, the Speed
    die's and the boost's in the story."""
    roll_name, rolled_as, source = names
    events.append(roll_event(ship.id, roll_name, roll))
    if not roll.succeeded:
        events.append(SpeedBoost(ship.id, source, 0, -1))
        return None
    bonus = t.dice.d(6, f"{ship.id} {rolled_as}: Speed")
    until = t.state.round + t.rules.rounds_per_hour - 1
    events.append(SpeedBoost(ship.id, source, bonus, until))
    return bonus, until


def rowing_endurance_rounds(t: Table, ship: Ship) -> int:
    """1 + Strength modifier hours (at least 1), in rounds."""
    return max(1, 1 + ship.crew_strength - 10) * t.rules.rounds_per_hour


def end_of_round(t: Table, ship: Ship, events: list[Event]) -> None:
    """Rowing endurance, the end of forced rowing and of inspiring; clears this round's drive."""
    r, hour = t.state.round, t.rules.rounds_per_hour
    if ship.rowed_this_round:
        ship.rowed_rounds += 1
        endurance = rowing_endurance_rounds(t, ship)
        if ship.rowed_rounds >= endurance and (ship.rowed_rounds - endurance) % hour == 0:
            _rowing_challenge(t, ship, 0, "rowing endurance", events)
    else:
        ship.rowed_rounds = 0
    ship.rowed_this_round = False
    if ship.forced_bonus and ship.forced_until <= r:
        ship.forced_bonus = 0
        events.append(BoostEnded(ship.id, "forced rowing"))
        _rowing_challenge(t, ship, t.rules.forced_rowing_banes, "after forced rowing", events)
    if ship.inspire_bonus and ship.inspire_until <= r:
        ship.inspire_bonus = 0
        events.append(BoostEnded(ship.id, "inspiring"))
    ship.drive = Drive.NONE


def _rowing_challenge(t: Table, ship: Ship, banes: int, why: str, events: list[Event]) -> None:
    """The crew's Strength challenge: a failure fatigues it, or adds 1d6 to its Health penalty if already fatigued."""
    roll = challenge_roll(t.dice, ship.crew_strength, -(banes + ship.crew_banes), f"{ship.id} crew: {why}")
    events.append(roll_event(ship.id, why, roll))
    if roll.succeeded:
        return
    if ship.fatigued:
        ship.health_penalty += t.dice.d(6, f"{ship.id} crew: Health penalty")
    ship.fatigued = True
    events.append(CrewTired(ship.id, True, ship.health_penalty))
