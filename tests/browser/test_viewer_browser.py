"""The replay page in a real headless browser: Debian's ``chromium`` driven by Selenium through
Debian's ``chromium-driver`` (both from apt; Selenium never downloads a browser or a driver here).

Per ruleset, a real game is played, written as a replay and as its page; the page must load without
console errors, step forward when asked, play, and show the game's result on its last frame. A
screenshot of each last frame is kept in the test's tmp dir (``pytest --basetemp DIR`` to choose it).
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from naval_agents.evaluation.replay import load_replay
from naval_tactics.viewer import replay_to_html
from tests.chromium import console_errors, headless_chromium
from tests.helpers import played_replay

pytestmark = pytest.mark.browser

RULESETS = ["pantheon", "crew_phase", "flotilla", "broadside", "pursuit"]


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    with headless_chromium() as driver:
        yield driver


def frame_of(driver: Any) -> int:
    return int(driver.find_element("id", "board").get_attribute("data-frame"))


def board_svg(driver: Any) -> str:
    return str(driver.execute_script("return document.querySelector('#board svg').outerHTML"))


@pytest.mark.parametrize("ruleset", RULESETS)
def test_replay_page_steps_plays_and_ends_on_the_result(browser: Any, ruleset: str, tmp_path: Path) -> None:
    replay_path = played_replay(ruleset, tmp_path, seed=5)
    replay = load_replay(replay_path)
    page = replay_to_html(replay_path, tmp_path / f"{ruleset}.html")
    console_errors(browser)                                      # drain what an earlier page left
    browser.get(page.resolve().as_uri())
    assert console_errors(browser) == []
    decisions = len(replay.decisions)
    assert frame_of(browser) == 0
    assert browser.find_element("id", "slider").get_attribute("max") == str(decisions)
    assert not browser.find_element("id", "result").is_displayed()
    first = board_svg(browser)
    assert 'class="ship"' in first and f"{ruleset} \u00b7" in first

    # step forward until the board changes; the slider and the log follow
    for step in range(1, decisions + 1):
        browser.find_element("id", "next").click()
        assert frame_of(browser) == step
        if board_svg(browser) != first:
            break
    else:
        pytest.fail("stepping through the whole game never changed the board")
    assert browser.find_element("id", "slider").get_attribute("value") == str(step)
    current = browser.find_element("css selector", "#log li.current")
    assert current.text.startswith(f"{step}. {replay.decisions[step - 1].agent}")
    browser.find_element("id", "prev").click()
    assert frame_of(browser) == step - 1

    # play runs on by itself, pause stops it
    browser.execute_script("document.getElementById('speed').value = '250'")
    browser.find_element("id", "play").click()
    deadline = time.monotonic() + 10
    while frame_of(browser) < step + 1 and time.monotonic() < deadline:
        time.sleep(0.1)
    browser.find_element("id", "play").click()
    paused = frame_of(browser)
    assert paused >= min(step + 1, decisions)
    time.sleep(0.6)
    assert frame_of(browser) == paused

    # the last frame shows the result, on the page and on the board
    browser.find_element("id", "last").click()
    assert frame_of(browser) == decisions
    result = browser.find_element("id", "result")
    winner, captain = replay.result.winner, replay.result.winner_captain
    expected = f"{winner} ({captain}) wins in round {replay.result.rounds}" if winner else "draw"
    assert result.is_displayed() and expected in result.text
    banner = browser.find_element("css selector", "#board svg .result").text
    assert banner.startswith(f"{winner} wins" if winner else "draw")
    assert browser.find_element("css selector", "#log li.current").text.startswith(f"{decisions}. ")
    shot = tmp_path / f"{ruleset}-last-frame.png"
    assert browser.save_screenshot(str(shot))
    assert shot.stat().st_size > 20_000
    assert console_errors(browser) == []


def test_the_console_check_sees_an_error(browser: Any, tmp_path: Path) -> None:
    """The check above can fail: a page whose script throws shows up as an error."""
    page = tmp_path / "broken.html"
    page.write_text("<!DOCTYPE html><html><body><script>undefinedFunction();</script></body></html>")
    console_errors(browser)
    browser.get(page.resolve().as_uri())
    found = console_errors(browser)
    assert found and "undefinedFunction" in json.dumps(found)
