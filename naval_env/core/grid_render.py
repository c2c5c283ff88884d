"""Text pieces shared by the grid rulesets' text renderers (pictures are drawn by ``core/picture.py``)."""

from __future__ import annotations

#: ASCII-only compass glyphs, N..NW, for a ship's facing in text boards.
ARROWS = ("^", "7", ">", "J", "v", "L", "<", "F")


def ship_number(ship_id: str) -> str:
    """The index part of a ship id (``red_1`` -> ``1``), for one-character board marks."""
    return ship_id.rsplit("_", 1)[1]
