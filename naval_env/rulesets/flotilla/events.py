"""Events of `flotilla`. Each reads as one line of the battle's story and round-trips through JSON."""

from __future__ import annotations

from naval_env.core.events import DamageDealt, Event, EventCatalog, GameEnded, event, when
from naval_env.core.grid import Compass


@event("placed", "{ship} starts with its bow at ({x}, {y}) facing {facing}")
class Placed(Event):
    ship: str
    x: int
    y: int
    facing: str


@event("facing", "{ship} turns to face {facing}")
class FacingChosen(Event):
    ship: str
    facing: str


@event("wind")
class WindChanged(Event):
    die: int
    roll: int
    wind: str

    def text(self) -> str:
        return f"wind (d{self.die} = {self.roll}): " + ("calm" if self.wind == "calm" else f"blows {self.wind}")


@event("round", "== round {round}")
class RoundStarted(Event):
    round: int


@event("initiative")
class InitiativeRolled(Event):
    """Every ship's deciding initiative throw, in the order they act."""

    order: tuple[str, ...]
    throws: tuple[tuple[int, ...], ...]

    def text(self) -> str:
        return "initiative: " + ", ".join(f"{s} {list(t)}" for s, t in zip(self.order, self.throws))


@event("contest")
class Contest(Event):
    """One throw of an opposed roll; ``b`` None is the maneuver's fixed difficulty; ``result`` is a's."""

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


@event("moved")
class Moved(Event):
    ship: str
    maneuver: str
    path: tuple[tuple[int, int], ...]
    facing_from: int
    facing_to: int

    def text(self) -> str:
        turned = ("" if self.facing_from == self.facing_to   # facings as compass letters, as everywhere else
                  else f", turning {Compass(self.facing_from).name}->{Compass(self.facing_to).name}")
        return f"{self.ship} {self.maneuver}: {self.path[0]} -> {self.path[-1]}{turned}"


@event("maneuver_failed")
class ManeuverFailed(Event):
    """A maneuver's roll failed: the ship makes ``fallback`` (the base move, ``ahead``) instead."""

    ship: str
    maneuver: str
    fallback: str

    def text(self) -> str:   # "red_0 fails the hard turn to port and sails ahead instead"
        return f"{self.ship} fails the {_words(self.maneuver)} and sails {_words(self.fallback)} instead"


def _words(label: str) -> str:
    """A maneuver's label as words: ``hard_turn_port`` -> ``hard turn to port``, ``heave_to`` -> ``heave to``."""
    for side in ("port", "starboard"):
        if label.endswith("_" + side):
            label = label.removesuffix("_" + side) + " to " + side
    return label.replace("_", " ")


@event("held", "{ship} does not move ({reason})")
class Held(Event):
    """A ship that does not move this round and why (stuck after a collision, no captain, grappled)."""

    ship: str
    reason: str


@event("rammed", "{rammer} rams {target}: {collided}",
       collided=when("collided", "collision!", "missed, ends alongside"))
class Rammed(Event):
    rammer: str
    target: str
    collided: bool


@event("boarding", "{boarder} tries to board {target}: {grappled}",
       grappled=when("grappled", "grappled", "fails"))
class BoardingAttempt(Event):
    boarder: str
    target: str
    grappled: bool


@event("break_free", "{ship} tries to break free of {other} (penalty {penalty}d6): {freed}",
       freed=when("freed", "free", "still grappled"))
class BreakFree(Event):
    ship: str
    other: str
    penalty: int
    freed: bool


@event("grapple_ended", "{ship} and {other} are no longer grappled ({reason})")
class GrappleEnded(Event):
    ship: str
    other: str
    reason: str


@event("attack", "{attacker}'s {unit} fire at {target}'s {target_unit}")
class AttackDeclared(Event):
    attacker: str
    unit: str
    target: str
    target_unit: str


@event("reaction", "{defender} chooses to {reaction} against {attacker}")
class Reacted(Event):
    defender: str
    reaction: str
    attacker: str


@event("mages_hit", "{ship}'s mage squad loses {amount} cohesion to {source} ({remaining} left)")
class MagesHit(Event):
    ship: str
    amount: int
    source: str
    remaining: int


@event("hit_location")
class HitLocation(Event):
    ship: str
    roll: int
    part: str

    def text(self) -> str:
        return f"{self.ship} hit in the {self.part.replace('_', ' ')} (d10 = {self.roll})"


@event("captain_killed", "{ship}'s captain is killed")
class CaptainKilled(Event):
    ship: str


@event("sunk", "{ship} loses all cohesion and sinks ({cause})")
class Sunk(Event):
    ship: str
    cause: str


@event("fate", "{ship}'s {character} (d = {roll}): {fate}")
class CharacterFate(Event):
    ship: str
    character: str
    roll: int
    fate: str


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
