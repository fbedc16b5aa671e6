"""`ava` as a metric: what the verifier is handed (the model itself is stubbed)."""

from types import SimpleNamespace

import numpy as np


def test_ava_reads_a_query_style_question_with_its_question_mark(monkeypatch):
    """Each (question, reference) pair reaches the verifier with `as_question`'s form of the question;
    a question with a capital letter or closing punctuation is left as it is."""
    from qascore import Record
    from qascore.metrics import registry, verifiers

    seen: list[tuple[str, str]] = []

    def fake_predict(ver, records, **_):
        seen.extend((r.question, r.references[0]) for r in records)
        return np.full(len(records), 0.7), [1] * len(records), [False] * len(records)

    monkeypatch.setattr(verifiers, "load_verifier", lambda *a, **k: SimpleNamespace(threshold=0.5, spec=SimpleNamespace(max_len=128)))
    monkeypatch.setattr(verifiers, "windowed_predict", fake_predict)
    recs = [Record(id="1", question="who wrote hamlet", candidate="Shakespeare", references=["Shakespeare", "W. S."]),
            Record(id="2", question="Who wrote Hamlet", candidate="Marlowe", references=["Shakespeare"]),
            Record(id="3", question="who wrote hamlet?", candidate="Shakespeare", references=["Shakespeare"])]
    res = registry.load("ava").score(recs)
    assert seen == [("who wrote hamlet?", "Shakespeare"), ("who wrote hamlet?", "W. S."),
                    ("Who wrote Hamlet", "Shakespeare"), ("who wrote hamlet?", "Shakespeare")]
    assert res.details["correct"] == [True, True, True]
    assert "question:as-question" in res.signature
