"""The scenario check: does a scenario's result depend on its captains, its seat, or its dice?

For one scenario, with stated captains and seeds, one block of paired games (the tournament machinery
of :mod:`naval_agents.evaluation.tournament`, so ``--backend ray`` plays it on Ray):

- every ordered pair of the *sound* captains (the strongest captain and every scripted captain but
  ``random``) on every seed: ``a`` on the first side and ``b`` on the second, and the reverse; a mirror
  ``a:a`` once a seed (with the sides swapped it is the same game: captains are reset from the seed and
  the side, :func:`naval_agents.captains.arena.play_game`);
- the strongest captain against ``random``, from both sides.

From it:

- **side balance**: the first side's score (a draw ½) when the strongest captain plays both sides (the mirror);
- **seat balance**: the value of the seat meta-game over the sound captains
  (:mod:`naval_agents.evaluation.meta_game`): the first side's score when each side fields its best captain
  of the set. It equals the mirror where the strongest captain is the best on both seats, and takes out a
  captain's seat skew where it is not (a mirror of a captain that plays one side badly measures the captain);
- **skill spread**: the strongest captain's score against ``random`` and against the weakest scripted
  captain (the scripted one with the lowest mean score in the sound block, mirrors left out);
- **decisiveness**: the share of seeds whose result (which side won, or a draw) is not the same in every
  ordered pairing of sound captains; and a two-way analysis of variance without replication (a randomized
  complete block design: seeds are the blocks, the ordered captain pair is the treatment) of the first
  side's score, split into captains (the pairs' main effect), seeds (dice and start positions, whoever
  captains) and the rest (seed × captains: captains whose effect depends on the dice);
- **luck bound** (optional): a clairvoyant search (it sees the real dice) with the strongest captain as
  its prior, against the strongest captain: how far skill could go in this scenario (in this process,
  or on Ray actors with ``backend="ray"``);
- rounds and decisions a game, and the share of draws and of games ended by the round limit.

Verdicts: *lopsided* when the seat balance is outside :data:`SIDE_BALANCE`; else *luck-dominated*
when the strongest captain scores under :data:`MIN_VS_RANDOM` against ``random`` or fewer than
:data:`MIN_DECISIVENESS` of the seeds change result with the captains; else *balanced*.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

from naval_agents.captains.base import Captain
from naval_agents.captains.registry import scripted_names
from naval_agents.captains.search.captain import default_rollout
from naval_agents.captains.zoo.catalogue import ZOO_CAPTAIN, has_zoo_captain
from naval_agents.evaluation.meta_game import SeatBalance
from naval_agents.evaluation.meta_game import seat_balance as solve_seat_balance
from naval_agents.evaluation.schedule import (
    Entrant,
    EvaluationInputError,
    GameTask,
    Tournament,
    build_tournament,
    load_captain,
    parse_entrant,
    schedule,
)
from naval_agents.evaluation.stats import GameResult, wilson_interval
from naval_agents.evaluation.tournament import run_tournament
from naval_agents.evaluation.workers import _Setup, _Worker
from naval_env.core.errors import NavalError
from naval_env.core.ruleset import get_ruleset

#: The seat balance (the first side's score under each side's best captain) must lie in this band (issue 41):
#: outside it, the seat decides too often.
SIDE_BALANCE = (0.35, 0.65)
#: The strongest captain must score this much against ``random``: below it, play barely matters.
MIN_VS_RANDOM = 0.75
#: Share of seeds whose result must change with the sound captains. Where a share ``d`` of seeds is fixed
#: whoever captains, a captain playing perfectly scores at most ``0.5 + d / 2`` against an equal one
#: over both seats; 0.30 leaves a ceiling of 0.65, room above the project's 0.60 "beats" floor
#: (difficulty steps, docs/captains.md) for a better captain to show it beyond the noise.
MIN_DECISIVENESS = 0.30
DEFAULT_SEEDS = 50
DEFAULT_LUCK_SEEDS = 10
#: Candidates the clairvoyant search tries a decision (each one rollout on the real dice).
DEFAULT_CLAIRVOYANT_SIMULATIONS = 8
CLAIRVOYANT = "clairvoyant"
VERDICTS = ("balanced", "lopsided", "luck-dominated")


@dataclass(frozen=True)
class Thresholds:
    """The limits the verdicts are read against (printed with every check)."""

    side_low: float = SIDE_BALANCE[0]
    side_high: float = SIDE_BALANCE[1]
    vs_random: float = MIN_VS_RANDOM
    decisiveness: float = MIN_DECISIVENESS

    def lines(self) -> list[str]:
        return [(f"lopsided: the seat balance (the first side's score when each side fields its best sound "
                 f"captain) outside [{self.side_low:.2f}, {self.side_high:.2f}]"),
                (f"luck-dominated: the strongest captain under {self.vs_random:.2f} against random, or under "
                 f"{self.decisiveness:.2f} of the seeds changing result with the sound captains"),
                "balanced: neither"]


@dataclass(frozen=True)
class CheckCaptains:
    """Who plays the check: the strongest captain and the sound ones (it first), all as captain specs."""

    strongest: str
    sound: tuple[str, ...]

    @classmethod
    def default(cls, ruleset: str) -> CheckCaptains:
        """The zoo captain where one ships, else the strongest scripted one; sound: it and every scripted
        captain but ``random``."""
        strongest = ZOO_CAPTAIN if has_zoo_captain(ruleset) else default_rollout(ruleset)
        return cls.of(strongest, [name for name in scripted_names(ruleset) if name != "random"])

    @classmethod
    def of(cls, strongest: str, others: Sequence[str]) -> CheckCaptains:
        return cls(strongest, tuple(dict.fromkeys([strongest, *others])))


@dataclass(frozen=True)
class Rate:
    """A score (draws ½) over ``n`` games with its 95% Wilson interval."""

    score: float
    n: int
    low: float
    high: float

    @classmethod
    def of(cls, scores: Sequence[float]) -> Rate:
        if not scores:
            raise ValueError("a rate needs at least one game")
        low, high = wilson_interval(sum(scores), len(scores))
        return cls(sum(scores) / len(scores), len(scores), low, high)

    def text(self) -> str:
        return f"{self.score:.2f} [{self.low:.2f}, {self.high:.2f}]"


@dataclass(frozen=True)
class VarianceShares:
    """Shares of the first side's score variance (sum 1); all None when every game ended alike."""

    captains: float | None
    seeds: float | None
    rest: float | None

    def text(self) -> str:
        if self.captains is None:
            return "no variance"
        return f"{self.captains:.2f} / {self.seeds:.2f} / {self.rest:.2f}"


