"""Evaluation: Wilson intervals, OpenSkill aggregation, the paired schedule, determinism, replays, reports, CLI."""

from __future__ import annotations

import csv
import importlib.util
import json
import math
import subprocess
import sys
from pathlib import Path

import pytest

from naval_agents.captains.arena import play_game
from naval_agents.captains.registry import make_captain
from naval_agents.evaluation.ratings import fit_ratings
from naval_agents.evaluation.replay import (
    ReplayError,
    ReplayMismatchError,
    load_replay,
    replay_game,
    write_replay,
)
from naval_agents.evaluation.report import to_json, write_results
from naval_agents.evaluation.stats import GameResult, summarize_pairing, wilson_interval
from naval_agents.evaluation.tournament import (
    EvaluationInputError,
    build_tournament,
    evaluate,
    rating_order,
    run_tournament,
    schedule,
)
from naval_env.core.events import Event
from naval_env.envs.match import Match

ROOT = Path(__file__).resolve().parents[2]


# ---------------------------------------------------------------------------------- Wilson
# Reference bounds from the roots of n (p_hat - p)^2 = z^2 p (1 - p), solved in 40-digit decimals
# (the interval statsmodels' proportion_confint(count, nobs, alpha=0.05, method="wilson") returns;
# 81/263 is the textbook example, (0.2553, 0.3662)).
WILSON_REFERENCE = [
    (0, 10, 0.0, 0.2775327998628892),
    (5, 10, 0.236593090512564, 0.763406909487436),
    (8, 10, 0.4901624715366417, 0.9433178485456247),
    (10, 10, 0.7224672001371107, 1.0),
    (81, 263, 0.2552885198782742, 0.36620957698280004),
    (7.5, 20, 0.1997708556646315, 0.5905104338485733),   # 7 wins and 1 draw of 20
]


@pytest.mark.parametrize("n", range(1, 101))
def test_wilson_interval_contains_its_rate_at_the_ends(n: int) -> None:
    # 0 of 6 gave a lower bound of 2.8e-17 (rounding), above the rate 0: a plot's error bar went negative.
    assert wilson_interval(0, n)[0] == 0.0
    assert wilson_interval(n, n)[1] == 1.0
    for successes in range(n + 1):
        low, high = wilson_interval(successes, n)
        assert low <= successes / n <= high


@pytest.mark.parametrize(("successes", "n", "low", "high"), WILSON_REFERENCE)
def test_wilson_interval_matches_reference(successes: float, n: int, low: float, high: float) -> None:
    got = wilson_interval(successes, n)
    assert got == pytest.approx((low, high), abs=1e-12)


def test_wilson_interval_edges() -> None:
    assert wilson_interval(0, 0) == (0.0, 1.0)
    narrower = wilson_interval(5, 10, z=1.0)
    assert narrower[0] > 0.236593090512564 and narrower[1] < 0.763406909487436
    for bad in ((11, 10), (-1, 10), (0, -1)):
        with pytest.raises(ValueError):
            wilson_interval(*bad)


def _result(pairing: int, seed: int, swap: bool, winner: str | None, a: str = "a", b: str = "b") -> GameResult:
    a_side, b_side = ("blue", "red") if swap else ("red", "blue")
    winner_side = {None: None, "a": a_side, "b": b_side}[winner]
    return GameResult(pairing, a, b, seed, swap, a_side, b_side, winner_side, winner is None, 3 + seed, 10,
                      4, 2, 2, 5)


