"""The verification corpus: split rule, de-duplication, leakage guard, blind negatives, and (slow) a real build."""

from __future__ import annotations

import pytest

from qascore_lab.datasets.as2 import AS2Question
from qascore_lab.train import verifier_corpus as vc


@pytest.fixture
def data():
    """The shared data root, or a skip that says why it is missing."""
    from qascore_lab.datasets import DataNotFound, data_root

    try:
        return data_root(None)
    except DataNotFound as err:
        pytest.skip(f"no ../shared/data: {err}")


def r(q, ref, cand, label, source="ae"):
    return vc.row(source, source, f"{source}:{q}", q, [ref], cand, label)


def test_dev_split_is_a_stable_share_of_questions():
    keys = [f"question {i}" for i in range(4000)]
    dev = [k for k in keys if vc.in_dev(k, 13)]
    assert 0.08 < len(dev) / len(keys) < 0.12                 # ~10%
    assert dev == [k for k in keys if vc.in_dev(k, 13)]       # deterministic
    assert dev != [k for k in keys if vc.in_dev(k, 14)]       # the seed salts it


@pytest.mark.parametrize("rows, kept", [
    ([r("Who?", "Paris", "paris", 1), r("who", "Paris.", "Paris", 1)], 1),           # same after normalising
    ([r("Who?", "Paris", "London", 0), r("Who?", "Paris", "London", 1)], 0),         # conflicting labels: both go
    ([r("Who?", "Paris", "London", 0), r("Who?", "Paris", "Rome", 0)], 2),
])
def test_dedup(rows, kept):
    out, removed = vc.dedup(rows)
    assert len(out) == kept and removed == len(rows) - kept


def test_check_split_refuses_shared_and_held_out_questions():
    train = [r("Who wrote Hamlet?", "Shakespeare", "Marlowe", 0)]
    with pytest.raises(ValueError, match="both train and dev"):
        vc.check_split(train, [r("who wrote hamlet", "x", "y", 1)], set())
    with pytest.raises(ValueError, match="evaluation split"):
        vc.check_split(train, [], {"whowrotehamlet"})
    vc.check_split(train, [r("Who painted it?", "x", "y", 1)], set())


def test_as2_rows_negatives_are_blind():
    """Every row of a question gets the same negatives, none of them a target."""
    q = AS2Question("q1", "what is x?", ["c0", "c1", "c2", "c3", "c4"], [1, 1, 0, 0, 0], ["0", "1", "2", "3", "4"])
    rows = vc.as2_rows("wikiqa", [q], None, 13)
    # AVA triples: 2 ordered positive pairs + 2 refs x 3 negatives
    assert sorted((x["references"][0], x["candidate"], x["label"]) for x in rows) == sorted(
        [("c0", "c1", 1), ("c1", "c0", 1)] + [(a, b, 0) for a in ("c0", "c1") for b in ("c2", "c3", "c4")])
    negs = {tuple(x["negatives"]) for x in rows}
    assert negs == {()}   # every incorrect candidate is some row's target: none is left to be a reference


def test_as2_rows_negatives_when_some_are_not_targets():
    q = AS2Question("q1", "what is x?", ["c0", "c1", "c2", "c3"], [1, 1, 0, 0], ["0", "1", "2", "3"])
    rows = vc.as2_rows("wikiqa", [q], 0.5, 13)   # one negative triple kept for two positives
    targets = {x["candidate"] for x in rows}
    negs = {tuple(x["negatives"]) for x in rows}
    assert len(negs) == 1
    assert not set(next(iter(negs))) & targets


class _Sentence:
    """The two attributes of a spaCy sentence that `_window` reads."""

    def __init__(self, text: str, start_char: int) -> None:
        self.text, self.start_char = text, start_char


class _Draw:
    def __init__(self, k: int) -> None:
        self.k = k

    def randint(self, lo: int, hi: int) -> int:
        return self.k


_SENT = "In 1876 the telephone was patented by Alexander Graham Bell in Boston today ."


@pytest.mark.parametrize("span, k, expected", [
    ((38, 59), 2, "patented by Alexander Graham Bell in Boston"),      # 2 words either side of the span
    ((3, 7), 2, "In 1876 the telephone"),                              # clipped at the sentence start
    ((38, 59), 6, None),                                               # nearly the whole sentence: no window
    ((200, 210), 2, None),                                             # the span is not in this sentence
])
def test_sentence_window(span, k, expected):
    start, end = span
    offset = 100   # the sentence starts at character 100 of its passage
    got = vc._window(_Sentence(_SENT, offset), start + offset, end + offset, _Draw(k))
    assert got == expected


