"""`qascore.score(...)` in one call, `read_records` of a list of dicts, and `em`/`f1`'s `empty_candidate` flag
(issue 63 items 1, 2 and 5). Every expected value is worked by hand in the comment beside it."""

from __future__ import annotations

import subprocess
import sys
from typing import Any, Sequence

import pytest

import qascore
from qascore.metrics.base import Metric
from qascore.metrics.options import Option
from qascore.metrics.registry import _REGISTRY
from qascore.records import InputError, Record


class Decider(Metric):
    """Scores each record's `p`; decides at its `threshold` option, else at the 0.7 'stored with its model'."""

    name = "decider"
    requires = ("question", "candidate")

    @classmethod
    def option_specs(cls) -> dict[str, Option]:
        return {"threshold": Option("float", None, "cut-off", min=0.0, max=1.0, none="stored")}

    def _score(self, records: Sequence[Record]) -> tuple[list[float], dict[str, list[Any]]]:
        thr = self.decision_threshold()
        p = [float(r.extra["p"]) for r in records]
        return p, {"correct": [x >= thr for x in p], "question": [r.question for r in records]}

    def signature_fields(self) -> dict[str, Any]:
        return {"threshold": "0.7000"}


@pytest.fixture
def decider(monkeypatch):
    monkeypatch.setitem(_REGISTRY, "decider", "test_api_score:Decider")


# -- the list form ----------------------------------------------------------------------------------------------
def test_list_form_gives_scores_details_and_the_corpus_score():
    res = qascore.score("f1", candidates=["the cat sat", "a dog", ""],
                        references=[["cat sat down"], ["the dog", "dog"], ["x"]])
    # 1: tokens (articles dropped) cat sat / cat sat down: P 2/2, R 2/3, F 0.8
    # 2: dog / dog: 1.0 (the best reference); 3: an empty answer to 'x': SQuAD's 0, flagged empty
    assert res.scores == pytest.approx([0.8, 1.0, 0.0])
    assert res.corpus == pytest.approx(0.6)  # (0.8 + 1 + 0) / 3
    assert res.details[0] == pytest.approx({"p": 1.0, "r": 2 / 3, "f": 0.8})
    assert res.details[2] == {"p": 0.0, "r": 0.0, "f": 0.0, "empty_candidate": True}
    assert res.correct is None and res.threshold is None  # f1 has no threshold
    assert res.metric == "f1" and res.signature.startswith("metric:f1|") and len(res) == 3
    assert [ex.score for ex in res] == res.scores and res[1].details == {"p": 1.0, "r": 1.0, "f": 1.0}


def test_decisions_at_the_stored_threshold_and_at_a_spec_strings_option(decider):
    rows = dict(questions=["q?"] * 4, candidates=["a", "b", "c", ""], p=[0.9, 0.6, 0.2, 0.9])
    stored = qascore.score("decider", **rows)
    # p 0.9, 0.6, 0.2 against the stored 0.7: yes, no, no; the empty answer scores 0.0 and is not correct
    assert stored.scores == [0.9, 0.6, 0.2, 0.0] and stored.correct == [True, False, False, False]
    assert stored.threshold == 0.7 and stored.details[3] == {"empty_candidate": True}
    given = qascore.score("decider:threshold=0.5", **rows)  # options after a colon, as `load` and `-m` take them
    assert given.correct == [True, True, False, False] and given.threshold == 0.5
    assert given.metric == "decider:threshold=0.5" and given.details[1] == {"correct": True, "question": "q?"}


def test_a_spec_string_scores_as_load_does():
    # 'a b' against 'a b' and 'c': ROUGE-L 1.0 and 0.0; agg=mean 0.5, the default max 1.0
    mean = qascore.score("rougeL:agg=mean", candidates=["a b"], references=[["a b", "c"]])
    assert mean.scores == [0.5] and qascore.score("rougeL", candidates=["a b"], references=[["a b", "c"]]).scores == [1.0]
    assert mean.signature == qascore.load("rougeL", agg="mean").signature
    assert qascore.score(qascore.load("rougeL", agg="mean"), candidates=["a b"], references=[["a b", "c"]]).scores == [0.5]


