"""Config values pydantic would let through by default: NaN and infinite numbers, booleans read as
numbers, and files that are not UTF-8. Every ruleset's config is refused the same way, naming file and field."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from naval_env.core.config import BUNDLED_CONFIGS
from naval_env.core.errors import ConfigError
from naval_env.core.ruleset import get_ruleset, ruleset_ids


def refusal(tmp_path: Path, ruleset_id: str, change) -> str:
    data = yaml.safe_load((BUNDLED_CONFIGS / "rulesets" / f"{ruleset_id}.yaml").read_text(encoding="utf-8"))
    change(data)
    path = tmp_path / f"{ruleset_id}.yaml"
    path.write_text(yaml.safe_dump(data), encoding="utf-8")
    with pytest.raises(ConfigError) as error:
        get_ruleset(ruleset_id).load_config(path)
    message = str(error.value)
    assert message.startswith(f"{path}: invalid config")
    return message


@pytest.mark.parametrize("ruleset_id", ruleset_ids())
def test_rewards_must_be_finite(ruleset_id, tmp_path):
    message = refusal(tmp_path, ruleset_id, lambda d: d.setdefault("rewards", {}).update(
        win=float("nan"), loss=float("-inf"), damage_dealt=float("inf")))
    for field, value in (("win", "nan"), ("loss", "-inf"), ("damage_dealt", "inf")):
        assert f"field 'rewards.{field}': Input should be a finite number (got {value})" in message


@pytest.mark.parametrize("ruleset_id", ruleset_ids())
def test_a_boolean_is_not_read_as_a_number(ruleset_id, tmp_path):
    message = refusal(tmp_path, ruleset_id, lambda d: (d["house_rules"].update(max_rounds=True),
                                                      d.setdefault("rewards", {}).update(draw=False)))
    expected = "a boolean where a number is expected; write the number (1 or 0), not true or false"
    assert f"field 'house_rules.max_rounds': Value error, {expected} (got True)" in message
    assert f"field 'rewards.draw': Value error, {expected} (got False)" in message


def test_hull_true_is_refused_not_loaded_as_hull_1(tmp_path):
    message = refusal(tmp_path, "broadside", lambda d: d["vessels"]["galley"].update(hull=True))
    assert "field 'vessels.galley.hull': Value error, a boolean where a number is expected" in message


def test_booleans_inside_lists_and_maps_of_numbers_are_refused(tmp_path):
    def board(d):
        d["scenarios"]["duel"]["board"] = [True, 12]

    assert "field 'scenarios.duel.board': Value error, a boolean where a number" in refusal(tmp_path, "pantheon", board)

    def upgrade(d):
        d["scenarios"]["duel"]["sides"][0]["ships"][0]["upgrades"]["armour"] = True

    assert ("field 'scenarios.duel.sides.0.ships.0.upgrades': Value error, a boolean where a number"
            in refusal(tmp_path, "flotilla", upgrade))


@pytest.mark.parametrize(("ruleset_id", "path"), [
    ("broadside", ("vessels", "galley", "oars")), ("crew_phase", ("house_rules", "critical_hits")),
    ("flotilla", ("house_rules", "captains_choose_facing")), ("pursuit", ("ship_classes", "galley", "needs_captain")),
])
def test_booleans_still_load_where_the_field_is_a_boolean(ruleset_id, path):
    value = get_ruleset(ruleset_id).load_config()
    for key in path:
        value = value[key] if isinstance(value, dict) else getattr(value, key)
    assert value is True


@pytest.mark.parametrize("ruleset_id", ruleset_ids())
def test_a_file_that_is_not_utf8_is_refused_naming_it(ruleset_id, tmp_path):
    path = tmp_path / "latin1.yaml"
    path.write_bytes("# capitán\n".encode("latin-1") + f"ruleset: {ruleset_id}\n".encode())
    with pytest.raises(ConfigError, match=r"latin1\.yaml: not UTF-8 text \(byte 7: b'\\xe1'\); save the file as UTF-8"):
        get_ruleset(ruleset_id).load_config(path)
