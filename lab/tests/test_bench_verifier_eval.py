"""`qascore-lab bench verifier-eval --dev-only --paired` on a toy corpus with model-free judges."""

from __future__ import annotations

import json

import pytest


def test_dev_only_paired_comparison(tmp_path, capsys):
    """--dev-only reads no report set (the data root does not exist); --paired gives each later judge its dev AUROC
    difference from the first, equal to the difference of the two judges' own dev AUROCs."""
    from qascore_lab.cli import main

    rows = []
    for q in range(12):
        ref = f"answer {q}"
        for k, (cand, y) in enumerate([(f"it is answer {q}", 1), (f"answer {q} plus more words", 1),
                                       (f"something else {q}", 0), (f"answer {q + 1}", 0)]):
            rows.append({"id": f"d{q}-{k}", "qid": f"q{q}", "question": f"question {q}?", "candidate": cand,
                         "references": [ref], "negatives": [], "source": "ae", "kind": "toy", "label": y})
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    (corpus / "dev.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    out = tmp_path / "table.json"
    assert main(["bench", "verifier-eval", "f1", "contains", "--corpus", str(corpus), "--data",
                 str(tmp_path / "absent"), "--dev-only", "--paired", "--json", str(out)]) == 0
    table = json.loads(out.read_text())
    assert set(table["f1"]) == {"threshold", "dev", "seconds"}
    d = table["contains"]["paired_dev"]
    expect = table["contains"]["dev"]["all"]["auroc"] - table["f1"]["dev"]["all"]["auroc"]
    assert d["difference"] == pytest.approx(expect, abs=1e-12) and d["n_groups"] == 12
    assert d["ci_low"] <= d["difference"] <= d["ci_high"]
    assert "dev AUROC contains - f1" in capsys.readouterr().out


def test_square_negatives_are_blind_to_the_target_label():
    """SQuArE's negatives in the triple sets: the question's wrong candidates other than the target, the same
    count for a right and a wrong target (min(n, N - 1)), so the count cannot give the label away."""
    from qascore_lab.bench.verifier_eval import question_negatives
    from qascore_lab.datasets.as2 import AS2Question

    q = AS2Question("q1", "who?", candidates=["R1", "R2", "W1", "W2", "W3"], labels=[1, 1, 0, 0, 0],
                    cand_ids=["a", "b", "c", "d", "e"])
    assert question_negatives(q, "R1", n=4) == ["W1", "W2"]        # N - 1 = 2, though 3 exist
    assert question_negatives(q, "W2", n=4) == ["W1", "W3"]        # the target itself never
    assert question_negatives(q, "R2", n=1) == ["W1"]
    assert question_negatives(AS2Question("q2", "who?", ["R"], [1], ["a"]), "R") == []


def test_square_refs_configurations_read_what_they_name():
    """`bench square-refs`: each configuration draws only the kinds it names, blind (the same counts for every
    target of a question) and never the target."""
    from qascore_lab.bench.square_refs import CONFIGS
    from qascore_lab.datasets.as2 import AS2Question
    from qascore_lab.train.square_data import build_examples

    q = AS2Question("q1", "who?", candidates=["R1", "R2", "R3", "W1", "W2", "W3", "W4"],
                    labels=[1, 1, 1, 0, 0, 0, 0], cand_ids=list("abcdefg"))
    for name, (_, spec) in CONFIGS.items():
        examples = build_examples([q], spec, seed=1)
        assert len(examples) == 7
        for e in examples:
            assert e.target not in e.positives + e.negatives
            assert not e.negatives if name.startswith("pos") else True
            assert not e.positives if name.startswith("neg") else True
    counts = {(len(e.positives), len(e.negatives)) for e in build_examples([q], CONFIGS["both5"][1], seed=1)}
    assert counts == {(2, 3)}   # 5 split 3/2, positives capped at P - 1 = 2, the rest from negatives
