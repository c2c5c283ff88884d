"""The tactics atlas: a tiny atlas is byte-for-byte reproducible, its claims rest on its numbers, its figures are
written, and bad settings are refused with a clear error before any game is played."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("sb3_contrib")  # the [train] extra: without it this module is skipped

import naval_agents.atlas.plan as plan_module
from naval_agents.atlas import play as play_module
from naval_agents.atlas.build import Atlas, make_atlas
from naval_agents.atlas.figures import GAME_LENGTHS, SIDE_ADVANTAGE, matrix_file
from naval_agents.atlas.measure import Rate, ScenarioNumbers, scenario_numbers
from naval_agents.atlas.plan import (
    AtlasSettings,
    ScenarioPlan,
    captains_of,
    check_settings,
    plan_atlas,
)
from naval_agents.atlas.play import ScenarioGames, scenario_tournament
from naval_agents.atlas.reading import ClaimKind, scenario_claims
from naval_agents.captains.registry import scripted_names
from naval_agents.evaluation.stats import GameResult, wilson_interval
from naval_tactics.cli import main as cli_main
from naval_tactics.commands.atlas import main as atlas_main
from tests.helpers import assert_png

pytestmark = pytest.mark.train

#: The tiny atlas: pursuit has a shipped zoo captain and a mirror scenario (duel), and plays fast.
TINY = AtlasSettings(rulesets=("pursuit",), games=3, seed=5, workers=1, out="docs/atlas.md")


def _make_in(folder: Path, settings: AtlasSettings, monkeypatch: pytest.MonkeyPatch) -> Atlas:
    monkeypatch.chdir(folder)   # the same relative --out, so the command printed in the file is the same
    return make_atlas(settings)


@pytest.fixture(scope="module")
def tiny(tmp_path_factory: pytest.TempPathFactory) -> tuple[Atlas, Path]:
    folder = tmp_path_factory.mktemp("atlas_a")
    with pytest.MonkeyPatch.context() as monkeypatch:
        return _make_in(folder, TINY, monkeypatch), folder


# ------------------------------------------------------------------------------------------ determinism
def test_tiny_atlas_is_byte_identical_when_regenerated_with_other_workers(
        tiny: tuple[Atlas, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    atlas, folder = tiny
    again = _make_in(tmp_path, AtlasSettings(**{**vars(TINY), "workers": 2}), monkeypatch)
    first = (folder / "docs/atlas.md").read_bytes()
    assert first == (tmp_path / "docs/atlas.md").read_bytes()
    assert [p.name for p in atlas.figures] == [p.name for p in again.figures]
    text = first.decode()
    assert "`naval-tactics atlas --rulesets pursuit --games 3 --seed 5 --out docs/atlas.md`" in text
    assert "seeds 5..7 for every pairing" in text and "3 seeds × 2 sides = 6 games per pairing" in text
    assert "| pursuit | 1.0 |" in text   # the ruleset's version
    assert not re.search(r"\b20\d\d-\d\d-\d\d\b|\d+(\.\d+)?\s?s\b", text), "no dates or timings in the file"


def test_tiny_atlas_plays_every_captain_in_every_scenario_with_paired_seeds(tiny: tuple[Atlas, Path]) -> None:
    atlas, _ = tiny
    assert [n.scenario for n in atlas.scenarios] == ["duel", "chase", "uneven"]
    names = [*scripted_names("pursuit"), "zoo"]
    for numbers in atlas.scenarios:
        results = numbers.games.results
        assert sorted(numbers.captains) == sorted(names)
        assert len(results) == 6 * 3 * 2    # C(4, 2) pairings × 3 seeds × 2 sides
        for pairing in {r.pairing for r in results}:
            games = [(r.seed, r.swap) for r in results if r.pairing == pairing]
            assert games == [(s, w) for s in (5, 6, 7) for w in (False, True)]
    mirror = {n.scenario: n.games.mirror for n in atlas.scenarios}
    assert len(mirror["duel"]) == 4 * 3 and all(r.a == r.b and not r.swap for r in mirror["duel"])
    assert mirror["chase"] == () and mirror["uneven"] == ()   # caravel against galley: no mirror


def test_tiny_atlas_pairs_every_cell_with_the_strongest_scripted_captain(tiny: tuple[Atlas, Path]) -> None:
    atlas, folder = tiny
    text = (folder / "docs" / "atlas.md").read_text(encoding="utf-8")
    for numbers in atlas.scenarios:
        assert numbers.reference == "hunter"
        own = numbers.games.reference_games   # the fleets differ: hunter against itself, both sides of each seed
        if numbers.games.mirror:
            assert own == ()
        else:
            assert {(r.a, r.b) for r in own} == {("hunter", "hunter")} and len(own) == 3 * 2
        assert set(numbers.paired) == set(numbers.matrix.cells)
        for (row, column), paired in numbers.paired.items():
            assert paired.is_reference == (row == "hunter")
            assert paired.is_reference or (paired.difference is not None and paired.difference.n == 6), (row, column)
            assert paired.text() in text
        assert f"### pursuit / {numbers.scenario}" in text
    assert text.count("Seat-paired against `hunter`") == len(atlas.scenarios)


# -------------------------------------------------------------------------------------- numbers, claims
def _share(winners: list[str | None], who: str) -> tuple[float, int]:
    """``who``'s points (a draw ½) among games won by ``winners`` (None: a draw), and the number of games."""
    return sum(1.0 if w == who else 0.5 if w is None else 0.0 for w in winners), len(winners)


