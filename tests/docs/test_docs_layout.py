"""docs/layout.md lists every docs page and every bench script, so a new one cannot go unlisted."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
LAYOUT = (ROOT / "docs" / "layout.md").read_text(encoding="utf-8")


def test_every_docs_page_is_listed() -> None:
    pages = sorted(p.name for p in (ROOT / "docs").glob("*.md") if p.name != "layout.md")
    assert pages, "no docs pages found"
    missing = [name for name in pages if f"docs/{name}" not in LAYOUT]
    assert not missing, f"docs/layout.md does not list {missing}"


def test_every_bench_script_is_listed() -> None:
    listed = re.search(r"^bench/\s+(.*?)(?=^\S)", LAYOUT, flags=re.MULTILINE | re.DOTALL)
    assert listed, "docs/layout.md has no bench/ line"
    names = set(re.findall(r"[a-z_]+", listed.group(1)))
    scripts = sorted(p.stem for p in (ROOT / "bench").glob("*.py") if not p.stem.startswith("_"))
    assert scripts, "no bench scripts found"
    missing = [stem for stem in scripts if stem not in names]
    assert not missing, f"docs/layout.md's bench/ line does not list {missing}"
