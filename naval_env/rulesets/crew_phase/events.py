"""Events of `crew_phase`. Each reads as one line of the battle's story."""

from __future__ import annotations

from naval_env.core import events
from naval_env.core.events import DamageDealt, Event, EventCatalog, GameEnded, StatusChanged, event


@event("character_phase", "== round {round}, Character Phase: crews act in order {in_order}",
       in_order=events.listed("order"))
class CharacterPhaseStarted(Event):
    round: int
    order: tuple[str, ...]


@event("ship_phase")
class ShipPhaseStarted(Event):
    round: int
    order: tuple[str, ...]
    initiative: tuple[int, ...]

    def text(self) -> str:
        ships = ", ".join(f"{s} ({i})" for s, i in zip(self.order, self.initiative))
        return f"== round {self.round}, Ship Phase: {ships}"


@event("turn", "-- {ship}'s turn")
class TurnStarted(events.TurnStarted):
    """The shared shape; the round is told by the phase events, so the line names the ship alone."""


@event("check", "{ship} crew {crew} {check}: d20 {rolls} {modifier:+d} = {total} vs DC {dc}: {success}",
       rolls=events.listed("rolls", "/"), success=events.when("success", "success", "failure"))
class CheckRolled(Event):
    """A d20 check or save; ``rolls`` holds both dice under advantage or disadvantage."""

    ship: str
    crew: int
    check: str
    rolls: tuple[int, ...]
    modifier: int
    total: int
    dc: int
    success: bool


@event("speed", "{ship} crew {crew} works section {section}: +{feet} ft")
class SpeedGained(Event):
    ship: str
    crew: int
    section: int
    feet: int


@event("station", "{ship} crew {crew} mans the {station}")
class StationManned(Event):
    """A crew member took the helm (``station`` "helm") or a weapon ("operate 1", "ready 1")."""

    ship: str
    crew: int
    station: str


@event("wasted", "{ship} crew {crew}: {action} has no effect ({reason})")
class CrewActionWasted(Event):
    ship: str
    crew: int
    action: str
    reason: str


@event("repaired", "{ship} crew {crew} repairs the {part}: hull die {roll}, +{amount}")
class Repaired(Event):
    """A Repair (``part`` "hull" or "weapon j") or a day of dock work."""

    ship: str
    crew: int
    part: str
    roll: int
    amount: int


@event("healed", "{ship} crew {healer} restores crew {patient} to {hp} hp")
class CrewHealed(Event):
    ship: str
    healer: int
    patient: int
    hp: int


@event("moved")
class Moved(events.Moved):
    feet: int
    towed: tuple[str, ...]

    def text(self) -> str:
        tow = f", towing {', '.join(self.towed)}" if self.towed else ""
        return f"{self.ship} moves {self.path[0]}->{self.path[-1]} ({self.feet} ft){self.turning()}{tow}"


@event("attack")
class AttackRolled(Event):
    """A weapon attack; ``target`` is "hull", "crew m" or "weapon j" of ``target_ship``."""

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


@event("attack_lost", "{ship} weapon {weapon} does not fire ({reason})")
class AttackLost(Event):
    ship: str
    weapon: int
    reason: str


@event("crew_wounded", "{ship} crew {crew} takes {amount} damage ({hp} hp left{down})",
       down=events.when("hp", "", ", incapacitated"))
class CrewWounded(Event):
    ship: str
    crew: int
    amount: int
    hp: int


@event("part_damaged", "{ship} weapon {weapon} takes {amount} damage ({hp} hp left{broken})",
       broken=events.when("hp", "", ", destroyed"))
class PartDamaged(Event):
    ship: str
    weapon: int
    amount: int
    hp: int


@event("ram", "{rammer} rams {target}: d20 {rolls} {modifier:+d} = {total} vs AC {ac}: {hit}",
       rolls=events.listed("rolls", "/"), hit=events.when("hit", "hit", "miss"))
class RamRolled(Event):
    rammer: str
    target: str
    rolls: tuple[int, ...]
    modifier: int
    total: int
    ac: int
    hit: bool


@event("prone", "{ship} crew {crew} is knocked prone")
class KnockedProne(Event):
    ship: str
    crew: int


@event("grapple")
class GrappleStarted(Event):
    holder: str
    held: str
    weapon: int | None

    def text(self) -> str:
        how = "in the wreckage of the ram" if self.weapon is None else f"with weapon {self.weapon}"
        return f"{self.holder} and {self.held} are grappled {how}"


@event("grapple_ended", "the grapple between {holder} and {held} ends ({reason})")
class GrappleEnded(Event):
    holder: str
    held: str
    reason: str


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
