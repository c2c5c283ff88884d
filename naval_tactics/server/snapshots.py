"""A kept game's latest state, so a worker (or a restarted server) picks a game up in one step.

A :class:`Snapshot` holds everything the game's next decision depends on: the engine's position
(``Game.position()``, which ``load_position`` plays on identically), the state of the game's seeded
dice (so the next roll is the face an uninterrupted game would roll), and the state of every
generator of every captain asked to move so far (a random captain's draws, a level's coin). A game
resumed from its snapshot plays on bit for bit as the uninterrupted game; its turns are kept beside
it for the game's history (``/events``), rebuilt from the start only when asked for.
"""

from __future__ import annotations

import random
import sys
from array import array
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np

from naval_agents.captains.base import Captain
from naval_env.core.dice import Dice
from naval_tactics.catalogue import Catalogue, RulesetEntry, UnknownNameError
from naval_tactics.server.store import GameSession

#: ``random.Random.getstate()``'s version and its count of 32-bit words (Mersenne Twister: 624 + index).
RANDOM_VERSION, RANDOM_WORDS = 3, 625
#: The array type code of an unsigned 32-bit word on this platform.
WORD = next(code for code in "IL" if array(code).itemsize == 4)


class SnapshotError(ValueError):
    """A snapshot this server cannot resume from (its captains changed since); the game is replayed instead."""


@dataclass(frozen=True)
class CaptainState:
    """The generators of the captain ``name`` playing ``side``, as ``bit_generator.state`` dicts in a fixed order."""

    side: str
    name: str
    generators: list[dict[str, Any]]


@dataclass(frozen=True)
class Snapshot:
    """The game after ``version`` turns (``decisions`` of them applied)."""

    version: int
    decisions: int
    position: dict[str, Any]
    #: The dice generator's 625 words, little-endian (Dice draws only ``random()``: no spare gauss to keep).
    dice: bytes
    captains: list[CaptainState]

    def state_json(self) -> dict[str, Any]:
        """What is stored beside the position and the dice: the captains' generators."""
        return {"captains": [{"side": c.side, "name": c.name, "generators": c.generators} for c in self.captains]}

    @classmethod
    def from_stored(cls, version: int, decisions: int, position: dict[str, Any], dice: bytes,
                    state: dict[str, Any]) -> Snapshot:
        captains = [CaptainState(c["side"], c["name"], list(c["generators"])) for c in state["captains"]]
        return cls(version, decisions, position, dice, captains)


def take(session: GameSession) -> Snapshot:
    """The session's game as it is now (its position is the one its answer shows)."""
    dice = session.game.dice
    rolls = len(dice.history)   # every draw records a roll: an unchanged count is an unchanged generator
    if session.packed_dice is None or session.packed_dice[0] is not dice or session.packed_dice[1] != rolls:
        version, words, gauss_next = dice.generator_state()
        if version != RANDOM_VERSION or len(words) != RANDOM_WORDS or gauss_next is not None:
            raise SnapshotError(f"unexpected dice generator state (version {version}, {len(words)} words)")
        session.packed_dice = (dice, rolls, _pack(words))
    captains = [CaptainState(side, name, [dict(g.bit_generator.state) for g in generators(captain)])
                for (side, name), captain in session.captains.items()]
    return Snapshot(session.version, session.decisions, session.position(), session.packed_dice[2], captains)


def resume(catalogue: Catalogue, entry: RulesetEntry, game_id: str, scenario: str, start: dict[str, Any] | None,
           seed: int, snapshot: Snapshot, now: float) -> GameSession:
    """The session ``snapshot`` was taken of, holding no turns (``base`` = its version)."""
    dice = restored_dice(seed, snapshot.dice)
    game = entry.ruleset.load_position(snapshot.position, entry.config, dice=dice)
    session = GameSession(game_id, entry, game, seed, scenario, [], now, start=start, decisions=snapshot.decisions,
                          base=snapshot.version, packed_dice=(dice, 0, snapshot.dice))
    for kept in snapshot.captains:
        try:
            captain_entry = catalogue.captain(entry.id, kept.name)
        except UnknownNameError:
            continue   # not served any more: it cannot be asked again (as a replay skips it)
        found = generators(session.side_captain(captain_entry, kept.side))
        if len(found) != len(kept.generators):
            raise SnapshotError(f"game {game_id!r}: captain {kept.name!r} draws from {len(found)} generators now, "
                                f"{len(kept.generators)} when the snapshot was taken")
        for generator, state in zip(found, kept.generators, strict=True):
            generator.bit_generator.state = state
    return session


def restored_dice(seed: int, state: bytes) -> Dice:
    """Dice of a game of ``seed`` whose generator is in ``state`` (a snapshot's ``dice``)."""
    if len(state) != 4 * RANDOM_WORDS:
        raise SnapshotError(f"a snapshot's dice state has {len(state)} bytes, not {4 * RANDOM_WORDS}")
    words = array(WORD)
    words.frombytes(state)
    if sys.byteorder == "big":
        words.byteswap()
    dice = Dice(seed)
    dice.restore((RANDOM_VERSION, tuple(words), None))
    return dice


def _pack(values: Iterable[int]) -> bytes:
    """32-bit words as little-endian bytes (``array`` packs them several times faster than numpy)."""
    words = array(WORD, values)
    if sys.byteorder == "big":
        words.byteswap()
    return words.tobytes()


def generators(captain: Captain) -> list[np.random.Generator]:
    """Every numpy generator ``captain`` draws from, its own and those of the captains it wraps (a level's
    base), in attribute-name order. Captains keep no other state between decisions."""
    return list(_generators(captain))


def _generators(captain: Captain) -> Iterator[np.random.Generator]:
    for _, value in sorted(vars(captain).items()):
        if isinstance(value, np.random.Generator):
            yield value
        elif isinstance(value, Captain):
            yield from _generators(value)
        elif isinstance(value, random.Random):
            raise SnapshotError(f"{captain!r} draws from a random.Random, which snapshots do not keep")