@dataclass(frozen=True)
class ScenarioCheck:
    """One scenario's measurements and verdict."""

    ruleset: str
    scenario: str
    config: str | None
    seed: int
    seeds: int
    sides: tuple[str, str]
    strongest: str
    sound: tuple[str, ...]
    weakest: str
    side_balance: Rate          # first side's score, strongest captain on both sides (the mirror)
    seat_balance: SeatBalance   # first side's score, each side's best sound captain (the seat meta-game)
    vs_random: Rate             # strongest captain's score
    vs_weakest: Rate
    decisiveness: float         # share of seeds whose result changes with the sound captains
    variance: VarianceShares
    luck_bound: Rate | None     # the clairvoyant search's score against the strongest captain
    luck_seeds: int
    mean_rounds: float
    mean_decisions: float
    draw_share: float
    round_limit_share: float
    games: int
    verdict: str
    reasons: tuple[str, ...]
    thresholds: Thresholds = field(default_factory=Thresholds)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


# ------------------------------------------------------------------ the block of games
@dataclass(frozen=True)
class Block:
    """A scenario's paired games between sound captains, and of the strongest captain against random."""

    tournament: Tournament
    labels: dict[str, str]           # spec -> label
    results: tuple[GameResult, ...]


def block_tournament(ruleset: str, scenario: str | None, config: str | None, captains: CheckCaptains,
                     seeds: int, seed: int, *, with_random: bool = True) -> tuple[Tournament, list[GameTask]]:
    """The tournament and the games it plays: every sound pair (mirrors once a seed), then strongest:random."""
    entrants = [parse_entrant(spec) for spec in captains.sound]
    labels = [e.label for e in entrants]
    pairings = [f"{a}:{b}" for i, a in enumerate(labels) for b in labels[i:]]
    with_random = with_random and "random" not in captains.sound   # else its games are in the block already
    specs = list(captains.sound) + (["random"] if with_random else [])
    if with_random:
        pairings.append(f"{labels[0]}:random")
    tournament = build_tournament(ruleset, specs, seeds, scenario=scenario, pairings=pairings, seed=seed,
                                  config=config)
    tasks = [task for task in schedule(tournament)
             if not (task.swap and len(set(tournament.pairings[task.pairing])) == 1)]
    return tournament, tasks


