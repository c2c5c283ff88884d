"""`skirmish` in words (its hooks, naval_env/core/hooks.py): what each option does, a boat in one line for its
ship card, and what the observation's groups mean."""

from __future__ import annotations

from naval_env.core.hooks import (
    ALLY_GROUP,
    ENEMY_GROUP,
    SELF_GROUP,
    ObservationNotes,
    OptionWords,
    Ship,
)

LABELS = OptionWords(rows=(
    ("shot", "hold", "hold fire"),
    ("shot", r"fire@enemy(?P<enemy>\d+)", "fire at {enemy}: a d6 hits on the house rules' hit roll or more"),
    ("maneuver", "hold", "stay on your cell"),
    ("maneuver", "back", "one cell back, away from the enemy's end"),
    ("maneuver", "ahead", "one cell ahead, toward the enemy's end"),
))


def crew_summary(ship: Ship) -> str:
    """A skirmish boat has no crew to speak of: its cell on the track instead."""
    return f"on cell {ship['cell']}"


OBSERVATION = ObservationNotes(
    "A one-dimensional track of cells. Every distance is counted in the observer's own 'ahead' direction "
    "(toward the enemy's end), so both sides see mirror images of the same situation; cells are scaled by "
    "the track length, hull by the full hull and the round by the round limit.",
    {"self": SELF_GROUP, "ally": ALLY_GROUP + " (a sunk boat is off the board)",
     "enemy": ENEMY_GROUP + " (a sunk boat is off the board)"},
)
