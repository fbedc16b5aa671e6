"""`train probe-styles`: composed LLM-style rows over the probe suite's questions."""

from __future__ import annotations

import json

from qascore_lab.train import probe_styles as ps


def _suite_rows() -> list[dict]:
    base = {"source": "probes", "references": ["Paris"], "negatives": [], "origin": "evouna-tq", "wrong_from": "system",
            "kind": "probe-assertion", "family": "assertion"}
    return [
        {**base, "qid": "q1", "question": "What is the capital of France?", "member": "right",
         "candidate": "Many people think it is Lyon, but it is actually Paris.", "label": 1},
        {**base, "qid": "q1", "question": "What is the capital of France?", "member": "wrong",
         "candidate": "Many people think it is Paris, but it is actually Lyon.", "label": 0},
        {**base, "qid": "q2", "question": "Who wrote Hamlet?", "references": ["Shakespeare"], "member": "right",
         "candidate": "It is Shakespeare, not Marlowe.", "label": 1},
        {**base, "qid": "q3", "question": "Hedge only?", "family": "hedge", "kind": "probe-hedge", "member": "right",
         "candidate": "It is X.", "label": 1},
    ]


def test_gold_and_wrong_reads_each_question_once_from_its_assertion_pair():
    got = [(r["qid"], a, b) for r, a, b in ps.gold_and_wrong(_suite_rows())]
    assert got == [("q1", "Paris", "Lyon"), ("q2", "Shakespeare", "Marlowe")]


def test_styled_rows_are_pairs_with_the_expected_labels_and_content():
    rows = ps.styled(_suite_rows(), seed=13)
    assert len(rows) == 12  # two questions, three families, two members
    by = {(r["qid"], r["family"], r["member"]): r for r in rows}
    for qid, a, b in (("q1", "Paris", "Lyon"), ("q2", "Shakespeare", "Marlowe")):
        right, wrong = by[(qid, "style-assert", "right")], by[(qid, "style-assert", "wrong")]
        assert (right["label"], wrong["label"]) == (1, 0) and right["pair"] == wrong["pair"]
        # a minimal pair: the same words with A and B swapped
        assert right["candidate"].replace(a, "\0").replace(b, a).replace("\0", b) == wrong["candidate"]
        assert a in right["candidate"] and b in right["candidate"]
        hedge = by[(qid, "style-hedge", "wrong")]["candidate"]
        assert a in hedge and b in hedge and by[(qid, "style-hedge", "wrong")]["label"] == 0
        guess = by[(qid, "style-guess", "wrong")]["candidate"]
        assert b in guess and a not in guess
        for fam in ("style-hedge", "style-guess"):
            committed = by[(qid, fam, "right")]
            assert committed["label"] == 1 and a in committed["candidate"] and b not in committed["candidate"]
        assert all(by[(qid, f, m)]["references"] == _suite_rows()[0 if qid == "q1" else 2]["references"]
                   for f in ps.FAMILIES for m in ("right", "wrong"))


def test_styled_rows_are_seeded():
    assert ps.styled(_suite_rows(), seed=13) == ps.styled(_suite_rows(), seed=13)
    assert ps.styled(_suite_rows(), seed=13) != ps.styled(_suite_rows(), seed=14)


def test_run_writes_every_split(tmp_path):
    suite = tmp_path / "probes"
    suite.mkdir()
    for split in ("train", "dev", "test"):
        (suite / f"{split}.jsonl").write_text("".join(json.dumps(r) + "\n" for r in _suite_rows()), encoding="utf-8")
    out = tmp_path / "styles"
    args = type("A", (), {"probes": str(suite), "out": str(out), "seed": 13})()
    assert ps.run(args) == 0
    rows = [json.loads(line) for line in (out / "train.jsonl").read_text(encoding="utf-8").splitlines()]
    assert len(rows) == 12 and len({r["id"] for r in rows}) == 12
