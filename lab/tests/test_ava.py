"""AVA data builders, layouts, linear features and system-wise arithmetic on hand-made cases."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from qascore_lab.datasets.as2 import AS2Question, read_answer_phrases, read_wikiqa_tsv
from qascore.records import Record
from qascore.runtime import ava_layouts
from qascore_lab.train.ava_data import build_triples, check_disjoint, stats, to_records
from qascore_lab.train.svm import features, is_included, sim_text

FIX = Path(__file__).parent / "fixtures" / "as2"


@pytest.fixture
def tiny():
    return read_wikiqa_tsv(FIX / "wikiqa" / "WikiQA-tiny.tsv")


def test_triples_follow_paper_4_2(tiny):
    # Q1: C={0,1}, C̄={2,3}: 2 ordered positive pairs, 2x2 negatives.
    # Q2: one correct answer -> dropped. Q3: C={0,1,2} with 1 and 2 the same text -> (1,2),(2,1) skipped.
    tr = build_triples(tiny)
    assert stats(tr) == {"questions": 2, "positives": 2 + 4, "negatives": 4 + 3, "total": 13}
    pairs = {(t.qid, t.ref_id, t.target_id, t.label) for t in tr}
    assert ("Q1", "D1-0", "D1-1", 1) in pairs and ("Q1", "D1-1", "D1-0", 1) in pairs
    assert ("Q3", "D3-1", "D3-2", 1) not in pairs
    for t in tr:
        assert t.reference.strip() != t.target.strip()  # a candidate is never its own reference


def test_triples_are_seeded_and_subsampled(tiny):
    a = build_triples(tiny, neg_ratio=0.5, seed=1)
    b = build_triples(tiny, neg_ratio=0.5, seed=1)
    assert a == b
    assert stats(a)["negatives"] == 3 and stats(a)["positives"] == 6


def test_short_answers_come_from_the_reference(tiny):
    ph = read_answer_phrases(FIX / "wikiqa" / "WikiQASent.pos.ans.tsv")
    tr = build_triples(tiny, short=ph)
    by = {(t.ref_id, t.target_id): t.short for t in tr}
    assert by[("D3-0", "D3-1")] == ("1993", "in 1993")
    assert by[("D3-1", "D3-0")] == ()


def test_records_carry_reference_and_label(tiny):
    recs, labels = to_records(build_triples(tiny))
    assert recs[0].candidate == "Shakespeare wrote \"Hamlet\" around 1600 ." and recs[0].references == [
        "Hamlet is a tragedy by William Shakespeare ."]
    assert labels[0] == 1


def test_split_leak_is_refused():
    a = [AS2Question("Q1", "Who wrote Hamlet")]
    b = [AS2Question("Q9", "who  wrote hamlet")]
    with pytest.raises(ValueError, match="both"):
        check_disjoint({"train": a, "test": b})
    check_disjoint({"train": a, "test": [AS2Question("Q2", "other")]})


@pytest.mark.parametrize("layout, expected", [
    ("q,t", [(["q"], ["t"])]),
    ("r,q+t|t,q+r", [(["r"], ["q", "t"]), (["t"], ["q", "r"])]),
    ("q,r|q,t|r,t", [(["q"], ["r"]), (["q"], ["t"]), (["r"], ["t"])]),
])
def test_layout_parse(layout, expected):
    assert ava_layouts.parse(layout) == expected


@pytest.mark.parametrize("bad", ["q,x", "q,r,t", ""])
def test_layout_parse_refuses(bad):
    with pytest.raises(ValueError):
        ava_layouts.parse(bad)


def test_layout_texts_and_keep_flags():
    rec = Record(question="Q?", candidate="T.", references=["R."])
    (a, b), = ava_layouts.make_layout("r,q+t")(rec)
    assert [p.text for p in a] == ["R."] and [p.text for p in b] == ["Q?", "T."]
    assert [p.keep for p in b] == [True, False]


@pytest.mark.parametrize("a, b, expected", [
    # squad tokens: {hamlet,is,tragedy,by,william,shakespeare} vs {shakespeare,wrote,hamlet,around,1600}
    ("Hamlet is a tragedy by William Shakespeare .", 'Shakespeare wrote "Hamlet" around 1600 .', 2 * 2 / 11),
    ("the cat", "a cat", 1.0),       # articles dropped by SQuAD normalisation
    ("x y", "z", 0.0),
    ("", "", 0.0),
])
def test_sim_text(a, b, expected):
    assert sim_text(a, b) == pytest.approx(expected)


@pytest.mark.parametrize("shorts, target, expected", [
    (["William Shakespeare"], "Hamlet is by William Shakespeare.", 1.0),
    (["William Shakespeare"], "Shakespeare wrote Hamlet.", 0.0),
    (["1993", "in 1993"], "They started in 1993 .", 1.0),
    (["93"], "They started in 1993 .", 0.0),          # whole tokens only
    ([], "anything", 0.0),
])
def test_is_included(shorts, target, expected):
    assert is_included(shorts, target) == expected


def test_feature_vector_order():
    x = features("who wrote hamlet", "Hamlet is by Shakespeare", "Shakespeare wrote it", ["Shakespeare"])
    assert x == [1.0, sim_text("Hamlet is by Shakespeare", "Shakespeare wrote it"),
                 sim_text("Hamlet is by Shakespeare", "who wrote hamlet"),
                 sim_text("who wrote hamlet", "Shakespeare wrote it")]


def test_linear_model_matches_sklearn_and_round_trips(tmp_path):
    from sklearn.calibration import CalibratedClassifierCV
    from sklearn.svm import SVC

    from qascore_lab.train.svm import LinearAVA, fit

    rng = np.random.default_rng(0)
    x = rng.normal(size=(120, 4))
    y = (x[:, 1] + 0.3 * rng.normal(size=120) > 0.4).astype(int)
    m = fit(x, y, seed=3)
    ref = CalibratedClassifierCV(SVC(kernel="linear", class_weight="balanced", random_state=3),
                                 method="sigmoid", ensemble=False, cv=5).fit(x, y)
    assert np.allclose(m.predict_proba(x), ref.predict_proba(x)[:, 1], atol=1e-9)
    m.save(tmp_path / "m.json")
    assert np.allclose(LinearAVA.load(tmp_path / "m.json").predict_proba(x), m.predict_proba(x))


def test_system_measures_hand_computed():
    from qascore_lab.train.ava_system import measures

    # q1 ranked labels [0,1,1]: P@1 0, AP (1/2 + 2/3)/2, RR 1/2; q2 has no positive: all 0
    m = measures([[0.2, 0.9, 0.5], [0.1, 0.2]], [np.array([1, 0, 1]), np.array([0, 0])])
    assert m["P@1"] == 0.0
    assert m["MAP"] == pytest.approx((0.5 + 2 / 3) / 2 / 2)
    assert m["MRR"] == pytest.approx(0.25)


def test_ava_judgments_never_use_the_candidate_as_its_reference():
    from qascore_lab.train.ava_system import ava_judgments

    q = AS2Question("Q", "q?", ["a", "b", "a ", "x"], [1, 1, 1, 0])
    seen = []

    def score(recs):
        seen.extend((r.candidate, r.references[0]) for r in recs)
        return np.array([1.0 if r.references[0] == "b" else 0.0 for r in recs])

    (judged,) = ava_judgments([q], score)
    assert all(c.strip() != r.strip() for c, r in seen)
    # "a": refs {b} -> 1; "b": refs {a, "a "} -> 0; "a ": refs {b} -> 1; "x": refs {a, b, "a "} -> 1/3
    assert judged.tolist() == pytest.approx([1.0, 0.0, 1.0, 1 / 3])


def test_system_threshold_tuning_fits_dev_p_at_1():
    from qascore_lab.train.ava_system import measures, tune_system_threshold

    ava = [np.array([0.9, 0.4, 0.1]), np.array([0.2, 0.6, 0.3])]
    gold_lab = [np.array([1, 0, 0]), np.array([0, 1, 0])]
    rankings = {"good": [[3, 2, 1], [1, 3, 2]], "bad": [[1, 2, 3], [3, 1, 2]]}
    gold = {s: measures(r, gold_lab) for s, r in rankings.items()}
    thr = tune_system_threshold(ava, rankings, gold)
    est = {s: measures(r, [a >= thr for a in ava]) for s, r in rankings.items()}
    assert est["good"]["P@1"] == gold["good"]["P@1"] == 1.0
    assert est["bad"]["P@1"] == gold["bad"]["P@1"] == 0.0


# -- extra training corpora (`qascore-lab train ava --extra-train trecqa`) -----------------------------

TREC = FIX / "trecqa" / "dev"


def test_combined_keeps_base_and_adds_tagged_extra(tiny):
    from qascore_lab.datasets.as2 import read_trecqa
    from qascore_lab.train.ava_data import build_combined

    base = build_triples(tiny)
    # TREC fixture: 1.1 has C={0,1}, C̄={2} -> 2 positives, 2 negatives; 2.1 has one correct -> dropped
    both = build_combined(base, {"trecqa": read_trecqa(TREC)})
    assert both[:len(base)] == base
    extra = both[len(base):]
    assert stats(extra) == {"questions": 1, "positives": 2, "negatives": 2, "total": 4}
    assert stats(both) == {"questions": 3, "positives": 8, "negatives": 9, "total": 17}
    assert {t.qid for t in extra} == {"trecqa:1.1"}
    assert {(t.ref_id, t.target_id, t.label) for t in extra} == {("0", "1", 1), ("1", "0", 1),
                                                                  ("0", "2", 0), ("1", "2", 0)}


@pytest.mark.parametrize("neg_ratio, max_pos, expected", [
    # 3 correct (0, 1, 2), 4 incorrect: 3*2 = 6 ordered positive pairs, 3*4 = 12 negatives
    (None, None, {"positives": 6, "negatives": 12}),
    (0.5, None, {"positives": 6, "negatives": 3}),     # the neg ratio of the extra corpus's own positives
    (1.5, 2, {"positives": 2, "negatives": 3}),
])
def test_combined_extra_follows_the_same_sampling_rules(neg_ratio, max_pos, expected):
    from qascore_lab.train.ava_data import build_combined

    q = AS2Question("7.1", "who ?", ["a .", "b .", "c .", "d .", "e .", "f .", "g ."], [1, 1, 1, 0, 0, 0, 0],
                    [str(i) for i in range(7)])
    run = lambda: build_combined([], {"trecqa": [q]}, neg_ratio=neg_ratio,  # noqa: E731
                                 max_pos_per_question=max_pos, seed=5)
    a = run()
    assert {k: stats(a)[k] for k in expected} == expected
    assert a == run()  # seeded


def test_combined_extra_never_uses_a_candidate_as_its_own_reference():
    from qascore_lab.train.ava_data import build_combined

    # 1 and 2 are the same sentence text: (1, 2) and (2, 1) are not positives
    q = AS2Question("3.1", "when ?", ["in 1993 .", "1993 .", "1993 .", "never ."], [1, 1, 1, 0], ["0", "1", "2", "3"])
    tr = build_combined([], {"trecqa": [q]})
    assert all(t.reference.strip() != t.target.strip() for t in tr)
    assert stats(tr) == {"questions": 1, "positives": 4, "negatives": 3, "total": 7}


def test_combined_refuses_an_id_already_in_the_base():
    from qascore_lab.train.ava_data import build_combined

    q = AS2Question("1", "who ?", ["a .", "b ."], [1, 1], ["0", "1"])
    base = build_combined([], {"trecqa": [q]})
    with pytest.raises(ValueError, match="already"):
        build_combined(base, {"trecqa": [q]})


@pytest.mark.parametrize("trec, wiki, leaks", [
    ("who is x ?", "Who is X?", True),                   # TREC-QA is tokenised and lower-cased
    ("what is rohm and haas 's revenue ?", "What is Rohm and Haas's revenue?", True),
    ("how did james dean die ?", "how did James Dean die?", True),
    ("who is x ?", "who is y?", False),
])
def test_extra_corpus_question_in_wikiqa_dev_is_refused(trec, wiki, leaks):
    from qascore_lab.train.ava_data import tag

    train = tag([AS2Question("1.1", trec)], "trecqa")
    splits = {"train": train, "dev": [AS2Question("Q5", wiki)]}
    if leaks:
        with pytest.raises(ValueError, match="both train and dev"):
            check_disjoint(splits)
    else:
        check_disjoint(splits)


def _tiny_data(root: Path, trec_question: str = "who is x ?") -> Path:
    """A data folder: wikiqa/ (train = the tiny fixture, small dev/test) and trecqa/train."""
    import shutil

    wiki = root / "wikiqa"
    wiki.mkdir(parents=True)
    shutil.copy(FIX / "wikiqa" / "WikiQA-tiny.tsv", wiki / "WikiQA-train.tsv")
    shutil.copy(FIX / "wikiqa" / "WikiQASent.pos.ans.tsv", wiki / "WikiQASent.pos.ans.tsv")
    head = "QuestionID\tQuestion\tDocumentID\tDocumentTitle\tSentenceID\tSentence\tLabel\n"
    for split, q in (("dev", "who sang yesterday"), ("test", "where is paris")):
        rows = [f"{split}1\t{q}\tD\tT\t{split}-{i}\tsentence {i} .\t{int(i < 2)}\n" for i in range(3)]
        (wiki / f"WikiQA-{split}.tsv").write_text(head + "".join(rows), encoding="utf-8")
    trec = root / "trecqa" / "train"
    shutil.copytree(TREC, trec)
    (trec / "a.toks").write_text((trec / "a.toks").read_text().replace("who is x ?", trec_question))
    return root


def test_load_splits_adds_trec_train(tmp_path):
    from qascore_lab.train.ava import load_splits

    data = _tiny_data(tmp_path)
    plain = load_splits(data, {"seed": 13})
    more = load_splits(data, {"seed": 13, "extra_train": ["trecqa"]})
    assert more["train"][:len(plain["train"])] == plain["train"]
    assert stats(more["train"])["total"] == stats(plain["train"])["total"] + 4
    assert more["dev"] == plain["dev"] and more["test"] == plain["test"]


def test_load_splits_drops_a_trec_train_question_that_is_in_wikiqa_test(tmp_path):
    from qascore_lab.train.ava import load_splits

    data = _tiny_data(tmp_path, trec_question="where is paris ?")
    plain = load_splits(data, {"seed": 13})
    info: dict = {}
    more = load_splits(data, {"seed": 13, "extra_train": ["trecqa"]}, info)
    assert info["dropped_from_train"] == ["trecqa:1.1: where is paris ?"]
    assert more["train"] == plain["train"]  # 1.1 was the only eligible TREC question


@pytest.mark.parametrize("train_q, dropped", [
    ("what is homebrew for wii?", True),        # WikiQA train Q2079 vs test Q2940
    ("What is homebrew for Wii", True),
    ("what is homebrew for the wii", False),
])
def test_drop_overlap(train_q, dropped):
    from qascore_lab.train.ava_data import drop_overlap

    held = [[AS2Question("Q2940", "what is homebrew for wii")], [AS2Question("1.1", "who is x ?")]]
    kept, gone = drop_overlap([AS2Question("Q2079", train_q), AS2Question("Q7", "who is y")], held)
    assert [q.qid for q in gone] == (["Q2079"] if dropped else [])
    assert [q.qid for q in kept] == ([] if dropped else ["Q2079"]) + ["Q7"]
    check_disjoint({"train": kept, "test": held[0], "trec-clean-dev": held[1]})
