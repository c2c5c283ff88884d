"""Seat-paired strength: a captain's score against an opponent minus the reference's, same seeds and seats.

The math on hand-made results (exact numbers), then each output that shows it: ``evaluate`` (table, JSON,
CSV), the zoo report and the atlas.
"""

from __future__ import annotations

import csv
import json
import math
from pathlib import Path

import pytest

from naval_agents.atlas import plan as plan_module
from naval_agents.atlas.markdown import render
from naval_agents.atlas.measure import scenario_numbers
from naval_agents.atlas.plan import AtlasSettings, ScenarioPlan
from naval_agents.atlas.play import ScenarioGames, scenario_tournament
from naval_agents.evaluation.seat_paired import (
    SeatPaired,
    missing_opponents,
    score_index,
    seat_paired,
)
from naval_agents.evaluation.stats import Z_95, GameResult
from naval_agents.evaluation.tournament import build_tournament, evaluate
from naval_agents.zoo.report import Report, generalization_report, scenario_lines
from naval_tactics.commands.evaluate import main as evaluate_main

SIDES = ("red", "blue")


def game(a: str, b: str, seed: int, a_side: str, a_score: float, pairing: int = 0) -> GameResult:
    """One game of ``a`` (on ``a_side``) against ``b``; ``a_score`` 1, 0.5 (a draw) or 0."""
    b_side = SIDES[1] if a_side == SIDES[0] else SIDES[0]
    winner = None if a_score == 0.5 else (a_side if a_score == 1 else b_side)
    return GameResult(pairing=pairing, a=a, b=b, seed=seed, swap=a_side != SIDES[0], a_side=a_side, b_side=b_side,
                      winner_side=winner, truncated=False, rounds=5, decisions=10, a_damage_dealt=0,
                      a_damage_taken=0, b_damage_dealt=0, b_damage_taken=0)


# ---------------------------------------------------------------------------------------------- the math
#: A against B on seeds 1 and 2 from both seats, and the reference S against B on the same seeds and seats,
#: listed as B:S (the other order) so that the pairing has to turn them round.
A_GAMES = [game("A", "B", 1, "red", 1), game("A", "B", 1, "blue", 0), game("A", "B", 2, "red", 1),
           game("A", "B", 2, "blue", 0.5)]
S_SCORES = {(1, "red"): 0.0, (1, "blue"): 0.0, (2, "red"): 1.0, (2, "blue"): 0.5}
S_GAMES = [game("B", "S", seed, "blue" if side == "red" else "red", 1 - score, pairing=1)
           for (seed, side), score in S_SCORES.items()]


def test_the_difference_pairs_each_game_with_the_reference_on_the_same_seed_and_seat():
    paired = seat_paired("A", "B", "S", [*A_GAMES, *S_GAMES])
    # differences, seat by seat: 1-0, 0-0, 1-1, 0.5-0.5 = 1, 0, 0, 0: mean 0.25, sample variance 0.25
    assert paired.difference is not None and paired.difference.n == 4
    assert paired.difference.mean == pytest.approx(0.25)
    half = Z_95 * math.sqrt(0.25 / 4)   # 0.48999
    assert (paired.difference.ci_low, paired.difference.ci_high) == pytest.approx((0.25 - half, 0.25 + half))
    assert paired.difference.ci_low == pytest.approx(-0.23999, abs=1e-5)
    assert paired.text() == "+0.25 [-0.24, +0.74]"


def test_pairing_by_seed_alone_would_give_another_interval():
    # The reference's games with the seats turned round: A's red game now meets S's blue one. The means over
    # both seats agree, but the differences (1, 0, 0.5, -0.5) spread more: pairing by seat is what narrows it.
    swapped = [game("B", "S", seed, side, 1 - score, pairing=1) for (seed, side), score in S_SCORES.items()]
    wrong = seat_paired("A", "B", "S", [*A_GAMES, *swapped])
    assert wrong.difference is not None and wrong.difference.mean == pytest.approx(0.25)
    half = Z_95 * math.sqrt(1.25 / 3 / 4)
    assert (wrong.difference.ci_low, wrong.difference.ci_high) == pytest.approx((0.25 - half, 0.25 + half))


