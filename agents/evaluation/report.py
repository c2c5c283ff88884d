"""Print an evaluation as rich tables and write it as JSON and CSV.

Files written to the output folder:

- ``results.json``: the tournament's settings, pairing summaries, ratings and every game;
- ``pairings.csv``: one row per pairing (the printed table, unrounded; with a reference, its seat-paired
  difference in ``paired_*`` columns, empty where it has none);
- ``ratings.csv``: one row per captain;
- ``games.csv``: one row per game, sorted by (pairing, seed, swap);
- ``winrate_matrix.png`` and ``ratings.png``: the pictures of those tables (``agents/evaluation/plots.py``).
"""

from __future__ import annotations

import csv
import json
import os
import textwrap
from collections.abc import Mapping, Sequence
from dataclasses import asdict, fields
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table

from naval_agents.captains.arena import play_game
from naval_agents.captains.base import Captain
from naval_agents.evaluation.ratings import Rating
from naval_agents.evaluation.seat_paired import SeatPaired
from naval_agents.evaluation.stats import GameResult, PairingSummary
from naval_agents.evaluation.tournament import Evaluation, EvaluationInputError
from naval_env.core.events import Event
from naval_env.envs.match import Match

RESULT_FILES = ("results.json", "pairings.csv", "ratings.csv", "games.csv")


def games_phrase(seeds: int) -> str:
    """How many games ``seeds`` seeds make: each is played twice, sides swapped."""
    return f"{seeds} seed{'' if seeds == 1 else 's'} × 2 sides = {2 * seeds} games"


def pairing_table(summaries: Sequence[PairingSummary], title: str = "Pairings",
                  paired: Sequence[SeatPaired] = ()) -> Table:
    """The pairings; with ``paired`` (one per summary) a column of A's seat-paired difference against the
    reference."""
    table = Table(title=title, title_justify="left")
    table.add_column("A vs B")
    table.add_column("games", justify="right")
    table.add_column("W/D/L", justify="right")
    table.add_column("win rate [95% CI]", justify="right")
    table.add_column("rounds", justify="right")
    table.add_column("decisions", justify="right")
    table.add_column("dmg dealt/taken", justify="right")
    if paired:
        table.add_column(f"A - {paired[0].reference}, seat-paired [95% CI]", justify="right")
    for i, s in enumerate(summaries):
        table.add_row(
            f"{s.a} vs {s.b}", str(s.games), f"{s.wins}/{s.draws}/{s.losses}",
            f"{s.win_rate:.2f} [{s.ci_low:.2f}, {s.ci_high:.2f}]", f"{s.mean_rounds:.1f}",
            f"{s.mean_decisions:.1f}", f"{s.mean_damage_dealt:.1f} / {s.mean_damage_taken:.1f}",
            *([paired[i].text()] if paired else []),
        )
    table.caption = ("counts, rates and damage from A's side; a draw counts as half a win; CI: Wilson score "
                     "interval; rounds, decisions and damage are means per game")
    if paired:
        table.caption += "; " + paired_caption(paired)
    return table


def paired_caption(paired: Sequence[SeatPaired]) -> str:
    """What the seat-paired column means, and what to do where it has no number."""
    reference = paired[0].reference
    text = (f"seat-paired: A's score against B minus {reference}'s score against B on the same seeds and seats "
            f"(normal 95% interval); above 0, A does better against B than {reference} does")
    if any(p.difference is None and not p.is_reference for p in paired):
        text += (f"; 'no {reference} games': the run lacks {reference}'s games against that opponent "
                 f"(--play-reference plays them)")
    return text


def ratings_table(ratings: Sequence[Rating], title: str = "Ratings (OpenSkill Plackett-Luce)") -> Table:
    table = Table(title=title, title_justify="left")
    table.add_column("#", justify="right")
    table.add_column("captain")
    table.add_column("mu", justify="right")
    table.add_column("sigma", justify="right")
    table.add_column("ordinal", justify="right")
    table.add_column("games", justify="right")
    for rank, r in enumerate(ratings, start=1):
        table.add_row(str(rank), r.name, f"{r.mu:.2f}", f"{r.sigma:.2f}", f"{r.ordinal:.2f}", str(r.games))
    table.caption = "ordinal = mu - 3 sigma"
    return table


def make_console() -> Console:
    """A console that does not squeeze tables to 80 columns when output is piped."""
    console = Console()
    return console if console.is_terminal else Console(width=120)


def print_report(evaluation: Evaluation, console: Console | None = None) -> None:
    console = console or make_console()
    t = evaluation.tournament
    scenario = t.scenario or "default scenario"
    title = (f"{t.ruleset} / {scenario}: {games_phrase(t.games)} per pairing (seeds {t.seed}.."
             f"{t.seed + t.games - 1}, each played once as paired and once with the sides swapped)")
    console.print(pairing_table(evaluation.summaries, title=title, paired=evaluation.paired))
    console.print(ratings_table(evaluation.ratings))


