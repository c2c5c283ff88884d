"""Action specs: the flat mask layout, sampling and refusal messages."""

import numpy as np
import pytest

from naval_env.core.errors import IllegalActionError
from naval_env.core.spaces import ActionComponent, ActionSpec, ObservationField, ObservationSpec

SPEC = ActionSpec((
    ActionComponent("move", ("hold", "ahead", "turn")),
    ActionComponent("attack", ("none", "ram", "fire", "board")),
))


def mask_of(*allowed: tuple[int, int]) -> np.ndarray:
    mask = np.zeros(SPEC.flat_size, dtype=bool)
    for component, value in allowed:
        mask[SPEC.offsets[component] + value] = True
    return mask


def test_layout_is_components_one_after_another():
    assert SPEC.flat_size == 7
    assert SPEC.offsets == (0, 3)
    assert SPEC.nvec.tolist() == [3, 4]
    assert SPEC.noop_mask().tolist() == [True, False, False, True, False, False, False]


def test_check_accepts_allowed_and_names_the_forbidden_component():
    mask = mask_of((0, 0), (0, 1), (1, 0), (1, 2))
    assert SPEC.check([1, 2], mask).tolist() == [1, 2]
    with pytest.raises(IllegalActionError) as error:
        SPEC.check([1, 1], mask, context="in phase ATTACK")
    message = str(error.value)
    assert "'attack'" in message and "value 1 (ram)" in message and "in phase ATTACK" in message
    assert "0=none, 2=fire" in message


@pytest.mark.parametrize("action,expected", [
    ([0], "expected (2,)"),
    ([0, 9], "out of range 0..3"),
    ([0.5, 0], "must hold integers"),
    (["a", 0], "must hold integers"),
])
def test_check_refuses_malformed_actions(action, expected):
    with pytest.raises(IllegalActionError, match=expected.replace("(", r"\(").replace(")", r"\)")):
        SPEC.check(action, np.ones(SPEC.flat_size, dtype=bool))


def test_sample_draws_only_allowed_values_uniformly():
    mask = mask_of((0, 0), (0, 2), (1, 1), (1, 2), (1, 3))
    rng = np.random.default_rng(0)
    draws = np.array([SPEC.sample(mask, rng) for _ in range(6000)])
    assert set(draws[:, 0]) == {0, 2}
    assert set(draws[:, 1]) == {1, 2, 3}
    counts = np.bincount(draws[:, 1], minlength=4)[1:]
    assert counts.min() > 1800 and counts.max() < 2200


def test_sample_refuses_a_mask_with_an_empty_component():
    with pytest.raises(ValueError, match="no value for component"):
        SPEC.sample(mask_of((0, 1)), np.random.default_rng(0))


def test_observation_spec_offsets_and_json():
    spec = ObservationSpec((ObservationField("a", 2, 1.0, "x"), ObservationField("b", 3, 0.5, "y")))
    assert spec.size == 5
    assert spec.slice("b") == slice(2, 5)
    assert spec.to_json()[1] == {"name": "b", "offset": 2, "size": 3, "scale": 0.5, "description": "y"}
    with pytest.raises(ValueError, match="duplicate"):
        ObservationSpec((ObservationField("a", 1, 1.0, ""), ObservationField("a", 1, 1.0, "")))
