"""Tables that exist for speed agree with the plain forms they replace."""

from __future__ import annotations

import numpy as np

from naval_env.rulesets.crew_phase import arcs


def test_arc_cells_agree_with_the_numpy_table():
    span = np.arange(-arcs.OFFSET, arcs.OFFSET + 1, 9)
    for arc in range(5):
        for facing in range(8):
            row = arcs.ARC_CELLS[arc][facing]
            for dx in span.tolist():
                for dy in span.tolist():
                    expected = bool(arcs.covers(arc, facing, dx, dy))
                    assert bool(row[arcs.cell(dx, dy)]) == expected == arcs.covers_square(arc, facing, dx, dy)
