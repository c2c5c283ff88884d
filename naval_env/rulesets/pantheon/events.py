"""Events of `pantheon`. Each reads as one line of the battle's story."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from naval_env.core.events import DamageDealt, Event, EventCatalog, GameEnded
from naval_env.core.grid import Compass


@dataclass(frozen=True, slots=True)
class InitiativeRolled(Event):
    kind: ClassVar[str] = "initiative"
    order: tuple[str, ...]
    scores: tuple[int, ...]

    def text(self) -> str:
        return "initiative: " + ", ".join(f"{s} ({v})" for s, v in zip(self.order, self.scores))


@dataclass(frozen=True, slots=True)
class TurnStarted(Event):
    kind: ClassVar[str] = "turn"
    ship: str
    round: int

    def text(self) -> str:
        return f"-- round {self.round}: {self.ship}'s turn"


@dataclass(frozen=True, slots=True)
class StatusChanged(Event):
    kind: ClassVar[str] = "status"
    ship: str
    status: str

    def text(self) -> str:
        return f"{self.ship} is now {self.status}"


@dataclass(frozen=True, slots=True)
class SinkingProgress(Event):
    kind: ClassVar[str] = "sinking"
    ship: str
    turns: int

    def text(self) -> str:
        return f"{self.ship} takes on water ({self.turns} turn(s) sinking)"


@dataclass(frozen=True, slots=True)
class TieBroken(Event):
    kind: ClassVar[str] = "untied"
    boarder: str
    boarded: str
    reason: str

    def text(self) -> str:
        return f"{self.boarder} and {self.boarded} are no longer tied ({self.reason})"


@dataclass(frozen=True, slots=True)
class Moved(Event):
    kind: ClassVar[str] = "moved"
    ship: str
    path: tuple[tuple[int, int], ...]
    facing_from: int
    facing_to: int
    forward: int
    allowance: int

    def text(self) -> str:
        start, end = self.path[0], self.path[-1]
        turned = "" if self.facing_from == self.facing_to else (
            f", turning {Compass(self.facing_from).name}->{Compass(self.facing_to).name}"
        )
        return f"{self.ship} moves {self.forward}/{self.allowance} from {start} to {end}{turned}"


@dataclass(frozen=True, slots=True)
class CrewActed(Event):
    kind: ClassVar[str] = "crew"
    ship: str
    actions: tuple[str, ...]

    def text(self) -> str:
        return f"{self.ship}'s crew: {', '.join(self.actions) or 'nothing'}"


@dataclass(frozen=True, slots=True)
class Healed(Event):
    kind: ClassVar[str] = "healed"
    ship: str
    amount: int
    cause: str

    def text(self) -> str:
        return f"{self.ship} restores {self.amount} health ({self.cause})"


@dataclass(frozen=True, slots=True)
class AttackDeclared(Event):
    kind: ClassVar[str] = "attack"
    ship: str
    attack: str
    target: str | None

    def text(self) -> str:
        at = f" at {self.target}" if self.target else ""
        return f"{self.ship} declares {self.attack}{at}"


@dataclass(frozen=True, slots=True)
class TestThrown(Event):
    """One throw of a test (a retest is another throw). ``defender`` None: a static challenge."""

    kind: ClassVar[str] = "test"
    test: str
    attacker: str
    defender: str | None
    attack_pool: int
    defense_pool: int
    attack_roll: int
    defense_roll: int
    result: str
    retest_by: str | None

    def text(self) -> str:
        vs = self.defender or "difficulty"
        again = f" [retest by {self.retest_by}]" if self.retest_by else ""
        return (
            f"{self.test}: {self.attacker} {self.attack_pool}+{self.attack_roll} vs "
            f"{vs} {self.defense_pool}+{self.defense_roll} -> {self.result}{again}"
        )


@dataclass(frozen=True, slots=True)
class BoardingTied(Event):
    kind: ClassVar[str] = "tied"
    boarder: str
    boarded: str

    def text(self) -> str:
        return f"{self.boarder} grapples and boards {self.boarded}"


@dataclass(frozen=True, slots=True)
class Repaired(Event):
    kind: ClassVar[str] = "repaired"
    ship: str
    health: int
    max_health: int
    speed: int

    def text(self) -> str:
        return f"{self.ship} is jury-rigged: health {self.health}/{self.max_health}, speed {self.speed}"


@dataclass(frozen=True, slots=True)
class FairEscape(Event):
    kind: ClassVar[str] = "fair_escape"
    ship: str

    def text(self) -> str:
        return f"{self.ship} slips off the edge of the board: Fair Escape"


CATALOG = EventCatalog(
    [
        InitiativeRolled, TurnStarted, StatusChanged, SinkingProgress, TieBroken, Moved,
        CrewActed, Healed, AttackDeclared, TestThrown, BoardingTied, Repaired, FairEscape,
    ]
)

__all__ = [
    "CATALOG", "AttackDeclared", "BoardingTied", "CrewActed", "DamageDealt", "FairEscape",
    "GameEnded", "Healed", "InitiativeRolled", "Moved", "Repaired", "SinkingProgress",
    "StatusChanged", "TestThrown", "TieBroken", "TurnStarted",
]
