"""The league: the same games and ratings as evaluate.py, resume, new captains, SPRT stops, bad input refused."""

import dataclasses
import re
import shutil
import sqlite3
from pathlib import Path

import pytest

from naval_agents.captains.zoo import zoo_onnx_path
from naval_agents.evaluation.tournament import build_tournament, evaluate
from naval_agents.league.db import SCHEMA_VERSION, LeagueError, open_league
from naval_agents.league.play import play
from naval_agents.league.roster import add
from naval_agents.league.sprt import SprtParams, llr
from naval_agents.league.standings import pairing_index, standings
from naval_tactics.cli import main as cli_main
from naval_tactics.commands.league import main as league_main

CAPTAINS = ["gunner", "rammer", "random"]


def _new(path: Path, captains: list[str] = CAPTAINS, **kwargs):  # type: ignore[no-untyped-def]
    league, _ = add(path, captains, ruleset="pantheon", scenario="duel", **kwargs)
    return league


def _games(league):  # type: ignore[no-untyped-def]
    return league.games(pairing_index(league.captains()))


def _rows(path: Path) -> list[tuple]:  # type: ignore[type-arg]
    """Every stored game, without the time it was played."""
    with sqlite3.connect(path) as conn:
        return [row[:-1] for row in conn.execute("SELECT * FROM games ORDER BY a_id, b_id, seed, swap")]


def test_games_and_ratings_equal_evaluate_py_game_for_game(tmp_path: Path) -> None:
    with _new(tmp_path / "l.sqlite") as league:
        report = play(league, 6, progress=False)
        assert report.played == 3 * 6 * 2
        s = standings(league)
        games = _games(league)
    evaluation = evaluate(build_tournament("pantheon", CAPTAINS, 6, scenario="duel"), workers=1, progress=False)
    assert sorted(games, key=lambda r: r.sort_key) == list(evaluation.results)
    assert list(s.ratings) == list(evaluation.ratings)
    assert [p.summary for p in s.pairings] == list(evaluation.summaries)
    # the numbers behind it: gunner beats random in all but a few of the 12 games
    gunner_random = s.pairings[1].summary
    assert (gunner_random.a, gunner_random.b, gunner_random.games) == ("gunner", "random", 12)
    assert gunner_random.win_rate > 0.8


def test_rerun_plays_only_missing_games_and_a_new_captain_only_its_pairings(tmp_path: Path) -> None:
    with _new(tmp_path / "a.sqlite") as league:
        assert play(league, 3, progress=False).played == 18
        assert play(league, 3, progress=False).played == 0          # nothing missing
        assert play(league, 5, progress=False).played == 12         # seeds 3 and 4 of three pairings
        ratings_before = standings(league).ratings
    league, fresh = add(tmp_path / "a.sqlite", ["twin=gunner"])
    with league:
        assert [c.name for c in fresh] == ["twin"]
        assert len(standings(league).ratings) == 4 and standings(league).ratings != ratings_before
        assert play(league, 5, progress=False).played == 3 * 10     # gunner/rammer/random vs twin only
        grown = _rows(tmp_path / "a.sqlite")
    with _new(tmp_path / "b.sqlite", [*CAPTAINS, "twin=gunner"]) as league:   # all at once, in one run
        play(league, 5, progress=False)
        assert _rows(tmp_path / "b.sqlite") == grown
        assert standings(league).ratings == standings(open_league(tmp_path / "a.sqlite")).ratings


@pytest.mark.slow
def test_two_workers_give_the_same_games_ratings_and_sprt_decisions(tmp_path: Path) -> None:
    sprt = SprtParams(0, 20)
    results = []
    for workers in (1, 2):
        path = tmp_path / f"w{workers}.sqlite"
        with _new(path, ["gunner", "random", "twin=gunner"]) as league:
            report = play(league, 80, workers=workers, sprt=sprt, progress=False)
            s = standings(league)
            results.append(([(p.sprt.decision, p.sprt.pairs, p.sprt.llr) for p in s.pairings if p.sprt],
                            {k: (v.decision, v.pairs, v.llr) for k, v in report.sprt.items()}))
    assert results[0] == results[1]
    assert [d for d, _, _ in results[0][0]] == ["H1", "H0", "H0"]   # gunner>random; gunner=twin; random<twin