def test_one_mirror_game_gives_the_reference_both_seats():
    # A against the reference S: S's own games against S are the mirror; one game a seed gives both seats.
    a_vs_s = [game("A", "S", 7, "red", 1), game("A", "S", 7, "blue", 1)]
    mirror = [game("S", "S", 7, "red", 1)]   # red won the mirror: S scores 1 on red and 0 on blue
    paired = seat_paired("A", "S", "S", [*a_vs_s, *mirror])
    assert paired.difference is not None
    assert (paired.difference.n, paired.difference.mean) == (2, pytest.approx(0.5))   # (1 - 1 + 1 - 0) / 2


def test_missing_reference_games_give_no_number_and_say_so():
    paired = seat_paired("A", "B", "S", [*A_GAMES, *S_GAMES[:2]])   # S has seed 1 only
    assert paired.difference is None and paired.missing == 2 and paired.text() == "no S games"
    itself = seat_paired("S", "B", "S", S_GAMES)
    assert itself.is_reference and itself.text() == "(reference)"
    assert SeatPaired.from_dict(json.loads(json.dumps(paired.to_dict()))) == paired


def test_the_score_index_sees_every_game_from_both_captains():
    index = score_index([game("A", "B", 3, "blue", 0.5)])
    assert index == {("A", "B", 3, "blue"): [0.5], ("B", "A", 3, "red"): [0.5]}


def test_missing_opponents_are_those_never_paired_with_the_reference():
    pairs = [("A", "B"), ("A", "S"), ("B", "S"), ("C", "B")]
    assert missing_opponents(pairs, "S") == ["S"]      # S meets B (as B:S), never itself
    assert missing_opponents([("A", "B"), ("S", "S")], "S") == ["B"]
    assert missing_opponents([("S", "B")], "S") == []  # S's own pairings need no reference


# -------------------------------------------------------------------------------------------- evaluate
def test_evaluate_plays_the_missing_reference_games_and_pairs_them():
    tournament = build_tournament("pursuit", ["random", "gunner"], 2, scenario="duel", seed=11)
    without = evaluate(tournament, progress=False, reference="hunter")
    assert without.reference == "hunter" and without.reference_results == ()
    assert [p.text() for p in without.paired] == ["no hunter games"]
    played = evaluate(tournament, progress=False, reference="hunter", play_reference=True)
    assert {(r.a, r.b) for r in played.reference_results} == {("hunter", "gunner")}
    assert played.summaries == without.summaries and played.ratings == without.ratings   # the extra games are not rated
    # Every seat of every seed is there, so the paired mean is the difference of the two means.
    hunter = [r.a_score for r in played.reference_results]
    (paired,) = played.paired
    assert paired.difference is not None and paired.difference.n == 4
    assert paired.difference.mean == pytest.approx(played.summaries[0].win_rate - sum(hunter) / len(hunter))


def test_the_evaluate_command_shows_and_writes_the_paired_difference(tmp_path: Path, capsys):
    out = tmp_path / "run"
    status = evaluate_main(["--ruleset", "pursuit", "--scenario", "duel", "--captains", "random", "gunner", "--games",
                            "2", "--seed", "11", "--workers", "1", "--out", str(out), "--play-reference",
                            "--no-progress"])
    printed = capsys.readouterr().out
    assert status == 0
    data = json.loads((out / "results.json").read_text())
    (row,) = data["pairings"]
    assert data["tournament"]["reference"] == "hunter" and row["seat_paired"]["reference"] == "hunter"
    difference = row["seat_paired"]["difference"]
    assert f"{difference['mean']:+.2f} [{difference['ci_low']:+.2f}, {difference['ci_high']:+.2f}]" in printed
    assert "A - hunter" in printed and "4 games of the reference hunter" in printed
    assert len(data["reference_games"]) == 4
    (csv_row,) = csv.DictReader((out / "pairings.csv").open())
    assert float(csv_row["paired_difference"]) == pytest.approx(difference["mean"])


