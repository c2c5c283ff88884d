"""Boarding actions, melees, grapples and prizes.

Boarding (dice duel): the defender rolls a d8 per marine and a d10 per hero at once; the
attacker rolls a d8 per marine and a d10 per hero one at a time (heroes first or last),
each against the highest defending die left: lower is thrown back, a tie removes that
defending die and the same boarder rolls again, higher boards and removes that die. Once
no defending die is left the rest board unopposed. Grappled ships board unopposed.

Melee: the defender rolls a d6 per crew or archer (and lieutenant), a d8 per marine and a
d10 per hero at once; each boarder's die against the highest left: lower dies, a tie
removes that die and the boarder stays or goes home, higher kills that die's owner. A ship
with boarders aboard and no marines or officers left is a prize.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from naval_env.core.dice import Dice
from naval_env.core.events import Event
from naval_env.rulesets.broadside.config import HouseRules
from naval_env.rulesets.broadside.events import (
    BoardingAttempt,
    Casualties,
    MeleeFought,
    Reinforced,
    Withdrew,
)
from naval_env.rulesets.broadside.gunnery import can_shoot_arrows, shoot_arrows
from naval_env.rulesets.broadside.hull import cut_grapple, grapple, leave_battle, return_party
from naval_env.rulesets.broadside.state import BoardingOrder, Party, Ship, Status

if TYPE_CHECKING:
    from naval_env.rulesets.broadside.engine import BroadsideGame


def boarding_order(marines: int, heroes: int, heroes_first: bool) -> list[str]:
    """The order the attacker rolls in: every hero first, or every hero last."""
    return ["heroes"] * heroes + ["marines"] * marines if heroes_first else ["marines"] * marines + ["heroes"] * heroes


def defender_dice(dice: Dice, rules: HouseRules, marines: int, heroes: int, reason: str) -> list[int]:
    """Heroes' d10s then marines' d8s, all at once; returned highest first."""
    faces = list(dice.roll(rules.hero_die, heroes, f"{reason}: heroes")) if heroes else []
    faces += list(dice.roll(rules.marine_die, marines, f"{reason}: marines")) if marines else []
    return sorted(faces, reverse=True)


def duel(dice: Dice, rules: HouseRules, order: list[str], defending: list[int]) -> tuple[dict[str, int], list[int]]:
    """The boarding dice duel. Returns how many of each kind boarded, and the attacker's rolls."""
    left = list(defending)
    boarded = {"marines": 0, "heroes": 0}
    rolls: list[int] = []
    for kind in order:
        die = rules.hero_die if kind == "heroes" else rules.marine_die
        while True:
            if not left:
                boarded[kind] += 1
                break
            roll = dice.d(die, f"boarding: {kind}")
            rolls.append(roll)
            top = left[0]
            if roll < top:
                break                 # thrown back onto his own vessel
            left.pop(0)               # the defender picks up his highest die
            if roll > top:
                boarded[kind] += 1
                break
            # a tie: the same boarder rolls again
    return boarded, rolls


def land(attacker: Ship, host: Ship, marines: int, heroes: int, heroes_first: bool) -> None:
    """Boarders join the attacker's party on the host's deck."""
    party = host.boarders.get(attacker.id)
    if party is None:
        party = host.boarders[attacker.id] = Party()
    party.marines += marines
    party.heroes += heroes
    party.heroes_first = heroes_first


