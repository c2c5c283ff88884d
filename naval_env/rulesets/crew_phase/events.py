"""Events of `crew_phase`. Each reads as one line of the battle's story."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from naval_env.core.events import DamageDealt, Event, EventCatalog, GameEnded
from naval_env.core.grid import Compass


@dataclass(frozen=True, slots=True)
class CharacterPhaseStarted(Event):
    kind: ClassVar[str] = "character_phase"
    round: int
    order: tuple[str, ...]

    def text(self) -> str:
        return f"== round {self.round}, Character Phase: crews act in order {', '.join(self.order)}"


@dataclass(frozen=True, slots=True)
class ShipPhaseStarted(Event):
    kind: ClassVar[str] = "ship_phase"
    round: int
    order: tuple[str, ...]
    initiative: tuple[int, ...]

    def text(self) -> str:
        ships = ", ".join(f"{s} ({i})" for s, i in zip(self.order, self.initiative))
        return f"== round {self.round}, Ship Phase: {ships}"


@dataclass(frozen=True, slots=True)
class TurnStarted(Event):
    kind: ClassVar[str] = "turn"
    ship: str
    round: int

    def text(self) -> str:
        return f"-- {self.ship}'s turn"


@dataclass(frozen=True, slots=True)
class CheckRolled(Event):
    """A d20 check or save; ``rolls`` holds both dice under advantage or disadvantage."""

    kind: ClassVar[str] = "check"
    ship: str
    crew: int
    check: str
    rolls: tuple[int, ...]
    modifier: int
    total: int
    dc: int
    success: bool

    def text(self) -> str:
        dice = "/".join(str(r) for r in self.rolls)
        verdict = "success" if self.success else "failure"
        return f"{self.ship} crew {self.crew} {self.check}: d20 {dice} {self.modifier:+d} = {self.total} " \
               f"vs DC {self.dc}: {verdict}"


@dataclass(frozen=True, slots=True)
class SpeedGained(Event):
    kind: ClassVar[str] = "speed"
    ship: str
    crew: int
    section: int
    feet: int

    def text(self) -> str:
        return f"{self.ship} crew {self.crew} works section {self.section}: +{self.feet} ft"


@dataclass(frozen=True, slots=True)
class StationManned(Event):
    """A crew member took the helm (``station`` "helm") or a weapon ("operate 1", "ready 1")."""

    kind: ClassVar[str] = "station"
    ship: str
    crew: int
    station: str

    def text(self) -> str:
        return f"{self.ship} crew {self.crew} mans the {self.station}"


@dataclass(frozen=True, slots=True)
class CrewActionWasted(Event):
    kind: ClassVar[str] = "wasted"
    ship: str
    crew: int
    action: str
    reason: str

    def text(self) -> str:
        return f"{self.ship} crew {self.crew}: {self.action} has no effect ({self.reason})"


@dataclass(frozen=True, slots=True)
class Repaired(Event):
    """A Repair (``part`` "hull" or "weapon j") or a day of dock work."""

    kind: ClassVar[str] = "repaired"
    ship: str
    crew: int
    part: str
    roll: int
    amount: int

    def text(self) -> str:
        return f"{self.ship} crew {self.crew} repairs the {self.part}: hull die {self.roll}, +{self.amount}"


@dataclass(frozen=True, slots=True)
class CrewHealed(Event):
    kind: ClassVar[str] = "healed"
    ship: str
    healer: int
    patient: int
    hp: int

    def text(self) -> str:
        return f"{self.ship} crew {self.healer} restores crew {self.patient} to {self.hp} hp"


@dataclass(frozen=True, slots=True)
class StatusChanged(Event):
    kind: ClassVar[str] = "status"
    ship: str
    status: str

    def text(self) -> str:
        return f"{self.ship} is now {self.status}"


@dataclass(frozen=True, slots=True)
class Moved(Event):
    kind: ClassVar[str] = "moved"
    ship: str
    path: tuple[tuple[int, int], ...]
    facing_from: int
    facing_to: int
    feet: int
    towed: tuple[str, ...]

    def text(self) -> str:
        start, end = self.path[0], self.path[-1]
        turned = "" if self.facing_from == self.facing_to else (
            f", turning {Compass(self.facing_from).name}->{Compass(self.facing_to).name}")
        tow = f", towing {', '.join(self.towed)}" if self.towed else ""
        return f"{self.ship} moves {start}->{end} ({self.feet} ft){turned}{tow}"


@dataclass(frozen=True, slots=True)
class AttackRolled(Event):
    """A weapon attack; ``target`` is "hull", "crew m" or "weapon j" of ``target_ship``."""

    kind: ClassVar[str] = "attack"
    ship: str
    weapon: int
    crew: int
    target_ship: str
    target: str
    rolls: tuple[int, ...]
    modifier: int
    total: int
    ac: int
    hit: bool
    critical: bool
    readied: bool

    def text(self) -> str:
        dice = "/".join(str(r) for r in self.rolls)
        how = "critical hit" if self.critical else ("hit" if self.hit else "miss")
        ready = " (readied)" if self.readied else ""
        return (f"{self.ship} weapon {self.weapon}{ready} at {self.target_ship} {self.target}: d20 {dice} "
                f"{self.modifier:+d} = {self.total} vs AC {self.ac}: {how}")


@dataclass(frozen=True, slots=True)
class AttackLost(Event):
    kind: ClassVar[str] = "attack_lost"
    ship: str
    weapon: int
    reason: str

    def text(self) -> str:
        return f"{self.ship} weapon {self.weapon} does not fire ({self.reason})"


@dataclass(frozen=True, slots=True)
class CrewWounded(Event):
    kind: ClassVar[str] = "crew_wounded"
    ship: str
    crew: int
    amount: int
    hp: int

    def text(self) -> str:
        down = ", incapacitated" if self.hp == 0 else ""
        return f"{self.ship} crew {self.crew} takes {self.amount} damage ({self.hp} hp left{down})"


@dataclass(frozen=True, slots=True)
class PartDamaged(Event):
    kind: ClassVar[str] = "part_damaged"
    ship: str
    weapon: int
    amount: int
    hp: int

    def text(self) -> str:
        broken = ", destroyed" if self.hp == 0 else ""
        return f"{self.ship} weapon {self.weapon} takes {self.amount} damage ({self.hp} hp left{broken})"


@dataclass(frozen=True, slots=True)
class RamRolled(Event):
    kind: ClassVar[str] = "ram"
    rammer: str
    target: str
    rolls: tuple[int, ...]
    modifier: int
    total: int
    ac: int
    hit: bool

    def text(self) -> str:
        dice = "/".join(str(r) for r in self.rolls)
        return (f"{self.rammer} rams {self.target}: d20 {dice} {self.modifier:+d} = {self.total} vs AC {self.ac}: "
                f"{'hit' if self.hit else 'miss'}")


@dataclass(frozen=True, slots=True)
class KnockedProne(Event):
    kind: ClassVar[str] = "prone"
    ship: str
    crew: int

    def text(self) -> str:
        return f"{self.ship} crew {self.crew} is knocked prone"


@dataclass(frozen=True, slots=True)
class GrappleStarted(Event):
    kind: ClassVar[str] = "grapple"
    holder: str
    held: str
    weapon: int | None

    def text(self) -> str:
        how = "in the wreckage of the ram" if self.weapon is None else f"with weapon {self.weapon}"
        return f"{self.holder} and {self.held} are grappled {how}"


@dataclass(frozen=True, slots=True)
class GrappleEnded(Event):
    kind: ClassVar[str] = "grapple_ended"
    holder: str
    held: str
    reason: str

    def text(self) -> str:
        return f"the grapple between {self.holder} and {self.held} ends ({self.reason})"


CATALOG = EventCatalog(
    [
        CharacterPhaseStarted, ShipPhaseStarted, TurnStarted, CheckRolled, SpeedGained, StationManned,
        CrewActionWasted, Repaired, CrewHealed, StatusChanged, Moved, AttackRolled, AttackLost, CrewWounded,
        PartDamaged, RamRolled, KnockedProne, GrappleStarted, GrappleEnded,
    ]
)

__all__ = [
    "CATALOG", "AttackLost", "AttackRolled", "CharacterPhaseStarted", "CheckRolled", "CrewActionWasted",
    "CrewHealed", "CrewWounded", "DamageDealt", "GameEnded", "GrappleEnded", "GrappleStarted", "KnockedProne",
    "Moved", "PartDamaged", "RamRolled", "Repaired", "ShipPhaseStarted", "SpeedGained", "StationManned",
    "StatusChanged", "TurnStarted",
]