def play_block(ruleset: str, scenario: str | None, config: str | None, captains: CheckCaptains, seeds: int,
               seed: int, *, with_random: bool = True, workers: int = 1, backend: str = "local",
               address: str | None = None, progress: bool = False) -> Block:
    tournament, tasks = block_tournament(ruleset, scenario, config, captains, seeds, seed, with_random=with_random)
    results = run_tournament(tournament, workers=workers, progress=progress, backend=backend, address=address,
                             tasks=tasks)
    labels = {e.spec: e.label for e in tournament.entrants}
    return Block(tournament, labels, tuple(results))


def first_side_score(result: GameResult, first: str) -> float:
    return 0.5 if result.winner_side is None else float(result.winner_side == first)


def seated(result: GameResult) -> tuple[str, str]:
    """(first side's captain, second side's captain) by label."""
    return (result.b, result.a) if result.swap else (result.a, result.b)


def sound_cells(block: Block, sound: Sequence[str]) -> dict[int, dict[tuple[str, str], GameResult]]:
    """seed -> (first captain, second captain) -> the game, over the ordered pairs of sound captains."""
    wanted = {block.labels[spec] for spec in sound}
    cells: dict[int, dict[tuple[str, str], GameResult]] = defaultdict(dict)
    for result in block.results:
        if result.a in wanted and result.b in wanted:
            cells[result.seed][seated(result)] = result
    return dict(cells)


def decisiveness(cells: dict[int, dict[tuple[str, str], GameResult]]) -> float:
    """Share of seeds whose result (winning side, or a draw) is not the same in every ordered pairing."""
    if not cells:
        raise ValueError("decisiveness needs at least one seed")
    changed = sum(len({r.winner_side for r in games.values()}) > 1 for games in cells.values())
    return changed / len(cells)


def variance_shares(table: Sequence[Sequence[float]]) -> VarianceShares:
    """Two-way ANOVA without replication of ``table[seed][cell]``: captains (cells), seeds, and the rest.

    Sums of squares: captains ``S * sum (cell mean - mean)^2``, seeds ``C * sum (seed mean - mean)^2``,
    the rest what is left of the total (the seed × captains interaction, which one game a cell cannot
    tell from noise).
    """
    rows = [list(row) for row in table]
    if not rows or not rows[0] or any(len(row) != len(rows[0]) for row in rows):
        raise ValueError("variance_shares needs a complete table: the same cells for every seed")
    n_seeds, n_cells = len(rows), len(rows[0])
    mean = sum(map(sum, rows)) / (n_seeds * n_cells)
    total = sum((y - mean) ** 2 for row in rows for y in row)
    if total <= 1e-12:
        return VarianceShares(None, None, None)
    cell_means = [sum(row[c] for row in rows) / n_seeds for c in range(n_cells)]
    seed_means = [sum(row) / n_cells for row in rows]
    captains = n_seeds * sum((m - mean) ** 2 for m in cell_means) / total
    seeds = n_cells * sum((m - mean) ** 2 for m in seed_means) / total
    return VarianceShares(captains, seeds, max(0.0, 1.0 - captains - seeds))


def score_of(results: Sequence[GameResult], label: str, opponent: str) -> Rate:
    """``label``'s score over its games against ``opponent`` (both seats)."""
    scores = [r.a_score if r.a == label else 1 - r.a_score for r in results
              if {r.a, r.b} == {label, opponent} and r.a != r.b]
    return Rate.of(scores)


