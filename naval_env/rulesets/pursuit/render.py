"""Text and image rendering of a `pursuit` battle (no drawing library needed)."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import numpy as np

from naval_env.core.events import Event
from naval_env.rulesets.pursuit.state import Status

if TYPE_CHECKING:
    from naval_env.rulesets.pursuit.engine import PursuitGame

SIDE_COLOURS = ((200, 40, 40), (40, 80, 210))
IMAGE = 256


def render_ansi(game: PursuitGame, events: list[Event]) -> str:
    state = game.state
    todo = "(game over)" if state.ended else f"to act: {state.current} {state.phase.name}"
    lines = [f"round {state.round}  wind {state.wind_strength} toward {state.wind_toward:.0f} deg  {todo}"]
    ships = list(state.ships.values())
    for ship in ships:
        flags = "".join(f" {name}" for name, on in (("scuttled", ship.scuttled), ("aground", ship.grounded)) if on)
        guns = " ".join(("L" if m.loaded else "-") + ("!" if m.misfired else "") for m in ship.machines
                        if not m.destroyed)
        lines.append(
            f"  {ship.id:<7} {ship.ship_class:<9} {ship.status.value:<8} hp {ship.remaining:>3}/{ship.health:<3} "
            f"at ({ship.x:6.1f}, {ship.y:6.1f}) {ship.propulsion.value:<5} crew {ship.crew:>2} guns [{guns}]{flags}"
        )
    for i, a in enumerate(ships):
        for b in ships[i + 1:]:
            if a.side != b.side and a.status.fighting and b.status.fighting:
                lines.append(f"  {a.id} - {b.id}: {math.hypot(a.x - b.x, a.y - b.y):.1f} yards")
    lines += [f"  * {event.text()}" for event in events]
    return "\n".join(lines)


def render_rgb(game: PursuitGame) -> np.ndarray:
    """Top-down view centred on the ships, scaled to fit them all."""
    state = game.state
    image = np.zeros((IMAGE, IMAGE, 3), dtype=np.uint8)
    image[:, :] = (30, 90, 140)
    shown = [s for s in state.ships.values() if s.status in (Status.AFLOAT, Status.SINKING)] or \
        list(state.ships.values())
    xs, ys = [s.x for s in shown], [s.y for s in shown]
    cx, cy = (min(xs) + max(xs)) / 2, (min(ys) + max(ys)) / 2
    span = max(60.0, max(xs) - min(xs), max(ys) - min(ys)) * 1.3
    scale = IMAGE / span
    for shoal in game.scenario.shoals:
        _disc(image, (shoal.center[0] - cx) * scale + IMAGE / 2, IMAGE / 2 - (shoal.center[1] - cy) * scale,
              max(1.0, shoal.radius * scale), (190, 170, 110))
    for ship in shown:
        colour = SIDE_COLOURS[state.sides.index(ship.side) % 2]
        if ship.status is Status.SINKING:
            colour = (110, 110, 110)
        _disc(image, (ship.x - cx) * scale + IMAGE / 2, IMAGE / 2 - (ship.y - cy) * scale,
              max(2.0, ship.radius * scale), colour)
    return image


def _disc(image: np.ndarray, px: float, py: float, r: float, colour: tuple[int, int, int]) -> None:
    ys, xs = np.ogrid[: image.shape[0], : image.shape[1]]
    image[(xs - px) ** 2 + (ys - py) ** 2 <= r * r] = colour