def test_sprt_stops_a_lopsided_pairing_early_and_a_twin_pairing_with_h0(tmp_path: Path) -> None:
    params = SprtParams(0, 5, 0.05, 0.05)
    with _new(tmp_path / "s.sqlite", ["gunner", "random", "twin=gunner"]) as league:
        report = play(league, 300, pairings=["gunner:random", "twin:gunner"], sprt=params, progress=False)
        lopsided, twins = report.sprt[("gunner", "random")], report.sprt[("gunner", "twin")]
        s = standings(league)
        played = {(p.a.name, p.b.name): p.summary.games if p.summary else 0 for p in s.pairings}
    # gunner wins nearly every pair (2 points): each adds ~log(s1/s0) = 0.0143, so ~207 of the 300 pairs decide
    assert lopsided.decision == "H1" and lopsided.llr >= params.upper
    assert 190 <= lopsided.pairs < 300 and played[("gunner", "random")] < 2 * 300
    # the twin splits every pair (1 point each): H0 after ~205 pairs
    assert twins.decision == "H0" and twins.llr <= params.lower and twins.pairs < 300
    assert twins.counts == [0, 0, twins.pairs, 0, 0]
    assert played[("random", "twin")] == 0                       # not asked for
    assert llr(lopsided.counts, 0, 5) == pytest.approx(lopsided.llr)      # the stored counts give the stored LLR
    # a rerun with the SPRT does not play a decided pairing again
    with open_league(tmp_path / "s.sqlite") as league:
        again = play(league, 300, pairings=["gunner:random"], sprt=params, progress=False)
        assert again.played == 0 and again.skipped == [("gunner", "random")]
        stored = league.conn.execute("SELECT decision, pairs, llr, lower, upper, elo1 FROM sprt "
                                     "ORDER BY a_id, b_id").fetchall()
    assert tuple(stored[0]) == ("H1", lopsided.pairs, pytest.approx(lopsided.llr),
                                             pytest.approx(params.lower), pytest.approx(params.upper), 5.0)


def test_sprt_crossing_is_at_the_first_pair_over_the_bound(tmp_path: Path) -> None:
    from naval_agents.league.sprt import SprtState

    params = SprtParams(0, 20)
    with _new(tmp_path / "c.sqlite", ["gunner", "rammer"]) as league:
        report = play(league, 200, sprt=params, progress=False)
        test = report.sprt[("gunner", "rammer")]
        games = {(r.seed, r.swap): r for r in _games(league)}
    assert test.decision == "H1"
    replay = SprtState(params)
    llrs = []
    for seed in range(test.pairs):
        replay.add_pair(games[(seed, False)].a_score + games[(seed, True)].a_score)
        llrs.append(replay.llr)
    assert llrs[-1] == test.llr >= params.upper and all(params.lower < x < params.upper for x in llrs[:-1])


