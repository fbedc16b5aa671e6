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
