"""KPQA tagger source `squad11` (SQuAD 1.1 train): spans, drops, the seeded sample, the unchanged dev split.

A hand-made SQuAD 1.1 file in tmp_path (the reader's own format), plus the first rows of the real
file when ../shared/data is there (skipped otherwise). No model: the tokenizer is a vocabulary file.
"""

from __future__ import annotations

import argparse
import gzip
import json
from pathlib import Path

import pytest

from qascore_lab.datasets import DataNotFound, benchmark_dir, squad
from qascore_lab.train import kpqa, kpqa_data as kd
from qascore_lab.train.ava_data import question_key


ROWS = [
    ("Paris/0/0", "Paris", "Paris is the capital of France. It has 2 million people.",
     "How many people live in Paris?", "2 million"),
    ("Paris/0/1", "Paris", "Paris is the capital of France. It has 2 million people.",
     "What is the capital of France?", "Paris"),
    ("Paris/1/0", "Paris", "The Seine crosses the city. Its length is 777 km.", "How long is the Seine?", "777 km"),
    ("Water/0/0", "Water", "Water boils at 100 degrees. It freezes at 0 degrees.",
     "At what temperature does water boil?", "100 degrees"),
    ("Water/0/1", "Water", "Water boils at 100 degrees. It freezes at 0 degrees.",
     "At what temperature does water freeze?", "0 degrees"),
    ("Water/1/0", "Water", "Ice floats on water. It is less dense than liquid water.",
     "Why does ice float?", "less dense than liquid water"),
]


def write_v11(root: Path, rows) -> Path:
    folder = root / squad.V11_FOLDER
    folder.mkdir(parents=True, exist_ok=True)
    with gzip.open(folder / squad.V11_FILE, "wt", encoding="utf-8") as fh:
        for qid, title, ctx, question, answer in rows:
            fh.write(json.dumps({"id": qid, "title": title, "context": ctx, "question": question,
                                 "answers": [answer], "answer_starts": [ctx.index(answer)]}) + "\n")
    return root


@pytest.fixture()
def fixture_questions(tmp_path):
    return squad.load_v11(write_v11(tmp_path, ROWS))


def answer_of(ex: kd.Example) -> str:
    (s, e), = ex.spans
    return ex.sentence[s:e]


def test_fixture_spans_decode_to_answers(fixture_questions):
    ex = kd.squad11_select(fixture_questions, 100, verifier_dev_seed=None)
    gold = {q.id: q.answers[0].text for q in fixture_questions}
    assert [e.id for e in ex] == list(gold)                       # all kept, in file order
    assert all(answer_of(e) == gold[e.id] for e in ex)
    assert all(e.source == "squad11" for e in ex)
    # the answer sentence, not the paragraph; group = paragraph
    first = ex[0]
    assert first.sentence == "It has 2 million people." and first.group == ex[1].group != ex[2].group
    assert first.group.startswith("squad11:")


def test_from_squad_is_the_builder(fixture_questions):
    """squad11 examples are `from_squad`'s, with the source name and group prefix switched."""
    v2 = kd.from_squad(fixture_questions)
    v11 = kd.from_squad(fixture_questions, source="squad11")
    assert [(a.question, a.sentence, a.spans, a.id) for a in v2] == [(b.question, b.sentence, b.spans, b.id) for b in v11]
    assert all(a.group == "squad" + b.group[len("squad11"):] for a, b in zip(v2, v11))


def test_drops_are_counted(fixture_questions):
    other = [kd.Example("why does ICE float", "s", ((0, 1),), "ae", "ae:x", "1")]
    qgeval_revision = "Paris is the capital of France. It has 2 million people today."   # one word added
    rep: dict[str, int] = {}
    ex = kd.squad11_select(fixture_questions, 100, held_questions={question_key("How long is the Seine?")},
                           held_passages=[qgeval_revision], other=other, report=rep, verifier_dev_seed=None)
    assert [e.id for e in ex] == ["Water/0/0", "Water/0/1"]
    assert rep["qgeval_passages"] == 1 and rep["qgeval_passage_questions"] == 2
    assert rep["eval_question"] == 1 and rep["other_source_question"] == 1
    assert rep["kept"] == 2 and rep["kept_passages"] == 1


def test_same_passage_revision_not_boilerplate():
    held = ("In the mid-1950s, Frank Burnet, inspired by a suggestion made by Niels Jerne, formulated the clonal "
            "selection theory of immunity. The theory was later modified to reflect new discoveries.")
    test = kd.same_passage([held])
    assert test("In the mid-1950s, Frank Burnet, inspired by a suggestion made by Niels Jerne, formulated the "
                "clonal selection theory (CST) of immunity. It was later modified.")
    assert not test("Frank Burnet was born in 1899. He formulated a theory of immunity.")


