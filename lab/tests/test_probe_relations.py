"""`train probe-relations`, `train probe-comparisons` and `train probe-described`: the gold in a lesser role, and a
description of the kind."""

from __future__ import annotations

import json
import random

import pytest

from qascore.text.roles import lesser_role
from qascore_lab.train import probe_comparisons, probe_described, probe_relations
from qascore_lab.train.probe_plain import TEMPLATES
from qascore_lab.train.probes import ASSERTION


def _suite(tmp_path, dev):
    for split, rows in (("train", []), ("dev", dev), ("test", [])):
        (tmp_path / f"{split}.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    return tmp_path


def _assertion(qid, question, gold, wrong, refs):
    row = {"qid": qid, "question": question, "references": refs, "origin": "evouna-tq", "wrong_from": "system",
           "family": "assertion", "member": "right"}
    return dict(row, candidate=ASSERTION[1].format(A=gold, B=wrong))


@pytest.mark.parametrize("module, family", [(probe_relations, "relation"), (probe_comparisons, "comparison")])
def test_a_pair_exchanges_the_two_answers_in_one_template(tmp_path, module, family):
    suite = _suite(tmp_path, [_assertion("q1", "Who was the 44th US president?", "Barack Obama", "Joe Biden",
                                         ["Barack Obama"])])
    r, w = module.build(suite, seed=13)["dev"]
    assert (r["family"], r["label"], w["label"]) == (family, 1, 0)
    template = next(t for t in module.TEMPLATES if t.format(A="Barack Obama", B="Joe Biden") == r["candidate"])
    assert w["candidate"] == template.format(A="Joe Biden", B="Barack Obama")
    assert module.build(suite, seed=13)["dev"] == [r, w]


@pytest.mark.parametrize("template, gold_first", [("{B}'s successor, {A}.", False), ("{A}, often confused with {B}.", True),
                                                  ("{B} is something else; {A} is the answer.", False)])
def test_relation_templates_put_the_asserted_answer_where_a_reader_finds_it(template, gold_first):
    assert template in probe_relations.TEMPLATES
    text = template.format(A="Canberra", B="Sydney")
    assert (text.index("Canberra") < text.index("Sydney")) == gold_first


@pytest.mark.parametrize("template", probe_comparisons.TEMPLATES)
def test_comparison_templates_put_the_gold_in_a_lesser_role_only_in_the_wrong_member(template):
    question, refs = "What is the capital of Australia?", ["Canberra"]
    assert lesser_role(question, template.format(A="Sydney", B="Canberra"), refs) == 1.0
    assert lesser_role(question, template.format(A="Canberra", B="Sydney"), refs) == 0.0


def test_described_pair_names_the_kind_in_new_words(tmp_path):
    suite = _suite(tmp_path, [_assertion("q1", "Which city is known as Auld Reekie?", "Edinburgh", "Glasgow",
                                         ["Edinburgh"]),
                              _assertion("q2", "What is the capital of France?", "Paris", "Lyon", ["Paris"])])
    r, w = probe_described.build(suite, seed=13)["dev"]   # q2 names no kind: no pair
    assert (r["family"], r["label"], w["label"]) == ("described", 1, 0)
    template = next(t for t in TEMPLATES if t.format(A="Edinburgh") == r["candidate"])
    said = w["candidate"].lower()
    assert "city" in said and "edinburgh" not in said and said != template.format(A="a city").lower()


@pytest.mark.parametrize("seed", range(6))
def test_described_reads_as_an_indefinite_description(seed):
    text = probe_described.described("an actor", random.Random(seed))
    words = text.split()
    assert words[0] in ("a", "an") and "actor" in words and len(words) >= 3
    assert (words[0] == "an") == (words[1][0].lower() in "aeiou")