def test_other_keywords_are_fields_of_each_example(decider):
    res = qascore.score("decider", candidates=["a", "b"], questions=["q1?", "q2?"], p=[0.8, 0.1], ids=["x", "y"])
    assert res.scores == [0.8, 0.1] and [d["question"] for d in res.details] == ["q1?", "q2?"]


# -- the one-pair form ------------------------------------------------------------------------------------------
def test_one_pair_form_returns_the_one_examples_result(decider):
    one = qascore.score("f1", candidate="the cat sat", references=["cat sat down"])
    assert isinstance(one, qascore.ScoredExample)
    assert one.score == pytest.approx(0.8) and one.correct is None  # as example 1 above
    assert one.details == pytest.approx({"p": 1.0, "r": 2 / 3, "f": 0.8}) and one.metric == "f1"
    judged = qascore.score("decider", question="who?", candidate="she", p=0.75)
    assert (judged.score, judged.correct, judged.details["question"]) == (0.75, True, "who?")  # 0.75 >= 0.7
    empty = qascore.score("f1", candidate="", references=[""])  # SQuAD: an empty answer to an empty reference is 1
    assert empty.score == 1.0 and empty.details == {"p": 1.0, "r": 1.0, "f": 1.0, "empty_candidate": True}


# -- what is refused, and how it is named -----------------------------------------------------------------------
@pytest.mark.parametrize("kwargs, says", [
    (dict(candidates=["a", "b"], references=[["a"]]), "references has 1 item but candidates has 2"),
    (dict(candidates=["a"], references=[["a"]], questions=["q", "r"]), "questions has 2 items but candidates has 1"),
    (dict(candidates=["a", "b"], references=[["a"], ["b"]], human=[1]), "human has 1 item but candidates has 2"),
    (dict(candidates="abc", references=[["a"]]), "candidates must be a list with one item per example, got str"),
    (dict(candidates=["a"], references=[["a"]], question="q?"), "question= is the one-example form's"),
    (dict(candidate="a", references=["a"], questions=["q?"]), "questions= is the list form's"),
    (dict(candidate="a", references=["a"], contexts=["c"]), "contexts= is the list form's"),
    (dict(candidate="a", candidates=["a"]), "not both"),
    (dict(references=[["a"]]), "give candidates=[...]"),
])
def test_lists_of_other_lengths_and_mixed_forms_are_a_value_error_naming_the_field(kwargs, says):
    with pytest.raises(ValueError) as err:
        qascore.score("f1", **kwargs)
    assert says in str(err.value) and not isinstance(err.value, InputError)


def test_a_bad_value_names_the_example_and_the_field():
    with pytest.raises(InputError) as err:  # two answers, each with one reference, given flat
        qascore.score("f1", candidates=["a", "b"], references=["a", "b"])
    assert str(err.value).startswith("<input>:1: field 'references': must be a list of strings")
    with pytest.raises(InputError) as err:
        qascore.score("f1", candidates=["a", 5], references=[["a"], ["b"]])
    assert (err.value.line, err.value.field) == (2, "candidate")