def test_status_json_and_table(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    import json

    path = tmp_path / "j.sqlite"
    assert league_main(["--db", str(path), "add", "--ruleset", "pantheon", "gunner", "random"]) == 0
    assert league_main(["--db", str(path), "play", "--games", "80", "--sprt", "elo1=20", "--no-progress"]) == 0
    out = " ".join(capsys.readouterr().out.split())
    assert "gunner vs random" in out and "H1: gunner +20 Elo over random" in out
    decided_at = re.search(r">= 2\.94 \((\d+)\)", out)
    assert "SPRT elo0=0,elo1=20,alpha=0.05,beta=0.05 (gunner vs random): H0: Elo(A - B) = 0 against H1" in out
    assert "pentanomial" in out and "LLR bounds [-2.944, 2.944]" in out
    assert league_main(["--db", str(path), "status", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    pairing = data["pairings"][0]
    assert (pairing["a"], pairing["b"]) == ("gunner", "random")
    assert pairing["sprt"]["decision"] == "H1" and pairing["sprt"]["elo1"] == 20.0
    assert decided_at is not None and int(decided_at.group(1)) == pairing["sprt"]["pairs"] < 80
    assert pairing["sprt"]["llr"] >= pairing["sprt"]["upper"] == pytest.approx(2.944438979)
    assert pairing["ci_low"] < pairing["win_rate"] <= pairing["ci_high"]
    top = data["ratings"][0]
    assert top["name"] == "gunner" and top["low"] == pytest.approx(top["mu"] - 1.96 * top["sigma"])
    assert data["league"]["games"] == pairing["games"]
    with pytest.raises(SystemExit) as exit_info:
        cli_main(["league", "--help"])
    assert exit_info.value.code == 0
    assert "--db FILE" in capsys.readouterr().out


# ---------------------------------------------------------------------------------------- bad input
def _run_error(argv: list[str], capsys: pytest.CaptureFixture[str]) -> str:
    assert league_main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith("naval-tactics league: error: ") and "Traceback" not in err
    return err


def test_unknown_captain_lists_the_allowed_ones_and_creates_nothing(tmp_path: Path,
                                                                     capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "u.sqlite"
    err = _run_error(["--db", str(path), "add", "--ruleset", "pantheon", "gunner", "admiral"], capsys)
    assert "unknown captain 'admiral'" in err and "'gunner', 'rammer'" in err
    assert not path.exists()
    err = _run_error(["--db", str(path), "add", "gunner"], capsys)
    assert "give its ruleset: --ruleset" in err and "pantheon" in err and not path.exists()
    err = _run_error(["--db", str(path), "status"], capsys)
    assert "no league file" in err and not path.exists()


def test_files_that_are_not_leagues_are_refused_untouched(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    text = tmp_path / "notes.sqlite"
    text.write_text("not a database\n")
    other = tmp_path / "other.sqlite"
    with sqlite3.connect(other) as conn:
        conn.execute("CREATE TABLE meta (key TEXT, value TEXT)")
    before = {p: p.read_bytes() for p in (text, other)}
    for path in (text, other):
        for argv in (["add", "gunner"], ["play"], ["status"]):
            err = _run_error(["--db", str(path), *argv], capsys)
            assert "is not a naval-tactics league file" in err
    assert {p: p.read_bytes() for p in before} == before
    assert not Path(f"{other}-wal").exists()


def test_newer_schema_and_other_ruleset_are_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "n.sqlite"
    _new(path).close()
    err = _run_error(["--db", str(path), "add", "--ruleset", "broadside", "gunner"], capsys)
    assert "this league is for pantheon / duel, not --ruleset broadside" in err
    err = _run_error(["--db", str(path), "add", "--scenario", "fleet", "gunner"], capsys)
    assert "not --scenario fleet" in err
    with sqlite3.connect(path) as conn:
        conn.execute("UPDATE meta SET value = ? WHERE key = 'schema_version'", (str(SCHEMA_VERSION + 1),))
    conn.close()
    snapshot = _rows(path), path.stat().st_size
    for argv in (["status"], ["play"], ["add", "rammer"]):
        err = _run_error(["--db", str(path), *argv], capsys)
        assert f"schema version {SCHEMA_VERSION + 1}, written by a newer naval-tactics" in err
        assert f"up to {SCHEMA_VERSION}" in err
    assert (_rows(path), path.stat().st_size) == snapshot


def test_names_pairings_and_settings_are_checked(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "p.sqlite"
    _new(path).close()
    err = _run_error(["--db", str(path), "add", "gunner=rammer"], capsys)
    assert "captain name 'gunner' is taken" in err
    assert league_main(["--db", str(path), "add", "gunner"]) == 0          # the same captain again: no change
    assert "added no new captain" in capsys.readouterr().out
    err = _run_error(["--db", str(path), "play", "--pairings", "gunner:admiral"], capsys)
    assert "allowed names: ['gunner', 'rammer', 'random']" in err
    err = _run_error(["--db", str(path), "play", "--games", "0"], capsys)
    assert "--games must be at least 1" in err
    err = _run_error(["--db", str(path), "play", "--sprt", "elo0=5,elo1=1"], capsys)
    assert "elo1 > elo0" in err
    assert _rows(path) == []


def test_a_captain_whose_file_changed_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    onnx = tmp_path / "mine.onnx"
    shutil.copy(zoo_onnx_path("pantheon"), onnx)
    shutil.copy(zoo_onnx_path("pantheon").with_suffix(".json"), onnx.with_suffix(".json"))
    path = tmp_path / "f.sqlite"
    with _new(path, ["gunner", str(onnx)]) as league:
        mine = next(c for c in league.captains() if c.name == "mine")
        assert mine.source == str(onnx.resolve()) and mine.sha256 is not None and len(mine.sha256) == 64
        assert play(league, 1, progress=False).played == 2
    onnx.with_suffix(".json").write_text(onnx.with_suffix(".json").read_text() + " ")
    err = _run_error(["--db", str(path), "play", "--games", "2"], capsys)
    assert "captain 'mine': its files" in err and "add the new version under a new name" in err
    err = _run_error(["--db", str(path), "add", str(onnx)], capsys)
    assert "captain name 'mine' is taken" in err and f"NEWNAME={onnx}" in err
    assert len(_rows(path)) == 2
    assert league_main(["--db", str(path), "add", f"mine2={onnx}"]) == 0


def test_a_game_is_stored_once(tmp_path: Path) -> None:
    with _new(tmp_path / "o.sqlite", ["gunner", "rammer"]) as league:
        play(league, 1, progress=False)
        a, b = league.captains()
        first = _games(league)[0]
        assert league.add_game(a, b, first, "1.0") is False                    # the key (pairing, seed, swap)
        with pytest.raises(sqlite3.IntegrityError):                            # A must be the earlier captain
            league.add_game(b, a, dataclasses.replace(first, seed=99), "1.0")
        assert len(_games(league)) == 2
        with pytest.raises(LeagueError, match="add at least two"), _new(tmp_path / "one.sqlite", ["gunner"]) as lonely:
            play(lonely, 1, progress=False)


def test_other_rules_version_or_changed_config_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "v.sqlite"
    _new(path).close()
    with sqlite3.connect(path) as conn:
        conn.execute("UPDATE meta SET value = '0.9' WHERE key = 'ruleset_version'")
    conn.close()
    err = _run_error(["--db", str(path), "play", "--games", "1"], capsys)
    assert "played under pantheon rules version 0.9, the engine is now version 1.0" in err
    config = tmp_path / "pantheon.yaml"
    shutil.copy(Path(__file__).resolve().parents[2] / "configs" / "rulesets" / "pantheon.yaml", config)
    with _new(tmp_path / "c.sqlite", ["gunner", "rammer"], config=str(config)) as league:
        assert league.info.config == str(config.resolve()) and league.info.config_sha256 is not None
        assert play(league, 1, progress=False).played == 2
    config.write_text(config.read_text() + "\n# edited\n")
    err = _run_error(["--db", str(tmp_path / "c.sqlite"), "play", "--games", "2"], capsys)
    assert "ruleset config" in err and "changed (or is gone)" in err
    assert len(_rows(tmp_path / "c.sqlite")) == 2 and _rows(path) == []


@pytest.mark.parametrize("action", ["add", "play", "status"])
def test_every_action_has_help(action: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_info:
        league_main([action, "--help"])
    assert exit_info.value.code == 0
    assert f"naval-tactics league {action}" in capsys.readouterr().out


def test_an_undecided_sprt_says_so_and_continues_with_more_seeds(tmp_path: Path,
                                                                 capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "u.sqlite"
    _new(path, ["gunner", "rammer"]).close()
    assert league_main(["--db", str(path), "play", "--games", "5", "--sprt", "elo1=5", "--no-progress"]) == 0
    out = " ".join(capsys.readouterr().out.split())
    assert "undecided (play more seeds)" in out and "in (-2.94, 2.94) (5)" in out
    with open_league(path) as league:
        first = play(league, 5, sprt=SprtParams(0, 5), progress=False)
        assert first.played == 0 and first.sprt[("gunner", "rammer")].decision is None
        more = play(league, 400, sprt=SprtParams(0, 5), progress=False)
        test = more.sprt[("gunner", "rammer")]
    # gunner wins about three games in four against rammer: H1 after ~200 more pairs, well before 400
    assert test.decision == "H1" and 5 < test.pairs < 400 and more.played < 2 * 395
