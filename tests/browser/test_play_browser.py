"""The captain server's ``/play`` page and ``/docs`` in a real headless browser (Debian's ``chromium`` through
Selenium and Debian's ``chromium-driver``, as ``test_viewer_browser.py``), with every host but 127.0.0.1
unreachable: a page that needs another host fails here.

Per ruleset a whole game is played by clicking options (one ruleset by keyboard only) against a server
captain; the result banner must match the server's game, no request may fail, the console must stay clean
and every resource must come from the server itself. A screenshot per ruleset goes to a temporary folder
(``make screenshots``: to ``docs/play/``, the pictures docs/play.md shows).
"""

from __future__ import annotations

import json
import os
import random
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from naval_agents.evaluation.replay import load_replay, replay_game
from naval_tactics.server import ServerSettings, create_app
from naval_tactics.testing import serve_in_thread
from tests.chromium import console_errors, headless_chromium

pytestmark = pytest.mark.browser

#: Where the browser tests save their screenshots: a temporary folder, so a test run leaves the tree as it was;
#: `make screenshots` points it at docs/play to refresh the pictures docs/play.md shows.
SHOTS = Path(os.environ.get("NAVAL_SCREENSHOTS") or Path(tempfile.gettempdir()) / "naval-tactics-screenshots")
#: ruleset -> (scenario, opponent, seed): short games, so the whole file stays quick.
GAMES = {
    "pantheon": ("duel", "gunner", 4),
    "crew_phase": ("duel", "gunner", 2),
    "flotilla": ("duel", "gunner", 3),
    "broadside": ("sailing_duel", "gunner", 2),
    "pursuit": ("duel", "gunner", 5),
}
KEYBOARD = "flotilla"
MAX_DECISIONS = 400


@pytest.fixture(scope="module")
def server() -> Iterator[str]:
    with serve_in_thread(create_app(ServerSettings()), timeout=60) as url:
        yield url


