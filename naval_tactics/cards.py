"""Ship cards: one rich table row per ship with its side, type, status, hull and crew.

Hull comes from :meth:`Game.health` (every ruleset); type, status and crew are read from
``game.state_dict()``, whose ship fields differ by ruleset, so the crew summary is one
small function each ruleset ships (``crew_summary`` in its ``words.py``, read through its hooks).
"""

from __future__ import annotations

from rich.table import Table
from rich.text import Text

from naval_env.core.game import Game
from naval_env.core.hooks import Ship, hooks_of


def _no_crew_summary(ship: Ship) -> str:
    return ""


def ship_type(ship: Ship) -> str:
    return str(ship.get("vessel") or ship.get("ship_class") or "")


def ship_status(ship: Ship) -> str:
    status = ship.get("status")
    if status is None:
        status = "afloat" if ship.get("afloat", True) else "sunk"
    return str(getattr(status, "value", status))


def hull_bar(current: int, maximum: int, width: int = 10) -> Text:
    """``██████░░░░ 18/30``: green above half, yellow above a quarter, else red."""
    share = max(0.0, min(1.0, current / maximum)) if maximum > 0 else 0.0
    filled = round(share * width)
    colour = "green" if share > 0.5 else "yellow" if share > 0.25 else "red"
    bar = Text("█" * filled, style=colour)
    bar.append("░" * (width - filled), style="dim")
    bar.append(f" {current}/{maximum}")
    return bar


def ship_cards(game: Game, deciding: str | None = None, you: str | None = None) -> Table:
    """Every ship as a row; ``deciding`` is marked, ``you`` (a side) is named in the side column."""
    ships: dict[str, Ship] = game.state_dict()["ships"]
    crew = hooks_of(game.ruleset_id).crew_summary() or _no_crew_summary
    table = Table(title="Ships", title_justify="left", show_lines=False)
    for name in ("", "ship", "side", "type", "status", "hull", "crew"):
        table.add_column(name)
    for agent in game.agents:
        ship = ships[agent]
        side = game.side_of(agent)
        current, maximum = game.health(agent)
        table.add_row(
            "▶" if agent == deciding else "",
            Text(agent, style="bold" if agent == deciding else ""),
            f"{side} (you)" if side == you else side,
            ship_type(ship),
            ship_status(ship),
            hull_bar(current, maximum),
            crew(ship),
        )
    return table
