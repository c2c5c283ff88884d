"""Chance in the search: each simulation plays on a copy of the game whose dice are a fresh sample.

Every draw of an engine goes through ``game.dice``, so re-seeding the copy's dice object (in
place: engine parts such as flotilla's combat table hold that same object) makes the copy's
future a sample of the dice that the real game has not rolled yet. The real game is only ever
cloned, never played on, so its dice are never touched or advanced.
"""

from __future__ import annotations

from naval_env.core.dice import Dice
from naval_env.core.game import Game


def reseed(dice: Dice, seed: int) -> None:
    """Make ``dice`` a fresh ``Dice(seed)`` in place, history cleared.

    A scripted or other ``Dice`` subclass becomes a plain ``Dice``: a copy of a test's
    ``ScriptedDice`` would replay (or run out of) the faces the test scripted for the real game.
    """
    if type(dice) is not Dice:
        dice.__class__ = Dice
    Dice.__init__(dice, seed)


def determinized(game: Game, seed: int) -> Game:
    """An independent copy of ``game`` whose dice roll ``Dice(seed)``'s faces from now on."""
    twin = game.clone()
    if twin.dice is game.dice:
        raise RuntimeError(f"{type(game).__name__}.clone() shares the dice with the original; search needs "
                           "an independent copy")
    reseed(twin.dice, seed)
    return twin
