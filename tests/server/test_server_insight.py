"""The routes that help show a decision: options explained, a move previewed, a position's picture, a replay."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from naval_agents.evaluation.replay import load_replay, replay_game
from naval_env.core.moves import decode
from naval_env.core.ruleset import get_ruleset
from naval_tactics.server import ServerSettings, create_app


@pytest.fixture(scope="module")
def client() -> Iterator[TestClient]:
    with TestClient(create_app(ServerSettings())) as test_client:
        yield test_client


def new_game(client: TestClient, ruleset: str = "pantheon", seed: int = 4) -> dict[str, Any]:
    return dict(client.post("/v1/games", json={"ruleset": ruleset, "seed": seed}).json())


def test_options_list_the_allowed_labels_explained(client: TestClient) -> None:
    game = new_game(client)
    options = client.get(f"/v1/games/{game['id']}/options").json()
    assert options["seat"] == game["to_move"]
    by_name = {c["name"]: c for c in options["components"]}
    assert set(by_name) == set(game["legal"])
    for name, labels in game["legal"].items():
        assert [o["label"] for o in by_name[name]["options"]] == labels
    ahead = next(o for o in by_name["maneuver"]["options"] if o["label"] == "ahead 3")
    assert ahead["text"] and ahead["text"] != by_name["maneuver"]["description"]   # a line of its own


def test_a_previewed_maneuver_ends_where_the_move_does_and_leaves_the_game_alone(client: TestClient) -> None:
    game = new_game(client)
    seat = game["to_move"]
    preview = client.post("/v1/rulesets/pantheon/preview",
                          json={"position": game["position"], "move": {"maneuver": "ahead 3"}}).json()
    assert preview["seat"] == seat and preview["fixed"] is True and preview["move"]["maneuver"] == "ahead 3"
    assert preview["picture"].startswith("<svg") and 'class="ship"' in preview["picture"]
    assert client.get(f"/v1/games/{game['id']}").json()["position"] == game["position"]   # untouched
    made = client.post(f"/v1/games/{game['id']}/moves", json={"seat": seat, "move": {"maneuver": "ahead 3"}}).json()
    ship = next(s for s in preview["position"]["ships"] if s["id"] == seat)
    real = next(s for s in made["game"]["position"]["ships"] if s["id"] == seat)
    assert (ship["x"], ship["y"], ship["facing"]) == (real["x"], real["y"], real["facing"])
    assert preview["log"] == made["log"]


def test_a_preview_that_rolls_dice_says_so(client: TestClient) -> None:
    game = new_game(client, "crew_phase", 2)
    move = {name: labels[-1] for name, labels in game["legal"].items()}   # crew at work: checks are rolled
    preview = client.post("/v1/rulesets/crew_phase/preview", json={"position": game["position"], "move": move}).json()
    assert preview["fixed"] is False and any("d20" in line for line in preview["log"])


def test_a_bad_preview_names_the_label_at_fault(client: TestClient) -> None:
    game = new_game(client)
    answer = client.post("/v1/rulesets/pantheon/preview",
                         json={"position": game["position"], "move": {"maneuver": "fly"}})
    assert answer.status_code == 422
    error = answer.json()["error"]
    assert error["code"] == "illegal_move" and error["problems"][0]["path"] == "move.maneuver"


def test_the_picture_of_a_position_is_svg(client: TestClient) -> None:
    game = new_game(client, "flotilla", 3)
    answer = client.post("/v1/rulesets/flotilla/picture", json={"position": game["position"]})
    assert answer.status_code == 200 and answer.headers["content-type"].startswith("image/svg+xml")
    assert answer.text.startswith("<svg") and 'class="coordinate"' in answer.text
    broken = {**game["position"], "ships": [{**game["position"]["ships"][0], "x": "far"}]}
    refused = client.post("/v1/rulesets/flotilla/picture", json={"position": broken})
    assert refused.status_code == 422 and refused.json()["error"]["code"] == "invalid_position"
    assert refused.json()["error"]["problems"][0]["path"].startswith("position.ships.0")


def played(client: TestClient, ruleset: str, seed: int, moves: int | None = None) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    game = new_game(client, ruleset, seed)
    decisions: list[dict[str, Any]] = []
    while not game["over"] and (moves is None or len(decisions) < moves):
        result = client.post(f"/v1/games/{game['id']}/captain-moves", json={"captain": "gunner"}).json()
        decisions.append({"seat": result["seat"], "action": result["action"]})
        game = result["game"]
    return game, decisions


def test_the_replay_of_a_game_played_over_http_replays_exactly(client: TestClient, tmp_path: Path) -> None:
    game, decisions = played(client, "pantheon", 4)
    body = {"ruleset": "pantheon", "scenario": game["scenario"], "seed": game["seed"],
            "captains": {"red": "gunner", "blue": "gunner"}, "decisions": decisions}
    answer = client.post("/v1/replays", json=body)
    assert answer.status_code == 200 and answer.headers["content-type"].startswith("application/x-ndjson")
    path = tmp_path / "game.jsonl"
    path.write_text(answer.text)
    replay = load_replay(path)
    finished = replay_game(replay)
    assert (finished.winner, finished.round) == (game["winner"], game["round"])
    assert len(replay.decisions) == game["decisions"]
    spec = get_ruleset("pantheon").action_spec(get_ruleset("pantheon").load_config())
    assert decode(spec, list(replay.decisions[0].action)) == decode(spec, decisions[0]["action"])
    page = client.post("/v1/replays/page", json=body)
    assert page.status_code == 200 and page.text.startswith("<!DOCTYPE html>")
    data = json.loads(page.text.split('id="replay-data">', 1)[1].split("</script>", 1)[0])
    assert len(data["frames"]) == game["decisions"] + 1


def test_an_unfinished_game_has_a_replay_and_a_page(client: TestClient) -> None:
    game, decisions = played(client, "flotilla", 3, moves=5)
    body = {"ruleset": "flotilla", "seed": game["seed"], "decisions": decisions}
    page = client.post("/v1/replays/page", json=body)
    assert page.status_code == 200 and "unfinished: the record stops" in page.text


def test_a_replay_with_a_wrong_move_says_which_decision(client: TestClient) -> None:
    game, decisions = played(client, "pantheon", 4, moves=3)
    wrong = [*decisions[:2], {"seat": decisions[2]["seat"], "action": [99] * len(decisions[2]["action"])}]
    answer = client.post("/v1/replays", json={"ruleset": "pantheon", "seed": game["seed"], "decisions": wrong})
    assert answer.status_code == 422
    assert answer.json()["error"]["problems"][0]["path"] == "decisions.2.action"
    other = next(seat["id"] for seat in game["seats"] if seat["id"] != decisions[0]["seat"])
    swapped = [{"seat": other, "action": decisions[0]["action"]}]
    answer = client.post("/v1/replays", json={"ruleset": "pantheon", "seed": game["seed"], "decisions": swapped})
    assert answer.status_code == 409 and answer.json()["error"]["code"] == "not_your_turn"