def weakest_scripted(block: Block, captains: CheckCaptains, ruleset: str) -> str:
    """The scripted sound captain (not the strongest) with the lowest mean score in the sound block."""
    scripted = set(scripted_names(ruleset))
    candidates = [spec for spec in captains.sound[1:] if spec in scripted] or [captains.strongest]
    sound = {block.labels[spec] for spec in captains.sound}

    def mean_score(spec: str) -> float:
        label = block.labels[spec]
        scores = [r.a_score if r.a == label else 1 - r.a_score for r in block.results
                  if label in (r.a, r.b) and r.a != r.b and {r.a, r.b} <= sound]
        return sum(scores) / len(scores) if scores else 0.5

    return min(candidates, key=mean_score)


# ------------------------------------------------------------------ the luck bound
class _ClairvoyantWorker(_Worker):
    """The tournament's own one-game worker, with the clairvoyant search for the label :data:`CLAIRVOYANT`
    (a search is no captain name: its prior is a captain object)."""

    def __init__(self, setup: _Setup, make: Callable[[Captain], Captain]) -> None:
        super().__init__(setup)
        self._make = make

    def captain(self, label: str, slot: int) -> Captain:
        if label != CLAIRVOYANT:
            return super().captain(label, slot)
        key = (label, slot)
        if key not in self._captains:
            t = self.setup.tournament
            prior_spec = next(e.spec for e in t.entrants if e.label != CLAIRVOYANT)
            prior = load_captain(Entrant("prior", prior_spec), t.ruleset, self.match.action_spec,
                                 config=self.match.config)
            self._captains[key] = self._make(prior)
        return self._captains[key]


def clairvoyant_factory(simulations: int) -> Callable[[Captain], Captain]:
    """A clairvoyant root search with ``prior`` as its prior; imported here, so the rest of the check works
    without it."""
    from naval_agents.captains.search.captain import SearchCaptain

    def make(prior: Captain) -> Captain:
        try:
            return SearchCaptain(simulations, seed=0, proposer=prior, clairvoyant=True,
                                 name=f"{CLAIRVOYANT}:{simulations}")
        except TypeError as exc:   # an agents/search without the clairvoyant search
            raise EvaluationInputError(f"this install's SearchCaptain has no clairvoyant search ({exc}); "
                                       "run the check with --no-luck-bound") from None

    return make


class _ClairvoyantActor:
    """A Ray actor playing luck-bound games: the tournament's :class:`~naval_agents.evaluation.ray_backend.GameActor`
    with the clairvoyant worker in place of the plain one."""

    def __init__(self, setup: _Setup, simulations: int) -> None:
        from naval_agents.evaluation.ray_backend import GameActor

        self.actor = GameActor(setup)
        self.actor.worker = _ClairvoyantWorker(setup, clairvoyant_factory(simulations))

    def play(self, tasks: list[GameTask]) -> list[tuple[GameResult, None]]:
        return [(result, None) for result, _ in self.actor.play(tasks)]


def luck_bound(ruleset: str, scenario: str | None, config: str | None, strongest: str, seeds: int, seed: int,
               simulations: int = DEFAULT_CLAIRVOYANT_SIMULATIONS, *, workers: int = 1, backend: str = "local",
               address: str | None = None) -> Rate:
    """The clairvoyant search's score against ``strongest`` over ``seeds`` seeds from both sides, played by the
    tournament's own worker: in this process, or on ``workers`` Ray actors with ``backend="ray"`` (a search is
    built, not named, so the process pool, which makes captains from names, does not play it)."""
    opponent = parse_entrant(strongest)
    tournament = Tournament(ruleset, scenario, config, (Entrant(CLAIRVOYANT, CLAIRVOYANT), opponent),
                            ((CLAIRVOYANT, opponent.label),), seeds, seed)
    setup = _Setup(tournament, None, single_thread=backend == "ray")
    results: list[GameResult] = []
    if backend == "ray":
        import os

        from naval_agents.distributed.ray_runtime import ray_session
        from naval_agents.evaluation.ray_backend import _drive
        from naval_agents.evaluation.workers import _chunks

        with ray_session(address, num_cpus=max(workers, os.cpu_count() or 1)) as ray:
            actor_class = ray.remote(num_cpus=1)(_ClairvoyantActor)
            actors = [actor_class.remote(setup, simulations) for _ in range(workers)]
            try:   # a chunk a game: each takes seconds, so the actors share them out evenly
                _drive(ray, actors, setup, _chunks(schedule(tournament), 1), results.extend)
            finally:
                for actor in actors:
                    ray.kill(actor)
    else:
        worker = _ClairvoyantWorker(setup, clairvoyant_factory(simulations))
        results = [worker.play(task) for task in schedule(tournament)]
    return Rate.of([r.a_score for r in sorted(results, key=lambda r: r.sort_key)])


