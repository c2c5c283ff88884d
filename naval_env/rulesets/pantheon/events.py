"""Events of `pantheon`. Each reads as one line of the battle's story."""

from __future__ import annotations

from naval_env.core import events
from naval_env.core.events import (
    DamageDealt,
    Event,
    EventCatalog,
    GameEnded,
    StatusChanged,
    TurnStarted,
    event,
)


@event("initiative")
class InitiativeRolled(Event):
    order: tuple[str, ...]
    scores: tuple[int, ...]

    def text(self) -> str:
        return "initiative: " + ", ".join(f"{s} ({v})" for s, v in zip(self.order, self.scores))


@event("sinking", "{ship} takes on water ({turns} turn(s) sinking)")
class SinkingProgress(Event):
    ship: str
    turns: int


@event("untied", "{boarder} and {boarded} are no longer tied ({reason})")
class TieBroken(Event):
    boarder: str
    boarded: str
    reason: str


@event("moved")
class Moved(events.Moved):
    forward: int
    allowance: int

    def text(self) -> str:
        start, end = self.path[0], self.path[-1]
        return f"{self.ship} moves {self.forward}/{self.allowance} from {start} to {end}{self.turning()}"


@event("crew")
class CrewActed(Event):
    ship: str
    actions: tuple[str, ...]

    def text(self) -> str:
        return f"{self.ship}'s crew: {', '.join(self.actions) or 'nothing'}"


@event("healed", "{ship} restores {amount} health ({cause})")
class Healed(Event):
    ship: str
    amount: int
    cause: str


@event("attack")
class AttackDeclared(Event):
    ship: str
    attack: str
    target: str | None

    def text(self) -> str:
        at = f" at {self.target}" if self.target else ""
        return f"{self.ship} declares {self.attack}{at}"


@event("test")
class TestThrown(Event):
    """One throw of a test (a retest is another throw). ``defender`` None: a static challenge."""

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


@event("tied", "{boarder} grapples and boards {boarded}")
class BoardingTied(Event):
    boarder: str
    boarded: str


@event("repaired", "{ship} is jury-rigged: health {health}/{max_health}, speed {speed}")
class Repaired(Event):
    ship: str
    health: int
    max_health: int
    speed: int


@event("fair_escape", "{ship} slips off the edge of the board: Fair Escape")
class FairEscape(Event):
    ship: str


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