def test_tiny_atlas_numbers_recomputed_from_its_games(tiny: tuple[Atlas, Path]) -> None:
    atlas, folder = tiny
    text = (folder / "docs/atlas.md").read_text()
    for n in atlas.scenarios:
        first = n.sides[0]
        points, games = _share([r.winner_side for r in n.games.results], first)
        assert (n.first_side.points, n.first_side.games) == (points, games)
        assert (n.first_side.low, n.first_side.high) == wilson_interval(points, games)
        for row in n.captains:
            for column in n.captains:
                if row == column:
                    continue
                meetings = [r for r in n.games.results if {r.a, r.b} == {row, column}]
                points, games = _share([r.winner for r in meetings], row)
                assert (n.cell(row, column).points, n.cell(row, column).games) == (points, games)
        rounds = [r.rounds for r in n.games.results]
        assert n.lengths.median == float(np.median(rounds)) and n.lengths.longest == max(rounds)
        assert f"| {n.ruleset} / {n.scenario} | {len(rounds)} | {np.mean(rounds):.1f} |" in text


def _check_claims(numbers: ScenarioNumbers) -> list[ClaimKind]:
    """Every claim's kind agrees with the numbers it cites, and the cited numbers are the atlas's own."""
    kinds = []
    for claim in scenario_claims(numbers):
        kinds.append(claim.kind)
        rates = [rate for _, _, rate in claim.evidence]
        for row, column, rate in claim.evidence:
            assert rate == (numbers.cell(row, column) if column else rate)
        if claim.kind in (ClaimKind.BEATS_ALL, ClaimKind.CYCLE):
            assert rates and all(r.low > 0.5 for r in rates), claim.text
        elif claim.kind is ClaimKind.LOSES_ALL:
            assert rates and all(r.high < 0.5 for r in rates), claim.text
        elif claim.kind is ClaimKind.UNBEATEN:
            top = numbers.ratings[0].name
            assert {col for _, col, _ in claim.evidence} == {top}
            assert len(rates) == len(numbers.captains) - 1 and all(r.low <= 0.5 for r in rates), claim.text
        elif claim.kind is ClaimKind.SIDE:
            assert rates == [numbers.first_side] and not rates[0].low <= 0.5 <= rates[0].high, claim.text
        elif claim.kind is ClaimKind.NO_SIDE:
            assert rates == [numbers.first_side] and rates[0].low <= 0.5 <= rates[0].high, claim.text
        elif claim.kind is ClaimKind.MIRROR_SIDE:
            assert rates == [numbers.mirror_first_side] and rates[0].significant, claim.text
        elif claim.kind is ClaimKind.MIRROR_NO_SIDE:
            assert rates == [numbers.mirror_first_side] and not rates[0].significant, claim.text
        # each claim prints (one of) the numbers it rests on; a side claim the winning side's share
        shown = [r if r.above_half or claim.kind not in (ClaimKind.SIDE, ClaimKind.MIRROR_SIDE)
                 else Rate.of(r.games - r.points, r.games) for r in rates]
        assert any(r.text() in claim.text for r in shown), claim.text
    return kinds


def test_tiny_atlas_claims_match_its_numbers_and_are_in_the_file(tiny: tuple[Atlas, Path]) -> None:
    atlas, folder = tiny
    text = (folder / "docs/atlas.md").read_text()
    for numbers in atlas.scenarios:
        kinds = _check_claims(numbers)
        assert kinds.count(ClaimKind.SIDE) + kinds.count(ClaimKind.NO_SIDE) == 1
        assert kinds.count(ClaimKind.MIRROR_SIDE) + kinds.count(ClaimKind.MIRROR_NO_SIDE) == \
            (1 if numbers.mirror_first_side is not None else 0)
        for claim in scenario_claims(numbers):
            assert f"  - {claim.text}." in text