# ------------------------------------------------------------------ the check
def check_scenario(ruleset: str, scenario: str | None = None, *, config: str | None = None,
                   captains: CheckCaptains | None = None, seeds: int = DEFAULT_SEEDS, seed: int = 0,
                   luck: bool = True, luck_seeds: int = DEFAULT_LUCK_SEEDS,
                   clairvoyant_simulations: int = DEFAULT_CLAIRVOYANT_SIMULATIONS, workers: int = 1,
                   backend: str = "local", address: str | None = None, progress: bool = False,
                   thresholds: Thresholds = Thresholds()) -> ScenarioCheck:
    """Play the scenario's block (and the luck bound) and read the verdict."""
    rules = get_ruleset(ruleset)
    try:
        loaded = rules.load_config(config)
    except (OSError, NavalError) as exc:
        raise EvaluationInputError(" ".join(f"bad config {config!r}: {exc}".split())) from None
    scenario = scenario or loaded.default_scenario
    captains = captains or CheckCaptains.default(ruleset)
    block = play_block(ruleset, scenario, config, captains, seeds, seed, workers=workers, backend=backend,
                       address=address, progress=progress)
    sides = tuple(rules.new_game(loaded, scenario, seed=0).sides)
    first = sides[0]
    strongest = block.labels[captains.strongest]
    cells = sound_cells(block, captains.sound)
    order = sorted(next(iter(cells.values())))
    table = [[first_side_score(cells[s][cell], first) for cell in order] for s in sorted(cells)]
    mirror = [first_side_score(r, first) for r in block.results if r.a == r.b == strongest]
    weakest = weakest_scripted(block, captains, ruleset)
    vs_weakest = (score_of(block.results, strongest, block.labels[weakest]) if weakest != captains.strongest
                  else Rate.of(mirror))
    games = block.results
    side_balance, vs_random, decisive = Rate.of(mirror), score_of(games, strongest, "random"), decisiveness(cells)
    seats = seat_meta_game(cells, [block.labels[spec] for spec in captains.sound], first)
    verdict, reasons = judge(seats.score, vs_random.score, decisive, thresholds)
    return ScenarioCheck(
        ruleset=ruleset, scenario=scenario, config=config, seed=seed, seeds=seeds, sides=(sides[0], sides[1]),
        strongest=captains.strongest, sound=captains.sound, weakest=weakest, side_balance=side_balance,
        seat_balance=seats,
        vs_random=vs_random, vs_weakest=vs_weakest, decisiveness=decisive, variance=variance_shares(table),
        luck_bound=(luck_bound(ruleset, scenario, config, captains.strongest, luck_seeds, seed,
                               clairvoyant_simulations, workers=workers, backend=backend, address=address)
                    if luck else None),
        luck_seeds=luck_seeds if luck else 0,
        mean_rounds=sum(r.rounds for r in games) / len(games),
        mean_decisions=sum(r.decisions for r in games) / len(games),
        draw_share=sum(r.winner_side is None for r in games) / len(games),
        round_limit_share=sum(r.truncated for r in games) / len(games),
        games=len(games), verdict=verdict, reasons=tuple(reasons), thresholds=thresholds)