def to_json(evaluation: Evaluation) -> dict[str, Any]:
    t = evaluation.tournament
    return {
        "tournament": {
            "ruleset": t.ruleset, "scenario": t.scenario, "config": t.config, "seeds_per_pairing": t.games,
            "games_per_pairing": 2 * t.games,
            "seed": t.seed, "captains": {e.label: e.spec for e in t.entrants},
            "pairings": [list(pair) for pair in t.pairings],
            "win_rate": "draws count half; interval: Wilson 95%",
            "ratings": "openskill PlackettLuce, games in order (seed, swap, pairing), draws tied",
            "reference": evaluation.reference,
            "seat_paired": None if evaluation.reference is None else (
                f"A's score minus {evaluation.reference}'s against B, same seeds and seats; normal 95% interval"),
        },
        "pairings": [{**s.to_dict(), **({"seat_paired": p.to_dict()} if p is not None else {})}
                     for s, p in zip(evaluation.summaries, _paired_or_none(evaluation))],
        "ratings": [r.to_dict() for r in evaluation.ratings],
        "games": [r.to_dict() for r in evaluation.results],
        "reference_games": [r.to_dict() for r in evaluation.reference_results],
    }


def _paired_or_none(evaluation: Evaluation) -> list[SeatPaired | None]:
    return list(evaluation.paired) if evaluation.paired else [None] * len(evaluation.summaries)


#: pairings.csv's seat-paired columns (empty where a pairing has no difference).
PAIRED_COLUMNS = ("reference", "paired_difference", "paired_ci_low", "paired_ci_high", "paired_games")


def _paired_row(paired: SeatPaired | None) -> dict[str, Any]:
    if paired is None:
        return {}
    d = paired.difference
    return {"reference": paired.reference,
            **({} if d is None else {"paired_difference": d.mean, "paired_ci_low": d.ci_low,
                                     "paired_ci_high": d.ci_high, "paired_games": d.n})}


def _write_csv(path: Path, header: list[str], rows: list[dict[str, Any]]) -> None:
    with path.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, fieldnames=header)
        writer.writeheader()
        writer.writerows(rows)


def check_output_folder(out_dir: str | Path, *, overwrite: bool = False) -> None:
    """Refuse, before any game is played, an output folder the results cannot go to or would overwrite.

    ``out_dir`` must be a folder (or not exist yet under folders), writable, and hold no
    results or replays of an earlier evaluation unless ``overwrite``.
    """
    out = Path(out_dir)
    existing = next(p for p in (out, *out.parents) if p.exists())
    if not existing.is_dir():
        raise EvaluationInputError(
            f"output folder {str(out)!r}: {str(existing)!r} is a file, not a folder; give --out a folder "
            f"(it will hold {', '.join(RESULT_FILES)})")
    if not os.access(existing, os.W_OK):
        raise EvaluationInputError(f"output folder {str(out)!r}: {str(existing)!r} is not writable")
    found = [name for name in RESULT_FILES if (out / name).exists()]
    found += ["replays/"] if any((out / "replays").glob("*.jsonl")) else []
    if found and not overwrite:
        raise EvaluationInputError(
            f"output folder {str(out)!r} already holds results ({', '.join(found)}); pass --overwrite to "
            "replace them, or give another --out")


def clear_replays(out_dir: str | Path) -> None:
    """Remove an earlier evaluation's replays, so the folder holds only this one's."""
    for path in (Path(out_dir) / "replays").glob("*.jsonl"):
        path.unlink()


def write_results(evaluation: Evaluation, out_dir: str | Path) -> list[Path]:
    """Write results.json, the three CSV files and the two PNG charts; returns their paths."""
    # matplotlib is loaded only when results are written, not by every import of this module
    from naval_agents.evaluation.plots import write_plots

    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    paths = [out / name for name in RESULT_FILES]
    paths[0].write_text(json.dumps(to_json(evaluation), indent=2) + "\n", encoding="utf-8")
    pairing_header = [f.name for f in fields(PairingSummary)] + (list(PAIRED_COLUMNS) if evaluation.paired else [])
    _write_csv(paths[1], pairing_header, [{**asdict(s), **_paired_row(p)}
                                          for s, p in zip(evaluation.summaries, _paired_or_none(evaluation))])
    _write_csv(paths[2], [f.name for f in fields(Rating)], [asdict(r) for r in evaluation.ratings])
    _write_csv(paths[3], [*(f.name for f in fields(GameResult)), "winner"],
               [r.to_dict() for r in evaluation.results])
    return paths + write_plots(evaluation, out)


def match_title(captains: Mapping[str, str], seed: int) -> str:
    """``gunner (red) vs random (blue), seed 3``: who plays which side, from ``{side: captain name}``."""
    names = " vs ".join(f"{captain} ({side})" for side, captain in captains.items())
    return f"{names}, seed {seed}"


def decision_lines(index: int, agent: str, events: Sequence[Event], width: int = 110) -> list[str]:
    """One decision of a match log: its number, the deciding agent and its events' stories, wrapped."""
    texts = [event.text() for event in events] or ["(no events)"]
    return textwrap.wrap("; ".join(texts), width, initial_indent=f"  {index:>3} {agent:<8} ",
                         subsequent_indent=" " * 15, break_on_hyphens=False)


def render_match(match: Match, captains: Mapping[str, Captain], seed: int, width: int = 110) -> str:
    """One game as text: the board at the start, one line per decision, the board at the end."""
    opening = match.reset(seed)
    start = match.game.render_ansi(opening)
    record = play_game(match, captains, seed)
    lines = [match_title(record.captains, seed), "", start, "", "decisions:"]
    for index, (agent, _) in enumerate(record.actions):
        lines += decision_lines(index, agent, record.decision_events(index), width)
    last = record.decision_events(record.decisions - 1) if record.decisions else record.events
    lines += ["", match.game.render_ansi(last)]
    return "\n".join(lines)
