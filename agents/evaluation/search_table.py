"""The search headroom table: search at several budgets against each ruleset's strongest scripted captain.

    python -m naval_agents.evaluation.search_table [--rulesets pantheon pursuit] [--budgets 4 16 64] [--seeds 200]
                                  [--out docs/search_table] [--max-minutes 30]

Each cell (ruleset, budget) plays seeds ``0 .. seeds - 1`` twice, sides swapped, as ``evaluate.py``
does (400 paired games for 200 seeds), ``search:N`` against the ruleset's rollout captain
(:func:`~naval_agents.captains.search.captain.default_rollout`: the strongest scripted one), on the default
scenario. The cell's games are kept in ``<out>/<ruleset>-search<N>.json`` after every seed, so an
interrupted run loses at most one seed's two games and a rerun plays only the missing ones; the
table (``<out>/table.md`` and ``table.json``) is rewritten from whatever the cells hold, each
marked with how many of its games are played. Milliseconds per decision are wall-clock over the
search's decisions with a choice, on whatever machine and load the games ran.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import yaml

from naval_agents.captains.arena import play_game
from naval_agents.captains.registry import make_captain
from naval_agents.captains.search.candidates import allowed_values, joint_count
from naval_agents.captains.search.captain import SearchCaptain, default_rollout
from naval_agents.evaluation.stats import GameResult, summarize_pairing
from naval_env.core.config import BUNDLED_CONFIGS
from naval_env.core.ruleset import get_ruleset, ruleset_ids
from naval_env.envs.match import Match

DEFAULT_BUDGETS = (4, 16, 64)   # 256 is hours a cell on 2 cores; run it by asking for it
DEFAULT_SEEDS = 200
DEFAULT_OUT = Path("docs/search_table")


@dataclass
class CellGame:
    """One game of a cell, from the search's point of view, with the search's timing."""

    seed: int
    swap: bool
    search_side: str
    other_side: str
    winner_side: str | None
    truncated: bool
    rounds: int
    decisions: int
    search_decisions: int        # search decisions with a choice (the timed ones)
    search_seconds: float


@dataclass
class Cell:
    """Search with ``budget`` simulations vs ``opponent`` on one ruleset's scenario: its played games."""

    ruleset: str
    scenario: str
    budget: int
    opponent: str
    seeds: int
    games: list[CellGame] = field(default_factory=list)
    setup: str | None = None     # fingerprint of the set-up the games were played on (:func:`setup_fingerprint`)

    @property
    def label(self) -> str:
        return f"search{self.budget}"

    def played(self) -> set[tuple[int, bool]]:
        return {(g.seed, g.swap) for g in self.games}

    def results(self) -> list[GameResult]:
        """The games as evaluate.py's results, ``a`` the search."""
        out = []
        for g in sorted(self.games, key=lambda g: (g.seed, g.swap)):
            out.append(GameResult(pairing=0, a=self.label, b=self.opponent, seed=g.seed, swap=g.swap,
                                  a_side=g.search_side, b_side=g.other_side, winner_side=g.winner_side,
                                  truncated=g.truncated, rounds=g.rounds, decisions=g.decisions,
                                  a_damage_dealt=0, a_damage_taken=0, b_damage_dealt=0, b_damage_taken=0))
        return out

    def summary(self) -> dict[str, Any]:
        """Score with its Wilson interval and milliseconds per decision, over the games played so far."""
        row: dict[str, Any] = {"ruleset": self.ruleset, "scenario": self.scenario, "budget": self.budget,
                               "opponent": self.opponent, "games": len(self.games), "of": 2 * self.seeds,
                               "current_setup": self.setup == setup_fingerprint(self.ruleset, self.scenario)}
        if not self.games:
            return row
        s = summarize_pairing(self.results())
        decisions = sum(g.search_decisions for g in self.games)
        seconds = sum(g.search_seconds for g in self.games)
        row.update(wins=s.wins, draws=s.draws, losses=s.losses, score=round(s.win_rate, 4),
                   ci=[round(s.ci_low, 4), round(s.ci_high, 4)], truncated=s.truncated,
                   ms_per_decision=round(1000 * seconds / decisions, 1) if decisions else None)
        return row


def setup_fingerprint(ruleset: str, scenario: str) -> str:
    """A hash of what a cell's games depend on in the shipped config: everything but the other scenarios. A
    cell played on another set-up (a rebalanced scenario, another house rule) is not added to, and its row says
    so."""
    raw = yaml.safe_load((BUNDLED_CONFIGS / "rulesets" / f"{ruleset}.yaml").read_text(encoding="utf-8"))
    relevant = {key: value for key, value in raw.items() if key != "scenarios"}
    relevant["scenario"] = raw.get("scenarios", {}).get(scenario)
    return hashlib.sha256(json.dumps(relevant, sort_keys=True, default=str).encode()).hexdigest()[:16]