def test_import_and_a_lexical_call_load_no_model():
    """Models load on first use only (nothing at import): f1 from the API never imports torch."""
    code = ("import sys, qascore; r = qascore.score('f1', candidate='a', references=['a']); "
            "print(r.score, 'torch' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.split() == ["1.0", "False"]


@pytest.mark.slow
def test_a_model_loads_once_per_process_however_often_score_is_called():
    from qascore.runtime import cache

    args = dict(questions=["capital of australia?"], candidates=["Canberra"], references=[["Canberra"]])
    first = qascore.score("ava", **args)
    held = dict(cache._CACHE)
    again = qascore.score("ava:aggregate=max", **args)
    assert dict(cache._CACHE).keys() == held.keys()
    assert all(cache._CACHE[k] is v for k, v in held.items())  # the same objects: nothing was loaded again
    assert again.scores == pytest.approx(first.scores) and first.correct == [True]


# -- read_records of a list of dicts (item 2) -------------------------------------------------------------------
def test_read_records_takes_a_list_of_dicts_and_records():
    made = Record(candidate="b", references=["b"])
    recs = qascore.read_records([{"id": 7, "candidate": "a", "references": ["a"], "human": 4}, made])
    assert [r.id for r in recs] == ["7", ""] and recs[0].extra == {"human": 4} and recs[1] is made
    assert qascore.load("f1").score(recs).scores == [1.0, 1.0]
    renamed = qascore.read_records([{"answer_text": "x", "gold": ["x"]}],
                                   mapping={"candidate": "answer_text", "references": "gold"})
    assert (renamed[0].candidate, renamed[0].references) == ("x", ["x"])


def test_read_records_names_the_item_and_the_field():
    with pytest.raises(InputError) as err:
        qascore.read_records([{"candidate": "a", "references": ["a"]}, {"candidate": "c", "references": "d"}])
    assert str(err.value) == "<input>:2: field 'references': must be a list of strings, got a string (wrap it in [...])"
    assert (err.value.line, err.value.field) == (2, "references")
    with pytest.raises(InputError, match="no records"):
        qascore.read_records([])
    with pytest.raises(TypeError, match="item 2 is int"):
        qascore.read_records([{"candidate": "a"}, 5])
    with pytest.raises(TypeError, match="wrap it in"):
        qascore.read_records({"candidate": "a"})
    with pytest.raises(TypeError, match="a file path or a list of dicts, got int"):
        qascore.read_records(5)
    with pytest.raises(TypeError, match="file format"):
        qascore.read_records([{"candidate": "a"}], fmt="csv")


# -- em and f1 flag an empty candidate too (item 5) --------------------------------------------------------------
def test_em_and_f1_flag_an_empty_candidate_beside_squads_score(tmp_path, capsys):
    import json

    from qascore.cli import main

    rows = [{"candidate": "", "references": ["x"]}, {"candidate": " ", "references": [""]},
            {"candidate": "x", "references": ["x"]}]
    f1 = qascore.load("f1").score(rows)
    assert f1.scores == [0.0, 1.0, 1.0]  # SQuAD: empty vs 'x' 0, empty vs empty 1
    assert f1.example(0) == {"p": 0.0, "r": 0.0, "f": 0.0, "empty_candidate": True}
    assert f1.example(1) == {"p": 1.0, "r": 1.0, "f": 1.0, "empty_candidate": True}
    assert f1.example(2) == {"p": 1.0, "r": 1.0, "f": 1.0}
    em = qascore.load("em").score(rows)
    assert em.scores == [0.0, 1.0, 1.0] and em.example(0) == em.example(1) == {"empty_candidate": True}
    src, out = tmp_path / "in.jsonl", tmp_path / "out.jsonl"
    src.write_text("".join(json.dumps(r) + "\n" for r in rows))
    assert main(["score", str(src), "-m", "f1", "-m", "em", "-o", str(out)]) == 0
    written = [json.loads(line) for line in out.read_text().splitlines()]
    assert written[0]["details"] == {"f1": {"p": 0.0, "r": 0.0, "f": 0.0, "empty_candidate": True},
                                     "em": {"empty_candidate": True}}
    assert "details" not in written[2] or "em" not in written[2]["details"]


def test_square_names_the_threshold_its_decisions_use():
    """square decides at the threshold stored with its verifier, so `qascore.score`'s `threshold`, the table's
    `correct.square` column and `meta --label` find it, though square's signature does not name it."""
    from qascore.metrics.square import DEFAULT_MODEL, read_card

    assert qascore.load("square").decision_threshold() == float(read_card(str(DEFAULT_MODEL))["threshold"])
