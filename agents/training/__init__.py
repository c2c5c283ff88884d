"""Training MaskablePPO captains on any registered ruleset (used by train.py)."""
