"""One captain-name grammar (agents/captains/registry.py): every form docs/captains.md offers, one concrete name each,
works in every entry point (``evaluate``, the envs' ``opponent=``, the server's ``/v1/decide`` and
``captain-moves``, which the ``/play`` page calls) or is refused there the same way.

A model path works where a person runs a file (evaluate, the envs) and is refused by the server, which makes
captains from names only; a budget past the server's limits is refused by the server alone.
"""

from __future__ import annotations

import re
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np
import pytest
from fastapi.testclient import TestClient

from naval_agents.captains.registry import (
    NAME_FORMS,
    CaptainNameError,
    NameLimits,
    describe,
    form_examples,
    make_captain,
    parse_captain_name,
)
from naval_agents.captains.zoo.levels import levels_of
from naval_agents.evaluation.tournament import EvaluationInputError, build_tournament
from naval_env.core.ruleset import get_ruleset
from naval_tactics.catalogue import Catalogue
from naval_tactics.server import ServerSettings, create_app

RULESET = "pantheon"
MAX_MS, MAX_SIMULATIONS = 300, 64
EXAMPLES = form_examples(RULESET)
SPEC = get_ruleset(RULESET).action_spec(get_ruleset(RULESET).load_config())
#: Forms the server serves only by name: a model is a file, and a client's string is never opened.
SERVER_REFUSES = {"PATH"}
#: Names no entry point takes, each with the words of its refusal.
BAD = {
    "search:0": "bad search captain 'search:0'",
    "expert:0ms": "write expert:Nms",
    "mixed:rammer:2": "write mixed:BASE:SHARE with SHARE from 0 to 1",
    "tempered:zoo:500": "write tempered:BASE:T with T from 0 to 100",
    "kraken": "unknown captain 'kraken'",
    "mixed:kraken:0.3": "unknown captain 'kraken'",
}


@pytest.fixture(scope="module")
def client() -> Iterator[TestClient]:
    settings = ServerSettings(rulesets=(RULESET,), max_expert_ms=MAX_MS, max_search_simulations=MAX_SIMULATIONS,
                              search_workers=1, decision_timeout_s=120)
    catalogue = Catalogue.load(None, [RULESET], MAX_MS, MAX_SIMULATIONS)
    with TestClient(create_app(settings, catalogue=catalogue)) as test_client:
        yield test_client


def _decide(client: TestClient, name: str) -> Any:
    game = client.post("/v1/games", json={"ruleset": RULESET, "seed": 4}).json()
    return client.post("/v1/decide", json={"ruleset": RULESET, "position": game["position"], "captain": name,
                                          "seed": 1})


def _captain_move(client: TestClient, name: str) -> Any:
    """As the /play page asks a captain for its move (play.js: POST captain-moves with the seat to move)."""
    game = client.post("/v1/games", json={"ruleset": RULESET, "seed": 4}).json()
    return client.post(f"/v1/games/{game['id']}/captain-moves", json={"captain": name, "seat": game["to_move"]})


def _evaluate(name: str) -> None:
    build_tournament(RULESET, ["other=random", f"named={name}"], 1)


def _env_step(name: str) -> None:
    """An env playing ``name`` as its opponent: made, reset and stepped (the opponent moves in the step)."""
    env = gym.make(get_ruleset(RULESET).gym_id, opponent=name)
    try:
        _, info = env.reset(seed=0)
        for _ in range(3):
            mask = info["action_mask"]
            action = SPEC.sample(mask, np.random.default_rng(0))
            _, _, terminated, truncated, info = env.step(action)
            if terminated or truncated:
                break
    finally:
        env.close()


def test_every_form_has_one_example_and_a_declared_description() -> None:
    assert list(EXAMPLES) == [form.form for form in NAME_FORMS]
    for form in NAME_FORMS:
        parsed = parse_captain_name(EXAMPLES[form.form], RULESET)
        assert parsed.kind == form.kind, form.form
        assert describe(parsed, RULESET), form.form


def test_the_grammar_reads_the_parameters() -> None:
    assert parse_captain_name("search:4", RULESET).simulations == 4
    assert parse_captain_name("search:20ms", RULESET).milliseconds == 20.0
    assert parse_captain_name("expert:20ms", RULESET).milliseconds == 20.0
    mixed = parse_captain_name("mixed:search:4:0.5", RULESET)
    assert (mixed.kind, mixed.share, mixed.base) == ("mixed", 0.5, parse_captain_name("search:4", RULESET))
    assert mixed.searches(RULESET) and not parse_captain_name("mixed:rammer:0.5", RULESET).searches(RULESET)
    tempered = parse_captain_name("tempered:zoo:1.5", RULESET)
    assert (tempered.kind, tempered.temperature, tempered.base and tempered.base.kind) == ("tempered", 1.5, "zoo")
    with pytest.raises(CaptainNameError, match="1 to 64, e.g. search:64"):
        parse_captain_name("search:65", RULESET, NameLimits(MAX_MS, MAX_SIMULATIONS))


@pytest.mark.parametrize("form", [form.form for form in NAME_FORMS])
def test_every_form_works_in_evaluate_and_the_envs(form: str) -> None:
    name = EXAMPLES[form]
    _evaluate(name)
    _env_step(name)


