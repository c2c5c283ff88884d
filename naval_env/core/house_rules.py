"""The kinds of number every ruleset's house rules are made of: die sizes, dice counts, battle lengths.

Each ruleset's ``HouseRules`` declares its fields with these types (``max_rounds: RoundCount = 30``) and adds
a tighter bound or a description where its own rules call for one (``Field(default=30, le=300)``); the
generated JSON Schema is the same as writing the bounds out.
"""

from __future__ import annotations

from typing import Annotated

from pydantic import Field

DieFaces = Annotated[int, Field(ge=2)]
"""Faces of a die the rules roll (6 for a d6): at least two, or the roll decides nothing."""

DiceCount = Annotated[int, Field(ge=0)]
"""How many dice a rule adds to a roll, takes from it or throws (0: none)."""

RoundCount = Annotated[int, Field(ge=1)]
"""Rounds a battle may last before it is called (``max_rounds``)."""

ShipsPerSide = Annotated[int, Field(ge=1)]
"""Most ships one side may bring (``max_ships_per_side``); each ruleset caps it by what its observation holds."""
