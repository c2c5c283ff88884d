"""Generated blocks in hand-written markdown pages: the text between a start and an end marker is the
generator's, the rest the author's, so a command can rewrite its numbers on a page without touching prose."""

from __future__ import annotations

from pathlib import Path

#: The rules pages of a source checkout (absent from an installed wheel, where there is no page to rewrite).
RULES_DIR = Path(__file__).resolve().parents[1] / "docs" / "rules"


class PageBlockError(ValueError):
    """A page whose markers are broken (one missing, repeated or out of order)."""


def with_block(page: str, block: str, start: str, end: str, section: str, *, replace_section: bool = False) -> str:
    """``page`` with the text from ``start`` to ``end`` (markers included; ``block`` carries its own) replaced by
    ``block``. A page with no markers yet gets ``block`` in its ``section`` (a heading line): at the section's
    end, or, with ``replace_section``, in place of the section's body; a page without the section gets the
    section and the block at its end."""
    starts, ends = page.count(start), page.count(end)
    if (starts, ends) == (1, 1) and page.index(start) < page.index(end):
        head, _, rest = page.partition(start)
        return head + block + rest.partition(end)[2]
    if starts or ends:
        raise PageBlockError(f"the page has {starts} {start} and {ends} {end} marker(s); it needs one of each, in "
                             "that order, or none")
    if section not in page:
        return page.rstrip("\n") + f"\n\n{section}\n\n{block}\n"
    head, _, rest = page.partition(section)
    at = rest.find("\n## ")
    body, tail = (rest, "") if at < 0 else (rest[:at], rest[at:])
    kept = "" if replace_section else body.rstrip("\n")
    return head + section + kept + f"\n\n{block}\n" + ("\n" + tail.lstrip("\n") if tail else "")