def test_the_evaluate_command_says_where_the_reference_games_are_missing(tmp_path: Path, capsys):
    status = evaluate_main(["--ruleset", "pursuit", "--scenario", "duel", "--captains", "random", "gunner", "--games",
                            "1", "--workers", "1", "--out", str(tmp_path / "run"), "--no-progress"])
    printed = " ".join(capsys.readouterr().out.split())
    assert status == 0 and "no hunter games" in printed and "--play-reference plays them" in printed
    assert evaluate_main(["--ruleset", "pursuit", "--captains", "random", "gunner", "--games", "1", "--out",
                          str(tmp_path / "none"), "--reference", "none", "--no-progress"]) == 0
    assert "seat-paired" not in capsys.readouterr().out
    assert evaluate_main(["--ruleset", "pursuit", "--captains", "random", "gunner", "--games", "1", "--out",
                          str(tmp_path / "bad"), "--reference", "nobody"]) == 2
    assert "unknown captain 'nobody'" in capsys.readouterr().err


# ---------------------------------------------------------------------------------------------- zoo report
def test_the_zoo_report_pairs_each_cell_with_the_strongest_scripted_captain():
    report = generalization_report("pantheon", "zoo", games=1, positions=1, scenarios=["duel"])
    cells = report.scenarios["duel"]
    assert [c.opponent for c in cells] == ["gunner", "rammer"]
    for cell in cells:
        assert cell.paired is not None and cell.paired.reference == "gunner"
        assert cell.paired.difference is not None and cell.paired.difference.n == 2
    table = "\n".join(scenario_lines(report))
    assert all(c.paired is not None and c.paired.text() in table for c in cells)
    assert "minus `gunner`'s" in table
    again = Report.from_dict(json.loads(json.dumps(report.to_dict())))
    assert again.scenarios == report.scenarios


def test_a_zoo_report_made_before_the_pairing_says_so():
    report = generalization_report("pantheon", "gunner", games=1, positions=1, scenarios=["duel"])
    data = report.to_dict()
    for cell in data["scenarios"]["duel"]:
        del cell["paired"]   # a card written before the seat-paired cells
    old = Report.from_dict(data)
    assert all(c.paired is None for c in old.scenarios["duel"])
    assert "made before it was measured" in scenario_lines(old)[0]


# ---------------------------------------------------------------------------------------------------- atlas
def test_the_atlas_shows_each_cells_paired_difference():
    captains = ("gunner", "rammer", "random")   # pantheon: gunner is the reference
    plan = ScenarioPlan("pantheon", "1.0", "duel", SIDES, tuple(plan_module.Captain(c, "scripted", "test")
                                                               for c in captains), mirror=False)
    settings = AtlasSettings(rulesets=("pantheon",), games=1)
    tournament = scenario_tournament(plan, settings)
    assert ("gunner", "gunner") in tournament.pairings   # the fleets differ: the reference plays itself
    results = [game("gunner", "rammer", 1, "red", 1), game("gunner", "rammer", 1, "blue", 0),
               game("gunner", "random", 1, "red", 1), game("gunner", "random", 1, "blue", 1),
               game("rammer", "random", 1, "red", 1), game("rammer", "random", 1, "blue", 0)]
    reference = [game("gunner", "gunner", 1, "red", 0), game("gunner", "gunner", 1, "blue", 1)]   # blue wins
    numbers = scenario_numbers(ScenarioGames(plan, tournament, tuple(results), (), tuple(reference)))
    # rammer vs random (red 1, blue 0) against gunner vs random (1, 1): -0.5. rammer vs gunner: rammer scores
    # 1 on red and 0 on blue, the reference against itself 0 on red and 1 on blue: (1 - 0 + 0 - 1) / 2 = 0.
    assert numbers.paired[("rammer", "random")].difference.mean == pytest.approx(-0.5)   # type: ignore[union-attr]
    assert numbers.paired[("rammer", "gunner")].difference.mean == pytest.approx(0.0)    # type: ignore[union-attr]
    assert numbers.paired[("gunner", "rammer")].is_reference
    text = render(settings, [plan], [numbers])
    assert "Seat-paired against `gunner`" in text
    assert numbers.paired[("rammer", "random")].text() in text
