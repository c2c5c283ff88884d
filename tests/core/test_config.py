"""Config files are validated on load; a bad one is refused naming file, field and what is allowed."""

from pathlib import Path

import pytest
import yaml

from naval_env.core.errors import ConfigError
from naval_env.rulesets.pantheon.config import DEFAULT_CONFIG, load_config


def write_variant(tmp_path: Path, change) -> Path:
    data = yaml.safe_load(DEFAULT_CONFIG.read_text())
    change(data)
    path = tmp_path / "pantheon.yaml"
    path.write_text(yaml.safe_dump(data))
    return path


def refusal(tmp_path: Path, change) -> str:
    path = write_variant(tmp_path, change)
    with pytest.raises(ConfigError) as error:
        load_config(path)
    message = str(error.value)
    assert str(path) in message
    return message


def test_default_config_loads_with_six_vessels():
    config = load_config()
    assert sorted(config.vessels) == ["bireme", "hemiolia", "merchantman", "penteconter", "quinquereme", "trireme"]
    assert config.default_scenario in config.scenarios


def test_unknown_key_lists_allowed_keys(tmp_path):
    message = refusal(tmp_path, lambda d: d["vessels"]["trireme"].update(sped=3))
    assert "vessels.trireme.sped" in message
    assert "allowed keys here:" in message and "speed" in message


def test_bad_choice_names_allowed_values(tmp_path):
    message = refusal(tmp_path, lambda d: d["house_rules"].update(test_resolution="coin_flip"))
    assert "house_rules.test_resolution" in message
    assert "'opposed_d10'" in message and "'rock_paper_scissors'" in message


def test_out_of_range_number(tmp_path):
    message = refusal(tmp_path, lambda d: d["vessels"]["bireme"].update(speed=0))
    assert "vessels.bireme.speed" in message and "greater than or equal to 1" in message


def test_unknown_vessel_in_scenario(tmp_path):
    message = refusal(tmp_path, lambda d: d["scenarios"]["duel"]["sides"][0]["ships"][0].update(vessel="galleon"))
    assert "unknown vessel 'galleon'" in message and "trireme" in message


def test_too_many_ships_a_side(tmp_path):
    def six_ships(d):
        d["scenarios"]["duel"]["sides"][0]["ships"] = [{"vessel": "bireme"}] * 6
    message = refusal(tmp_path, six_ships)
    assert "6 ships; at most house_rules.max_ships_per_side = 5" in message


def test_position_outside_zone(tmp_path):
    message = refusal(tmp_path, lambda d: d["scenarios"]["duel"]["sides"][0]["ships"][0].update(position=[11, 0]))
    assert "outside the zone" in message


def test_range_enhancement_only_once(tmp_path):
    message = refusal(
        tmp_path, lambda d: d["scenarios"]["duel"]["sides"][0]["ships"][0].update(enhancements=["range", "range"])
    )
    assert "'range' can be added to a ship only once" in message


def test_missing_file_and_bad_yaml(tmp_path):
    with pytest.raises(ConfigError, match="no such config file"):
        load_config(tmp_path / "missing.yaml")
    broken = tmp_path / "broken.yaml"
    broken.write_text("ruleset: [unclosed")
    with pytest.raises(ConfigError, match="not valid YAML"):
        load_config(broken)


def test_default_scenario_must_exist(tmp_path):
    message = refusal(tmp_path, lambda d: d.update(default_scenario="armada"))
    assert "default_scenario 'armada' is not a scenario" in message
