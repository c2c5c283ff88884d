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


@event("crew", "{ship}'s crew: {actions}", actions=events.listed("actions", otherwise="nothing"))
class CrewActed(Event):
    ship: str
    actions: tuple[str, ...]


@event("healed", "{ship} restores {amount} health ({cause})")
class Healed(Event):
    ship: str
    amount: int
    cause: str


@event("attack", "{ship} declares {attack}{target}", target=events.when("target", " at {target}"))
class AttackDeclared(Event):
    ship: str
    attack: str
    target: str | None


@event("test", "{test}: {attacker} {attack_pool}+{attack_roll} vs {defender} {defense_pool}+{defense_roll} -> "
       "{result}{retest_by}", defender=events.when("defender", "{defender}", "difficulty"),
       retest_by=events.when("retest_by", " [retest by {retest_by}]"))
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