def board(game: BroadsideGame, attacker: Ship, target: Ship, marines: int, heroes: int, heroes_first: bool,
          defenders: tuple[int, int] | None, events: list[Event]) -> int:
    """One boarding action; the boarders have already left home. ``defenders`` (marines, heroes) None:
    unopposed. Returns how many boarded; the rest go home."""
    faces: list[int] = []
    rolls: list[int] = []
    if defenders is None or defenders == (0, 0):
        boarded = {"marines": marines, "heroes": heroes}
    else:
        faces = defender_dice(game.dice, game.rules, defenders[0], defenders[1], f"repel {attacker.id}")
        boarded, rolls = duel(game.dice, game.rules, boarding_order(marines, heroes, heroes_first), faces)
    landed = boarded["marines"] + boarded["heroes"]
    attacker.people.marines += marines - boarded["marines"]
    attacker.people.heroes += heroes - boarded["heroes"]
    events.append(BoardingAttempt(attacker.id, target.id, marines, heroes, tuple(faces), tuple(rolls), landed,
                                  marines + heroes - landed, defenders is None or defenders == (0, 0)))
    if landed:
        land(attacker, target, boarded["marines"], boarded["heroes"], heroes_first)
        grapple(game.state, attacker, target, "boarders aboard", events)
    return landed


def board_at_once(game: BroadsideGame, attacker: Ship, target: Ship, marines: int, heroes: int,
                  heroes_first: bool, events: list[Event]) -> None:
    """A boarding right after a collision: unopposed when grappled (a full ram), else the dice duel,
    and any melee that follows is fought at once."""
    marines, heroes = min(marines, attacker.people.marines), min(heroes, attacker.people.heroes)
    if marines + heroes == 0:
        return
    attacker.people.marines -= marines
    attacker.people.heroes -= heroes
    grappled = target.id in attacker.grappled
    defenders = None if grappled else (target.people.marines, target.people.heroes)
    landed = board(game, attacker, target, marines, heroes, heroes_first, defenders, events)
    if landed and not check_prize(game, target, events):
        melee(game, target, events)


def split_defenders(marines: int, heroes: int, sizes: list[int]) -> list[tuple[int, int]]:
    """Defenders assigned to several boarding actions: dealt one at a time, heroes first, to the
    attempts in order of size (largest first, then declaration order)."""
    if not sizes:
        return []
    shares = [[0, 0] for _ in sizes]
    ranked = sorted(range(len(sizes)), key=lambda i: (-sizes[i], i))
    dealt = 0
    for kind, count in ((1, heroes), (0, marines)):
        for _ in range(count):
            shares[ranked[dealt % len(ranked)]][kind] += 1
            dealt += 1
    return [(m, h) for m, h in shares]


def resolve_orders(game: BroadsideGame, orders: list[BoardingOrder], events: list[Event]) -> None:
    """The BOARDING stage, simultaneous: archers first, then reinforcements, then every boarding action."""
    ships = game.state.ships
    for order in orders:
        shooter = ships[order.ship]
        if order.archer_target is not None and shooter.status.fighting \
                and can_shoot_arrows(game, shooter, ships[order.archer_target]):
            shoot_arrows(game, shooter, ships[order.archer_target], events)
    attempts: list[tuple[BoardingOrder, int, int]] = []
    for order in orders:
        ship = ships[order.ship]
        if order.target is None or not ship.status.fighting or not ships[order.target].status.fighting:
            continue
        marines, heroes = min(order.marines, ship.people.marines), min(order.heroes, ship.people.heroes)
        if marines + heroes == 0:
            continue
        ship.people.marines -= marines
        ship.people.heroes -= heroes
        if order.reinforce:
            friend = ships[order.target]
            friend.people.marines += marines
            friend.people.heroes += heroes
            events.append(Reinforced(ship.id, friend.id, marines, heroes))
        else:
            attempts.append((order, marines, heroes))
    if not attempts:
        return
    # Simultaneous: who is grappled to whom is fixed before any boarding lands.
    grappled = {order.ship for order, _, _ in attempts if order.target in ships[order.ship].grappled}
    targets = list(dict.fromkeys(order.target for order, _, _ in attempts if order.target is not None))
    for target_id in targets:
        target = ships[target_id]
        here = [(o, m, h) for o, m, h in attempts if o.target == target_id]
        opposed = [(o, m, h) for o, m, h in here if o.ship not in grappled]
        shares = iter(split_defenders(target.people.marines, target.people.heroes, [m + h for _, m, h in opposed]))
        for order, marines, heroes in here:
            attacker = ships[order.ship]
            defenders = None if order.ship in grappled else next(shares)
            if not (attacker.status.fighting and target.status.fighting):
                attacker.people.marines += marines
                attacker.people.heroes += heroes
                continue
            board(game, attacker, target, marines, heroes, order.heroes_first, defenders, events)
        check_prize(game, target, events)


