"""The `ava` metric: multi-reference aggregation and signature, on a toy delta trained in the test."""

from __future__ import annotations

import pytest

from qascore.records import InputError, Record


@pytest.fixture(scope="module")
def toy_model(tmp_path_factory):
    from qascore.runtime import ava_layouts
    from qascore.runtime.verifier import VerifierSpec
    from qascore_lab.train.verifier import TrainConfig, train

    recs, labels = [], []
    for i in range(16):
        y = i % 2
        recs.append(Record(question=f"what color is item {i}?", candidate=("red" if y else "blue") + " it is",
                           references=["it is red"]))
        labels.append(y)
    layout = "r,q+t"
    spec = VerifierSpec(layout=layout, n_views=1, train_layers=1, pool="mean")
    ver = train(spec, ava_layouts.make_layout(layout), recs, labels, TrainConfig(epochs=1, batch_size=8),
                log=lambda s: None)
    path = tmp_path_factory.mktemp("ava") / "toy.safetensors"
    ver.save(path)
    return path, ver


@pytest.mark.slow
@pytest.mark.parametrize("how", ["mean", "max"])
def test_references_scored_separately_then_aggregated(toy_model, how):
    from qascore.metrics.registry import load
    from qascore.runtime import ava_layouts
    from qascore.runtime.verifier import Verifier

    path, _ = toy_model
    ver = Verifier.load(path, ava_layouts.make_layout("r,q+t"))  # the fp16 delta, as the metric sees it
    refs = ["it is red", "red", "the answer is blue"]
    rec = {"question": "what color is item 3?", "candidate": "red it is", "references": refs}
    res = load("ava", model=str(path), aggregate=how).score([rec])
    singles = ver.predict([Record(question=rec["question"], candidate=rec["candidate"], references=[r])
                           for r in refs])
    expected = singles.mean() if how == "mean" else singles.max()
    assert res.scores[0] == pytest.approx(expected, abs=1e-6)
    assert res.details["correct"][0] == float(expected >= ver.threshold)
    assert "layout:r,q+t" in res.signature and f"aggregate:{how}" in res.signature


@pytest.mark.slow
def test_missing_question_is_an_input_error(toy_model):
    from qascore.metrics.registry import load

    path, _ = toy_model
    with pytest.raises(InputError, match="question"):
        load("ava", model=str(path)).score([{"candidate": "x", "references": ["y"]}])


def test_unknown_option_is_refused():
    from qascore.metrics.verifiers import AVA

    with pytest.raises(TypeError):
        AVA(bogus=1)


@pytest.mark.parametrize("meta, expected", [
    ({}, {}),                                           # deltas from before calibration: signature unchanged
    ({"temperature": 1.0}, {}),
    ({"temperature": 1.7956}, {"temperature": "1.796"}),
])
def test_signature_names_the_calibration_temperature(meta, expected):
    from qascore.metrics.verifiers import temperature_field

    assert temperature_field(meta) == expected


@pytest.mark.parametrize("name", ["ava", "square"])
def test_bf16_precision_is_close_and_named(name):
    """`dtype=bf16` (autocast) gives probabilities within 0.03 of fp32 yet not the same numbers (the cast is
    real), and says so in the signature; exact fp32 keeps a signature without a dtype field."""
    import numpy as np

    from qascore.cli.options import load_named

    recs = [Record(question="who wrote hamlet?", candidate=c, references=["William Shakespeare wrote it"])
            for c in ("shakespeare", "christopher marlowe", "it was William Shakespeare", "in 1603")]
    exact = load_named(name, {"dtype": "fp32"}, name).score(recs)
    fast = load_named(name, {"dtype": "bf16"}, name).score(recs)
    diff = np.abs(np.array(exact.scores) - np.array(fast.scores))
    assert diff.max() < 0.03 and diff.max() > 0
    assert "dtype:bf16" in fast.signature and "dtype" not in exact.signature


def test_bf16_refuses_the_fp32_state_cache(toy_model):
    from qascore.runtime.partial import StateCache

    _, ver = toy_model
    recs = [Record(question="what color is item 1?", candidate="red it is", references=["it is red"])]
    with pytest.raises(ValueError, match="fp32 lower-layer states"):
        ver.logits(recs, cache=StateCache(), dtype="bf16")
