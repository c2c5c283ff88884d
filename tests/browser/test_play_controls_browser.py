"""The /play page on a new player's path (issue 44), in headless chromium as ``test_play_browser.py``: the chosen
option stays readable under the pointer, a move that takes the ship off the table is warned of in the preview,
Fair Escape is asked to confirm (and the plain "go on or escape" question is answered for the player unless
they ask for it), and the set-up board shows the start of the chosen seed."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from naval_tactics.server import ServerSettings, create_app
from naval_tactics.testing import serve_in_thread
from tests.browser.test_play_browser import SHOTS, click, open_play, start_game, wait_for
from tests.chromium import console_errors, headless_chromium

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def server() -> Iterator[str]:
    with serve_in_thread(create_app(ServerSettings()), timeout=60) as url:
        yield url


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    with headless_chromium(("--host-resolver-rules=MAP * ~NOTFOUND , EXCLUDE 127.0.0.1",)) as driver:
        yield driver


DECISION = "return !document.getElementById('decision').hidden"


def _luminance(css: str) -> float:
    r, g, b = (int(v) / 255 for v in re.findall(r"\d+", css)[:3])
    lin = [c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4 for c in (r, g, b)]
    return 0.2126 * lin[0] + 0.7152 * lin[1] + 0.0722 * lin[2]


def contrast(foreground: str, background: str) -> float:
    """WCAG contrast ratio of two computed CSS colours (rgb(...) or rgba(...), opaque)."""
    a, b = sorted((_luminance(foreground), _luminance(background)), reverse=True)
    return (a + 0.05) / (b + 0.05)


def test_the_chosen_option_stays_readable_under_the_pointer(browser: Any, server: str) -> None:
    from selenium.webdriver.common.action_chains import ActionChains

    open_play(browser, server)
    start_game(browser, "pantheon", "duel", "play", "gunner", 4)
    wait_for(browser, DECISION)
    option = browser.find_element("css selector", '#components .option[data-label="ahead 3"]')
    ActionChains(browser).move_to_element(option).click().perform()   # the pointer rests on it after the click
    assert "selected" in option.get_attribute("class")
    assert browser.execute_script("return arguments[0].matches(':hover')", option)
    style = browser.execute_script("const s = getComputedStyle(arguments[0]); return [s.color, s.backgroundColor]",
                                   option)
    assert contrast(*style) >= 4.5, style
    other = browser.find_element("css selector", '#components .option[data-label="ahead 2"]')
    ActionChains(browser).move_to_element(other).perform()   # a hovered option that is not chosen: also readable
    style = browser.execute_script("const s = getComputedStyle(arguments[0]); return [s.color, s.backgroundColor]",
                                   other)
    assert contrast(*style) >= 4.5, style
    assert console_errors(browser) == []


def test_the_preview_warns_when_a_move_sails_off_the_table(browser: Any, server: str) -> None:
    from selenium.webdriver.common.action_chains import ActionChains

    open_play(browser, server)
    # seed 0 of this scenario: red_0 at ramming speed, two hard turns to starboard, leaves the table
    start_game(browser, "broadside", "fleet_with_iceberg", "play", "gunner", 0)
    wait_for(browser, DECISION)
    assert browser.find_element("id", "turn").text.startswith("Round 1 · your decision: red_0")
    for component, label in (("speed", "ramming"), ("turn_1", "starboard 45")):
        browser.find_element("css selector", f'#components .option[data-component="{component}"]'
                                             f'[data-label="{label}"]').click()
    caption = browser.find_element("id", "preview-caption")
    safe = browser.find_element("css selector", '#components .option[data-component="turn_2"][data-label="straight"]')
    ActionChains(browser).move_to_element(safe).perform()
    wait_for(browser, "return document.getElementById('preview-caption').textContent.includes('\u201cstraight\u201d')")
    assert "Warning" not in caption.text and "warn" not in caption.get_attribute("class")
    off = browser.find_element("css selector", '#components .option[data-component="turn_2"][data-label="starboard 30"]')
    ActionChains(browser).move_to_element(off).perform()
    wait_for(browser, "return document.getElementById('preview-caption').textContent.includes('starboard 30')")
    assert caption.text.startswith("⚠ Warning: red_0 has fled off the table."), caption.text
    assert "warn" in caption.get_attribute("class")
    SHOTS.mkdir(parents=True, exist_ok=True)
    assert browser.save_screenshot(str(SHOTS / "off-table-warning.png"))
    assert console_errors(browser) == []


def _make_plain_moves_until(browser: Any, script: str, limit: int = 40) -> None:
    """Make the no-op move (every part as offered) at each decision until ``script`` holds."""
    for _ in range(limit):
        state = wait_for(browser, f"return ({script}) ? 'there' : (!document.getElementById('decision').hidden && "
                                  "document.getElementById('turn').textContent.includes('your decision') "
                                  "? 'decide' : '')", 60)
        if state == "there":
            return
        marker = browser.execute_script("return document.getElementById('log').children.length")
        click(browser, browser.find_element("id", "submit-move"))
        wait_for(browser, f"return document.getElementById('log').children.length > {marker}")
    raise AssertionError(f"not reached in {limit} decisions: {script}")


def test_fair_escape_is_folded_away_unless_asked_and_then_needs_a_confirmation(browser: Any, server: str) -> None:
    open_play(browser, server)
    # seed 0: red_0 stands on the edge unattacked from its third turn, so Fair Escape opens to it
    start_game(browser, "pantheon", "duel", "play", "gunner", 0)
    _make_plain_moves_until(browser, "document.querySelector('#log > li.auto') !== null")
    folded = browser.find_element("css selector", "#log > li.auto").text
    assert "red_0 could leave the battle by Fair Escape; it sails on" in folded and "turn_order: proceed" in folded
    setting = browser.find_element("id", "escape-setting")
    assert setting.is_displayed()
    browser.find_element("id", "ask-escape").click()

    browser.find_element("id", "new-game").click()
    wait_for(browser, "return !document.getElementById('setup').hidden")
    start_game(browser, "pantheon", "duel", "play", "gunner", 0)
    _make_plain_moves_until(browser, "document.querySelector('#components .option[data-label=\"fair_escape\"]')")
    escape = browser.find_element("css selector", '#components .option[data-label="fair_escape"]')
    assert "in a duel: you lose" in escape.get_attribute("title")
    escape.click()
    browser.find_element("id", "submit-move").click()
    confirm = browser.find_element("id", "confirm")
    assert confirm.is_displayed()
    assert browser.find_element("id", "confirm-text").text == (
        "Fair Escape: red_0 leaves the battle for good and counts as lost. It is your last ship: you lose the game.")
    SHOTS.mkdir(parents=True, exist_ok=True)
    assert browser.save_screenshot(str(SHOTS / "fair-escape.png"))
    marker = browser.execute_script("return document.getElementById('log').children.length")
    browser.find_element("id", "confirm-stay").click()   # not yet: nothing was sent
    assert not confirm.is_displayed()
    assert browser.execute_script("return document.getElementById('log').children.length") == marker
    browser.find_element("id", "submit-move").click()
    browser.find_element("id", "confirm-leave").click()
    wait_for(browser, "return !document.getElementById('result').hidden")
    assert browser.find_element("id", "result").text.startswith("Game over: blue (gunner) wins")
    assert console_errors(browser) == []


def _ship_points(browser: Any, board: str) -> list[str]:
    return list(browser.execute_script(
        f"return [...document.querySelectorAll('#{board} svg > .ship[data-ref]')].map(e => e.getAttribute('data-ref') "
        "+ ' ' + (e.getAttribute('points') || e.getAttribute('cx') + ',' + e.getAttribute('cy')))"))


def test_the_set_up_board_shows_the_chosen_seeds_start(browser: Any, server: str) -> None:
    from selenium.webdriver.support.ui import Select

    open_play(browser, server)
    Select(browser.find_element("id", "ruleset")).select_by_value("pantheon")
    wait_for(browser, "return document.getElementById('scenario').value === 'duel'")
    seed = browser.find_element("id", "seed")
    shown = []
    for value in ("0", "7"):
        seed.clear()
        seed.send_keys(value)
        wait_for(browser, f"return document.getElementById('setup-board').dataset.seed === '{value}'")
        shown.append(_ship_points(browser, "setup-board"))
        game = httpx.post(f"{server}/v1/games", json={"ruleset": "pantheon", "scenario": "duel", "seed": int(value)})
        svg = httpx.post(f"{server}/v1/rulesets/pantheon/picture", json={"position": game.json()["position"]}).text
        for ship in shown[-1]:   # each ship where the server draws that seed's start
            ref, points = ship.split(" ", 1)
            assert f'points="{points}"' in svg and f'data-ref="{ref}"' in svg, ship
    assert shown[0] != shown[1]
    browser.find_element("id", "start").click()   # and the game starts where the set-up board showed
    wait_for(browser, DECISION)   # the first decision of the new game: its board is drawn
    assert browser.find_element("id", "status").text.endswith("seed 7")
    assert _ship_points(browser, "board") == shown[1]
    assert console_errors(browser) == []