def test_pairing_summary_counts_draws_as_half_wins() -> None:
    outcomes = ["a"] * 7 + [None] + ["b"] * 12
    results = [_result(0, i // 2, bool(i % 2), w) for i, w in enumerate(outcomes)]
    s = summarize_pairing(results)
    assert (s.games, s.wins, s.draws, s.losses, s.truncated) == (20, 7, 1, 12, 1)
    assert s.win_rate == pytest.approx(7.5 / 20)
    assert (s.ci_low, s.ci_high) == pytest.approx((0.1997708556646315, 0.5905104338485733), abs=1e-12)
    assert s.mean_damage_dealt == 4 and s.mean_damage_taken == 2
    assert s.mean_rounds == pytest.approx(3 + sum(i // 2 for i in range(20)) / 20)


# --------------------------------------------------------------------------------- ratings
# The Plackett-Luce update of openskill's documentation (Weng & Lin 2011, algorithm 4) for two
# one-player teams, written out: defaults mu 25, sigma 25/3, beta 25/6, tau 25/300, kappa 1e-4.
BETA, TAU, KAPPA = 25 / 6, 25 / 300, 1e-4


def _pl_two_players(first: tuple[float, float], second: tuple[float, float], draw: bool
                    ) -> tuple[tuple[float, float], tuple[float, float]]:
    """New (mu, sigma) of ``first`` (the winner, unless draw) and ``second``."""
    (mu1, s1), (mu2, s2) = first, second
    s1, s2 = math.hypot(s1, TAU), math.hypot(s2, TAU)
    c = math.sqrt(s1 ** 2 + s2 ** 2 + 2 * BETA ** 2)
    p1 = math.exp(mu1 / c) / (math.exp(mu1 / c) + math.exp(mu2 / c))
    p2 = 1 - p1
    if draw:
        # Both teams share rank 0 (A_q = 2), so omega_i = (1 - 2 p_i) / 2: the weaker one gains.
        # (openskill 6.2's extra step that averages tied teams' mu changes compares each player
        # with itself after an in-place update, so it changes nothing; not modelled here.)
        new_mu1 = mu1 + s1 ** 2 / c * (1 - 2 * p1) / 2
        new_mu2 = mu2 + s2 ** 2 / c * (1 - 2 * p2) / 2
    else:
        new_mu1, new_mu2 = mu1 + s1 ** 2 / c * (1 - p1), mu2 - s2 ** 2 / c * p2
    new_s1 = s1 * math.sqrt(max(1 - (s1 ** 2 / c ** 2) * (s1 / c) * p1 * p2, KAPPA))
    new_s2 = s2 * math.sqrt(max(1 - (s2 ** 2 / c ** 2) * (s2 / c) * p1 * p2, KAPPA))
    return (new_mu1, new_s1), (new_mu2, new_s2)


def _by_name(outcomes: list[tuple[str, str, str | None]]) -> dict[str, tuple[float, float, float, int]]:
    return {r.name: (r.mu, r.sigma, r.ordinal, r.games) for r in fit_ratings(outcomes)}


def test_ratings_one_win_match_hand_computation() -> None:
    (mu_w, s_w), (mu_l, s_l) = _pl_two_players((25.0, 25 / 3), (25.0, 25 / 3), draw=False)
    assert (mu_w, s_w) == pytest.approx((27.635389493140497, 8.06590141354368), abs=1e-9)
    got = _by_name([("a", "b", "b")])
    assert got["b"][:2] == pytest.approx((mu_w, s_w), abs=1e-9)
    assert got["a"][:2] == pytest.approx((mu_l, s_l), abs=1e-9)
    assert got["b"][2] == pytest.approx(mu_w - 3 * s_w)
    assert [r.name for r in fit_ratings([("a", "b", "b")])] == ["b", "a"]


def test_ratings_sequence_with_draw_and_sides_follow_given_order() -> None:
    # b beats a, then a draw: the draw moves both towards each other.
    a0, b0 = (25.0, 25 / 3), (25.0, 25 / 3)
    b1, a1 = _pl_two_players(b0, a0, draw=False)
    a2, b2 = _pl_two_players(a1, b1, draw=True)
    got = _by_name([("a", "b", "b"), ("b", "a", None)])      # sides of the draw given the other way round
    assert got["a"][:2] == pytest.approx(a2, abs=1e-9) and got["b"][:2] == pytest.approx(b2, abs=1e-9)
    assert a2[0] > a1[0] and b2[0] < b1[0]
    assert got["a"][3] == got["b"][3] == 2
    # Which captain is listed first does not matter; the order of the games does.
    swapped = _by_name([("b", "a", "b"), ("a", "b", None)])
    assert all(swapped[name] == pytest.approx(got[name], abs=1e-9) for name in "ab")
    forwards = _by_name([("a", "b", "a"), ("a", "b", "b"), ("a", "c", "c")])
    backwards = _by_name([("a", "c", "c"), ("a", "b", "b"), ("a", "b", "a")])
    assert forwards["a"][0] != pytest.approx(backwards["a"][0], abs=1e-6)


def test_ratings_skip_mirror_games_and_reject_strangers() -> None:
    got = _by_name([("a", "a", "a"), ("a", "b", None)])
    assert got["a"][3] == 1
    (mu, sigma), _ = _pl_two_players((25.0, 25 / 3), (25.0, 25 / 3), draw=True)
    assert got["a"][:2] == pytest.approx((mu, sigma), abs=1e-9)
    with pytest.raises(ValueError, match="neither"):
        fit_ratings([("a", "b", "c")])
    assert [r.games for r in fit_ratings([], captains=["x"])] == [0]


# ------------------------------------------------------------------------------ tournament
@pytest.fixture(scope="module")
def duel() -> object:
    return build_tournament("pantheon", ["random", "rammer", "gunner"], 3, scenario="duel", seed=5)


def test_schedule_plays_each_seed_twice_with_sides_swapped(duel) -> None:  # type: ignore[no-untyped-def]
    assert duel.pairings == (("random", "rammer"), ("random", "gunner"), ("rammer", "gunner"))
    tasks = schedule(duel)
    assert len(tasks) == 3 * 3 * 2
    for p in range(3):
        for seed in (5, 6, 7):
            assert sorted(t.swap for t in tasks if (t.pairing, t.seed) == (p, seed)) == [False, True]
    results = run_tournament(duel, progress=False)
    assert [r.sort_key for r in results] == sorted(r.sort_key for r in results)
    for straight, swapped in zip(results[::2], results[1::2]):
        assert (straight.pairing, straight.seed) == (swapped.pairing, swapped.seed)
        assert (straight.a_side, straight.b_side) == ("red", "blue")
        assert (swapped.a_side, swapped.b_side) == ("blue", "red")
    assert [r.seed for r in rating_order(results)][:6] == [5] * 6


def test_same_seed_same_table_with_one_or_two_workers(duel) -> None:  # type: ignore[no-untyped-def]
    one = evaluate(duel, workers=1, progress=False)
    two = evaluate(duel, workers=2, progress=False)
    assert one.results == two.results
    assert one.summaries == two.summaries
    assert one.ratings == two.ratings
    assert to_json(one) == to_json(two)


def test_explicit_pairings_resolve_labels_and_specs() -> None:
    t = build_tournament("pantheon", ["bot=rammer", "gunner"], 1,
                         pairings=["bot:gunner", "random:bot", "gunner:gunner"])
    assert t.pairings == (("bot", "gunner"), ("random", "bot"), ("gunner", "gunner"))
    assert t.specs == {"bot": "rammer", "gunner": "gunner", "random": "random"}
    results = run_tournament(t, progress=False)
    mirror = [r for r in results if r.pairing == 2]
    assert len(mirror) == 2 and all(r.a == r.b == "gunner" for r in mirror)


# ---------------------------------------------------------------------------------- replays
def _played(seed: int = 3):  # type: ignore[no-untyped-def]
    match = Match("pantheon", scenario="duel")
    captains = {"red": make_captain("rammer", "pantheon", match.action_spec),
                "blue": make_captain("gunner", "pantheon", match.action_spec)}
    return match, play_game(match, captains, seed)


def test_game_record_keeps_every_decision() -> None:
    match, record = _played()
    assert len(record.actions) == record.decisions == len(record.event_starts)
    assert record.opening_events + [e for i in range(record.decisions) for e in record.decision_events(i)] \
        == record.events
    assert record.final_state == match.game.state_dict()
    assert sum(record.damage_taken.values()) >= sum(record.damage_dealt.values())


def test_replay_round_trip(tmp_path: Path) -> None:
    match, record = _played()
    path = write_replay(tmp_path / "game.jsonl", record, ruleset="pantheon", scenario="duel")
    lines = [json.loads(line) for line in path.read_text().splitlines()]
    assert [line["type"] for line in lines] == ["header"] + ["decision"] * record.decisions + ["result"]
    assert lines[0]["seed"] == 3 and lines[0]["captains"] == {"red": "rammer", "blue": "gunner"}
    assert lines[0]["ruleset_version"] == match.ruleset.version

    replay = load_replay(path)
    assert replay.header.scenario == "duel" and replay.result.winner == record.winner
    assert all(isinstance(e, Event) for d in replay.decisions for e in d.events)
    assert [e.to_dict() for e in replay.decisions[0].events] == [e.to_dict() for e in record.decision_events(0)]
    assert [(d.agent, list(d.action)) for d in replay.decisions] == record.actions

    game = replay_game(path)
    assert game.state_dict() == record.final_state
    assert game.winner == record.winner


def _rewrite(path: Path, edit) -> Path:  # type: ignore[no-untyped-def]
    lines = [json.loads(line) for line in path.read_text().splitlines()]
    edit(lines)
    out = path.with_name("tampered.jsonl")
    out.write_text("".join(json.dumps(line) + "\n" for line in lines))
    return out


def test_tampered_replays_are_refused(tmp_path: Path) -> None:
    _, record = _played()
    path = write_replay(tmp_path / "game.jsonl", record, ruleset="pantheon", scenario="duel")
    damaged = next(i for i in range(record.decisions)
                   if any(e.kind == "damage" for e in record.decision_events(i)))

    def more_damage(lines):  # type: ignore[no-untyped-def]
        for event in lines[1 + damaged]["events"]:
            if event["kind"] == "damage":
                event["amount"] += 1
                break

    with pytest.raises(ReplayMismatchError, match=rf"^decision {damaged} \(.*event \d+ differs"):
        replay_game(_rewrite(path, more_damage))

    def other_move(lines):  # type: ignore[no-untyped-def]
        action = lines[1]["action"]
        action[1] = (action[1] + 1) % 40

    with pytest.raises(ReplayMismatchError, match=r"^decision 0 \("):
        replay_game(_rewrite(path, other_move))

    def healthier(lines):  # type: ignore[no-untyped-def]
        ship = next(iter(lines[-1]["state"]["ships"].values()))
        ship["health"] += 1

    with pytest.raises(ReplayMismatchError, match=r"final state differs at state\.ships\.\w+\.health"):
        replay_game(_rewrite(path, healthier))

    with pytest.raises(ReplayError, match="decision index"):
        replay_game(_rewrite(path, lambda lines: lines.pop(2)))

    def newer_rules(lines):  # type: ignore[no-untyped-def]
        lines[0]["ruleset_version"] = "0.0"

    with pytest.raises(ReplayMismatchError, match="recorded with pantheon 0.0"):
        replay_game(_rewrite(path, newer_rules))


def test_tournament_replays_and_reports(tmp_path: Path) -> None:
    t = build_tournament("pantheon", ["rammer", "gunner"], 2, scenario="mixed_duel")
    evaluation = evaluate(t, workers=1, progress=False, replay_dir=tmp_path / "replays")
    files = sorted((tmp_path / "replays").glob("*.jsonl"))
    assert len(files) == 4 and "000_rammer_vs_gunner_seed0_straight.jsonl" in [f.name for f in files]
    for file in files:
        replay_game(file)

    paths = write_results(evaluation, tmp_path / "out")
    assert [p.name for p in paths] == ["results.json", "pairings.csv", "ratings.csv", "games.csv", "winrate_matrix.png",
                                      "ratings.png"]
    data = json.loads(paths[0].read_text())
    assert data["tournament"]["captains"] == {"rammer": "rammer", "gunner": "gunner"}
    assert len(data["games"]) == 4 and len(data["pairings"]) == 1 and len(data["ratings"]) == 2
    rows = list(csv.DictReader(paths[1].open()))
    assert rows[0]["a"] == "rammer" and int(rows[0]["games"]) == 4
    assert float(rows[0]["win_rate"]) == pytest.approx(evaluation.summaries[0].win_rate)
    assert len(list(csv.DictReader(paths[3].open()))) == 4
    assert {r["name"] for r in csv.DictReader(paths[2].open())} == {"rammer", "gunner"}


# -------------------------------------------------------------------------------- bad input
@pytest.mark.parametrize(("kwargs", "message"), [
    ({"ruleset": "chess"}, r"unknown ruleset 'chess'; choose one of \[.*'pantheon'"),
    ({"scenario": "armada"}, r"unknown pantheon scenario 'armada'; choose one of \['duel'"),
    ({"captains": ["random", "kraken"]}, r"unknown captain 'kraken' .*'rammer'"),
    ({"captains": ["random", "nowhere/model.onnx"]}, r"'nowhere/model.onnx': no such file"),
    ({"games": 0}, r"must be at least 1, got 0"),
    ({"pairings": ["rammer-gunner"]}, r"bad pairing 'rammer-gunner': expected A:B"),
    ({"pairings": ["rammer:"]}, r"bad pairing 'rammer:'"),
    ({"captains": ["rammer"]}, r"round robin needs at least two captains"),
    ({"captains": ["rammer", "rammer"]}, r"'rammer' is listed twice"),
    ({"captains": ["a=rammer", "a=gunner"]}, r"two captains are labelled 'a'"),
    ({"captains": ["bad:label=rammer", "gunner"]}, r"bad captain 'bad:label=rammer'"),
])
def test_bad_input_is_one_clear_line(kwargs: dict, message: str) -> None:  # type: ignore[type-arg]
    args = {"ruleset": "pantheon", "captains": ["random", "rammer"], "games": 2, **kwargs}
    with pytest.raises(EvaluationInputError, match=message) as error:
        build_tournament(args.pop("ruleset"), args.pop("captains"), args.pop("games"), **args)
    assert "\n" not in str(error.value)


def _evaluate_script():  # type: ignore[no-untyped-def]
    spec = importlib.util.spec_from_file_location("evaluate_script", ROOT / "evaluate.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module   # inspect (docstrings of the settings) looks modules up here
    spec.loader.exec_module(module)
    return module


def test_cli_settings_and_exit_status(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    script = _evaluate_script()
    docs = script.field_docs(script.Settings)
    assert set(docs) == {f for f in script.Settings.__dataclass_fields__}
    settings = script.parse_settings(["--captains", "random", "rammer", "--games", "3", "--replays"])
    assert (settings.captains, settings.games, settings.replays, settings.workers) == (["random", "rammer"], 3,
                                                                                       True, 2)
    assert script.main(["--captains", "random", "kraken", "--out", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "unknown captain 'kraken'" in err
    assert script.main(["--captains", "random", "rammer", "--games", "1", "--workers", "1", "--no-progress",
                        "--out", str(tmp_path / "ok")]) == 0
    assert (tmp_path / "ok" / "results.json").is_file()
    with pytest.raises(SystemExit) as exit_:
        script.parse_settings(["--games", "many"])
    assert exit_.value.code == 2


def test_cli_bad_input_exits_2_without_traceback() -> None:
    done = subprocess.run([sys.executable, str(ROOT / "evaluate.py"), "--scenario", "armada", "--captains",
                           "random", "rammer"], capture_output=True, text=True, cwd=ROOT, timeout=60, check=False)
    assert done.returncode == 2
    assert done.stderr.strip().splitlines() == [
        ("evaluate.py: error: unknown pantheon scenario 'armada'; "
         "choose one of ['duel', 'mixed_duel', 'squadron', 'fleet']")
    ]
    assert "Traceback" not in done.stderr + done.stdout
