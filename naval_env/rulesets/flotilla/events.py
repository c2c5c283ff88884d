"""Events of `flotilla`. Each reads as one line of the battle's story and round-trips through JSON."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from naval_env.core.events import DamageDealt, Event, EventCatalog, GameEnded
from naval_env.core.grid import Compass


@dataclass(frozen=True, slots=True)
class Placed(Event):
    kind: ClassVar[str] = "placed"
    ship: str
    x: int
    y: int
    facing: str

    def text(self) -> str:
        return f"{self.ship} starts with its bow at ({self.x}, {self.y}) facing {self.facing}"


@dataclass(frozen=True, slots=True)
class FacingChosen(Event):
    kind: ClassVar[str] = "facing"
    ship: str
    facing: str

    def text(self) -> str:
        return f"{self.ship} turns to face {self.facing}"


@dataclass(frozen=True, slots=True)
class WindChanged(Event):
    kind: ClassVar[str] = "wind"
    die: int
    roll: int
    wind: str

    def text(self) -> str:
        return f"wind (d{self.die} = {self.roll}): " + ("calm" if self.wind == "calm" else f"blows {self.wind}")


@dataclass(frozen=True, slots=True)
class RoundStarted(Event):
    kind: ClassVar[str] = "round"
    round: int

    def text(self) -> str:
        return f"== round {self.round}"


@dataclass(frozen=True, slots=True)
class InitiativeRolled(Event):
    """Every ship's deciding initiative throw, in the order they act."""

    kind: ClassVar[str] = "initiative"
    order: tuple[str, ...]
    throws: tuple[tuple[int, ...], ...]

    def text(self) -> str:
        return "initiative: " + ", ".join(f"{s} {list(t)}" for s, t in zip(self.order, self.throws))


@dataclass(frozen=True, slots=True)
class Contest(Event):
    """One throw of an opposed roll; ``b`` None is the maneuver's fixed difficulty; ``result`` is a's."""

    kind: ClassVar[str] = "contest"
    roll: str
    a: str
    b: str | None
    a_dice: int
    b_dice: int
    a_faces: tuple[int, ...]
    b_faces: tuple[int, ...]
    result: str

    def text(self) -> str:
        b = self.b or "difficulty"
        return (f"{self.roll}: {self.a} {self.a_dice}d6 {list(self.a_faces)} vs {b} {self.b_dice}d6 "
                f"{list(self.b_faces)} -> {self.a} {self.result}")


@dataclass(frozen=True, slots=True)
class Moved(Event):
    kind: ClassVar[str] = "moved"
    ship: str
    maneuver: str
    path: tuple[tuple[int, int], ...]
    facing_from: int
    facing_to: int

    def text(self) -> str:
        turned = ("" if self.facing_from == self.facing_to   # facings as compass letters, as everywhere else
                  else f", turning {Compass(self.facing_from).name}->{Compass(self.facing_to).name}")
        return f"{self.ship} {self.maneuver}: {self.path[0]} -> {self.path[-1]}{turned}"


@dataclass(frozen=True, slots=True)
class ManeuverFailed(Event):
    kind: ClassVar[str] = "maneuver_failed"
    ship: str
    maneuver: str
    fallback: str

    def text(self) -> str:
        return f"{self.ship} fails to {self.maneuver} and {self.fallback}s instead"


@dataclass(frozen=True, slots=True)
class Held(Event):
    """A ship that does not move this round and why (stuck after a collision, no captain, grappled)."""

    kind: ClassVar[str] = "held"
    ship: str
    reason: str

    def text(self) -> str:
        return f"{self.ship} does not move ({self.reason})"


@dataclass(frozen=True, slots=True)
class Rammed(Event):
    kind: ClassVar[str] = "rammed"
    rammer: str
    target: str
    collided: bool

    def text(self) -> str:
        return f"{self.rammer} rams {self.target}: " + ("collision!" if self.collided else "missed, ends alongside")


@dataclass(frozen=True, slots=True)
class BoardingAttempt(Event):
    kind: ClassVar[str] = "boarding"
    boarder: str
    target: str
    grappled: bool

    def text(self) -> str:
        return f"{self.boarder} tries to board {self.target}: " + ("grappled" if self.grappled else "fails")


@dataclass(frozen=True, slots=True)
class BreakFree(Event):
    kind: ClassVar[str] = "break_free"
    ship: str
    other: str
    penalty: int
    freed: bool

    def text(self) -> str:
        return (f"{self.ship} tries to break free of {self.other} (penalty {self.penalty}d6): "
                + ("free" if self.freed else "still grappled"))


@dataclass(frozen=True, slots=True)
class GrappleEnded(Event):
    kind: ClassVar[str] = "grapple_ended"
    ship: str
    other: str
    reason: str

    def text(self) -> str:
        return f"{self.ship} and {self.other} are no longer grappled ({self.reason})"


@dataclass(frozen=True, slots=True)
class AttackDeclared(Event):
    kind: ClassVar[str] = "attack"
    attacker: str
    unit: str
    target: str
    target_unit: str

    def text(self) -> str:
        return f"{self.attacker}'s {self.unit} fire at {self.target}'s {self.target_unit}"


@dataclass(frozen=True, slots=True)
class Reacted(Event):
    kind: ClassVar[str] = "reaction"
    defender: str
    reaction: str
    attacker: str

    def text(self) -> str:
        return f"{self.defender} chooses to {self.reaction} against {self.attacker}"


@dataclass(frozen=True, slots=True)
class MagesHit(Event):
    kind: ClassVar[str] = "mages_hit"
    ship: str
    amount: int
    source: str
    remaining: int

    def text(self) -> str:
        return f"{self.ship}'s mage squad loses {self.amount} cohesion to {self.source} ({self.remaining} left)"


@dataclass(frozen=True, slots=True)
class HitLocation(Event):
    kind: ClassVar[str] = "hit_location"
    ship: str
    roll: int
    part: str

    def text(self) -> str:
        return f"{self.ship} hit in the {self.part.replace('_', ' ')} (d10 = {self.roll})"


@dataclass(frozen=True, slots=True)
class CaptainKilled(Event):
    kind: ClassVar[str] = "captain_killed"
    ship: str

    def text(self) -> str:
        return f"{self.ship}'s captain is killed"


@dataclass(frozen=True, slots=True)
class Sunk(Event):
    kind: ClassVar[str] = "sunk"
    ship: str
    cause: str

    def text(self) -> str:
        return f"{self.ship} loses all cohesion and sinks ({self.cause})"


@dataclass(frozen=True, slots=True)
class CharacterFate(Event):
    kind: ClassVar[str] = "fate"
    ship: str
    character: str
    roll: int
    fate: str

    def text(self) -> str:
        return f"{self.ship}'s {self.character} (d = {self.roll}): {self.fate}"


CATALOG = EventCatalog(
    [
        Placed, FacingChosen, WindChanged, RoundStarted, InitiativeRolled, Contest, Moved, ManeuverFailed,
        Held, Rammed, BoardingAttempt, BreakFree, GrappleEnded, AttackDeclared, Reacted, MagesHit,
        HitLocation, CaptainKilled, Sunk, CharacterFate,
    ]
)

__all__ = [
    "CATALOG", "AttackDeclared", "BoardingAttempt", "BreakFree", "CaptainKilled", "CharacterFate", "Contest",
    "DamageDealt", "FacingChosen", "GameEnded", "GrappleEnded", "Held", "HitLocation", "InitiativeRolled",
    "MagesHit", "ManeuverFailed", "Moved", "Placed", "Rammed", "Reacted", "RoundStarted", "Sunk", "WindChanged",
]