@pytest.fixture(scope="module")
def downloads(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Where the browser saves what the page downloads."""
    return tmp_path_factory.mktemp("downloads")


@pytest.fixture(scope="module")
def browser(downloads: Path) -> Iterator[Any]:
    with headless_chromium(("--host-resolver-rules=MAP * ~NOTFOUND , EXCLUDE 127.0.0.1",),   # offline but for us
                           prefs={"download.default_directory": str(downloads),
                                  "download.prompt_for_download": False}) as driver:
        yield driver


def foreign_or_failed(driver: Any, origin: str) -> list[str]:
    """Resources the page loaded from another origin, or that answered an error status."""
    entries = driver.execute_script(
        "return performance.getEntriesByType('resource').concat(performance.getEntriesByType('navigation'))"
        ".map(e => [e.name, e.responseStatus || 0])")
    return [f"{name} ({code})" for name, code in entries
            if not (name.startswith((origin + "/", "data:", "blob:"))) or code >= 400]


def wait_for(driver: Any, script: str, seconds: float = 30) -> Any:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        found = driver.execute_script(script)
        if found:
            return found
        time.sleep(0.05)
    pytest.fail(f"timed out after {seconds} s waiting for: {script}")


def open_play(driver: Any, url: str) -> None:
    console_errors(driver)
    driver.get(f"{url}/play")
    wait_for(driver, "return document.body.dataset.ready === 'true'")


def choose(driver: Any, select_id: str, value: str) -> None:
    from selenium.webdriver.support.ui import Select

    Select(driver.find_element("id", select_id)).select_by_value(value)


def start_game(driver: Any, ruleset: str, scenario: str, mode: str, captain: str, seed: int) -> None:
    choose(driver, "ruleset", ruleset)
    wait_for(driver, f"return document.getElementById('scenario').options[0] && "
                     f"document.querySelector('#captain option[value=\"{captain}\"]') !== null")
    choose(driver, "scenario", scenario)
    wait_for(driver, "return document.getElementById('side').options.length > 0")
    choose(driver, "mode", mode)
    choose(driver, "captain", captain)
    choose(driver, "pace", "0")
    seed_box = driver.find_element("id", "seed")
    seed_box.clear()
    seed_box.send_keys(str(seed))
    driver.find_element("id", "start").click()


STATE = """
const r = document.getElementById('result'), d = document.getElementById('decision'),
      e = document.getElementById('error');
if (!e.hidden) return 'error: ' + e.textContent;
if (!r.hidden) return 'over';
if (!d.hidden) return 'decide:' + document.getElementById('turn').textContent;
return '';
"""


def game_of(driver: Any, url: str) -> dict[str, Any]:
    """The server's own view of the game the page plays (its id is in the page's requests)."""
    ids = driver.execute_script(
        "return performance.getEntriesByType('resource').map(e => e.name)"
        ".filter(n => /\\/v1\\/games\\/[^/]+\\/(moves|captain-moves)/.test(n))"
        ".map(n => n.split('/v1/games/')[1].split('/')[0])")
    assert ids, "the page made no move through /v1/games/{id}/moves or captain-moves"
    return dict(httpx.get(f"{url}/v1/games/{ids[-1]}").json())


def banner_for(game: dict[str, Any], you: str | None, captains: dict[str, str]) -> str:
    if game["winner"] is None:
        return "Game over: Draw"
    who = f"{game['winner']} (you)" if game["winner"] == you else f"{game['winner']} ({captains[game['winner']]})"
    return f"Game over: {who} wins in round {game['round']}."


def click(driver: Any, element: Any) -> None:
    """Click as a person does: scrolled to the middle of its list first (the options scroll in their box)."""
    driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", element)
    element.click()


def play_by_clicks(driver: Any, rng: random.Random) -> int:
    """Make every decision by clicking: one option per part of the move, then 'Make move'."""
    decisions = 0
    while decisions < MAX_DECISIONS:
        state = wait_for(driver, f"return (function () {{ {STATE} }})()", 60)
        assert not state.startswith("error"), state
        if state == "over":
            return decisions
        assert "your decision" in state
        for part in driver.find_elements("css selector", "#components .component"):
            options = part.find_elements("css selector", ".option")
            click(driver, rng.choice(options))
        marker = driver.execute_script("return document.getElementById('log').children.length")
        driver.find_element("id", "submit-move").click()
        wait_for(driver, f"return document.getElementById('log').children.length > {marker} || "
                         "!document.getElementById('error').hidden")
        decisions += 1
    pytest.fail(f"no result after {MAX_DECISIONS} decisions")


def play_by_keys(driver: Any, rng: random.Random) -> int:
    """Make every decision with the keyboard only: an option's number per part of the move, then Enter."""
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.keys import Keys

    decisions = 0
    while decisions < MAX_DECISIONS:
        state = wait_for(driver, f"return (function () {{ {STATE} }})()", 60)
        assert not state.startswith("error"), state
        if state == "over":
            return decisions
        parts = driver.find_elements("css selector", "#components .component")
        chosen = []
        for part in parts:
            count = len(part.find_elements("css selector", ".option"))
            number = rng.randint(1, min(count, 9))
            ActionChains(driver).send_keys(str(number)).perform()
            chosen.append((part.get_attribute("data-component"), number))
        for component, number in chosen:   # each number chose the option it names, part after part
            pressed = driver.find_element(
                "css selector", f'#components .option[data-component="{component}"][data-number="{number}"]')
            assert pressed.get_attribute("aria-pressed") == "true"
        marker = driver.execute_script("return document.getElementById('log').children.length")
        ActionChains(driver).send_keys(Keys.ENTER).perform()
        wait_for(driver, f"return document.getElementById('log').children.length > {marker} || "
                         "!document.getElementById('error').hidden")
        decisions += 1
    pytest.fail(f"no result after {MAX_DECISIONS} decisions")


