"""The pieces every ruleset's position model is built from: strict parts, bounded names and the limits
that hold in every ruleset.

A position arrives from outside (an app, a file, an HTTP request), so each field is checked by pydantic
before the rules read it: numbers in strict mode (``true`` or ``"4"`` is never read as a number, ``4.0``
never as a whole number), floats finite, every count, stat and list bounded by what the rules and the board
allow, and every name printable text of bounded length. Each ruleset's ``position.py`` builds its models on
:class:`PositionPart` and these types; the bounds that only the loaded config knows (a vessel's hull, the
map's size) are checked by its builder, after these.
"""

from __future__ import annotations

from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field, StringConstraints

#: Settings of every part of a position: unknown keys are errors, numbers strict and finite, and each
#: attribute's docstring documents its field. Fields holding an enum or a tuple opt out of strict mode
#: (``Field(strict=False)``): JSON has no enums or tuples, so strict mode would refuse every JSON value;
#: the numbers inside such a tuple stay strict.
PART_CONFIG = ConfigDict(extra="forbid", use_attribute_docstrings=True, strict=True, allow_inf_nan=False)

#: Characters a name may hold: no control characters (C0, DEL, C1). A lone surrogate (``"\ud800"``) is not
#: text at all and is refused by pydantic before this pattern applies.
PRINTABLE = r"^[^\x00-\x1f\x7f-\x9f]*$"

#: Longest name (ship id, vessel, class, crew role, label, ...): every name the configs use is far shorter.
MAX_NAME = 64

Name = Annotated[str, StringConstraints(min_length=1, max_length=MAX_NAME, pattern=PRINTABLE)]
"""A ship id, a catalogue key or a label: printable text, 1 to :data:`MAX_NAME` characters."""

Key = Annotated[str, StringConstraints(min_length=1, max_length=MAX_NAME)]
"""A ship id as the key of a mapping: text of 1 to :data:`MAX_NAME` characters (a pattern on keys would
turn the schema's ``additionalProperties`` into ``patternProperties``; the builders check each key is a
ship, and paths escape what is not printable)."""

#: Highest round a position may name (ASSUMPTION: the rules set none; every shipped config ends the battle
#: far sooner at its ``house_rules.max_rounds``, which the builders check while the battle goes on).
MAX_ROUND = 10_000

Round = Annotated[int, Field(ge=1, le=MAX_ROUND)]
"""A round number, from 1 to :data:`MAX_ROUND`."""


class PositionPart(BaseModel):
    """A part of a position (a ship, a crew member, the wind, ...): strict, bounded, no unknown keys."""

    model_config = PART_CONFIG

