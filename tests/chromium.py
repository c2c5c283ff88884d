"""Headless Debian chromium for the browser tests (the replay viewer's and /play's)."""

from __future__ import annotations

import shutil
import time
import uuid
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from typing import Any

import pytest

CHROMIUM, CHROMEDRIVER = "/usr/bin/chromium", "/usr/bin/chromedriver"
SETUP = ("the browser test needs Debian's chromium and chromium-driver (apt-get install chromium "
         "chromium-driver) and the selenium package (pip install selenium)")


@contextmanager
def headless_chromium(arguments: tuple[str, ...] = (), prefs: Mapping[str, Any] | None = None) -> Iterator[Any]:
    """A chromium WebDriver that keeps the console log; fails the test (never skips) when chromium is missing."""
    missing = [path for path in (CHROMIUM, CHROMEDRIVER) if shutil.which(path) is None]
    if missing:
        pytest.fail(f"{', '.join(missing)} not found: {SETUP}")
    try:
        from selenium import webdriver
        from selenium.webdriver.chrome.service import Service
    except ImportError:
        pytest.fail(f"selenium is not installed: {SETUP}")
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for argument in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu",
                     "--window-size=1500,1000", "--disable-extensions", *arguments):
        options.add_argument(argument)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    if prefs:
        options.add_experimental_option("prefs", dict(prefs))
    driver = webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)
    driver.set_page_load_timeout(60)
    try:
        yield driver
    finally:
        driver.quit()


def console_errors(driver: Any, timeout: float = 15.0) -> list[dict[str, Any]]:
    """Console messages at error level since the last call, the log drained.

    Chromium hands log entries to the driver asynchronously, so a read right after a page loads can
    come back empty although the page's script has already thrown. A marker logged now comes after
    everything the page logged before it; reading until the marker arrives makes "no errors" mean none
    and "an error" mean it is seen, however loaded the machine.
    """
    marker = f"console-check-{uuid.uuid4().hex}"
    driver.execute_script("console.error(arguments[0]);", marker)
    found: list[dict[str, Any]] = []
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        entries = [entry for entry in driver.get_log("browser") if entry["level"] == "SEVERE"]
        if any(marker in entry["message"] for entry in entries):
            return found + [entry for entry in entries if marker not in entry["message"]]
        found += entries
        time.sleep(0.05)
    pytest.fail(f"the browser's console log did not deliver a marker within {timeout} s")
