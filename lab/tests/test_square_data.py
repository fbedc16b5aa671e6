"""SQuArE data builder and input layouts, on small hand-made questions."""

from __future__ import annotations

import random

import pytest

from qascore_lab.datasets.as2 import AS2Question
from qascore.records import Record
from qascore.runtime.square_layouts import layout_func, square_layout
from qascore_lab.train.square_data import CONFIGS, BuildStats, RefSpec, build_examples, sample_targets


def _q(qid: str, n_pos: int, n_neg: int) -> AS2Question:
    """A question whose candidates are named by label and index, so a text says what it is."""
    q = AS2Question(qid, f"question {qid}?")
    for i in range(n_pos):
        q.candidates.append(f"{qid} right {i}")
        q.labels.append(1)
    for i in range(n_neg):
        q.candidates.append(f"{qid} wrong {i}")
        q.labels.append(0)
    return q


QUESTIONS = [_q("a", 1, 4), _q("b", 3, 7), _q("c", 2, 1), _q("d", 0, 3), _q("e", 2, 0)]


# (spec, question, expected (n+, n-) for every target) -- counted by hand:
# blind: a question with P positives and N negatives offers P-1 and N-1 to every target.
@pytest.mark.parametrize("spec, qid, expected", [
    (RefSpec(total=(5, 5)), "a", {(0, 3)}),        # P-1=0, N-1=3: 0 + 3, short of 5
    (RefSpec(total=(5, 5)), "b", {(2, 3)}),        # ceil(5/2)=3 capped at 2 positives, 3 negatives
    (RefSpec(total=(5, 5)), "c", {(1, 0)}),        # P-1=1, N-1=0
    (RefSpec(total=(3, 3)), "b", {(2, 1)}),
    (RefSpec(pos=5), "b", {(2, 0)}),                # SQuArE(+): positives only
    (RefSpec(pos=1), "b", {(1, 0)}),                # AVA-TQR
    (RefSpec(neg=1), "a", {(0, 1)}),                # AVA-TQR(-)
    (RefSpec(), "b", {(0, 0)}),                     # AVA-QT
    # greedy: counts per target, so a correct target of a one-answer question gets no positive
    (RefSpec(total=(5, 5), composition="greedy"), "a", {(0, 4), (1, 3)}),  # right: 0+4; wrong: 1+3
    (RefSpec(pos=1, composition="greedy"), "a", {(0, 0), (1, 0)}),
])
def test_reference_counts(spec, qid, expected):
    ex = build_examples([q for q in QUESTIONS if q.qid == qid], spec, seed=3)
    assert {(len(e.positives), len(e.negatives)) for e in ex} == expected


@pytest.mark.parametrize("name", sorted(CONFIGS))
def test_target_never_among_its_references(name):
    for seed in range(5):
        for e in build_examples(QUESTIONS, CONFIGS[name].refs, seed=seed):
            assert e.target not in e.positives and e.target not in e.negatives
            assert all("right" in c for c in e.positives) and all("wrong" in c for c in e.negatives)
            assert all(c.startswith(e.qid + " ") for c in e.positives + e.negatives)  # same question


@pytest.mark.parametrize("composition, leaks", [("blind", False), ("greedy", True)])
def test_reference_counts_and_the_label(composition, leaks):
    """Blind counts are the same for a question's correct and wrong targets; greedy ones leak the label."""
    qs = [_q(str(i), 1 + i % 3, 2 + i % 5) for i in range(30)]
    ex = build_examples(qs, RefSpec(total=(5, 5), composition=composition), seed=1)
    differs = False
    for q in qs:
        right = {(len(e.positives), len(e.negatives)) for e in ex if e.qid == q.qid and e.label == 1}
        wrong = {(len(e.positives), len(e.negatives)) for e in ex if e.qid == q.qid and e.label == 0}
        if composition == "blind":
            assert len(right) == 1 and right == wrong
        differs |= right != wrong
    assert differs == leaks


def test_sampled_range_is_seeded_and_in_range():
    spec = RefSpec(total=(1, 5))
    many = [_q(str(i), 4, 8) for i in range(20)]
    a = build_examples(many, spec, seed=7)
    b = build_examples(many, spec, seed=7)
    c = build_examples(many, spec, seed=8)
    totals = [len(e.positives) + len(e.negatives) for e in a]
    assert set(totals) == {1, 2, 3, 4, 5}
    assert [(e.positives, e.negatives) for e in a] == [(e.positives, e.negatives) for e in b]
    assert [(e.positives, e.negatives) for e in a] != [(e.positives, e.negatives) for e in c]


