"""Building and reporting the captain zoo (pipelines): training a ruleset's zoo captain (``build.py``), its
value network (``value_build.py``), the difficulty ladder and its anchors (``ladder.py``, ``anchors.py``),
the cards and the report (``card.py``, ``report.py``, ``report_card.py``).

What ships and plays, the captains' files and the levels, is the run-time package
:mod:`naval_agents.captains.zoo`.
"""