def cell_path(out: Path, ruleset: str, budget: int) -> Path:
    return out / f"{ruleset}-search{budget}.json"


def cached_budgets(out: Path, ruleset: str) -> set[int]:
    """The budgets of the ruleset's cells cached in ``out`` (the names :func:`cell_path` gives)."""
    suffixes = (p.stem.rsplit("-search", 1)[1] for p in out.glob(f"{ruleset}-search*.json"))
    return {int(s) for s in suffixes if s.isdigit()}


def load_cell(out: Path, ruleset: str, budget: int, seeds: int) -> Cell:
    """The cell as cached in ``out`` (its games kept, ``seeds`` as now asked), or a new empty one."""
    path = cell_path(out, ruleset, budget)
    if path.is_file():
        data = json.loads(path.read_text())
        games = [CellGame(**g) for g in data.pop("games")]
        data["seeds"] = seeds
        return Cell(**data, games=games)
    rules = get_ruleset(ruleset)
    scenario = rules.load_config().default_scenario
    return Cell(ruleset, scenario, budget, default_rollout(ruleset), seeds, setup=setup_fingerprint(ruleset, scenario))


def save_cell(out: Path, cell: Cell) -> None:
    out.mkdir(parents=True, exist_ok=True)
    path = cell_path(out, cell.ruleset, cell.budget)
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(asdict(cell), indent=1))
    tmp.replace(path)   # a kill mid-write leaves the previous file whole


class _TimedSearch(SearchCaptain):
    """A search captain that adds up its time over the decisions where it had a choice."""

    def reset(self, seed: int | None = None) -> None:
        super().reset(seed)
        self.decisions, self.seconds = 0, 0.0

    def act(self, decision):  # type: ignore[no-untyped-def]
        action = super().act(decision)
        # Every decision with a choice, searched or not (a small root budget plays the prior's move unsearched).
        spec = decision.game.action_spec if decision.game is not None else None
        if self.last_result is not None and spec is not None \
                and joint_count(allowed_values(spec, decision.action_mask)) > 1:
            self.decisions += 1
            self.seconds += self.last_result.seconds
        return action


def fill_cell(cell: Cell, out: Path, deadline: float | None = None, log=print) -> bool:  # type: ignore[no-untyped-def]
    """Play the cell's missing games, saving after every seed; False when ``deadline`` stopped it first. A cell
    played on another set-up is refused: its games and new ones would mix two scenarios."""
    if cell.setup != setup_fingerprint(cell.ruleset, cell.scenario):
        raise ValueError(f"{cell_path(out, cell.ruleset, cell.budget)} was played on another set-up of "
                         f"{cell.ruleset}'s {cell.scenario} (fingerprint {cell.setup}); move it aside to play the "
                         "cell again")
    match = Match(cell.ruleset, None, cell.scenario, illegal_action="raise")
    sides = match.game.sides
    search = _TimedSearch(cell.budget, seed=0, name=cell.label)
    opponent = make_captain(cell.opponent, cell.ruleset, match.action_spec, config=match.config)
    played = cell.played()
    for seed in range(cell.seeds):
        missing = [swap for swap in (False, True) if (seed, swap) not in played]
        if not missing:
            continue
        if deadline is not None and time.monotonic() >= deadline:
            return False
        for swap in missing:
            search_side, other = (sides[1], sides[0]) if swap else (sides[0], sides[1])
            record = play_game(match, {search_side: search, other: opponent}, seed, keep_events=False,
                               keep_actions=False)
            cell.games.append(CellGame(seed, swap, search_side, other, record.winner, record.truncated, record.rounds,
                                       record.decisions, search.decisions, round(search.seconds, 4)))
        save_cell(out, cell)
        if seed % 10 == 9:
            s = cell.summary()
            log(f"{cell.ruleset} search:{cell.budget}: {s['games']}/{s['of']} games, score {s.get('score')} "
                f"{s.get('ci')}, {s.get('ms_per_decision')} ms a decision")
    return True


def markdown(rows: Sequence[dict[str, Any]]) -> str:
    lines = ["| ruleset | scenario | search | vs | games | W/D/L | search's score [95% CI] | ms a decision |",
             "|---|---|---|---|---|---|---|---|"]
    for r in rows:
        games = f"{r['games']}" if r["games"] == r["of"] else f"{r['games']} of {r['of']} (partial)"
        if not r.get("current_setup", True) and r["games"]:
            games += " (an older set-up)"
        if not r["games"]:
            lines.append(f"| {r['ruleset']} | {r['scenario']} | `search:{r['budget']}` | `{r['opponent']}` | "
                         f"0 of {r['of']} (not run) | | | |")
            continue
        lines.append(f"| {r['ruleset']} | {r['scenario']} | `search:{r['budget']}` | `{r['opponent']}` | {games} | "
                     f"{r['wins']}/{r['draws']}/{r['losses']} | {r['score']:.2f} [{r['ci'][0]:.2f}, {r['ci'][1]:.2f}] | "
                     f"{r['ms_per_decision']:.0f} |")
    return "\n".join(lines) + "\n"


