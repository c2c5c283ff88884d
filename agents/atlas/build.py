"""Make an atlas end to end: plan, play, measure, draw, write. The command line is a thin call into :func:`make_atlas`."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from naval_agents.atlas.figures import write_figures
from naval_agents.atlas.markdown import render
from naval_agents.atlas.measure import ScenarioNumbers, scenario_numbers
from naval_agents.atlas.plan import AtlasSettings, check_settings, plan_atlas
from naval_agents.atlas.play import ScenarioGames, play_atlas


@dataclass(frozen=True)
class Atlas:
    markdown: Path
    figures: tuple[Path, ...]
    scenarios: tuple[ScenarioNumbers, ...]


def make_atlas(settings: AtlasSettings, *, progress: bool = False,
               on_scenario: Callable[[ScenarioGames], None] | None = None) -> Atlas:
    """Play every game the settings ask for and write the markdown and its figures."""
    check_settings(settings)
    plans = plan_atlas(settings)
    out = Path(settings.out)
    out.parent.mkdir(parents=True, exist_ok=True)   # fail on an unwritable folder before the games, not after
    played = play_atlas(plans, settings, progress=progress, on_scenario=on_scenario)
    scenarios = [scenario_numbers(games) for games in played]
    figures = write_figures(scenarios, settings.figures_dir)
    out.write_text(render(settings, plans, scenarios), encoding="utf-8")
    return Atlas(out, tuple(figures), tuple(scenarios))