def withdraw(game: BroadsideGame, owner: Ship, events: list[Event]) -> None:
    """The attacker takes every boarder of this ship home, without further casualties."""
    for host in game.state.ships.values():
        party = host.boarders.get(owner.id)
        if party is not None:
            events.append(Withdrew(owner.id, host.id, party.marines, party.heroes))
            return_party(game.state, host, owner.id)


def melee(game: BroadsideGame, host: Ship, events: list[Event]) -> None:
    """One melee exchange aboard ``host`` against every boarding party on its deck (one group)."""
    rules, dice = game.rules, game.dice
    host.melee_fought = True
    several = len(host.boarders) > 1
    people = host.people
    # (category, die, count): only marines and heroes defend when several ships board one ship.
    groups = [("heroes", rules.hero_die, people.heroes), ("marines", rules.marine_die, people.marines)]
    if not several:
        groups += [("lieutenants", rules.lieutenant_die, people.lieutenants),
                   ("archers", rules.crew_die, people.archers), ("crew", rules.crew_die, people.crew)]
    preference: dict[str, int] = {who: i for i, who in enumerate(rules.casualty_order)}
    defending: list[tuple[int, str]] = []
    for who, die, count in groups:
        if count:
            defending += [(face, who) for face in dice.roll(die, count, f"melee aboard {host.id}: {who}")]
    shown = tuple(face for face, _ in defending)
    # Highest first; among equal faces the defender gives up first those it values least.
    defending.sort(key=lambda item: (-item[0], preference[item[1]]))
    rolls: list[int] = []
    lost: dict[str, int] = {}
    attackers_lost = retreated = 0
    for owner_id, party in list(host.boarders.items()):
        for kind in boarding_order(party.marines, party.heroes, party.heroes_first):
            if not defending:
                break
            roll = dice.d(rules.hero_die if kind == "heroes" else rules.marine_die, f"melee: {owner_id} {kind}")
            rolls.append(roll)
            top, who = defending[0]
            if roll < top:
                setattr(party, kind, getattr(party, kind) - 1)
                attackers_lost += 1
                continue
            defending.pop(0)
            if roll > top:
                setattr(people, who, getattr(people, who) - 1)
                lost[who] = lost.get(who, 0) + 1
            elif party.retreat_on_tie:
                setattr(party, kind, getattr(party, kind) - 1)
                owner = game.state.ships[owner_id]
                setattr(owner.people, kind, getattr(owner.people, kind) + 1)
                retreated += 1
        if party.size == 0:
            host.boarders.pop(owner_id)
    events.append(MeleeFought(host.id, shown, tuple(rolls), attackers_lost, sum(lost.values()), retreated))
    if lost:
        events.append(Casualties(host.id, tuple((who, lost[who]) for who in rules.casualty_order if who in lost),
                                 "melee"))
    check_prize(game, host, events)


def check_prize(game: BroadsideGame, host: Ship, events: list[Event]) -> bool:
    """No marines or officers left and boarders aboard: the ship (and its crew) is the attacker's prize."""
    if not host.status.fighting or not host.boarders:
        return False
    if host.people.marines or host.people.officers:
        return False
    captor = game.state.ships[next(iter(host.boarders))].side
    leave_battle(game.state, host, Status.PRIZE, captor, events)
    return True


def cut_idle_grapples(game: BroadsideGame, events: list[Event]) -> None:
    """End of the turn: a grapple holds only while one side has boarders on the other."""
    ships = game.state.ships
    for ship in ships.values():
        for other_id in list(ship.grappled):
            other = ships[other_id]
            if ship.id < other_id and other_id not in ship.boarders and ship.id not in other.boarders:
                cut_grapple(game.state, ship, other, events)
