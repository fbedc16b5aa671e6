"""The behavioural probe suite: the builder's families on a hand-made question, and the per-family table."""

from __future__ import annotations

import pytest

from qascore_lab.train.probes import Builder, family_table, pairs, wants_person


def build_one(gold: str, wrongs: list[str], **kw) -> list[dict]:
    b = Builder(seed=13)
    b.question("dev", "q1", "What is the capital of Australia?", [gold], gold, wrongs, "hand", "system", **kw)
    return b.rows["dev"]


def test_every_family_that_the_data_allows_is_written_with_its_label():
    rows = build_one("Canberra", ["Sydney", "Melbourne"], sentence="Canberra is the capital of Australia.")
    fams = {(r["family"], r["member"], r["label"]) for r in rows}
    for family in ("assertion", "negation", "distractors", "swap"):
        assert {(family, "right", 1), (family, "wrong", 0)} <= fams
    for family in ("hedge", "refusal"):  # a committed right member against a non-committal wrong one
        assert {(family, "right", 1), (family, "wrong", 0)} <= fams
    assert ("restate", "wrong", 0) in fams
    assert not any(r["family"] == "number" for r in rows)  # no digit in the gold answer
    swap = {r["member"]: r["candidate"] for r in rows if r["family"] == "swap"}
    assert swap == {"right": "Canberra is the capital of Australia.", "wrong": "Sydney is the capital of Australia."}


def test_a_pair_swaps_the_gold_and_the_wrong_answer_in_the_same_words():
    rows = build_one("Canberra", ["Sydney"])
    for right, wrong in pairs(rows):
        if rows[right]["family"] in ("assertion", "negation", "distractors"):
            assert rows[wrong]["candidate"] == rows[right]["candidate"].replace("Canberra", "\0").replace(
                "Sydney", "Canberra").replace("\0", "Sydney")


def test_a_number_answer_gets_a_near_number_pair_and_no_wrong_answer_no_pairs():
    rows = build_one("1969", [])
    fams = {r["family"] for r in rows}
    assert fams == {"number", "restate"}
    number = {r["member"]: r["candidate"] for r in rows if r["family"] == "number"}
    assert "1969" in number["right"] and "1969" not in number["wrong"]


def test_a_restatement_is_not_written_when_the_question_holds_the_gold_answer():
    b = Builder(seed=13)
    b.question("dev", "q1", "Is Canberra the capital?", ["Canberra"], "Canberra", [], "hand", "system")
    assert not any(r["family"] == "restate" for r in b.rows["dev"])


def test_family_table_by_hand():
    rows = [{"family": "negation", "pair": "p1", "member": "right", "label": 1},
            {"family": "negation", "pair": "p1", "member": "wrong", "label": 0},
            {"family": "negation", "pair": "p2", "member": "right", "label": 1},
            {"family": "negation", "pair": "p2", "member": "wrong", "label": 0},
            {"family": "restate", "pair": None, "member": "wrong", "label": 0}]
    scores = [0.9, 0.2, 0.4, 0.4, 0.7]     # p1: right higher; p2: a tie, counted half
    accepted = [True, False, False, False, True]
    t = family_table(rows, scores, accepted)
    assert t["negation"] == {"n": 4, "pairs": 2, "right_higher": pytest.approx(0.75), "wrong_accepted": 0.0,
                             "right_accepted": 0.5}
    assert t["restate"] == {"n": 1, "pairs": 0, "right_higher": None, "wrong_accepted": 1.0, "right_accepted": None}


def test_families_outside_the_suite_are_tabled_after_it():
    from qascore_lab.train.probes import ordered

    rows = [{"family": f, "pair": None, "member": "right", "label": 1}
            for f in ("style-hedge", "date-refine", "restate", "assertion")]
    assert ordered(r["family"] for r in rows) == ["assertion", "restate", "date-refine", "style-hedge"]
    t = family_table(rows, [0.9, 0.2, 0.9, 0.9], [True, False, True, True])
    assert list(t) == ["assertion", "restate", "date-refine", "style-hedge"]
    assert t["date-refine"]["right_accepted"] == 0.0 and t["style-hedge"]["right_accepted"] == 1.0