def test_unclean_questions_are_skipped_and_counted():
    stats = BuildStats()
    ex = build_examples(QUESTIONS, RefSpec(total=(5, 5)), seed=0, stats=stats)
    assert stats.questions == 5 and stats.skipped_questions == 2  # d: no positive, e: no negative
    assert stats.targets == len(ex) == 5 + 10 + 3
    assert stats.short == 5 + 3  # every target of a (4 < 5 refs) and of c (1 < 5)
    assert stats.no_pos == 5  # a's targets
    assert stats.no_refs == 0


@pytest.mark.parametrize("frac", [0.25, 0.5])
def test_sample_targets_share_and_seed(frac):
    qs = [_q(str(i), 2, 8) for i in range(50)]
    t = sample_targets(qs, 40, seed=1, pos_fraction=frac)
    labels = [q.labels[i] for q in qs for i in t.get(q.qid, [])]
    assert len(labels) == 40 and sum(labels) == round(40 * frac)
    assert t == sample_targets(qs, 40, seed=1, pos_fraction=frac)
    ex = build_examples(qs, RefSpec(total=(5, 5)), seed=0, targets=t)
    assert len(ex) == 40


def _texts(views):
    return [[(p.text, p.keep) for p in seg] for v in views for seg in v]


def test_square_prompt_layout():
    rec = Record(question="who?", candidate="him.", references=["p1", "p2"], negatives=["n1"])
    (a, b), = square_layout(rec)
    assert b == []
    assert [(p.text, p.keep) for p in a] == [
        ("Question:", True), ("who?", True), ("Target:", True), ("him.", True),
        ("Pos_Ref:", True), ("p1", False), ("Pos_Ref:", True), ("p2", False), ("Neg_Ref:", True), ("n1", False)]


@pytest.mark.parametrize("layout, expected", [
    ("qt", [[("who?", True)], [("him.", True)]]),
    ("tr", [[("him.", True)], [("p1", False)]]),
    ("tqr", [[("him.", True)], [("who?", True), ("Pos_Ref:", True), ("p1", False)]]),
])
def test_ava_layouts(layout, expected):
    rec = Record(question="who?", candidate="him.", references=["p1"])
    assert _texts(layout_func(layout)(rec)) == expected


def test_tqr_negative_reference_is_marked():
    rec = Record(question="who?", candidate="him.", negatives=["n1"])
    assert _texts(layout_func("tqr")(rec))[1] == [("who?", True), ("Neg_Ref:", True), ("n1", False)]


class _WordTokenizer:
    """One token per whitespace word: enough to check truncation without a model."""

    cls_token_id, sep_token_id = 1, 2

    def __init__(self) -> None:
        self.vocab: dict[str, int] = {}
        self.words: dict[int, str] = {}

    def encode(self, text: str, add_special_tokens: bool = False) -> list[int]:
        out = []
        for w in text.split():
            if w not in self.vocab:
                self.vocab[w] = len(self.vocab) + 10
                self.words[self.vocab[w]] = w
            out.append(self.vocab[w])
        return out

    def decode(self, ids) -> list[str]:
        return [self.words.get(i, "[CLS]" if i == 1 else "[SEP]") for i in ids]


@pytest.mark.parametrize("max_len", [30, 40, 60])
def test_truncation_keeps_question_and_target_and_trims_references_evenly(max_len):
    from qascore.runtime.verifier import encode_view

    q = "q1 q2 q3 q4 q5 q6"
    t = "t1 t2 t3 t4 t5 t6 t7 t8"
    refs = [" ".join(f"p{i}_{j}" for j in range(n)) for i, n in enumerate((3, 20, 25))]
    negs = [" ".join(f"n{i}_{j}" for j in range(n)) for i, n in enumerate((30,))]
    rec = Record(question=q, candidate=t, references=refs, negatives=negs)
    tok = _WordTokenizer()
    ids, _ = encode_view(tok, square_layout(rec)[0], max_len)
    words = tok.decode(ids)
    assert len(ids) == max_len
    assert " ".join(words).find(f"Question: {q} Target: {t}") > 0  # whole and in order
    assert words.count("Pos_Ref:") == 3 and words.count("Neg_Ref:") == 1
    kept = [sum(w.startswith(f"{p}{i}_") for w in words) for p, i in (("p", 0), ("p", 1), ("p", 2), ("n", 0))]
    budget = max_len - 2 - 2 - 6 - 8 - 4  # specials, prompts, question, target, ref markers
    assert sum(kept) == budget
    trimmed = [k for k, n in zip(kept, (3, 20, 25, 30)) if k < n]
    assert max(trimmed) - min(trimmed) <= 1  # even: trimmed references differ by at most one token
    assert kept[0] == min(3, max(trimmed))  # a short reference is not cut below the others' share


