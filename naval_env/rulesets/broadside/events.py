"""Events of `broadside`. Each reads as one line of the battle's story."""

from __future__ import annotations

from naval_env.core.events import DamageDealt, Event, EventCatalog, GameEnded, event, listed, when


@event("round", "== round {round}: {in_order}", in_order=listed("order"))
class RoundStarted(Event):
    round: int
    order: tuple[str, ...]


@event("moved")
class Moved(Event):
    """A ship's own move; ``waypoints`` are (x, y, heading) at the start and after each leg."""

    ship: str
    speed: str
    waypoints: tuple[tuple[float, float, float], ...]
    distance: float

    def text(self) -> str:
        x0, y0, h0 = self.waypoints[0]
        x1, y1, h1 = self.waypoints[-1]
        return (f"{self.ship} moves at {self.speed} speed {self.distance:.1f}in: "
                f"({x0:.1f}, {y0:.1f}) {h0:.0f}deg -> ({x1:.1f}, {y1:.1f}) {h1:.0f}deg")


@event("turn_blocked")
class TurnBlocked(Event):
    ship: str
    leg: int
    degrees: float

    def text(self) -> str:
        return f"{self.ship} cannot turn {self.degrees:+.0f}deg before leg {self.leg + 1}: no room"


@event("collision")
class Collided(Event):
    """The activated ship struck ``struck`` (a ship or an iceberg) on its ``region`` at ``point``."""

    ship: str
    struck: str
    region: str
    point: tuple[float, float]
    leg: int

    def text(self) -> str:
        return f"{self.ship} collides with {self.struck} ({self.region}) on leg {self.leg + 1}"


@event("ram", "{ship} rams {target}: {full} ram on the {region} at {incidence:.0f}deg",
       full=when("full", "full", "glancing"))
class Rammed(Event):
    ship: str
    target: str
    full: bool
    incidence: float
    region: str


@event("carried")
class Carried(Event):
    """A ship moved by the force of a collision: ``how`` is carry, push, swing or deflect."""

    ship: str
    how: str
    amount: float
    x: float
    y: float
    heading: float

    def text(self) -> str:
        unit = "deg" if self.how == "swing" else "in"
        return f"{self.ship} {self.how}s {self.amount:.1f}{unit} to ({self.x:.1f}, {self.y:.1f}) {self.heading:.0f}deg"


@event("oars_swept", "{ship}'s oars are swept ({sweeps} sweep(s))")
class OarsSwept(Event):
    ship: str
    sweeps: int


@event("forfeit", "{ship} forfeits its movement this turn")
class MovementForfeited(Event):
    ship: str


@event("volley", "{ship} {battery} at {target} ({distance:.1f}in, need {needed:.1f}): [{rolls}] -> {hits} hit(s)"
       "{rake}", rolls=listed("rolls"), rake=when("rake", ", raking"))
class Volley(Event):
    """One battery (or the archers) firing: one die per cannon or archer against ``needed``."""

    ship: str
    battery: str
    target: str
    distance: float
    needed: float
    rolls: tuple[int, ...]
    hits: int
    rake: bool


@event("collateral", "collateral on {target}: {roll} -> {effect} {amount}")
class CollateralDamage(Event):
    target: str
    roll: int
    effect: str
    amount: int


@event("casualties")
class Casualties(Event):
    """People lost from a ship's complement (``losses`` pairs category and count)."""

    ship: str
    losses: tuple[tuple[str, int], ...]
    cause: str

    def text(self) -> str:
        lost = ", ".join(f"{n} {who}" for who, n in self.losses) or "nobody"
        return f"{self.ship} loses {lost} ({self.cause})"


@event("boarding")
class BoardingAttempt(Event):
    ship: str
    target: str
    marines: int
    heroes: int
    defender_dice: tuple[int, ...]
    attacker_rolls: tuple[int, ...]
    boarded: int
    thrown_back: int
    unopposed: bool

    def text(self) -> str:
        how = "unopposed" if self.unopposed else f"against {list(self.defender_dice)} with {list(self.attacker_rolls)}"
        return (f"{self.ship} boards {self.target} with {self.marines} marine(s) and {self.heroes} hero(es), "
                f"{how}: {self.boarded} aboard, {self.thrown_back} thrown back")


@event("reinforced", "{ship} sends {marines} marine(s) and {heroes} hero(es) to reinforce {friend}")
class Reinforced(Event):
    ship: str
    friend: str
    marines: int
    heroes: int


@event("melee", "melee aboard {ship}: defenders [{defender_dice}] vs [{attacker_rolls}]: {defenders_lost} "
       "defender(s) and {attackers_lost} attacker(s) fall, {retreated} retreat",
       defender_dice=listed("defender_dice"), attacker_rolls=listed("attacker_rolls"))
class MeleeFought(Event):
    ship: str
    defender_dice: tuple[int, ...]
    attacker_rolls: tuple[int, ...]
    attackers_lost: int
    defenders_lost: int
    retreated: int


@event("withdrew", "{ship} withdraws {marines} marine(s) and {heroes} hero(es) from {host}")
class Withdrew(Event):
    ship: str
    host: str
    marines: int
    heroes: int


@event("grappled", "{ship} and {other} are grappled ({cause})")
class Grappled(Event):
    ship: str
    other: str
    cause: str


@event("grapple_cut", "the grapple between {ship} and {other} is cut")
class GrappleCut(Event):
    ship: str
    other: str


#: How the log says a ship left the battle, by its status ("red_0 has fled the table", not "is fled").
_LOST = {"sunk": "is sunk", "prize": "is taken as a prize", "fled": "has fled off the table"}


@event("ship_lost")
class ShipLost(Event):
    """A ship leaves the battle: ``status`` sunk, prize (``by`` the capturing side) or fled."""

    ship: str
    status: str
    by: str | None

    def text(self) -> str:
        by = f" by {self.by}" if self.by else ""
        return f"{self.ship} {_LOST.get(self.status, 'is ' + self.status)}{by}"


CATALOG = EventCatalog([
    RoundStarted, Moved, TurnBlocked, Collided, Rammed, Carried, OarsSwept, MovementForfeited, Volley,
    CollateralDamage, Casualties, BoardingAttempt, Reinforced, MeleeFought, Withdrew, Grappled, GrappleCut,
    ShipLost,
])

__all__ = [
    "CATALOG",
    "BoardingAttempt",
    "Carried",
    "Casualties",
    "CollateralDamage",
    "Collided",
    "DamageDealt",
    "GameEnded",
    "GrappleCut",
    "Grappled",
    "MeleeFought",
    "Moved",
    "MovementForfeited",
    "OarsSwept",
    "Rammed",
    "Reinforced",
    "RoundStarted",
    "ShipLost",
    "TurnBlocked",
    "Volley",
    "Withdrew",
]
