"""`train probe-relations`, `probe-comparisons`, `probe-roles`, `probe-described` and `probe-descriptions`: the gold
in a lesser role or in another clause's role, and a description of the kind."""

from __future__ import annotations

import json
import random

import pytest

from qascore.text.answer_match import Reading
from qascore.text.roles import lesser_role
from qascore_lab.train import probe_comparisons, probe_described, probe_descriptions, probe_relations, probe_roles
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
    assert lesser_role(Reading(question, template.format(A="Sydney", B="Canberra"), refs)) == 1.0
    assert lesser_role(Reading(question, template.format(A="Canberra", B="Sydney"), refs)) == 0.0


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


@pytest.mark.parametrize("question, expected", [
    ("Who wrote Hamlet?", ("who", "wrote Hamlet")),
    ("Which city is known as Auld Reekie?", ("that", "is known as Auld Reekie")),
    ("What Italian city was home to Romeo and Juliet?", ("that", "was home to Romeo and Juliet")),
    ("When did the Titanic sink?", None),
    ("Who did Mary Shelley marry?", None),                  # "did": no restating clause
    ("What year did the war end?", None),
])
def test_roles_restate_the_question_after_its_question_words(question, expected):
    assert probe_roles.restated(question) == expected


@pytest.mark.parametrize("template", probe_roles.TEMPLATES)
def test_role_templates_give_the_question_s_role_to_one_answer(template):
    """{A} is the one the restating clause names; {B} is named in a clause that restates nothing."""
    assert "{A} is the one {that} {rest}" in template and "{B} is the one" not in template


def test_role_pair_exchanges_the_two_answers(tmp_path):
    suite = _suite(tmp_path, [_assertion("q1", "Who wrote Hamlet?", "Shakespeare", "Marlowe", ["Shakespeare"]),
                              _assertion("q2", "When did the Titanic sink?", "1912", "1913", ["1912"])])
    r, w = probe_roles.build(suite, seed=13)["dev"]          # q2 has no restating clause: no pair
    assert (r["family"], r["label"], w["label"]) == ("role", 1, 0)
    assert r["candidate"].replace("Shakespeare", "X").replace("Marlowe", "Shakespeare").replace("X", "Marlowe") == w["candidate"]
    assert "the one who wrote Hamlet" in r["candidate"]


def test_descriptions_share_no_adjective_or_place_with_the_verifiers_described_rows():
    assert not set(probe_descriptions.ADJECTIVES) & set(probe_described.ADJECTIVES)
    assert not set(probe_descriptions.REGIONS) & set(probe_described.REGIONS)


@pytest.mark.parametrize("question, role", [
    ("Who was the 44th president of the United States?", "a president"),   # the role it names
    ("Who painted the Mona Lisa?", {"a painter", "an artist"}),              # the role its verb implies
    ("Who was the first person to walk on the Moon?", set(f"{'an' if r[0] in 'aeiou' else 'a'} {r}"
                                                          for r in probe_descriptions.ROLES)),  # neither: any
])
def test_fitting_role(question, role):
    got = probe_descriptions.fitting_role(question, random.Random(1))
    assert got == role if isinstance(role, str) else got in role


def test_description_pair_describes_instead_of_naming(tmp_path):
    suite = _suite(tmp_path, [_assertion("q1", "Which city is known as Auld Reekie?", "Edinburgh", "Glasgow",
                                         ["Edinburgh"])])
    r, w = probe_descriptions.build(suite, seed=13)["dev"]
    assert (r["family"], r["label"], w["label"]) == ("description", 1, 0)
    assert {"a", "an"} & set(w["candidate"].lower().split()) and "Edinburgh" not in w["candidate"]
    assert "Edinburgh" in r["candidate"]
