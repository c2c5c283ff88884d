"""The dependency-free Node.js example (examples/node/play.js) plays whole games against the server.

The script's app side draws its labels with a seeded mulberry32; :class:`NodePicker` draws the same
numbers in Python, so each game the script reports is checked against the same game in process.
Needs ``node`` (20+) on PATH; ``make test`` installs it.
"""

from __future__ import annotations

import re
import shutil
import socket
import subprocess
import threading
from collections.abc import Callable, Iterator
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import numpy as np
import pytest

from naval_agents.captains.arena import play_game
from naval_agents.captains.base import Captain, Decision
from naval_agents.captains.registry import default_opponent, make_captain
from naval_env.core.moves import encode, options
from naval_env.core.ruleset import ruleset_ids
from naval_env.envs.match import Match
from naval_tactics.catalogue import Catalogue
from naval_tactics.server import ServerSettings, create_app
from naval_tactics.testing import serve_in_thread

SCRIPT = Path(__file__).resolve().parents[2] / "examples" / "node" / "play.js"
NODE = shutil.which("node")
# Not skipped when node is missing: `make test` installs it (Makefile: system-packages), so its absence fails each
# test, not the collection (so `pytest -m "not node"` runs without node).
MISSING = "node (20+) is not on PATH; install it with: apt-get install nodejs (make test does)"
RESULT = re.compile(r"^(?P<ruleset>\w+) (?P<scenario>\w+) seed (?P<seed>\d+): (?P<result>\w+ won|a draw)"
                    r"(?: \(round limit\))? after (?P<decisions>\d+) decisions, (?P<rounds>\d+) rounds, "
                    r"(?P<events>\d+) events; app \(random labels\) = (?P<app>\w+), (?P<captain>\w+) = \w+$")

pytestmark = pytest.mark.node


def mulberry32(seed: int) -> Callable[[], float]:
    """The script's generator, bit for bit (uint32 arithmetic; Math.imul is a product mod 2**32)."""
    state = seed & 0xFFFFFFFF

    def draw() -> float:
        nonlocal state
        state = (state + 0x6D2B79F5) & 0xFFFFFFFF
        t = state
        t = ((t ^ (t >> 15)) * (t | 1)) & 0xFFFFFFFF
        t ^= (t + (((t ^ (t >> 7)) * (t | 61)) & 0xFFFFFFFF)) & 0xFFFFFFFF
        return ((t ^ (t >> 14)) & 0xFFFFFFFF) / 4294967296

    return draw


class NodePicker(Captain):
    """The script's app side in process: ``labels[floor(random() * n)]`` for every component, in order."""

    name = "node-app"
    needs_observation = False

    def __init__(self, seed: int) -> None:
        self.random = mulberry32(seed)

    def act(self, decision: Decision) -> np.ndarray:
        assert decision.game is not None
        spec = decision.game.action_spec
        move = {c: labels[int(self.random() * len(labels))] for c, labels in options(spec, decision.action_mask).items()}
        return encode(spec, move, decision.action_mask)


@pytest.fixture(scope="module")
def url() -> Iterator[str]:
    with serve_in_thread(create_app(ServerSettings(), catalogue=Catalogue.load())) as base:
        yield base


def node(*args: str) -> subprocess.CompletedProcess[str]:
    assert NODE is not None, MISSING
    return subprocess.run([NODE, str(SCRIPT), *args], capture_output=True, text=True, timeout=300, check=False)


def test_the_generator_matches_node() -> None:
    assert NODE is not None, MISSING
    program = f"const g = require({str(SCRIPT)!r}).generator(7); console.log([g(), g(), g()].join(' '))"
    printed = subprocess.run([NODE, "-e", program], capture_output=True, text=True, timeout=60,
                             check=True).stdout.split()
    draw = mulberry32(7)
    assert [float(x) for x in printed] == [draw(), draw(), draw()]


@pytest.mark.parametrize("ruleset_id", ruleset_ids())
def test_the_node_example_plays_a_whole_game_equal_to_the_game_in_process(url: str, ruleset_id: str) -> None:
    captain, seed = default_opponent(ruleset_id), 7
    done = node("--url", url, "--ruleset", ruleset_id, "--captain", captain, "--seed", str(seed))
    assert done.returncode == 0, done.stderr
    found = RESULT.match(done.stdout.strip().splitlines()[-1])
    assert found is not None, done.stdout

    match = Match(ruleset_id)
    sides = match.game.sides
    record = play_game(match, {sides[0]: NodePicker(seed),
                               sides[1]: make_captain(captain, ruleset_id, match.action_spec)}, seed)
    expected = f"{record.winner} won" if record.winner else "a draw"
    assert (found["ruleset"], found["scenario"], int(found["seed"])) == (ruleset_id, match.scenario or
                                                                        match.config.default_scenario, seed)
    assert (found["result"], int(found["decisions"]), int(found["rounds"]), int(found["events"])) == (
        expected, record.decisions, record.rounds, len(record.events))
    assert (found["app"], found["captain"]) == (sides[0], captain)


def test_the_node_example_explains_what_went_wrong(url: str) -> None:
    done = node("--url", url, "--ruleset", "pantheon", "--captain", "../tiny.onnx")
    assert done.returncode == 1
    assert done.stderr.strip() == ("error: unknown captain ../tiny.onnx for pantheon; known: random, rammer, gunner, "
                                   "zoo, easy, normal, hard, expert")
    done = node("--url", url, "--ruleset", "chess")
    assert done.returncode == 1 and done.stderr.startswith("error: 404 not_found: unknown ruleset 'chess'")
    with socket.socket() as probe:   # a port nothing listens on
        probe.bind(("127.0.0.1", 0))
        closed = probe.getsockname()[1]
    done = node("--url", f"http://127.0.0.1:{closed}", "--ruleset", "pantheon")
    assert done.returncode == 1 and "fetch failed" in done.stderr and "ECONNREFUSED" in done.stderr
    with ThreadingHTTPServer(("127.0.0.1", 0), SimpleHTTPRequestHandler) as other:   # not a captain server
        threading.Thread(target=other.serve_forever, daemon=True).start()
        done = node("--url", f"http://127.0.0.1:{other.server_address[1]}", "--ruleset", "pantheon")
        other.shutdown()
    assert done.returncode == 1
    assert done.stderr.startswith("error: GET /v1/rulesets/pantheon: HTTP 404, not JSON: "), done.stderr
    done = node("--ruleset", "pantheon", "--seed", "x")
    assert done.returncode == 2 and done.stderr.startswith("error: --seed must be a whole number, not x")
    done = node("--captain", "gunner")
    assert done.returncode == 2 and "--ruleset is required" in done.stderr