def write_table(out: Path, rulesets: Sequence[str], budgets: Sequence[int], seeds: int) -> list[dict[str, Any]]:
    """Rewrite ``table.md``/``table.json`` from these rulesets' cells: each asked budget (a row even when not
    run yet) and any other budget whose cell the out folder holds (such as a 256 cell run on its own)."""
    rows = [load_cell(out, ruleset, b, seeds).summary()
            for ruleset in rulesets for b in sorted(set(budgets) | cached_budgets(out, ruleset))]
    out.mkdir(parents=True, exist_ok=True)
    (out / "table.json").write_text(json.dumps(rows, indent=1))
    (out / "table.md").write_text(markdown(rows))
    return rows


#: What the docs say above the table (the rules pages and docs/captains.md; docs/search.md has its own).
DOCS_INTRO = (
    "`search:N` (the root search, `agents/captains/search/root.py`) against the ruleset's strongest scripted captain, its "
    "prior and rollout captain, default scenario, seeds 0..{last} from both sides; `python -m naval_agents.evaluation.search_table` "
    "(resumable; cells in [docs/search_table/]({up}search_table/)). Below 9 simulations the search plays its "
    "prior's move unsearched, so `search:4` is the prior itself (0.50 by construction). A cell marked partial "
    "is being filled. Milliseconds on 2 shared cores under load. What it means: [docs/search.md]({up}search.md)."
)
START, END = "<!-- search-table:start -->", "<!-- search-table:end -->"


def write_docs(rows: Sequence[dict[str, Any]], docs: Path = Path("docs")) -> list[Path]:
    """Fill the marked table of docs/search.md (every ruleset), docs/captains.md (every ruleset) and each
    rules page (its ruleset's rows); a page without the markers is left alone."""
    last = max(row["of"] for row in rows) // 2 - 1 if rows else 0   # the seeds asked of a cell, from 0
    pages = [(docs / "search.md", rows, "The table as it stands (`docs/search_table/table.md`):"),
             (docs / "captains.md", rows, DOCS_INTRO.format(up="", last=last))]
    pages += [(docs / "rules" / f"{r}.md", [row for row in rows if row["ruleset"] == r],
               DOCS_INTRO.format(up="../", last=last)) for r in sorted({row["ruleset"] for row in rows})]
    written = []
    for page, page_rows, intro in pages:
        if not page.is_file():
            continue
        text = page.read_text(encoding="utf-8")
        if START not in text or END not in text:
            continue
        head, rest = text.split(START, 1)
        _, tail = rest.split(END, 1)
        page.write_text(f"{head}{START}\n{intro}\n\n{markdown(page_rows)}{END}{tail}", encoding="utf-8")
        written.append(page)
    return written


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m naval_agents.evaluation.search_table", description=__doc__.split("\n\n")[0])
    parser.add_argument("--rulesets", nargs="+", default=ruleset_ids(), choices=ruleset_ids())
    parser.add_argument("--budgets", type=int, nargs="+", default=list(DEFAULT_BUDGETS),
                        help="simulations a decision, one cell each (default 4 16 64)")
    parser.add_argument("--seeds", type=int, default=DEFAULT_SEEDS,
                        help="seeds a cell plays, each from both sides (default 200: 400 games)")
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT, help="folder of the cached cells and the table")
    parser.add_argument("--max-minutes", type=float, default=None,
                        help="stop starting new seeds after this long (rerun to go on)")
    parser.add_argument("--table-only", action="store_true", help="only rewrite the table from the cached cells")
    parser.add_argument("--write-docs", action="store_true",
                        help="also fill the marked tables of docs/search.md, docs/captains.md and docs/rules/*.md")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.seeds < 1 or any(b < 1 for b in args.budgets):
        parser.error(f"--seeds and every --budgets value must be at least 1; got seeds {args.seeds}, "
                     f"budgets {args.budgets}")
    deadline = None if args.max_minutes is None else time.monotonic() + 60 * args.max_minutes
    finished = True
    if not args.table_only:
        # Cheapest cells first: every ruleset's smallest budget before any larger one.
        for budget in sorted(args.budgets):
            for ruleset in args.rulesets:
                cell = load_cell(args.out, ruleset, budget, args.seeds)
                finished = fill_cell(cell, args.out, deadline) and finished
                write_table(args.out, args.rulesets, sorted(args.budgets), args.seeds)   # each cell as it stands
                if not finished:
                    break
            if not finished:
                break
    rows = write_table(args.out, args.rulesets, sorted(args.budgets), args.seeds)
    if args.write_docs:
        write_docs(rows)
    sys.stdout.write(markdown(rows))
    return 0 if finished else 3


if __name__ == "__main__":
    raise SystemExit(main())