def seat_meta_game(cells: dict[int, dict[tuple[str, str], GameResult]], labels: Sequence[str],
                   first: str) -> SeatBalance:
    """The seat meta-game of the sound block: every seed's first-side score for each ordered pair of
    ``labels`` (first side's captain, second side's)."""
    scores = [[[first_side_score(cells[s][(a, b)], first) for b in labels] for a in labels] for s in sorted(cells)]
    return solve_seat_balance(scores, labels)


def judge(side_balance: float, vs_random: float, decisive: float,
          thresholds: Thresholds = Thresholds()) -> tuple[str, list[str]]:
    """The verdict and every threshold missed (lopsided first: a seat that decides hides everything else)."""
    reasons = []
    lopsided = not thresholds.side_low <= side_balance <= thresholds.side_high
    if lopsided:
        reasons.append(f"seat balance {side_balance:.2f} outside [{thresholds.side_low:.2f}, "
                       f"{thresholds.side_high:.2f}]")
    if vs_random < thresholds.vs_random:
        reasons.append(f"strongest vs random {vs_random:.2f} < {thresholds.vs_random:.2f}")
    if decisive < thresholds.decisiveness:
        reasons.append(f"decisiveness {decisive:.2f} < {thresholds.decisiveness:.2f}")
    verdict = "lopsided" if lopsided else "luck-dominated" if reasons else "balanced"
    return verdict, reasons


# ------------------------------------------------------------------ tables
NOTE = ("Side balance: the first side's score when the strongest captain plays both (the mirror). Seat balance: "
        "the first side's score when each side fields its best sound captain (the value of the seat meta-game; "
        "95% seed-bootstrap interval), which the verdict reads: a mirror of a captain that plays one seat worse "
        "than the other measures the captain. Intervals otherwise: 95% Wilson. "
        "Decisive seeds: the share whose result changes among the sound captains' ordered pairings. Variance: a "
        "two-way ANOVA of the first side's score (seeds × ordered captain pairs).")
TABLE_HEADER = ("| scenario | side balance (mirror) | seat balance (best captains) | vs random | vs weakest | decisive seeds | variance: captains "
                "/ seeds / rest | luck bound | rounds | decisions | draws | round limit | verdict |")


def table_row(check: ScenarioCheck) -> str:
    luck = check.luck_bound.text() if check.luck_bound is not None else "not run"
    return (f"| {check.scenario} | {check.side_balance.text()} | {check.seat_balance.text()} | "
            f"{check.vs_random.text()} | "
            f"{check.vs_weakest.text()} ({check.weakest}) | {check.decisiveness:.2f} | {check.variance.text()} | "
            f"{luck} | {check.mean_rounds:.1f} | {check.mean_decisions:.1f} | {check.draw_share:.2f} | "
            f"{check.round_limit_share:.2f} | **{check.verdict}** |")


def to_markdown(checks: Sequence[ScenarioCheck]) -> str:
    """The checks as one markdown table, with who played, on which seeds, and the thresholds."""
    if not checks:
        return ""
    head = checks[0]
    lines = [f"Scenario check of `{head.ruleset}`: strongest captain `{head.strongest}`, sound captains "
             f"{', '.join(f'`{s}`' for s in head.sound)}; seeds {head.seed}..{head.seed + head.seeds - 1}, "
             f"{head.games} games a scenario"
             + (f"; luck bound: a clairvoyant search against `{head.strongest}`, {head.luck_seeds} seeds "
                f"from both sides" if head.luck_bound is not None else "") + ".",
             "", TABLE_HEADER, "|" + "---|" * 13]
    lines += [table_row(check) for check in checks]
    lines += ["", "Seat meta-game equilibria (first side's captains vs second side's):",
              *[f"- {check.scenario}: {check.seat_balance.mix_text()}" for check in checks]]
    lines += ["", NOTE, "", "Thresholds:", *[f"- {line}" for line in head.thresholds.lines()]]
    failing = [c for c in checks if c.reasons]
    if failing:
        lines += ["", "Missed:", *[f"- {c.scenario}: {'; '.join(c.reasons)}" for c in failing]]
    return "\n".join(lines) + "\n"