@pytest.mark.slow
def test_corpus_build_on_shared_data(data):
    """A small real build: sources tagged, splits disjoint by question, no evaluation question in train."""
    train, dev, test, report = vc.build(data, ["ae", "squad", "wikiqa"], 13, squad_questions=60)
    assert test == []  # only EVOUNA-TQ has a test part
    assert {x["source"] for x in train} == {"ae", "squad", "wikiqa"}
    held, _passages, _counts = vc.held_out(data)
    vc.check_split(train, dev, held)
    kinds = report["train"]["by_kind"]
    assert kinds["squad-hard-neg"]["pos"] == 0 and kinds["squad-sent"]["neg"] == 0
    # every SQuAD row of one question carries the same references and negatives (blind)
    by_q: dict[str, set] = {}
    for x in train + dev:
        if x["source"] == "squad":
            by_q.setdefault(x["qid"], set()).add((tuple(x["references"]), tuple(x["negatives"])))
    assert by_q and all(len(v) == 1 for v in by_q.values())


@pytest.mark.slow
def test_sentence_reference_rows_leave_the_squad_rows_alone(data):
    """`squad-sentref` adds rows whose reference is the holder sentence; the `squad` rows do not move."""
    import random

    def rows(kinds):
        return vc.squad_rows(data, random.Random(13), 30, set(), set(), seed=13, kinds=kinds)[0]

    base, both = rows(["squad"]), rows(["squad", "squad-sentref"])
    assert [x for x in both if x["source"] == "squad"] == base
    sent = [x for x in both if x["source"] == "squad-sentref"]
    labels = {(x["kind"], x["label"]) for x in sent}
    assert labels == {("squad-sentref-window", 1), ("squad-sentref-span", 1), ("squad-sentref-neg", 0),
                      ("squad-sentref-hard", 0)}
    span_refs = {x["qid"]: x["references"][0] for x in base}
    for x in sent:
        assert x["references"][0] != span_refs[x["qid"]]
        if x["kind"] == "squad-sentref-window":
            ref = " ".join(x["references"][0].split())   # the window joins words with single spaces
            assert x["candidate"] in ref and len(x["candidate"]) < len(ref)


@pytest.mark.slow
def test_number_swaps_are_appended_and_leave_the_other_rows_alone(data):
    """`numswap` only adds rows: each an incorrect twin of a correct training row of the same question."""
    base, base_dev, _, _ = vc.build(data, ["ae", "squad"], 13, squad_questions=60)
    train, dev, _, report = vc.build(data, ["ae", "squad", "numswap"], 13, squad_questions=60)
    assert train[:len(base)] == base and dev == base_dev
    swaps = train[len(base):]
    assert swaps and report["train"]["by_source"]["numswap"] == len(swaps)
    by_id = {x["id"]: x for x in base}
    for x in swaps:
        twin = by_id[x["id"].removesuffix("-ns")]
        assert x["source"] == "numswap" and x["label"] == 0 and twin["label"] == 1
        assert x["question"] == twin["question"] and x["references"] == twin["references"]
        assert x["candidate"] != twin["candidate"]


def test_alias_copies_draw_one_other_alias_per_question():
    refs = ["Wilhelm Röntgen", "Röntgen", "W. C. Röntgen", "Roentgen"]
    rows = [{**vc.row("evouna", "evouna", "evouna:q1", "Who?", refs, cand, label), "id": f"train-{i}"}
            for i, (cand, label) in enumerate([("Röntgen", 1), ("Lorentz", 0)])]
    rows.append({**vc.row("evouna", "evouna", "evouna:q2", "Where?", ["Paris"], "Paris", 1), "id": "train-2"})
    rows.append({**vc.row("ae", "ae", "ae:q3", "Who?", refs, "Röntgen", 1), "id": "train-3"})
    copies = vc.alias_copies(rows, 13)
    assert [c["id"] for c in copies] == ["train-0-alias", "train-1-alias"]   # one-answer and other sources: none
    assert copies[0]["references"] == copies[1]["references"] != [refs[0]]
    assert copies[0]["references"][0] in refs[1:] and len(copies[0]["references"]) == 1
    assert [(c["source"], c["label"], c["candidate"]) for c in copies] == [("evouna-alias", 1, "Röntgen"),
                                                                          ("evouna-alias", 0, "Lorentz")]
    assert vc.alias_copies(rows, 13) == copies
