"""The scenario check (agents/evaluation/scenario_check.py, ``naval-tactics scenario check``): its statistics on
hand-made tables, and the check itself on pantheon's duel with scripted captains (a few seconds)."""

from __future__ import annotations

import argparse
import json
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

import pytest
import yaml

from naval_agents.distributed.ray_runtime import ray_session
from naval_agents.evaluation.scenario_check import (
    CheckCaptains,
    Thresholds,
    block_tournament,
    check_scenario,
    decisiveness,
    judge,
    luck_bound,
    to_markdown,
    variance_shares,
)
from naval_agents.evaluation.stats import GameResult
from naval_agents.evaluation.tournament import build_tournament, run_tournament
from naval_env.core.config import BUNDLED_CONFIGS
from naval_tactics import cli
from naval_tactics.commands.scenario import main, make_parser

SCRIPTED = CheckCaptains.of("gunner", ["rammer"])


@pytest.fixture(scope="module")
def ray() -> Iterator[ModuleType]:
    """One local Ray for this file's Ray tests (a command joins a running one instead of starting its own)."""
    pytest.importorskip("ray")  # the [ray] extra: without it the tests on Ray are skipped
    with ray_session(num_cpus=2) as ray:
        yield ray


def lopsided_duel(tmp_path: Path) -> str:
    """pantheon's duel with red's captain a master seaman (5) against blue's novice (0): red wins nearly all."""
    raw = yaml.safe_load((BUNDLED_CONFIGS / "rulesets" / "pantheon.yaml").read_text())
    sides = raw["scenarios"]["duel"]["sides"]
    sides[0]["ships"][0]["captain"]["seamanship"] = 5
    sides[1]["ships"][0]["captain"]["seamanship"] = 0
    path = tmp_path / "lopsided.yaml"
    path.write_text(yaml.safe_dump(raw, sort_keys=False))
    return str(path)


def game(seed: int, winner: str | None) -> GameResult:
    return GameResult(pairing=0, a="x", b="y", seed=seed, swap=False, a_side="red", b_side="blue",
                      winner_side=winner, truncated=False, rounds=1, decisions=1, a_damage_dealt=0,
                      a_damage_taken=0, b_damage_dealt=0, b_damage_taken=0)


# ------------------------------------------------------------------ statistics on hand-made tables
def test_variance_shares_splits_captains_from_seeds() -> None:
    only_captains = [[1.0, 0.0, 0.5]] * 4                       # every seed alike, the pairs differ
    only_seeds = [[1.0] * 3, [0.0] * 3, [1.0] * 3, [0.0] * 3]    # the pairs alike, the seeds differ
    assert variance_shares(only_captains).captains == pytest.approx(1.0)
    assert variance_shares(only_seeds).seeds == pytest.approx(1.0)
    assert variance_shares(only_seeds).captains == pytest.approx(0.0)
    assert variance_shares([[1.0, 1.0], [1.0, 1.0]]).captains is None    # nothing varies: no shares


def test_variance_shares_by_hand() -> None:
    # y = [[1, 1], [1, 0]]: mean 0.75, total SS 3 * 0.25^2 + 0.75^2 = 0.75; cell means 1 and 0.5 -> captains
    # SS 2 * (0.25^2 + 0.25^2) = 0.25; seed means the same -> seeds SS 0.25; the rest 0.25: a third each.
    shares = variance_shares([[1.0, 1.0], [1.0, 0.0]])
    assert (shares.captains, shares.seeds, shares.rest) == pytest.approx((1 / 3, 1 / 3, 1 / 3))
    with pytest.raises(ValueError, match="complete table"):
        variance_shares([[1.0, 0.0], [1.0]])


def test_decisiveness_counts_seeds_whose_result_changes() -> None:
    cells = {1: {("a", "a"): game(1, "red"), ("a", "b"): game(1, "red")},       # the seat decides
             2: {("a", "a"): game(2, "red"), ("a", "b"): game(2, "blue")},      # the captains decide
             3: {("a", "a"): game(3, None), ("a", "b"): game(3, "red")},        # a draw is a result too
             4: {("a", "a"): game(4, "blue"), ("a", "b"): game(4, "blue")}}
    assert decisiveness(cells) == 0.5


@pytest.mark.parametrize(("balance", "vs_random", "decisive", "verdict"), [
    (0.50, 0.90, 0.50, "balanced"),
    (0.35, 0.75, 0.30, "balanced"),          # the thresholds themselves pass
    (0.70, 0.90, 0.50, "lopsided"),
    (0.30, 0.50, 0.10, "lopsided"),          # lopsided names the seat first
    (0.50, 0.70, 0.50, "luck-dominated"),
    (0.50, 0.90, 0.20, "luck-dominated"),
])
def test_judge(balance: float, vs_random: float, decisive: float, verdict: str) -> None:
    got, reasons = judge(balance, vs_random, decisive, Thresholds())
    assert got == verdict
    assert bool(reasons) == (verdict != "balanced")


