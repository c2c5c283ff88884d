"""The value network the search uses as its leaf: file format, refusals, the leaf's values, the build."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from naval_agents.captains.search.evaluators import result_values
from naval_agents.captains.search.value_net import ValueFileError, ValueLeaf, ValueNet, card_path
from naval_agents.captains.zoo.catalogue import ZooError, load_zoo_value_leaf, zoo_value_path
from naval_agents.zoo.value_build import ValueData, fit, play_and_record
from naval_env.core.ruleset import get_ruleset
from naval_env.envs.match import Match


def _net(size: int = 3, seed: int = 0) -> ValueNet:
    rng = np.random.default_rng(seed)
    return ValueNet((rng.normal(size=(size, 4)).astype(np.float32), rng.normal(size=(4, 1)).astype(np.float32)),
                    (rng.normal(size=4).astype(np.float32), rng.normal(size=1).astype(np.float32)))


def test_the_forward_pass_is_tanh_layers_ending_in_tanh() -> None:
    net = _net()
    x = np.array([[0.5, -1.0, 2.0]], dtype=np.float32)
    hidden = np.tanh(x @ net.weights[0] + net.biases[0])
    expected = np.tanh(hidden @ net.weights[1] + net.biases[1])[:, 0]
    assert net(x) == pytest.approx(expected, abs=1e-6)
    assert net.observation_size == 3


def test_a_saved_net_loads_back_identically(tmp_path: Path) -> None:
    net = _net()
    path = tmp_path / "toy.value.npz"
    net.save(path, {"ruleset": "toy", "ruleset_version": "1.0"})
    card = json.loads(card_path(path).read_text())
    assert (card["layers"], card["observation_size"], card["activation"]) == (2, 3, "tanh")
    loaded = ValueNet.load(path, "toy", "1.0", 3)
    x = np.random.default_rng(1).normal(size=(5, 3)).astype(np.float32)
    assert np.array_equal(loaded(x), net(x))


@pytest.mark.parametrize(("ruleset", "version", "size", "named"), [
    ("other", "1.0", 3, "'toy' version '1.0' reading 3"),
    ("toy", "2.0", 3, "this game is 'toy' version '2.0'"),
    ("toy", "1.0", 7, "with 7"),
])
def test_a_net_for_another_game_is_refused_with_what_it_was_made_for(tmp_path: Path, ruleset: str, version: str,
                                                                      size: int, named: str) -> None:
    path = tmp_path / "toy.value.npz"
    _net().save(path, {"ruleset": "toy", "ruleset_version": "1.0"})
    with pytest.raises(ValueFileError, match="rebuild it") as caught:
        ValueNet.load(path, ruleset, version, size)
    assert named in str(caught.value)


def test_a_pickled_array_is_never_unpickled(tmp_path: Path) -> None:
    path = tmp_path / "toy.value.npz"
    _net().save(path, {"ruleset": "toy", "ruleset_version": "1.0"})
    with path.open("wb") as handle:   # the same names, but object arrays: loading them would unpickle
        np.savez(handle, weight_0=np.array([object()], dtype=object), bias_0=np.zeros(4),
                 weight_1=np.zeros((4, 1)), bias_1=np.zeros(1))
    with pytest.raises(ValueFileError, match="not a value network file"):
        ValueNet.load(path, "toy", "1.0", 3)


def test_missing_files_and_bad_shapes_are_refused(tmp_path: Path) -> None:
    with pytest.raises(ValueFileError, match="no value network"):
        ValueNet.load(tmp_path / "none.value.npz", "toy", "1.0", 3)
    with pytest.raises(ValueFileError, match="do not fit"):
        ValueNet((np.zeros((3, 4), np.float32),), (np.zeros(5, np.float32),))
    with pytest.raises(ValueFileError, match="must give one value"):
        ValueNet((np.zeros((3, 4), np.float32),), (np.zeros(4, np.float32),))
    with pytest.raises(ValueFileError, match="activation 'gelu'"):
        ValueNet((np.zeros((3, 1), np.float32),), (np.zeros(1, np.float32),), "gelu")


def _constant_net(size: int, value: float) -> ValueNet:
    return ValueNet((np.zeros((size, 1), np.float32),), (np.array([np.arctanh(value)], np.float32),))


def test_the_leaf_nets_each_sides_estimate_against_the_others() -> None:
    match = Match("pantheon", None, "duel")
    match.reset(5)
    size = match.game.observation_spec.size
    values = ValueLeaf(_constant_net(size, 0.6))(match.game)
    assert values == pytest.approx(dict.fromkeys(match.game.sides, 0.0))   # both sides think they lead: level

    class Partial(ValueNet):   # blue's ships read 0.6, red's -0.2
        def __call__(self, observations: np.ndarray) -> np.ndarray:
            return np.array([0.6 if i == 0 else -0.2 for i in range(len(observations))], np.float32)

    blue, red = match.game.sides
    values = ValueLeaf(Partial(*_constant_net(size, 0.0).__dict__.values()))(match.game)
    assert values[blue] == pytest.approx(0.4) and values[red] == pytest.approx(-0.4)


def test_a_finished_game_is_its_result() -> None:
    match = Match("pursuit", None, None)
    match.reset(2)
    game = match.game
    random = np.random.default_rng(0)
    while not game.is_over:
        agent = game.current_agent
        mask = game.legal_mask(agent)
        game.apply(agent, match.action_spec.sample(mask, random))
    assert ValueLeaf(_constant_net(game.observation_spec.size, 0.9))(game) == result_values(game)


def test_recording_is_deterministic_and_labels_each_position_with_its_sides_result() -> None:
    first = play_and_record("pursuit", 6, first_seed=11)
    again = play_and_record("pursuit", 6, first_seed=11)
    assert np.array_equal(first.observations, again.observations) and np.array_equal(first.targets, again.targets)
    assert set(np.unique(first.targets)) <= {-1.0, 0.0, 1.0}
    assert sorted(set(first.games.tolist())) == list(range(6))
    assert first.observations.shape[1] == get_ruleset("pursuit").observation_spec(
        get_ruleset("pursuit").load_config()).size


def test_the_fit_learns_a_rule_the_constant_cannot() -> None:
    rng = np.random.default_rng(0)
    observations = rng.normal(size=(4000, 6)).astype(np.float32)
    targets = np.sign(observations[:, 2]).astype(np.float32)
    data = ValueData(observations, targets, np.zeros(4000, np.float32), np.arange(4000) // 10)
    net, report = fit(data, hidden=(16,), epochs=40)
    assert report.holdout_positions == 400 and report.train_positions == 3600
    assert report.holdout_mse < report.constant_mse / 2
    assert np.mean(np.sign(net(observations[-400:])) == targets[-400:]) > 0.9


def test_the_shipped_leaf_loads_for_its_ruleset_and_refuses_another_version(tmp_path: Path) -> None:
    config = get_ruleset("pursuit").load_config()
    size = get_ruleset("pursuit").observation_spec(config).size
    assert load_zoo_value_leaf("pursuit", config, tmp_path) is None   # none here: the search keeps hull fractions
    _net(size).save(zoo_value_path("pursuit", tmp_path), {"ruleset": "pursuit", "ruleset_version": "0.1"})
    with pytest.raises(ZooError, match="value network of pursuit does not fit"):
        load_zoo_value_leaf("pursuit", config, tmp_path)


def test_the_command_builds_a_value_network_that_the_search_loads(tmp_path: Path, capsys: pytest.CaptureFixture[str]
                                                                    ) -> None:
    from naval_tactics.commands.zoo import main

    assert main(["value", "--ruleset", "pursuit", "--games", "8", "--epochs", "2", "--out", str(tmp_path)]) == 0
    said = capsys.readouterr().out
    assert "value network of pursuit" in said and "from 8 games" in said
    card = json.loads((tmp_path / "pursuit.value.json").read_text())
    assert card["command"] == "naval-tactics zoo value --ruleset pursuit --games 8 --first-seed 31000000 --epochs 2"
    leaf = load_zoo_value_leaf("pursuit", None, tmp_path)
    assert leaf is not None and leaf.net.observation_size == card["observation_size"]


def test_the_command_refuses_a_bad_count_before_playing(capsys: pytest.CaptureFixture[str]) -> None:
    from naval_tactics.commands.zoo import main

    assert main(["value", "--ruleset", "pursuit", "--games", "0"]) == 2
    assert "--games must be 1 to 100000" in capsys.readouterr().err