def _game(a: str, b: str, seed: int, swap: bool, a_wins: bool | None, rounds: int = 10) -> GameResult:
    a_side, b_side = ("blue", "red") if swap else ("red", "blue")
    winner = None if a_wins is None else (a_side if a_wins else b_side)
    return GameResult(pairing=0, a=a, b=b, seed=seed, swap=swap, a_side=a_side, b_side=b_side, winner_side=winner,
                      truncated=winner is None, rounds=rounds, decisions=rounds, a_damage_dealt=0, a_damage_taken=0,
                      b_damage_dealt=0, b_damage_taken=0)


def _numbers(results: list[GameResult], captains: tuple[str, ...],
             mirror: tuple[GameResult, ...] | list[GameResult] = ()) -> ScenarioNumbers:
    plan = ScenarioPlan("pantheon", "1.0", "duel", ("red", "blue"),
                        tuple(plan_module.Captain(c, "scripted", "test") for c in captains), mirror=bool(mirror))
    settings = AtlasSettings(rulesets=("pantheon",), games=1)
    return scenario_numbers(ScenarioGames(plan, scenario_tournament(plan, settings), tuple(results), tuple(mirror)))


def _pairing(a: str, b: str, a_wins: int, games: int) -> list[GameResult]:
    """``games`` games (seeds, each from both sides) of which ``a`` wins the first ``a_wins``."""
    out = []
    for i in range(games):
        seed, swap = divmod(i, 2)
        out.append(_game(a, b, seed, bool(swap), i < a_wins))
    return out


def test_claims_of_a_non_transitive_cycle_with_a_side_advantage() -> None:
    # gunner beats rammer 36/40, rammer beats random 36/40, random beats gunner 36/40: a significant cycle
    results = [*_pairing("gunner", "rammer", 36, 40), *_pairing("rammer", "random", 36, 40),
               *_pairing("random", "gunner", 36, 40)]
    numbers = _numbers(results, ("gunner", "rammer", "random"))
    kinds = _check_claims(numbers)
    cycles = [c for c in scenario_claims(numbers) if c.kind is ClaimKind.CYCLE]
    assert len(cycles) == 1 and "0.90 [0.77, 0.96]" in cycles[0].text
    assert ClaimKind.BEATS_ALL not in kinds and ClaimKind.UNBEATEN not in kinds   # everyone loses to someone
    # wins were listed first in each pairing, alternating sides, so the first side took 54 of 120 points
    assert numbers.first_side.games == 120 and kinds.count(ClaimKind.NO_SIDE) == 1


def test_claims_of_a_dominant_captain_a_loser_and_a_significant_side() -> None:
    # gunner wins all its 80 games (half of them as red); rammer beats random 150 of 200, and of the 100 seeds
    # random plays as red it wins 50: red wins 40 + 100 + 50 = 190 of 280 games, a significant side advantage
    results = [*_pairing("gunner", "rammer", 40, 40), *_pairing("gunner", "random", 40, 40)]
    for i in range(200):
        seed, swap = divmod(i, 2)
        results.append(_game("rammer", "random", seed, bool(swap), a_wins=not swap or seed % 2 == 0))
    mirror = [_game(c, c, s, False, True) for c in ("gunner", "rammer", "random") for s in range(12)]
    numbers = _numbers(results, ("gunner", "rammer", "random"), mirror)
    kinds = _check_claims(numbers)
    assert kinds == [ClaimKind.BEATS_ALL, ClaimKind.LOSES_ALL, ClaimKind.SIDE, ClaimKind.MIRROR_SIDE]
    claims = scenario_claims(numbers)
    assert claims[0].text.startswith("**gunner** beats every other captain; its closest result is 1.00 [0.91, 1.00]")
    assert claims[1].text.startswith("**random** loses to every other captain; its best result is 0.25 [0.20, 0.31]")
    assert numbers.first_side.points == 190 and "side red (first) wins 0.68 [0.62, 0.73] of 280 games" in claims[2].text
    assert claims[3].evidence[0][2] == Rate.of(36, 36)


def test_an_even_scenario_claims_no_winner_and_no_side_advantage() -> None:
    results = [*_pairing("gunner", "rammer", 10, 20)]   # 10 of 20, first side 10 of 20
    numbers = _numbers(results, ("gunner", "rammer"))
    kinds = _check_claims(numbers)
    assert kinds == [ClaimKind.UNBEATEN, ClaimKind.NO_SIDE]
    assert "0.50 [0.30, 0.70]" in scenario_claims(numbers)[0].text


def test_a_bound_that_rounds_to_half_is_printed_with_three_decimals() -> None:
    rate = Rate(games=400, points=220.5, rate=0.55125, low=0.5014, high=0.6)
    assert rate.text() == "0.551 [0.501, 0.600]" and rate.above_half
    assert Rate.of(30, 40).text() == "0.75 [0.60, 0.86]"


