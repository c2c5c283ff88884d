"""Events of `pursuit`. Each reads as one line of the battle's story."""

from __future__ import annotations

from naval_env.core import events
from naval_env.core.events import DamageDealt, Event, EventCatalog, GameEnded, TurnStarted, event
from naval_env.rulesets.pursuit.rolls import RollResult


@event("round_end", "-- end of round {round}")
class RoundEnded(Event):
    round: int


@event("roll")
class RollMade(Event):
    """A d20 roll: ``roll`` names what for, ``ship`` whose roll it is (its captain, crew or gunners)."""

    ship: str
    roll: str
    die: int
    modifier: int
    boons: int
    boon_die: int
    total: int
    target: int
    result: str

    def text(self) -> str:
        extra = f" {self.boon_die:+d} ({self.boons:+d} boons)" if self.boons else ""
        return (f"{self.ship} {self.roll}: d20 {self.die} {self.modifier:+d}{extra} = {self.total} "
                f"vs {self.target} -> {self.result}")


def roll_event(ship: str, roll: str, result: RollResult) -> RollMade:
    return RollMade(ship, roll, result.die, result.modifier, result.boons, result.boon_die, result.total,
                    result.target, result.band.label)


@event("orders", "{ship}: crew {propulsion}, captain {command}")
class CrewOrdered(Event):
    ship: str
    propulsion: str
    command: str


@event("propulsion", "{ship} changes to {propulsion} (ready after round {done_after_round})")
class PropulsionChanged(Event):
    ship: str
    propulsion: str
    done_after_round: int


@event("boost", "{ship}: {source} {bonus}",
       bonus=events.when("bonus", "+{bonus} Speed until the end of round {until_round}", "fails"))
class SpeedBoost(Event):
    """Forced rowing or inspiring: ``bonus`` Speed until the end of ``until_round`` (0: the attempt failed)."""

    ship: str
    source: str
    bonus: int
    until_round: int


@event("boost_end", "{ship}: {source} wears off")
class BoostEnded(Event):
    ship: str
    source: str


@event("maneuver", "{ship} {maneuver}{target} ({result}): moves {distance:.1f} of Speed {speed}, "
       "({start[0]:.0f}, {start[1]:.0f}) -> ({end[0]:.0f}, {end[1]:.0f})", target=events.when("target", " {target}"))
class Maneuvered(Event):
    ship: str
    maneuver: str
    target: str | None
    result: str
    speed: int
    distance: float
    start: tuple[float, float]
    end: tuple[float, float]


@event("mishap", "{ship} suffers a mishap ({roll}): {mishap}")
class MishapSuffered(Event):
    ship: str
    roll: int
    mishap: str


@event("crash", "{ship} crashes into {struck} ({crash}{extra})", extra=events.when("extra", ", {extra} extra damage"))
class Crashed(Event):
    ship: str
    struck: str
    crash: str          # "immovable", "across", "toward"
    extra: int          # the ram's extra damage on 20 or higher


@event("aground", "{ship} runs aground {rocks} at ({at[0]:.0f}, {at[1]:.0f})",
       rocks=events.when("rocks", "on rocks", "in shallows"))
class RanAground(Event):
    ship: str
    at: tuple[float, float]
    rocks: bool


@event("machine", "{ship} machine {machine}: {order}{target} ({progress})", target=events.when("target", " {target}"))
class MachineOrdered(Event):
    ship: str
    machine: int
    order: str
    target: str | None
    progress: str


@event("shot")
class Fired(Event):
    """A shot: ``in_path`` are the hulls on its line, nearest first (direct fire) or in its area."""

    ship: str
    machine: int
    weapon: str
    aimed_at: tuple[float, float]
    lands_at: tuple[float, float]
    in_path: tuple[str, ...]

    def text(self) -> str:
        hit = ", ".join(self.in_path) or "nothing"
        lands = "" if self.lands_at == self.aimed_at else \
            f", lands at ({self.lands_at[0]:.0f}, {self.lands_at[1]:.0f})"
        return (f"{self.ship} fires its {self.weapon} at ({self.aimed_at[0]:.0f}, {self.aimed_at[1]:.0f}){lands}: "
                f"in its path: {hit}")


@event("misfire", "{ship} machine {machine} {exploded} (d6 {d6})",
       exploded=events.when("exploded", "explodes", "misfires and needs repair"))
class Misfired(Event):
    ship: str
    machine: int
    d6: int
    exploded: bool


@event("machine_damage", "{ship} machine {machine} takes {amount} damage{destroyed}",
       destroyed=events.when("destroyed", " and is destroyed"))
class MachineDamaged(Event):
    ship: str
    machine: int
    amount: int
    destroyed: bool


@event("casualties", "{ship}: {killed} of {exposed} crew exposed to {cause} die")
class CrewCasualties(Event):
    ship: str
    exposed: int
    killed: int
    cause: str


@event("fatigue", "{ship}: the crew is fatigued (Health penalty {health_penalty})")
class CrewTired(Event):
    ship: str
    fatigued: bool
    health_penalty: int


@event("scuttled", "{ship} is scuttled (unrepaired, it sinks in {sinks_in_days} days)")
class Scuttled(Event):
    ship: str
    sinks_in_days: int


@event("destroyed", "{ship} is destroyed and sinks {minutes}",
       minutes=events.when("minutes", "at the end of {minutes} minute(s)", "at once"))
class Destroyed(Event):
    """The ship begins to sink: after ``minutes`` minutes, or at once (0)."""

    ship: str
    minutes: int


@event("sank", "{ship} sinks; {dragged_under} of {crew_aboard} crew are dragged under")
class Sank(Event):
    ship: str
    crew_aboard: int
    dragged_under: int


@event("escaped", "{ship} escapes ({distance:.0f} yards from the nearest enemy)")
class Escaped(Event):
    ship: str
    distance: float


CATALOG = EventCatalog(
    [
        TurnStarted, RoundEnded, RollMade, CrewOrdered, PropulsionChanged, SpeedBoost, BoostEnded, Maneuvered,
        MishapSuffered, Crashed, RanAground, MachineOrdered, Fired, Misfired, MachineDamaged, CrewCasualties,
        CrewTired, Scuttled, Destroyed, Sank, Escaped,
    ]
)

__all__ = [
    "CATALOG",
    "BoostEnded",
    "Crashed",
    "CrewCasualties",
    "CrewOrdered",
    "CrewTired",
    "DamageDealt",
    "Destroyed",
    "Escaped",
    "Fired",
    "GameEnded",
    "MachineDamaged",
    "MachineOrdered",
    "Maneuvered",
    "Misfired",
    "MishapSuffered",
    "PropulsionChanged",
    "RanAground",
    "RollMade",
    "RoundEnded",
    "Sank",
    "Scuttled",
    "SpeedBoost",
    "TurnStarted",
    "roll_event",
]