@pytest.mark.parametrize("ruleset", list(GAMES))
def test_a_whole_game_is_played_in_the_page(browser: Any, server: str, ruleset: str) -> None:
    scenario, captain, seed = GAMES[ruleset]
    open_play(browser, server)
    start_game(browser, ruleset, scenario, "play", captain, seed)
    side = browser.execute_script("return document.getElementById('side').value")
    rng = random.Random(seed)
    made = play_by_keys(browser, rng) if ruleset == KEYBOARD else play_by_clicks(browser, rng)
    assert made > 0
    game = game_of(browser, server)
    assert game["over"] and game["ruleset"] == ruleset and game["seed"] == seed and game["scenario"] == scenario
    banner = browser.find_element("id", "result")
    assert banner.is_displayed()
    other = next(s for s in game["sides"] if s != side)
    assert banner.text.startswith(banner_for(game, side, {side: "you", other: captain}))
    assert browser.find_element("css selector", "#board svg .result").text.startswith(
        f"{game['winner']} wins" if game["winner"] else "draw")
    log = browser.find_elements("css selector", "#log > li.mine")
    assert len(log) == made
    dice = [line.text for line in browser.find_elements("css selector", "#log .dice")]
    assert dice and all(len(line) > 20 and "undefined" not in line and "NaN" not in line for line in dice)
    SHOTS.mkdir(parents=True, exist_ok=True)
    browser.execute_script("window.scrollTo(0, 0)")
    assert browser.save_screenshot(str(SHOTS / f"{ruleset}.png"))
    assert console_errors(browser) == []
    assert foreign_or_failed(browser, server) == []


def test_hovering_a_maneuver_lays_a_ghost_where_it_ends(browser: Any, server: str) -> None:
    from selenium.webdriver.common.action_chains import ActionChains

    open_play(browser, server)
    wait_for(browser, "return document.querySelector('#setup-board svg') !== null")
    browser.execute_script("const seed = document.getElementById('seed'); seed.value = '7';"   # the same picture
                           "seed.dispatchEvent(new Event('input'))")                               # every run
    wait_for(browser, "return document.getElementById('setup-board').dataset.seed === '7'")
    SHOTS.mkdir(parents=True, exist_ok=True)
    assert browser.save_screenshot(str(SHOTS / "setup.png"))
    start_game(browser, "pantheon", "duel", "play", "gunner", 4)
    wait_for(browser, "return !document.getElementById('decision').hidden")
    ahead = browser.find_element("css selector", '#components .option[data-label="ahead 3"]')
    ActionChains(browser).move_to_element(ahead).perform()
    wait_for(browser, "return document.querySelector('#board svg g.ghost .ship') !== null")
    caption = browser.find_element("id", "preview-caption").text
    assert "ahead 3" in caption and "moves 3/" in caption and "fixed before any die" in caption
    SHOTS.mkdir(parents=True, exist_ok=True)
    assert browser.save_screenshot(str(SHOTS / "preview.png"))
    # the ghost stands where the server's preview says the ship ends
    game = game_of_setup(browser, server)
    preview = httpx.post(f"{server}/v1/rulesets/pantheon/preview",
                         json={"position": game["position"], "move": {"maneuver": "ahead 3"}}).json()
    ghost = browser.execute_script("return document.querySelector('#board svg g.ghost .ship').getAttribute('points')")
    assert f'points="{ghost}"' in preview["picture"]
    assert ghost != browser.execute_script(
        "return document.querySelector('#board svg > .ship[data-ref=\"' + arguments[0] + '\"]').getAttribute('points')",
        game["to_move"])
    ActionChains(browser).move_to_element(browser.find_element("tag name", "h1")).perform()   # away: hold stays
    wait_for(browser, "return document.querySelector('#board svg g.ghost') === null")
    assert console_errors(browser) == []


def game_of_setup(driver: Any, url: str) -> dict[str, Any]:
    ids = driver.execute_script(
        "return performance.getEntriesByType('resource').map(e => e.name)"
        ".filter(n => /\\/v1\\/games\\/[^/]+\\/options/.test(n)).map(n => n.split('/v1/games/')[1].split('/')[0])")
    return dict(httpx.get(f"{url}/v1/games/{ids[-1]}").json())


