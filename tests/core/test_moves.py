"""Moves by name: labels <-> integers for every legal option of real decisions of every ruleset, the
exact refusals of unknown and illegal labels, and the policy probabilities a proposal carries."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from naval_agents.captains.base import RandomCaptain
from naval_agents.captains.onnx_captain import OnnxCaptain
from naval_agents.captains.registry import make_captain, scripted_captains
from naval_env.core.game import Game
from naval_env.core.moves import MoveError, decode, decode_choices, encode, legal_options
from naval_env.core.ruleset import get_ruleset, ruleset_ids
from naval_tactics.decisions import decision_for, label_probabilities, propose
from naval_tactics.testing import export_tiny_captain

PANTHEON_COMPONENTS = ["turn_order", "maneuver", "attack", "crew_0", "crew_1", "crew_2", "crew_3",
                       "retest_on_failure", "retest_when_hit", "escape_maneuver"]


def pantheon_move_phase() -> Game:
    """red_0 to move in the MOVE phase of pantheon's duel (seed 0): only the maneuver is open."""
    ruleset = get_ruleset("pantheon")
    game = ruleset.new_game(ruleset.load_config(), "duel", seed=0)
    assert game.current_agent == "red_0"
    return game


def decisions(ruleset_id: str, seed: int, every: int = 3) -> Iterator[Game]:
    """Every ``every``-th decision of a random legal game of the default scenario."""
    ruleset = get_ruleset(ruleset_id)
    game = ruleset.new_game(ruleset.load_config(), seed=seed)
    rng = np.random.default_rng(seed)
    step = 0
    while not game.is_over:
        if step % every == 0:
            yield game
        agent = game.current_agent
        game.apply(agent, game.action_spec.sample(game.legal_mask(agent), rng))
        step += 1


# ------------------------------------------------------------------ refusals, word for word
def test_an_unknown_component_is_refused_naming_it_and_every_component() -> None:
    game = pantheon_move_phase()
    with pytest.raises(MoveError) as refused:
        encode(game.action_spec, {"sail": "ahead 1"}, game.legal_mask("red_0"))
    assert str(refused.value) == f"unknown action component 'sail'; components: {PANTHEON_COMPONENTS}"
    assert refused.value.to_json() == {"component": "sail", "label": None, "allowed": PANTHEON_COMPONENTS}


def test_an_unknown_label_is_refused_with_the_labels_allowed_now() -> None:
    game = pantheon_move_phase()
    allowed = legal_options(game)["maneuver"]
    assert allowed[:4] == ["hold", "turn port1", "turn starboard1", "turn port2"] and len(allowed) == 59
    with pytest.raises(MoveError) as refused:
        encode(game.action_spec, {"maneuver": "full sail"}, game.legal_mask("red_0"))
    assert str(refused.value) == f"component 'maneuver': unknown label 'full sail'; allowed now: {allowed}"
    assert refused.value.to_json() == {"component": "maneuver", "label": "full sail", "allowed": allowed}


def test_a_label_the_rules_forbid_now_is_refused_with_the_allowed_ones() -> None:
    game = pantheon_move_phase()
    with pytest.raises(MoveError) as refused:
        encode(game.action_spec, {"maneuver": "ahead 1", "attack": "ram@enemy0"}, game.legal_mask("red_0"))
    assert str(refused.value) == "component 'attack': 'ram@enemy0' is not allowed now; allowed now: ['none']"
    assert refused.value.to_json() == {"component": "attack", "label": "ram@enemy0", "allowed": ["none"]}
    # Without a mask only the vocabulary is checked: the same label is a valid name.
    values = encode(game.action_spec, {"attack": "ram@enemy0"})
    assert values.tolist() == [0, 0, 1, 0, 0, 0, 0, 0, 0, 0]


def test_labels_must_be_strings_and_a_move_an_object() -> None:
    game = pantheon_move_phase()
    with pytest.raises(MoveError, match=r"^component 'maneuver': unknown label 5; allowed now: \['hold', "):
        encode(game.action_spec, {"maneuver": 5}, game.legal_mask("red_0"))  # type: ignore[dict-item]
    with pytest.raises(MoveError, match=r"^a move is an object of component: label, not list$"):
        encode(game.action_spec, ["ahead 1"])  # type: ignore[arg-type]
    with pytest.raises(MoveError, match=r"does not fit the components' sizes \[3, 170, 18, 14, 14, 14, 14, 2, 2, 15\]"):
        decode(game.action_spec, [0, 170, 0, 0, 0, 0, 0, 0, 0, 0])


def test_left_out_components_take_their_no_op() -> None:
    game = pantheon_move_phase()
    values = encode(game.action_spec, {"maneuver": "ahead 3, starboard after 1"}, game.legal_mask("red_0"))
    assert values.tolist() == [0, game.action_spec.components[1].labels.index("ahead 3, starboard after 1"),
                               0, 0, 0, 0, 0, 0, 0, 0]
    assert decode_choices(game.action_spec, values) == {"maneuver": "ahead 3, starboard after 1"}
    assert decode(game.action_spec, values)["attack"] == "none"


