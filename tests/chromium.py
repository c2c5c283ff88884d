"""Headless Debian chromium for the browser tests (the replay viewer's and /play's)."""

from __future__ import annotations

import shutil
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