def test_watch_mode_pauses_steps_and_opens_the_replay_viewer(browser: Any, server: str, downloads: Path) -> None:
    open_play(browser, server)
    start_game(browser, "pursuit", "duel", "watch", "gunner", 5)
    choose(browser, "watch-pace", "300")
    wait_for(browser, "return document.querySelectorAll('#log > li.theirs').length >= 2")
    browser.find_element("id", "pause").click()
    time.sleep(0.5)
    paused = browser.execute_script("return document.querySelectorAll('#log > li').length")
    time.sleep(1.0)
    assert browser.execute_script("return document.querySelectorAll('#log > li').length") == paused
    SHOTS.mkdir(parents=True, exist_ok=True)
    assert browser.save_screenshot(str(SHOTS / "watch.png"))
    browser.find_element("id", "step").click()
    wait_for(browser, f"return document.querySelectorAll('#log > li').length === {paused + 1}")
    time.sleep(0.8)
    assert browser.execute_script("return document.querySelectorAll('#log > li').length") == paused + 1
    choose(browser, "watch-pace", "0")
    browser.find_element("id", "pause").click()
    wait_for(browser, "return !document.getElementById('result').hidden", 90)
    # the replay the page downloads and the one the viewer shows are the game the server played
    game = game_of(browser, server)
    browser.find_element("id", "download-replay").click()
    saved = downloads / "pursuit-duel-5.jsonl"
    deadline = time.monotonic() + 30
    while not saved.exists() and time.monotonic() < deadline:
        time.sleep(0.1)
    finished = replay_game(load_replay(saved))
    assert finished.is_over and (finished.winner, finished.round) == (game["winner"], game["round"])
    assert load_replay(saved).header.captains == {"red": "gunner", "blue": "easy"}
    browser.find_element("id", "open-viewer").click()
    deadline = time.monotonic() + 30
    while len(browser.window_handles) < 2 and time.monotonic() < deadline:
        time.sleep(0.1)
    main = browser.current_window_handle
    viewer = next(h for h in browser.window_handles if h != main)
    browser.switch_to.window(viewer)
    try:
        wait_for(browser, "return document.getElementById('result') !== null")
        data = json.loads(browser.execute_script("return document.getElementById('replay-data').textContent"))
        assert len(data["frames"]) == game["decisions"] + 1
        winner = game["winner"]
        captains = {"red": "gunner", "blue": "easy"}
        assert data["result"].startswith(f"{winner} ({captains[winner]}) wins" if winner else "draw")
        assert console_errors(browser) == []
    finally:
        browser.close()
        browser.switch_to.window(main)


def test_a_fleet_decides_ship_by_ship_with_the_acting_ship_ringed(browser: Any, server: str) -> None:
    open_play(browser, server)
    start_game(browser, "pantheon", "squadron", "play", "gunner", 1)
    seen = set()
    for _ in range(6):
        wait_for(browser, "return !document.getElementById('decision').hidden")
        turn = browser.find_element("id", "turn").text
        seat = turn.split("your decision: ", 1)[1].split(" ", 1)[0]
        assert "of the red fleet" in turn
        ringed = browser.execute_script(
            "return [...document.querySelectorAll('#board svg .to-move')].map(e => e.getAttribute('data-ref'))")
        assert ringed == [seat]
        seen.add(seat)
        marker = browser.execute_script("return document.getElementById('log').children.length")
        browser.find_element("id", "submit-move").click()
        wait_for(browser, f"return document.getElementById('log').children.length > {marker}")
    assert len(seen) > 1          # more than one ship of the fleet was asked
    assert console_errors(browser) == []


def test_docs_render_offline(browser: Any, server: str) -> None:
    console_errors(browser)
    browser.get(f"{server}/docs")
    wait_for(browser, "return document.querySelectorAll('.opblock').length > 5", 60)
    text = browser.find_element("css selector", ".swagger-ui").text
    assert "naval-tactics captain server" in text and "/v1/games/{game_id}/moves" in text
    assert "/v1/rulesets/{ruleset_id}/preview" in text
    assert foreign_or_failed(browser, server) == []
    assert console_errors(browser) == []


def test_the_checks_see_a_request_to_another_host(browser: Any, server: str, tmp_path: Path) -> None:
    """The checks above can fail: a script from another host is seen as foreign, and its failure as an error."""
    browser.get(f"{server}/play")
    console_errors(browser)
    browser.execute_script("const s = document.createElement('script'); s.src = 'https://cdn.example.com/x.js';"
                           "document.head.appendChild(s);")
    seen: list[dict[str, Any]] = []
    deadline = time.monotonic() + 15                 # the failed request is logged whenever DNS gives up
    while not any("cdn.example.com" in entry["message"] for entry in seen) and time.monotonic() < deadline:
        seen += console_errors(browser)
    assert any("cdn.example.com" in name for name in foreign_or_failed(browser, server))
    assert any("cdn.example.com" in entry["message"] for entry in seen)
