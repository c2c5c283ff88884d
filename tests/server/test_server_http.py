"""The captain server over real HTTP (uvicorn on 127.0.0.1, a free port): whole games of every ruleset
played by an app that speaks only labels and positions, equal to the same games played in process;
exported captains; concurrent requests on one game and on many; the ``naval-tactics serve`` command."""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import numpy as np
import pytest

from naval_agents.captains.arena import play_game
from naval_agents.captains.base import Captain, Decision
from naval_agents.captains.onnx_captain import OnnxCaptain
from naval_agents.captains.registry import default_opponent, make_captain
from naval_env.core.events import Event
from naval_env.core.game import Game
from naval_env.core.moves import encode, options
from naval_env.core.ruleset import get_ruleset, ruleset_ids
from naval_env.envs.match import Match
from naval_tactics.catalogue import Catalogue, CatalogueError
from naval_tactics.client import CaptainClient
from naval_tactics.decisions import decision_for
from naval_tactics.protocol import GameView
from naval_tactics.server import ServerSettings, create_app
from naval_tactics.testing import export_tiny_captain, serve_in_thread

RULESETS = ruleset_ids()
REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def captains_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder holding one exported pantheon captain, ``tiny`` (a throwaway model, exported for real)."""
    folder = Path(tmp_path_factory.mktemp("captains"))
    build = export_tiny_captain(folder / "build", name="tiny")
    for suffix in (".onnx", ".json"):
        (folder / f"tiny{suffix}").write_bytes(build.with_suffix(suffix).read_bytes())
    return folder


@pytest.fixture(scope="module")
def url(captains_dir: Path) -> Iterator[str]:
    with serve_in_thread(create_app(ServerSettings(captains_dir=captains_dir, max_games=200))) as base:
        yield base


@pytest.fixture
def api(url: str) -> Iterator[CaptainClient]:
    with CaptainClient(url) as client:
        yield client


# ------------------------------------------------------------------ the app side, over HTTP and in process
class LabelPicker(Captain):
    """The app side, in process: a random legal label per component, drawn exactly as :func:`http_game`
    draws them (``random.Random``, components in order, labels in value order)."""

    name = "app"
    needs_observation = False

    def __init__(self) -> None:
        self.rng = random.Random(0)

    def reset(self, seed: int | None = None) -> None:
        self.rng = random.Random(seed)

    def act(self, decision: Decision) -> np.ndarray:
        assert decision.game is not None
        spec = decision.game.action_spec
        move = {c: self.rng.choice(labels) for c, labels in options(spec, decision.action_mask).items()}
        return encode(spec, move, decision.action_mask)


def http_game(api: CaptainClient, game: GameView, captain: str, app_seed: int,
              stop_after: int | None = None) -> GameView:
    """Play ``game`` on the server: the first side picks random legal labels (seeded ``app_seed``), the
    named captain moves for the other side. Only labels and positions cross the wire."""
    rng = random.Random(app_seed)
    side_of = {seat.id: seat.side for seat in game.seats}
    while not game.over and (stop_after is None or game.decisions < stop_after):
        assert game.to_move is not None
        if side_of[game.to_move] == game.sides[0]:
            move = {component: rng.choice(labels) for component, labels in game.legal.items()}
            game = api.move(game.id, game.to_move, move).game
        else:
            game = api.captain_move(game.id, captain).game
    return game


def finish_in_process(game: Game, captains: dict[str, Captain]) -> list[Event]:
    events: list[Event] = []
    while not game.is_over:
        agent = game.current_agent
        assert agent is not None
        captain = captains[game.side_of(agent)]
        events += game.apply(agent, captain.act(decision_for(game, agent, captain)))
    return events


def in_process_captain(name: str, ruleset_id: str, game: Game, captains_dir: Path) -> Captain:
    if name == "tiny":
        return OnnxCaptain(captains_dir / "tiny.onnx", expected_ruleset=ruleset_id)
    return make_captain(name, ruleset_id, game.action_spec)


GAMES = [(rid, default_opponent(rid)) for rid in RULESETS] + [("pantheon", "random"), ("pantheon", "tiny")]


@pytest.mark.parametrize(("ruleset_id", "captain"), GAMES)
@pytest.mark.slow
def test_a_whole_game_over_http_equals_the_game_played_in_process(api: CaptainClient, captains_dir: Path,
                                                                  ruleset_id: str, captain: str) -> None:
    seed = 21
    scenario = get_ruleset(ruleset_id).load_config().default_scenario
    final = http_game(api, api.new_game(ruleset_id, scenario=scenario, seed=seed), captain, app_seed=seed * 2)
    logged = api.events(final.id)

    match = Match(ruleset_id, scenario=scenario)
    sides = match.game.sides
    record = play_game(match, {sides[0]: LabelPicker(),
                               sides[1]: in_process_captain(captain, ruleset_id, match.game, captains_dir)}, seed)
    assert final.over and final.position == match.game.position()
    assert logged.events == [e.to_dict() for e in record.events] and logged.total == len(record.events)
    assert (final.winner, final.truncated, final.decisions, final.round) == (
        record.winner, record.truncated, record.decisions, record.rounds)
    assert record.decisions > 10


@pytest.mark.parametrize("ruleset_id", RULESETS)
def test_a_game_continued_from_its_position_over_http_equals_in_process(api: CaptainClient, captains_dir: Path,
                                                                        ruleset_id: str) -> None:
    captain, seed = default_opponent(ruleset_id), 33
    first = http_game(api, api.new_game(ruleset_id, seed=5), captain, app_seed=5, stop_after=6)
    assert not first.over
    position = first.position
    # A new game from that position (what an app holding its own state sends), with its own seed.
    second = api.new_game(ruleset_id, position=position, seed=seed)
    assert second.position == position and second.decisions == 0
    final = http_game(api, second, captain, app_seed=seed * 2)

    game = get_ruleset(ruleset_id).load_position(position, seed=seed)
    assert game.position() == position
    sides = game.sides
    app, opponent = LabelPicker(), in_process_captain(captain, ruleset_id, game, captains_dir)
    app.reset(seed * 2)
    opponent.reset(seed * 2 + 1)
    events = finish_in_process(game, {sides[0]: app, sides[1]: opponent})
    assert final.position == game.position() and final.winner == game.winner
    assert api.events(final.id).events == [e.to_dict() for e in events]


def test_exported_captains_are_served_by_file_stem_with_their_probabilities(api: CaptainClient,
                                                                            captains_dir: Path) -> None:
    listed = {c.name: c for c in api.ruleset("pantheon").captains}
    assert (listed["tiny"].kind, listed["tiny"].probabilities) == ("exported", True)
    assert "tiny" not in {c.name for c in api.ruleset("pursuit").captains}
    game = api.new_game("pantheon", seed=3)
    answer = api.decide("pantheon", game.position, "tiny")
    onnx = OnnxCaptain(captains_dir / "tiny.onnx")
    engine = get_ruleset("pantheon").load_position(game.position, seed=0)
    decision = decision_for(engine, engine.current_agent, onnx)
    assert answer.action == onnx.act(decision).tolist()
    spec = engine.action_spec
    assert answer.probabilities is not None
    for component, values, offset in zip(spec.components, onnx.probabilities(decision), spec.offsets):
        allowed = np.flatnonzero(decision.action_mask[offset: offset + component.size])
        assert answer.probabilities[component.name] == pytest.approx(
            {component.labels[v]: float(values[v]) for v in allowed})
        assert sum(answer.probabilities[component.name].values()) == pytest.approx(1.0)


def test_a_captains_folder_that_cannot_be_served_stops_the_server(captains_dir: Path, tmp_path: Path) -> None:
    with pytest.raises(CatalogueError, match="does not exist or is not a folder"):
        Catalogue.load(tmp_path / "missing")
    for suffix in (".onnx", ".json"):
        (tmp_path / f"gunner{suffix}").write_bytes((captains_dir / f"tiny{suffix}").read_bytes())
    with pytest.raises(CatalogueError, match=r"two pantheon captains named 'gunner'"):
        Catalogue.load(tmp_path)
    for suffix in (".onnx", ".json"):
        (tmp_path / f"gunner{suffix}").unlink()
    (tmp_path / "forged.onnx").write_bytes(b"\x80\x04not a graph")   # a pickle's first bytes: never unpickled
    with pytest.raises(CatalogueError, match=r"forged.onnx: cannot serve this export: .*not a valid ONNX model"):
        Catalogue.load(tmp_path)
    (tmp_path / "forged.onnx").unlink()
    (tmp_path / "lonely.onnx").write_bytes((captains_dir / "tiny.onnx").read_bytes())
    with pytest.raises(CatalogueError, match=r"lonely.onnx: cannot serve this export: .*sidecar"):
        Catalogue.load(tmp_path)
    (tmp_path / "lonely.onnx").rename(tmp_path / "two words.onnx")
    with pytest.raises(CatalogueError, match=r"captain name 'two words' must match"):
        Catalogue.load(tmp_path)


# ------------------------------------------------------------------ concurrency
def test_threads_hammering_one_game_leave_it_consistent(url: str) -> None:
    """Eight clients race to move the same game from views that go stale; every move the server accepted,
    replayed in its order, gives the server's final game: moves were applied one at a time, whole."""
    seed = 8
    with CaptainClient(url) as api:
        game_id = api.new_game("pantheon", seed=seed).id
    accepted: list[tuple[int, str, list[int]]] = []
    refused: list[tuple[int, str]] = []
    lock = threading.Lock()

    def hammer(worker: int) -> None:
        rng = random.Random(worker)
        with httpx.Client(base_url=url, timeout=30) as http:
            while True:
                view = http.get(f"/v1/games/{game_id}").json()
                if view["over"]:
                    return
                move = {c: rng.choice(labels) for c, labels in view["legal"].items()}
                answer = http.post(f"/v1/games/{game_id}/moves", json={"seat": view["to_move"], "move": move})
                with lock:
                    if answer.status_code == 200:
                        body = answer.json()
                        accepted.append((body["game"]["decisions"], body["seat"], body["action"]))
                    else:
                        refused.append((answer.status_code, answer.json()["error"]["code"]))

    threads = [threading.Thread(target=hammer, args=(i,)) for i in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(120)
    assert not any(thread.is_alive() for thread in threads)
    accepted.sort()
    assert [n for n, _, _ in accepted] == list(range(1, len(accepted) + 1))   # no move lost or doubled
    assert refused, "the clients never raced; the test proves nothing"
    assert set(refused) <= {(409, "not_your_turn"), (409, "game_over"), (422, "illegal_move")}
    ruleset = get_ruleset("pantheon")
    replay = ruleset.new_game(ruleset.load_config(), seed=seed)
    events = list(replay.opening_events)
    for _, seat, action in accepted:
        events += replay.apply(seat, np.asarray(action))
    with CaptainClient(url) as api:
        final = api.game(game_id)
        assert final.over and final.position == replay.position()
        assert api.events(game_id).events == [e.to_dict() for e in events]


def test_many_games_played_at_once_each_equal_their_in_process_game(url: str) -> None:
    results: dict[int, GameView] = {}
    failures: list[BaseException] = []

    def play(seed: int) -> None:
        try:
            with CaptainClient(url) as api:
                game = api.new_game("pantheon", seed=seed)
                while not game.over:
                    captain = "gunner" if game.to_move == "red_0" else "rammer"
                    game = api.captain_move(game.id, captain).game
                results[seed] = game
                api.delete_game(game.id)
        except BaseException as exc:  # noqa: BLE001 - reported by the main thread
            failures.append(exc)

    threads = [threading.Thread(target=play, args=(seed,)) for seed in range(100, 112)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(180)
    assert failures == [] and sorted(results) == list(range(100, 112))
    for seed, final in results.items():
        match = Match("pantheon")
        record = play_game(match, {"red": make_captain("gunner", "pantheon", match.action_spec),
                                   "blue": make_captain("rammer", "pantheon", match.action_spec)}, seed)
        assert final.position == match.game.position() and final.decisions == record.decisions


@pytest.mark.parametrize("length", [b"12abc", b"-1", b"1, 2", b"99999999999999999999999x"])
def test_a_malformed_content_length_gets_the_json_error_shape(url: str, length: bytes) -> None:
    """uvicorn's h11 layer refuses these before the app sees them; its answer is JSON all the same."""
    import socket

    host, port = url.removeprefix("http://").split(":")
    with socket.create_connection((host, int(port)), timeout=10) as conn:
        conn.sendall(b"POST /v1/games HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                     b"Content-Length: " + length + b"\r\n\r\n{}")
        raw = b""
        while chunk := conn.recv(65536):
            raw += chunk
    head, _, body = raw.partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 400 ")
    assert b"content-type: application/json" in head.lower()
    error = json.loads(body)["error"]
    assert error["code"] == "invalid_http" and "Content-Length" in error["message"]
    assert set(json.loads(body)) == {"error"} and set(error) == {"code", "message", "problems", "details"}


# ------------------------------------------------------------------ the command
@pytest.mark.slow
def test_naval_tactics_serve_runs_the_server_until_interrupted(tmp_path: Path) -> None:
    import socket

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    process = subprocess.Popen([sys.executable, "-m", "naval_tactics", "serve", "--port", str(port),
                                "--max-games", "3", "--log-level", "warning"], cwd=tmp_path, env=env,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                health = httpx.get(f"http://127.0.0.1:{port}/v1/health", timeout=2).json()
                break
            except httpx.TransportError:
                assert process.poll() is None, process.communicate()[1]
                assert time.monotonic() < deadline, "the server did not answer within 60 s"
                time.sleep(0.2)
        assert health["max_games"] == 3 and health["games"] == 0
        assert httpx.get(f"http://127.0.0.1:{port}/play", timeout=10).status_code == 200
    finally:
        process.send_signal(signal.SIGINT)
        _, err = process.communicate(timeout=30)
    assert process.returncode == 0, err
    assert f"play in the browser: http://127.0.0.1:{port}/play" in err   # where to point a browser


@pytest.mark.slow
def test_naval_tactics_serve_refuses_bad_settings(tmp_path: Path) -> None:
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    for flags, message in ((["--max-games", "0"], "error: --max-games: Input should be greater than or equal to 1"),
                           (["--captains-dir", str(tmp_path / "none")], "does not exist or is not a folder")):
        done = subprocess.run([sys.executable, "-m", "naval_tactics", "serve", "--port", "1", *flags], cwd=tmp_path,
                              env=env, capture_output=True, text=True, timeout=120, check=False)
        assert done.returncode == 2 and message in done.stderr, done.stderr


def test_the_python_example_of_the_protocol_page_runs(url: str, capsys: pytest.CaptureFixture[str]) -> None:
    doc = (REPO / "docs" / "apps.md").read_text(encoding="utf-8")
    snippet = doc.split("```python\n", 1)[1].split("```", 1)[0]
    exec(compile(snippet.replace("http://127.0.0.1:8765", url), "docs/apps.md", "exec"), {})  # noqa: S102
    printed = capsys.readouterr().out.split(" ", 1)
    assert printed[0] in ("red", "blue", "None") and printed[1].strip()