@pytest.mark.parametrize("form", [form.form for form in NAME_FORMS])
def test_every_form_works_on_the_server_or_is_refused_alike(client: TestClient, form: str) -> None:
    name = EXAMPLES[form]
    decided, moved = _decide(client, name), _captain_move(client, name)
    if form in SERVER_REFUSES:
        for answer in (decided, moved):
            assert answer.status_code == 422 and answer.json()["error"]["code"] == "unknown_captain"
        assert decided.json()["error"]["message"] == moved.json()["error"]["message"]
        return
    entry = client.app.state.services.catalogue.captain(RULESET, name)   # type: ignore[attr-defined]
    level = getattr(levels_of(RULESET), name, None)   # a level searches where levels.yaml gives it simulations
    searches = form in ("search", "search:N", "search:Nms", "expert:Nms") or (level is not None and level.search > 0)
    assert entry.slow == searches, "a search runs in the server's search processes, nothing else does"
    assert decided.status_code == 200, decided.text
    assert moved.status_code == 200, moved.text
    assert decided.json()["captain"] == moved.json()["captain"] == name


@pytest.mark.parametrize("name", list(BAD))
def test_a_bad_name_is_refused_the_same_way_everywhere(client: TestClient, name: str) -> None:
    with pytest.raises(CaptainNameError) as parsed:
        parse_captain_name(name, RULESET)
    reason = str(parsed.value)
    assert BAD[name] in reason
    one_line = " ".join(reason.split())
    with pytest.raises(EvaluationInputError, match=re.escape(one_line)):
        _evaluate(name)
    with pytest.raises(ValueError, match=re.escape(reason)):
        _env_step(name)
    with pytest.raises(ValueError, match=re.escape(reason)):
        make_captain(name, RULESET, SPEC)
    decided, moved = _decide(client, name), _captain_move(client, name)
    for answer in (decided, moved):
        error = answer.json()["error"]
        assert (answer.status_code, error["code"]) == (422, "unknown_captain")
        assert BAD[name] in error["message"]
    assert decided.json()["error"] == moved.json()["error"]


@pytest.mark.parametrize("name", [f"search:{MAX_SIMULATIONS + 1}", f"search:{MAX_MS + 1}ms", f"expert:{MAX_MS + 1}ms",
                                  f"mixed:search:{MAX_SIMULATIONS + 1}:0.5"])
def test_a_budget_past_the_servers_limits_is_refused_there_with_the_range(client: TestClient, name: str) -> None:
    parse_captain_name(name, RULESET)   # within the search's own ranges: evaluate and the envs take it
    decided, moved = _decide(client, name), _captain_move(client, name)
    assert decided.json()["error"] == moved.json()["error"]
    error = decided.json()["error"]
    assert (decided.status_code, error["code"]) == (422, "unknown_captain")
    assert f"1 to {MAX_MS}" in error["message"] or f"1 to {MAX_SIMULATIONS}" in error["message"]
    assert f"search:N (N from 1 to {MAX_SIMULATIONS})" in error["details"]["allowed"]


def test_the_captains_page_lists_every_form() -> None:
    page = (Path(__file__).parents[2] / "docs" / "captains.md").read_text(encoding="utf-8")
    table = page[page.index("## Captain names"):page.index("## Difficulty levels")]
    written = {"SCRIPTED": "| a scripted name |", "PATH": "| a model path |"}
    for form in NAME_FORMS:
        row = written.get(form.form, f"`{form.form}`")
        assert row in table, f"docs/captains.md's name table leaves out {form.form}"


@pytest.mark.slow
def test_an_export_the_server_serves_may_be_a_base_but_its_path_may_not(tmp_path: Path) -> None:
    from naval_tactics.testing import export_tiny_captain

    export = export_tiny_captain(tmp_path / "build", name="tiny")
    folder = tmp_path / "captains"
    folder.mkdir()
    for file in (export, export.with_suffix(".json")):
        shutil.copy(file, folder / file.name)
    catalogue = Catalogue.load(folder, [RULESET])
    for name in ("tempered:tiny:1.5", "mixed:tiny:0.3"):
        entry = catalogue.captain(RULESET, name)
        assert entry.description.startswith("tiny ") and entry.has_probabilities and not entry.slow
        entry.make(3)
    with pytest.raises(LookupError, match="unknown captain"):
        catalogue.captain(RULESET, f"tempered:{folder / 'tiny.onnx'}:1.5")
    with pytest.raises(CaptainNameError, match="unknown captain 'tiny'"):
        parse_captain_name("mixed:tiny:0.3", RULESET)   # outside a server that serves it, tiny is no name


def test_the_server_lists_the_forms_it_makes_on_demand_with_its_ranges(client: TestClient) -> None:
    listed = client.get(f"/v1/rulesets/{RULESET}").json()["name_forms"]
    assert [form["form"] for form in listed] == ["expert:Nms", "search", "search:N", "search:Nms",
                                                 "mixed:BASE:SHARE", "tempered:BASE:T"]
    assert all(form["example"] == EXAMPLES[form["form"]] for form in listed)
    ranges = {form["form"]: form["description"] for form in listed}
    assert ranges["search:N"].endswith(f"(N from 1 to {MAX_SIMULATIONS})")
    assert ranges["search:Nms"].endswith(f"(N from 1 to {MAX_MS})")


def test_expert_with_a_time_needs_the_zoo_captain_served_and_the_search_does_not() -> None:
    from naval_tactics.catalogue import (
        CatalogueSettings,
        RulesetEntry,
        UnknownNameError,
        builtin_captains,
    )

    entry = RulesetEntry.load(RULESET)
    catalogue = Catalogue([entry], builtin_captains(CatalogueSettings({RULESET: entry})))   # no zoo captain
    with pytest.raises(UnknownNameError) as refused:
        catalogue.captain(RULESET, "expert:20ms")
    assert not any(name.startswith("expert") for name in refused.value.allowed)
    assert [form.form for form in catalogue.served_forms(RULESET)][:2] == ["search", "search:N"]
    assert catalogue.captain(RULESET, "search:4").slow