# ---------------------------------------------------------------------------------------------- figures
def test_tiny_atlas_writes_and_links_its_figures(tiny: tuple[Atlas, Path]) -> None:
    atlas, folder = tiny
    text = (folder / "docs/atlas.md").read_text()
    expected = [*(matrix_file(n) for n in atlas.scenarios), SIDE_ADVANTAGE, GAME_LENGTHS]
    assert [p.name for p in atlas.figures] == expected
    for name in expected:
        assert_png(folder / "docs/atlas" / name)
        assert f"](atlas/{name})" in text


# ------------------------------------------------------------------------------------------------ plan
def test_captains_come_from_the_registry_and_a_zoo_captain_joins_when_it_lands(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert [c.name for c in captains_of("pantheon")] == [*scripted_names("pantheon"), "zoo"]
    monkeypatch.setattr(plan_module, "has_zoo_captain", lambda ruleset: False)   # a ruleset before its captain ships
    assert [c.name for c in captains_of("broadside")] == scripted_names("broadside")
    landed = tmp_path / "broadside.onnx"
    landed.write_bytes(b"an export")
    monkeypatch.setattr(plan_module, "has_zoo_captain", lambda ruleset: ruleset == "broadside")
    monkeypatch.setattr(plan_module, "zoo_onnx_path", lambda ruleset: landed)
    zoo = captains_of("broadside")[-1]
    assert (zoo.name, zoo.kind) == ("zoo", "zoo") and zoo.origin.endswith("broadside.onnx, sha256 b5e96c0f99b5…")


def test_mirror_scenarios_are_those_with_the_same_ship_classes_on_both_sides() -> None:
    plans = {(p.ruleset, p.scenario): p.mirror for p in plan_atlas(AtlasSettings(rulesets=("pantheon", "flotilla")))}
    assert plans[("pantheon", "duel")] is True
    assert plans[("pantheon", "mixed_duel")] is False and plans[("flotilla", "duel")] is False   # frigate vs brig


# ---------------------------------------------------------------------------------------------- backend
@pytest.mark.ray
def test_the_tiny_atlas_on_ray_plays_the_same_games_as_locally(
        tiny: tuple[Atlas, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    atlas, folder = tiny
    on_ray = _make_in(tmp_path, AtlasSettings(**{**vars(TINY), "workers": 2, "backend": "ray"}), monkeypatch)
    assert [n.games.results for n in on_ray.scenarios] == [n.games.results for n in atlas.scenarios]
    assert [n.games.mirror for n in on_ray.scenarios] == [n.games.mirror for n in atlas.scenarios]
    local_text = (folder / "docs/atlas.md").read_text().splitlines()
    ray_text = (tmp_path / "docs/atlas.md").read_text().splitlines()
    differing = [(a, b) for a, b in zip(local_text, ray_text) if a != b]
    assert len(local_text) == len(ray_text) and all("--backend ray" in b for _, b in differing)


# ------------------------------------------------------------------------------------------- bad input
@pytest.mark.parametrize("argv, message", [
    (["--rulesets", "nope"], "unknown ruleset(s) ['nope']; allowed: ['broadside', 'crew_phase'"),
    (["--rulesets", "pantheon", "pantheon"], "given more than once"),
    (["--games", "0"], "--games must be at least 1 seed per pairing, got 0; allowed: 1 or more"),
    (["--games", "-3"], "--games must be at least 1"),
    (["--games", "many"], "argument --games: invalid int value: 'many'"),
    (["--seed", "-1"], "--seed must be 0 or more"),
    (["--workers", "0"], "--workers must be at least 1"),
    (["--address", "auto"], "--address names a Ray cluster; it needs --backend ray"),
    (["--backend", "spark"], "argument --backend: invalid choice: 'spark'"),
    (["--out", "docs/atlas.txt"], "--out must be a markdown file ending in .md"),
])
def test_bad_flags_are_refused_before_any_game(argv: list[str], message: str, capsys: pytest.CaptureFixture[str],
                                               monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(play_module, "play_scenario", lambda *a, **k: pytest.fail("a game was played"))
    try:
        status = atlas_main(argv)
    except SystemExit as exit_info:   # argparse's own refusals (a flag's type or choices) exit from the parser
        status = int(exit_info.code or 0)
    assert status == 2
    error = capsys.readouterr().err
    assert error.startswith("naval-tactics atlas: ") and message in error and error.count("\n") == 1
    assert not (tmp_path / "docs").exists()


def test_the_cli_delegates_atlas_with_its_help(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_info:
        cli_main(["atlas", "--help"])
    assert exit_info.value.code == 0
    out = capsys.readouterr().out
    assert "--rulesets" in out and "--backend {local,ray}" in out and "--address" in out
    assert cli_main(["atlas", "--games", "0"]) == 2


def test_check_settings_accepts_the_defaults() -> None:
    check_settings(AtlasSettings())
    assert AtlasSettings().command() == "naval-tactics atlas --games 150 --seed 0 --out docs/atlas.md"
