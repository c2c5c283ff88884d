"""`crew_phase`'s placement hooks (naval_env/core/hooks.py): a ship's square and facing, and whether it stands on the
outer ring of the scenario's board, which the difficulty ladder's stall count reads."""

from naval_env.core.grid import square_at_edge as at_board_edge
from naval_env.core.grid import square_place as place

__all__ = ["at_board_edge", "place"]