# ------------------------------------------------------------------ every legal option, every ruleset
@pytest.mark.parametrize("ruleset_id", ruleset_ids())
def test_every_legal_label_of_real_decisions_round_trips(ruleset_id: str) -> None:
    checked = 0
    rng = np.random.default_rng(1)
    for game in (g for seed in (5, 6, 7) for g in decisions(ruleset_id, seed, every=1)):
        spec, agent = game.action_spec, game.current_agent
        mask = game.legal_mask(agent)
        offered = legal_options(game)
        assert list(offered) == [c.name for c in spec.components]
        for i, component in enumerate(spec.components):
            part = mask[spec.offsets[i]: spec.offsets[i] + component.size]
            assert offered[component.name] == [component.labels[v] for v in np.flatnonzero(part)]
            for label in offered[component.name]:
                values = encode(spec, {component.name: label}, mask)
                expected = np.zeros(len(spec.components), dtype=np.int64)
                expected[i] = component.labels.index(label)
                np.testing.assert_array_equal(values, expected)
                assert decode(spec, values)[component.name] == label
                checked += 1
        # A whole sampled move, both ways, and it is one the engine accepts.
        action = spec.sample(mask, rng)
        move = decode(spec, action)
        np.testing.assert_array_equal(encode(spec, move, mask), action)
        np.testing.assert_array_equal(encode(spec, decode_choices(spec, action), mask), action)
    assert checked > 300


# ------------------------------------------------------------------ proposals and probabilities
def test_a_random_captain_proposes_a_legal_move_with_uniform_probabilities() -> None:
    game = pantheon_move_phase()
    captain = RandomCaptain(game.action_spec, seed=3)
    proposal = propose(game, "red_0", captain)
    assert proposal.seat == "red_0"
    assert proposal.move == decode(game.action_spec, proposal.action)
    np.testing.assert_array_equal(encode(game.action_spec, proposal.move, game.legal_mask("red_0")),
                                  proposal.action)
    assert proposal.probabilities is not None
    assert proposal.probabilities["maneuver"] == dict.fromkeys(legal_options(game)["maneuver"], 1 / 59)
    assert proposal.probabilities["attack"] == {"none": 1.0}
    # The same seed proposes the same move; the game is untouched by proposing.
    before = game.state_dict()
    again = propose(game, "red_0", RandomCaptain(game.action_spec, seed=3))
    assert again == proposal
    assert game.state_dict() == before


@pytest.mark.parametrize("ruleset_id", ruleset_ids())
def test_scripted_captains_have_no_probabilities(ruleset_id: str) -> None:
    ruleset = get_ruleset(ruleset_id)
    game = ruleset.new_game(ruleset.load_config(), seed=0)
    names = scripted_captains(ruleset_id)
    assert names
    for name in names:
        captain = make_captain(name, ruleset_id, game.action_spec)
        proposal = propose(game, game.current_agent, captain)
        assert proposal.probabilities is None
        game_copy = game.clone()
        game_copy.apply(game.current_agent, proposal.action)  # the engine accepts it


def test_probabilities_by_label_refuse_a_wrong_count() -> None:
    game = pantheon_move_phase()
    with pytest.raises(ValueError, match="^2 probability vectors for 10 components$"):
        label_probabilities(game.action_spec, [np.ones(3), np.ones(170)], game.legal_mask("red_0"))


@pytest.fixture(scope="module")
def onnx_captain(tmp_path_factory: pytest.TempPathFactory) -> OnnxCaptain:
    return OnnxCaptain(export_tiny_captain(Path(tmp_path_factory.mktemp("moves"))), expected_ruleset="pantheon")


def test_an_onnx_captain_gives_the_softmax_of_its_masked_logits(onnx_captain: OnnxCaptain) -> None:
    checked = 0
    for game in (g for seed in range(2, 12) for g in decisions("pantheon", seed, every=1)):
        agent = game.current_agent
        decision = decision_for(game, agent, onnx_captain)
        per_component = onnx_captain.probabilities(decision)
        _, logits = onnx_captain.evaluate(decision.observation[None], decision.action_mask[None].astype(np.float32))
        action = onnx_captain.act(decision)
        for i, (p, z) in enumerate(zip(per_component, logits)):
            part = game.action_spec.split(decision.action_mask)[i]
            assert p[~part].sum() == 0.0  # exactly zero where masked
            assert p.sum() == pytest.approx(1.0, abs=1e-12)
            allowed = np.flatnonzero(part)
            expected = np.exp(z[0][allowed] - z[0][allowed].max())
            np.testing.assert_allclose(p[allowed], expected / expected.sum(), rtol=1e-5)
            assert action[i] == int(np.argmax(p))  # the deterministic choice is the most likely value
        proposal = propose(game, agent, onnx_captain)
        assert proposal.action == [int(v) for v in action]
        assert proposal.probabilities is not None
        assert set(proposal.probabilities["maneuver"]) == set(legal_options(game)["maneuver"])
        checked += 1
        if checked == 40:
            break
    assert checked == 40