def test_sample_is_seeded_and_deterministic(fixture_questions):
    full = [e.id for e in kd.squad11_select(fixture_questions, 100, verifier_dev_seed=None)]
    three = [e.id for e in kd.squad11_select(fixture_questions, 3, verifier_dev_seed=None)]
    assert len(three) == 3 and three == [e.id for e in kd.squad11_select(fixture_questions, 3, verifier_dev_seed=None)]
    assert [i for i in full if i in three] == three                # file order kept
    # independent of the input order, and a smaller N is a subset of a larger one
    again = [e.id for e in kd.squad11_select(fixture_questions[::-1], 3, verifier_dev_seed=None)]
    assert sorted(again) == sorted(three)
    four = {e.id for e in kd.squad11_select(fixture_questions, 4, verifier_dev_seed=None)}
    assert set(three) <= four
    # the salt decides: some salt picks another three
    others = {tuple(e.id for e in kd.squad11_select(fixture_questions, 3, verifier_dev_seed=None, salt=f"s{i}"))
              for i in range(10)}
    assert len(others) > 1


def test_dev_split_unchanged_with_squad11(fixture_questions):
    base = [kd.Example("q", "s", ((0, 1),), src, f"{src}:{i // 2}", f"{src}{i}")
            for src in ("squad", "wikiqa", "ae") for i in range(400)]
    base += [kd.Example("q", "s", ((0, 1),), "squad-polar", "squad:3", "p")]
    s11 = [kd.Example("q", "s", ((0, 1),), "squad11", f"squad11:{i}", f"x{i}") for i in range(2000)]
    s11 += kd.squad11_select(fixture_questions, 100, verifier_dev_seed=None)
    train0, dev0 = kd.split(base)
    train1, dev1 = kd.split(base[:600] + s11 + base[600:])
    assert dev1 == dev0 and len(dev0) > 0
    assert [e for e in train1 if e.source != "squad11"] == train0
    assert sum(e.source == "squad11" for e in train1) == len(s11)
    # without the train-only rule about a tenth of these groups would have gone to dev
    assert sum(kd.polar.salted_bucket(0, e.group, 100) < 10 for e in s11) > 100


def test_cli_option_and_card_default():
    p = argparse.ArgumentParser()
    kpqa.add_arguments(p)
    assert p.parse_args([]).squad11_questions == kd.SQUAD11_QUESTIONS == 10000
    a = p.parse_args(["--sources", "squad,wikiqa,ae,squad11", "--squad11-questions", "50"])
    assert a.squad11_questions == 50 and "squad11" in kd.SOURCES


def real_rows(n: int):
    try:
        src = benchmark_dir(squad.V11_FOLDER) / squad.V11_FILE
    except DataNotFound as err:
        pytest.skip(f"../shared/data absent: {err}")
    if not src.is_file():
        pytest.skip(f"{src} absent")
    out = []
    with gzip.open(src, "rt", encoding="utf-8") as fh:
        for line in fh:
            out.append(json.loads(line))
            if len(out) == n:
                break
    return out


def test_real_rows_spans_decode_to_answers(tmp_path):
    rows = real_rows(300)
    folder = tmp_path / squad.V11_FOLDER
    folder.mkdir()
    with gzip.open(folder / squad.V11_FILE, "wt", encoding="utf-8") as fh:
        fh.writelines(json.dumps(r) + "\n" for r in rows)
    qs = squad.load_v11(tmp_path)
    ex = kd.squad11_select(qs, 120)
    gold = {r["id"]: r["answers"][0] for r in rows}
    assert len(ex) == 120
    assert all(answer_of(e) == gold[e.id] for e in ex)
    assert all(e.sentence in next(q.context for q in qs if q.id == e.id) for e in ex[:20])


def test_real_rows_labels_cover_the_answer(tmp_path):
    from qascore.runtime.encoder import load_tokenizer

    try:
        tok = load_tokenizer()
    except FileNotFoundError as err:
        pytest.skip(f"default encoder package not installed: {err}")
    rows = real_rows(40)
    folder = tmp_path / squad.V11_FOLDER
    folder.mkdir()
    with gzip.open(folder / squad.V11_FILE, "wt", encoding="utf-8") as fh:
        fh.writelines(json.dumps(r) + "\n" for r in rows)
    for ex in kd.squad11_select(squad.load_v11(tmp_path), 40, verifier_dev_seed=None):
        enc = kd.encode(tok, ex)
        assert enc is not None
        ids = [i for i, lab in zip(enc.input_ids, enc.labels) if lab == 1]
        words = tok.decode(ids).replace(" ", "")
        assert words == tok.decode(tok(answer_of(ex), add_special_tokens=False)["input_ids"]).replace(" ", "")
