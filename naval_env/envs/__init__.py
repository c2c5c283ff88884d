"""Gymnasium and PettingZoo environments over any registered ruleset."""