def test_audited_alias_rows_become_families_of_their_own():
    from qascore_lab.train.probes import audited

    rows = [{"id": "a1", "family": "alias", "pair": None, "member": "right", "label": 1},
            {"id": "a2", "family": "alias", "pair": None, "member": "right", "label": 1},
            {"id": "a3", "family": "alias", "pair": None, "member": "right", "label": 1},   # not read
            {"id": "n1", "family": "negation", "pair": None, "member": "right", "label": 1}]
    extra = audited(rows, {"a1": True, "a2": False, "n1": False})
    assert [(r["id"], r["family"], r["member"], r["label"]) for r in extra] == [
        ("a1", "alias-people-accept", "right", 1), ("a2", "alias-people-refuse", "wrong", 0)]
    t = family_table(rows + extra, [0.9, 0.9, 0.1, 0.9, 0.9, 0.9], [True, True, False, True, True, True])
    assert t["alias"]["right_accepted"] == pytest.approx(2 / 3)
    assert t["alias-people-accept"]["right_accepted"] == 1.0 and t["alias-people-refuse"]["wrong_accepted"] == 1.0


def test_a_pair_draw_keeps_both_members_and_follows_the_seed():
    from qascore_lab.train.probes import by_pairs

    rows = [{"pair": f"p{k}", "member": m} for k in range(6) for m in ("right", "wrong")] + [{"pair": None}]
    drawn = by_pairs(rows, 3, seed=13)
    assert len(drawn) == 6 and len({r["pair"] for r in drawn}) == 3       # whole pairs, never a lone member
    assert drawn == by_pairs(rows, 3, seed=13) and drawn != by_pairs(rows, 3, seed=14)
    assert by_pairs(rows, 10, seed=13) == rows[:-1]                       # fewer pairs than asked: all, in order


def test_bench_probes_tables_the_audited_rows_with_their_own_scores(tmp_path, monkeypatch, capsys):
    """`bench probes --audit`: each audited alias row is scored once and tabled twice, in `alias` and in the
    family its verdict names (a stub metric accepts the rows whose score is 0.9)."""
    import argparse
    import json

    from qascore_lab.bench import probes as bench

    rows = [{"id": "a1", "qid": "q1", "family": "alias", "pair": None, "member": "right", "label": 1,
             "question": "Q?", "candidate": "x", "references": ["y"]},
            {"id": "a2", "qid": "q2", "family": "alias", "pair": None, "member": "right", "label": 1,
             "question": "Q?", "candidate": "x", "references": ["y"]},
            {"id": "r1", "qid": "q3", "family": "restate", "pair": None, "member": "wrong", "label": 0,
             "question": "Q?", "candidate": "x", "references": ["y"]}]
    for split in ("dev", "test"):
        (tmp_path / f"{split}.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    audit = tmp_path / "audit.json"
    audit.write_text(json.dumps({"test": {"a1": True, "a2": False}}), encoding="utf-8")
    scored: list[int] = []

    def stub(metric, rs):
        scored.append(len(rs))
        s = [0.9 if r["id"] in ("a1", "a2") else 0.1 for r in rs]
        return s, [v > 0.5 for v in s]

    monkeypatch.setattr(bench, "score", stub)
    p = argparse.ArgumentParser()
    bench.add_arguments(p)
    args = p.parse_args(["--probes", str(tmp_path), "--audit", str(audit), "-m", "stub", "--out", str(tmp_path / "o")])
    assert bench.run(args) == 0
    assert scored == [3]                                   # the copies are not scored again
    fams = json.loads((tmp_path / "o" / "probes.json").read_text())["families"]["stub"]
    assert fams["alias"]["right_accepted"] == 1.0
    assert fams["alias-people-accept"]["right_accepted"] == 1.0
    assert fams["alias-people-refuse"]["wrong_accepted"] == 1.0
    assert json.loads((tmp_path / "o" / "probes.json").read_text())["rows"] == 3


@pytest.mark.parametrize("question, person", [
    ("Who painted the Mona Lisa?", True), ("Which actor played Bond in 1962?", True), ("whose portrait is it", True),
    ("How many moons does Mars have?", False), ("What is the capital of France?", False),
])
def test_wants_person(question, person):
    """A wrong answer drawn for a person question is another person's name."""
    assert wants_person(question) is person
