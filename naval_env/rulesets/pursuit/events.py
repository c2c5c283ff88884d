"""Events of `pursuit`. Each reads as one line of the battle's story."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from naval_env.core.events import DamageDealt, Event, EventCatalog, GameEnded
from naval_env.rulesets.pursuit.rolls import RollResult


@dataclass(frozen=True, slots=True)
class TurnStarted(Event):
    kind: ClassVar[str] = "turn"
    ship: str
    round: int

    def text(self) -> str:
        return f"-- round {self.round}: {self.ship}'s turn"


@dataclass(frozen=True, slots=True)
class RoundEnded(Event):
    kind: ClassVar[str] = "round_end"
    round: int

    def text(self) -> str:
        return f"-- end of round {self.round}"


@dataclass(frozen=True, slots=True)
class RollMade(Event):
    """A d20 roll: ``roll`` names what for, ``ship`` whose roll it is (its captain, crew or gunners)."""

    kind: ClassVar[str] = "roll"
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


@dataclass(frozen=True, slots=True)
class CrewOrdered(Event):
    kind: ClassVar[str] = "orders"
    ship: str
    propulsion: str
    command: str

    def text(self) -> str:
        return f"{self.ship}: crew {self.propulsion}, captain {self.command}"


@dataclass(frozen=True, slots=True)
class PropulsionChanged(Event):
    kind: ClassVar[str] = "propulsion"
    ship: str
    propulsion: str
    done_after_round: int

    def text(self) -> str:
        return f"{self.ship} changes to {self.propulsion} (ready after round {self.done_after_round})"


@dataclass(frozen=True, slots=True)
class SpeedBoost(Event):
    """Forced rowing or inspiring: ``bonus`` Speed until the end of ``until_round`` (0: the attempt failed)."""

    kind: ClassVar[str] = "boost"
    ship: str
    source: str
    bonus: int
    until_round: int

    def text(self) -> str:
        if self.bonus == 0:
            return f"{self.ship}: {self.source} fails"
        return f"{self.ship}: {self.source} +{self.bonus} Speed until the end of round {self.until_round}"


@dataclass(frozen=True, slots=True)
class BoostEnded(Event):
    kind: ClassVar[str] = "boost_end"
    ship: str
    source: str

    def text(self) -> str:
        return f"{self.ship}: {self.source} wears off"


@dataclass(frozen=True, slots=True)
class Maneuvered(Event):
    kind: ClassVar[str] = "maneuver"
    ship: str
    maneuver: str
    target: str | None
    result: str
    speed: int
    distance: float
    start: tuple[float, float]
    end: tuple[float, float]

    def text(self) -> str:
        at = f" {self.target}" if self.target else ""
        return (f"{self.ship} {self.maneuver}{at} ({self.result}): moves {self.distance:.1f} of Speed "
                f"{self.speed}, ({self.start[0]:.0f}, {self.start[1]:.0f}) -> ({self.end[0]:.0f}, {self.end[1]:.0f})")


@dataclass(frozen=True, slots=True)
class MishapSuffered(Event):
    kind: ClassVar[str] = "mishap"
    ship: str
    roll: int
    mishap: str

    def text(self) -> str:
        return f"{self.ship} suffers a mishap ({self.roll}): {self.mishap}"


@dataclass(frozen=True, slots=True)
class Crashed(Event):
    kind: ClassVar[str] = "crash"
    ship: str
    struck: str
    crash: str          # "immovable", "across", "toward"
    extra: int          # the ram's extra damage on 20 or higher

    def text(self) -> str:
        extra = f", {self.extra} extra damage" if self.extra else ""
        return f"{self.ship} crashes into {self.struck} ({self.crash}{extra})"


@dataclass(frozen=True, slots=True)
class RanAground(Event):
    kind: ClassVar[str] = "aground"
    ship: str
    at: tuple[float, float]
    rocks: bool

    def text(self) -> str:
        where = "on rocks" if self.rocks else "in shallows"
        return f"{self.ship} runs aground {where} at ({self.at[0]:.0f}, {self.at[1]:.0f})"


@dataclass(frozen=True, slots=True)
class MachineOrdered(Event):
    kind: ClassVar[str] = "machine"
    ship: str
    machine: int
    order: str
    target: str | None
    progress: str

    def text(self) -> str:
        at = f" {self.target}" if self.target else ""
        return f"{self.ship} machine {self.machine}: {self.order}{at} ({self.progress})"


@dataclass(frozen=True, slots=True)
class Fired(Event):
    """A shot: ``in_path`` are the hulls on its line, nearest first (direct fire) or in its area."""

    kind: ClassVar[str] = "shot"
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


@dataclass(frozen=True, slots=True)
class Misfired(Event):
    kind: ClassVar[str] = "misfire"
    ship: str
    machine: int
    d6: int
    exploded: bool

    def text(self) -> str:
        what = "explodes" if self.exploded else "misfires and needs repair"
        return f"{self.ship} machine {self.machine} {what} (d6 {self.d6})"


@dataclass(frozen=True, slots=True)
class MachineDamaged(Event):
    kind: ClassVar[str] = "machine_damage"
    ship: str
    machine: int
    amount: int
    destroyed: bool

    def text(self) -> str:
        end = " and is destroyed" if self.destroyed else ""
        return f"{self.ship} machine {self.machine} takes {self.amount} damage{end}"


@dataclass(frozen=True, slots=True)
class CrewCasualties(Event):
    kind: ClassVar[str] = "casualties"
    ship: str
    exposed: int
    killed: int
    cause: str

    def text(self) -> str:
        return f"{self.ship}: {self.killed} of {self.exposed} crew exposed to {self.cause} die"


@dataclass(frozen=True, slots=True)
class CrewTired(Event):
    kind: ClassVar[str] = "fatigue"
    ship: str
    fatigued: bool
    health_penalty: int

    def text(self) -> str:
        return f"{self.ship}: the crew is fatigued (Health penalty {self.health_penalty})"


@dataclass(frozen=True, slots=True)
class Scuttled(Event):
    kind: ClassVar[str] = "scuttled"
    ship: str
    sinks_in_days: int

    def text(self) -> str:
        return f"{self.ship} is scuttled (unrepaired, it sinks in {self.sinks_in_days} days)"


@dataclass(frozen=True, slots=True)
class Destroyed(Event):
    """The ship begins to sink: after ``minutes`` minutes, or at once (0)."""

    kind: ClassVar[str] = "destroyed"
    ship: str
    minutes: int

    def text(self) -> str:
        when = f"at the end of {self.minutes} minute(s)" if self.minutes else "at once"
        return f"{self.ship} is destroyed and sinks {when}"


@dataclass(frozen=True, slots=True)
class Sank(Event):
    kind: ClassVar[str] = "sank"
    ship: str
    crew_aboard: int
    dragged_under: int

    def text(self) -> str:
        return f"{self.ship} sinks; {self.dragged_under} of {self.crew_aboard} crew are dragged under"


@dataclass(frozen=True, slots=True)
class Escaped(Event):
    kind: ClassVar[str] = "escaped"
    ship: str
    distance: float

    def text(self) -> str:
        return f"{self.ship} escapes ({self.distance:.0f} yards from the nearest enemy)"


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