# ------------------------------------------------------------------ the games the check plays
def test_a_mirror_is_the_same_game_with_the_sides_swapped() -> None:
    # The block plays a mirror once a seed because its swapped game is this same game; checked with random's
    # seeded moves, the least deterministic captain.
    tournament = build_tournament("pantheon", ["random", "gunner"], 12, scenario="duel",
                                  pairings=["random:random", "gunner:gunner"])
    results = run_tournament(tournament, progress=False)
    assert len(results) == 2 * 2 * 12   # two mirrors, each seed from both sides
    for straight, swapped in zip(results[::2], results[1::2], strict=True):
        assert (straight.seed, straight.swap, swapped.swap) == (swapped.seed, False, True)
        assert (straight.winner_side, straight.rounds, straight.decisions) == \
            (swapped.winner_side, swapped.rounds, swapped.decisions)


def test_block_plays_every_ordered_pair_of_sound_captains_on_every_seed() -> None:
    tournament, tasks = block_tournament("pantheon", "duel", None, CheckCaptains.of("gunner", ["rammer", "search:2"]),
                                         5, 100)
    seated = [(t.seed, *(tournament.pairings[t.pairing][::-1] if t.swap else tournament.pairings[t.pairing]))
              for t in tasks]
    sound = ("gunner", "rammer", "search-2")
    cells = {(s, a, b) for s in range(100, 105) for a in sound for b in sound}
    assert sorted(t for t in seated if "random" not in t) == sorted(cells)   # each ordered cell once
    assert sorted(t for t in seated if "random" in t) == sorted(
        [(s, "gunner", "random") for s in range(100, 105)] + [(s, "random", "gunner") for s in range(100, 105)])


def test_check_calls_a_lopsided_scenario_lopsided(tmp_path: Path) -> None:
    check = check_scenario("pantheon", "duel", config=lopsided_duel(tmp_path), captains=SCRIPTED, seeds=12,
                           seed=7, luck=False)
    assert check.verdict == "lopsided"
    assert check.side_balance.score > 0.9 and check.side_balance.n == 12   # a mirror: one game a seed
    assert check.vs_random.n == 24 and check.luck_bound is None
    assert check.games == 12 * (2 * 2 + 2)
    assert check.seat_balance.score > 0.9 and check.seat_balance.seeds == 12   # no captain saves blue's seat
    assert any("seat balance" in reason for reason in check.reasons)
    assert "| duel |" in to_markdown([check]) and "lopsided: the seat balance" in to_markdown([check])


def bow_to_bow(tmp_path: Path) -> str:
    """broadside's galley_vs_sailing_ship as it was set up before issue 41: bow to bow at 28", the galley with
    its vessel's archers. Its ship's broadsides sink the galley whoever captains it."""
    raw = yaml.safe_load((BUNDLED_CONFIGS / "rulesets" / "broadside.yaml").read_text())
    red, blue = raw["scenarios"]["galley_vs_sailing_ship"]["sides"]
    red["ships"][0] = {"vessel": "galley", "position": [10, 18], "heading": 90}
    blue["ships"][0] = {"vessel": "sailing_ship", "position": [38, 18], "heading": 270}
    path = tmp_path / "bow_to_bow.yaml"
    path.write_text(yaml.safe_dump(raw, sort_keys=False))
    return str(path)


def test_seat_balance_is_the_meta_game_over_the_block(tmp_path: Path) -> None:
    # gunner cannot work the galley (its mirror leaves the galley's side near 0); the meta-game tries rammer on
    # the galley too, and the value is the best the galley's side can field against the ship's best reply,
    # still near 0 in the old set-up, and well inside the band in the shipped one (the galley comes up astern)
    old = check_scenario("broadside", "galley_vs_sailing_ship", config=bow_to_bow(tmp_path), captains=SCRIPTED,
                         seeds=20, seed=7, luck=False)
    seats = old.seat_balance
    assert 0 <= seats.low <= seats.score <= seats.high <= 1 and seats.seeds == 20
    assert seats.first_mix == {"rammer": 1.0} and seats.second_mix == {"gunner": 1.0}
    assert seats.score < 0.2 and old.verdict == "lopsided"
    assert f"galley_vs_sailing_ship: {seats.mix_text()}" in to_markdown([old])
    shipped = check_scenario("broadside", "galley_vs_sailing_ship", captains=SCRIPTED, seeds=20, seed=7, luck=False)
    assert shipped.seat_balance.score > 0.35 > shipped.side_balance.score   # the gunner mirror alone misreads it


def test_check_reads_the_shipped_duel_as_not_lopsided() -> None:
    # The same check on the shipped duel (equal captains) does not find a seat that decides (0.61 over 100 seeds).
    check = check_scenario("pantheon", "duel", captains=SCRIPTED, seeds=40, seed=7, luck=False)
    assert check.verdict != "lopsided", check.reasons
    assert check.decisiveness > 0.3 and check.vs_random.score > 0.75