def test_random_layout_invariant_target_whole():
    from qascore.runtime.verifier import encode_view

    rng = random.Random(0)
    tok = _WordTokenizer()
    for _ in range(50):
        q = " ".join(f"q{j}" for j in range(rng.randint(1, 10)))
        t = " ".join(f"t{j}" for j in range(rng.randint(1, 20)))
        refs = [" ".join(f"r{i}_{j}" for j in range(rng.randint(0, 40))) for i in range(rng.randint(0, 5))]
        rec = Record(question=q, candidate=t, references=refs)
        ids, _ = encode_view(tok, square_layout(rec)[0], 64)
        text = " ".join(tok.decode(ids))
        assert len(ids) <= 64 and f"Question: {q} Target: {t}" in text


def test_a_duplicated_candidate_is_not_a_reference_of_its_twin():
    q = AS2Question("z", "question z?", ["same text", "z right", "same text", "z wrong 1", "z wrong 2"],
                    [0, 1, 0, 0, 0])
    for seed in range(20):
        for e in build_examples([q], RefSpec(neg=4), seed=seed):
            assert e.target not in e.negatives
            if e.target == "same text":
                assert e.negatives and len(e.negatives) == 2  # wrong 1, wrong 2; its twin dropped


@pytest.mark.parametrize("text, expected", [
    ("neg=5", RefSpec(neg=5)),
    ("pos=2,neg=3", RefSpec(pos=2, neg=3)),
    ("total=1-5", RefSpec(total=(1, 5))),
    ("total=3", RefSpec(total=(3, 3))),
])
def test_parse_eval_refs(text, expected):
    from qascore_lab.train.square import parse_refs

    assert parse_refs(text, "blind") == expected


def test_parse_eval_refs_rejects_unknown_items():
    from qascore_lab.train.square import parse_refs

    with pytest.raises(ValueError, match="unknown item"):
        parse_refs("positives=2", "blind")


# -- an extra training corpus (`qascore-lab train square --extra-train`) -----------------------------

EXTRA = [_q("x", 3, 4), _q("y", 2, 5), _q("z", 1, 3)]


def test_extra_corpus_follows_the_same_rules_and_is_tagged():
    from qascore_lab.train.square_data import extra_examples

    spec = CONFIGS["square"].refs
    stats = BuildStats()
    ex = extra_examples(EXTRA, {"test": QUESTIONS}, spec, name="trec", n=8, seed=5, pos_fraction=0.25,
                        stats=stats)
    assert len(ex) == stats.targets == 8 and sum(e.label for e in ex) == 2   # round(8 * 0.25)
    assert {e.qid for e in ex} <= {"trec:x", "trec:y", "trec:z"}
    # blind composition, counted by hand: x offers 2+/3-, y 1+/4-, z 0+/2- (total 5: ceil(5/2) = 3
    # positives capped, negatives fill): every target of a question gets the same counts
    want = {"trec:x": (2, 3), "trec:y": (1, 4), "trec:z": (0, 2)}
    assert all((len(e.positives), len(e.negatives)) == want[e.qid] for e in ex)
    assert stats.no_pos == sum(e.qid == "trec:z" for e in ex)
    # seeded: the same call gives the same examples; the rule is that of sample_targets + build_examples
    again = extra_examples(EXTRA, {"test": QUESTIONS}, spec, name="trec", n=8, seed=5, pos_fraction=0.25)
    assert [(e.qid, e.target, e.positives, e.negatives) for e in again] == \
           [(e.qid, e.target, e.positives, e.negatives) for e in ex]


@pytest.mark.parametrize("held_question, clash", [
    ("Question X", True),          # same text up to case and punctuation ("question x?")
    ("question  x ?", True),       # tokenised form
    ("question xy?", False),
])
def test_extra_corpus_sharing_a_held_out_question_is_refused(held_question, clash):
    from qascore_lab.train.square_data import extra_examples

    held = AS2Question("h1", held_question, ["a", "b"], [1, 0])
    def call():
        return extra_examples(EXTRA, {"test": QUESTIONS, "dev": [held]},
                              CONFIGS["square"].refs, name="trec", n=4, seed=0, pos_fraction=0.5)
    if clash:
        with pytest.raises(ValueError, match="question"):
            call()
    else:
        assert len(call()) == 4


def test_extra_corpus_sharing_a_question_id_is_refused():
    from qascore_lab.train.square_data import extra_examples

    with pytest.raises(ValueError):
        extra_examples(EXTRA, {"dev": [AS2Question("y", "another question", ["a", "b"], [1, 0])]},
                       CONFIGS["square"].refs, name="trec", n=4, seed=0, pos_fraction=0.5)
