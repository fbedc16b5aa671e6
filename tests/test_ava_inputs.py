"""`ava` as a metric: what the verifier is handed (the model itself is stubbed)."""

from types import SimpleNamespace

import numpy as np


def test_ava_reads_a_query_style_question_with_its_question_mark(monkeypatch):
    """Each (question, reference) pair reaches the verifier with `as_question`'s form of the question;
    a question with a capital letter or closing punctuation is left as it is."""
    from qascore import Record
    from qascore.metrics import registry, verifiers

    seen: list[tuple[str, str]] = []

    def fake_predict(ver, records, best_window=None, **_):
        seen.extend((r.question, r.references[0]) for r in records)
        if best_window is not None:
            best_window.extend([0] * len(records))
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


def test_a_candidate_with_no_known_wordpiece_is_not_read_and_scores_zero():
    """Emoji become [UNK] only: the verifier is not asked about them. One 'word' over 100 characters is read
    in pieces the tokenizer knows (issue 64), not as one [UNK]."""
    from qascore import Record
    from qascore.metrics.verifiers import windowed_predict
    from qascore.runtime import defaults
    from qascore.runtime.encoder import load_tokenizer
    from qascore.runtime.windows import candidate_windows

    tok = load_tokenizer(defaults.ENCODER)
    handed: list[str] = []

    def predict(records, **_):
        handed.extend(r.candidate for r in records)
        return np.full(len(records), 0.9)

    ver = SimpleNamespace(tokenizer=tok, spec=SimpleNamespace(max_len=128), predict=predict)
    cands = ["\U0001F600" * 30, "x" * 150, "Paris", "Paris \U0001F600"]
    assert [candidate_windows(tok, "Capital?", "Paris", c, 128)[0] for c in cands] == [[], [cands[1]], ["Paris"], [cands[3]]]
    recs = [Record(question="Capital of France?", candidate=c, references=["Paris"]) for c in cands]
    probs, windows, unread = windowed_predict(ver, recs, reference=lambda r: r.references[0], batch_size=4,
                                              dtype=None, desc="ava", max_windows=16)
    assert probs.tolist() == [0.0, 0.9, 0.9, 0.9] and windows == [0, 1, 1, 1] and unread == [False] * 4
    assert handed == ["x" * 150, "Paris", "Paris \U0001F600"]