# ------------------------------------------------------------------ the command
def test_command_checks_several_rulesets_in_one_run(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "check.json"
    status = main(["check", "--ruleset", "pursuit", "crew_phase", "--games", "2", "--no-luck-bound", "--workers", "1",
                   "--json", str(out), "--no-progress"])
    assert status == 0
    printed = capsys.readouterr().out
    assert "Scenario check of `pursuit`" in printed and "Scenario check of `crew_phase`" in printed
    checks = json.loads(out.read_text())["checks"]
    assert [(c["ruleset"], c["scenario"]) for c in checks] == [
        ("pursuit", "duel"), ("pursuit", "chase"), ("pursuit", "uneven"),
        ("crew_phase", "duel"), ("crew_phase", "nimble_vs_heavy"), ("crew_phase", "two_vs_one")]
    balanced = sum(c["verdict"] == "balanced" for c in checks)
    assert printed.rstrip().endswith(f"{balanced} of 6 scenarios balanced")


def test_command_refuses_one_rulesets_flags_with_several(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["check", "--ruleset", "all", "--strongest", "gunner", "--games", "1"]) == 2
    assert "--strongest belong to one ruleset" in capsys.readouterr().err


def test_command_prints_the_table_and_writes_json(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "check.json"
    status = main(["check", "--ruleset", "pantheon", "--scenario", "duel", "--config", lopsided_duel(tmp_path),
                   "--games", "6", "--strongest", "gunner", "--sound", "rammer", "--no-luck-bound", "--workers", "1",
                   "--json", str(out), "--no-progress"])
    assert status == 0
    printed = capsys.readouterr().out
    assert "**lopsided**" in printed and "Thresholds:" in printed
    data = json.loads(out.read_text())
    [check] = data["checks"]
    assert check["verdict"] == "lopsided" and check["strongest"] == "gunner" and check["luck_bound"] is None
    assert check["thresholds"] == {"side_low": 0.35, "side_high": 0.65, "vs_random": 0.75, "decisiveness": 0.3}


def test_command_refuses_bad_input(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["check", "--ruleset", "pantheon", "--scenario", "nope"]) == 2
    assert "unknown pantheon scenario(s) nope; choose from duel" in capsys.readouterr().err
    assert main(["check", "--ruleset", "pantheon", "--games", "0"]) == 2
    assert "--games must be at least 1" in capsys.readouterr().err


@pytest.mark.ray
def test_check_on_ray_is_the_local_check(ray: ModuleType) -> None:
    # --backend ray plays the block through the tournament's Ray backend: the same games, so the same check.
    local = check_scenario("pantheon", "duel", captains=SCRIPTED, seeds=6, seed=11, luck=False)
    on_ray = check_scenario("pantheon", "duel", captains=SCRIPTED, seeds=6, seed=11, luck=False, workers=2,
                            backend="ray")
    assert on_ray == local and local.games == 6 * 6


def test_every_flag_has_help_and_the_cli_lists_the_command(capsys: pytest.CaptureFixture[str]) -> None:
    parser = make_parser()
    [commands] = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    missing = [f"{name} {'/'.join(action.option_strings)}" for name, sub in commands.choices.items()
               for action in sub._actions if not isinstance(action, argparse._HelpAction) and not action.help]
    assert sorted(commands.choices) == ["balance", "check"] and missing == []
    assert cli.main(["scenario", "check", "--ruleset", "pantheon", "--games", "0"]) == 2
    assert "naval-tactics scenario: error: --games must be at least 1" in capsys.readouterr().err


# ------------------------------------------------------------------ the luck bound
def test_luck_bound_a_clairvoyant_search_beats_the_captain_it_starts_from() -> None:
    bound = luck_bound("pantheon", "duel", None, "gunner", seeds=6, seed=3, simulations=8)
    assert bound.n == 12
    assert bound.score >= 0.7    # it sees the dice gunner cannot: 0.88 to 1.00 on four seed ranges in development


@pytest.mark.ray
def test_luck_bound_on_ray_is_the_local_one(ray: ModuleType) -> None:
    local = luck_bound("pantheon", "duel", None, "gunner", seeds=3, seed=3, simulations=4)
    on_ray = luck_bound("pantheon", "duel", None, "gunner", seeds=3, seed=3, simulations=4, workers=2,
                        backend="ray")
    assert on_ray == local and local.n == 6


def test_check_reports_the_luck_bound() -> None:
    check = check_scenario("pantheon", "duel", captains=SCRIPTED, seeds=4, seed=7, luck_seeds=2,
                           clairvoyant_simulations=4)
    assert check.luck_bound is not None and check.luck_bound.n == 4 and check.luck_seeds == 2
    assert f"| {check.luck_bound.text()} |" in to_markdown([check])
    assert "luck bound: a clairvoyant search against `gunner`, 2 seeds from both sides" in to_markdown([check])
