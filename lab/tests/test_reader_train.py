"""`qascore-lab train reader` on a small hand-written SQuAD-shaped data root (no ../shared needed)."""

from __future__ import annotations

import argparse
import csv
import gzip
import json
from pathlib import Path

import numpy as np
import pytest

from qascore_lab.train import reader as tr

NAMES = ["Alice", "Bruno", "Chen", "Dana", "Emil", "Farah", "Goran", "Hana"]
CITIES = ["Paris", "Lima", "Oslo", "Cairo", "Quito", "Hanoi", "Accra", "Perth"]
YEARS = ["1901", "1912", "1923", "1934", "1945", "1956", "1967", "1978"]


def _paragraph(k: int) -> tuple[str, list[tuple[str, str]]]:
    name, city, year = NAMES[k % 8], CITIES[(k * 3) % 8], YEARS[(k * 5) % 8]
    ctx = f"{name} was born in {city} in {year}. {name} later studied music and wrote {k + 2} symphonies."
    return ctx, [(f"Where was {name} born?", city), (f"In what year was {name} born?", year),
                 (f"How many symphonies did {name} write?", str(k + 2))]


def write_root(root: Path) -> dict[str, list[str]]:
    """6 SQuAD 1.1 articles x 2 paragraphs x 3 questions; 4 SQuAD 2.0 articles x 1 paragraph x 3 answerable +
    1 unanswerable; QGEval holding one SQuAD 1.1 paragraph (its questions must be dropped)."""
    (root / "squad_v1_train").mkdir(parents=True)
    (root / "squad_v2_dev").mkdir()
    (root / "qgeval_squad").mkdir()
    titles: dict[str, list[str]] = {"v1": [], "v2": []}
    k = 0
    with gzip.open(root / "squad_v1_train" / "train-v1.1.jsonl.gz", "wt", encoding="utf-8") as fh:
        for a in range(6):
            title = f"Article_{a}"
            titles["v1"].append(title)
            for p in range(2):
                ctx, qas = _paragraph(k)
                k += 1
                for q, (question, ans) in enumerate(qas):
                    fh.write(json.dumps({"id": f"{title}/{p}/{q}", "title": title, "context": ctx,
                                         "question": question, "answers": [ans],
                                         "answer_starts": [ctx.index(ans)]}) + "\n")
    data = []
    for a in range(4):
        ctx, qas = _paragraph(k)
        k += 1
        title = f"Dev_{a}"
        titles["v2"].append(title)
        items = [{"id": f"d{a}_{q}", "question": question, "is_impossible": False,
                  "answers": [{"text": ans, "answer_start": ctx.index(ans)}]} for q, (question, ans) in enumerate(qas)]
        items.append({"id": f"d{a}_x", "question": "Where did Zed die?", "is_impossible": True, "answers": []})
        data.append({"title": title, "paragraphs": [{"context": ctx, "qas": items}]})
    (root / "squad_v2_dev" / "dev-v2.0.json").write_text(json.dumps({"version": "v2.0", "data": data}))
    with open(root / "qgeval_squad" / "original_data.csv", "w", newline="", encoding="utf-8") as fh:
        w = csv.writer(fh)
        w.writerow(["id", "reference", "passage", "answer"])
        w.writerow(["x", "Where was Alice born?", _paragraph(0)[0], "Paris"])
    return titles


def _args(root: Path, out: Path, *extra: str) -> argparse.Namespace:
    p = argparse.ArgumentParser()
    tr.add_arguments(p)
    return p.parse_args(["--out", str(out), "--data-root", str(root), "--dev-percent", "34", *extra])


def test_data_split_by_article(tmp_path):
    write_root(tmp_path)
    data = tr.load_data(_args(tmp_path, tmp_path / "o", "--wrong-passage-share", "1"))
    c = data["counts"]
    # 36 SQuAD 1.1 questions, less the 3 on the QGEval paragraph; every article wholly on one side
    assert c["squad11_train_questions"] + c["squad11_heldout_questions"] == 33
    train_titles = {e.title for e in data["train"] if e.title.startswith("Article")}
    dev_titles = {e.title for e in data["dev11"]}
    assert dev_titles and train_titles and not train_titles & dev_titles
    assert all(e.context != _paragraph(0)[0] for e in data["train"] + data["dev11"])
    # SQuAD 2.0 dev: 2 articles (8 questions, 2 unanswerable) train, 2 are dev
    assert c["squad2_train_questions"] == 8 and c["squad2_train_unanswerable"] == 2
    assert c["squad2_dev_questions"] == 8 and c["squad2_dev_unanswerable"] == 2
    assert not {e.title for e in data["train"]} & {e.title for e in data["dev2"]}
    # every SQuAD 1.1 training question whose article has another paragraph comes back with it, no answer
    wrong = [e for e in data["train"] if e.qid.endswith(":wrong")]
    assert c["wrong_passage_negatives"] == len(wrong) > 0
    for e in wrong:
        assert e.answer is None and e.title.startswith("Article")
        twin = next(x for x in data["train"] if x.qid == e.qid[:-len(":wrong")])
        assert e.context != twin.context and e.question == twin.question
        assert twin.answers[0] not in e.context
    # gold spans are the answer texts
    for e in data["train"]:
        if e.answer is not None:
            assert e.context[e.answer[0]:e.answer[1]] == e.answers[0]


def test_auroc_by_hand():
    assert tr._auroc([0.9, 0.8], [0.1, 0.85]) == pytest.approx(3 / 4)
    assert tr._auroc([0.5], [0.5]) == pytest.approx(0.5)


@pytest.mark.slow
def test_train_smoke_cpu(tmp_path):
    """A tiny CPU run end to end: the delta loads and reads like the trained model; the report is complete."""
    from qascore.runtime.reader import RULES, Reader

    try:
        from qascore.runtime import defaults
        defaults.resolve(defaults.ENCODER)
    except FileNotFoundError as err:
        pytest.skip(f"encoder package absent: {err}")
    write_root(tmp_path / "data")
    out = tmp_path / "out"
    args = _args(tmp_path / "data", out, "--epochs", "1", "--device", "cpu", "--batch-size", "8", "--max-len", "64",
                 "--stride", "16", "--lora-rank", "4", "--check-questions", "8", "--workers", "1", "--threads", "1")
    report = tr.train(args, command="test")
    saved = json.loads((out / "report.json").read_text())
    assert saved["command"] == "test" and saved["seed"] == 13 and saved["delta_bytes"] < 10 * 2**20
    m = saved["metrics"]
    assert m["squad11_heldout"]["questions"] == report["data"]["squad11_heldout_questions"] > 0
    assert 0 <= m["squad11_heldout"]["f1"] <= 100 and m["squad2_dev_half"]["unanswerable"] == 2
    assert m["qg_check"]["chosen"] in RULES and m["qg_check"]["counts"]["own"] > 0
    assert m["rule_check"]["counts"]["pos"] == 8 and "chosen" not in m["rule_check"]
    reader = Reader.load(out / "reader.safetensors")
    assert reader.rule == m["qg_check"]["chosen"] and reader.spec.max_len == 64
    reads = reader.read(["Where was Dana born?"], [_paragraph(3)[0]])
    assert len(reads) == 1 and 0.0 <= reads[0].p_null <= 1.0 and reads[0].best[0] in _paragraph(3)[0]
    # --evaluate repeats the evaluation on the saved (fp16, merged) delta: the same questions, close figures
    again = _args(tmp_path / "data", tmp_path / "ev", "--evaluate", str(out / "reader.safetensors"), "--device", "cpu",
                  "--check-questions", "8", "--threads", "1", "--store")
    assert tr.run(again) == 0
    ev = json.loads((tmp_path / "ev" / "evaluation.json").read_text())["metrics"]
    assert ev["squad11_heldout"]["questions"] == m["squad11_heldout"]["questions"]
    assert ev["squad11_heldout"]["f1"] == pytest.approx(m["squad11_heldout"]["f1"], abs=15)
    assert Reader.load(out / "reader.safetensors").rule == ev["qg_check"]["chosen"]
    # --rule-checks-only: the two checks again, the other stored figures kept as they were
    checks = _args(tmp_path / "data", tmp_path / "ev2", "--evaluate", str(out / "reader.safetensors"), "--device",
                   "cpu", "--check-questions", "8", "--threads", "1", "--rule-checks-only")
    assert tr.run(checks) == 0
    ev2 = json.loads((tmp_path / "ev2" / "evaluation.json").read_text())["metrics"]
    assert ev2["squad11_heldout"] == ev["squad11_heldout"] and ev2["qg_check"] == ev["qg_check"]
    # --no-judge-rules: the same checks without the rules that run the judge on every span
    assert "judge_expected" in ev["qg_check"] and "judge_expected" in ev["rule_check"]
    lean = _args(tmp_path / "data", tmp_path / "ev3", "--evaluate", str(out / "reader.safetensors"), "--device",
                 "cpu", "--check-questions", "8", "--threads", "1", "--rule-checks-only", "--no-judge-rules")
    assert tr.run(lean) == 0
    ev3 = json.loads((tmp_path / "ev3" / "evaluation.json").read_text())["metrics"]
    for check in ("qg_check", "rule_check"):
        assert "judge_expected" not in ev3[check]
        assert {k: v for k, v in ev[check].items() if k not in ("judge_expected", "chosen")} == \
            {k: v for k, v in ev3[check].items() if k != "chosen"}


@pytest.mark.parametrize("means, chosen", [
    ({"p_answer": 0.80, "expected_f1": 0.90, "ava_expected": 0.95}, "ava_expected"),
    ({"p_answer": 0.80, "expected_f1": 0.946, "ava_expected": 0.95}, "expected_f1"),   # within 0.005: the simpler
    ({"p_answer": 0.90, "expected_f1": 0.90, "mass": 0.70}, "p_answer"),               # RULES' order breaks ties
])
def test_rule_choice_by_hand(means, chosen):
    assert tr.choose(means) == chosen


def test_the_fitted_rule_comes_after_the_fixed_ones_and_before_the_verified():
    assert tr.ORDER.index("logistic") == len(tr.ORDER) - len(tr.VERIFIED) - len(tr.JUDGED) - 1
    assert tr.ORDER[-len(tr.JUDGED):] == tuple(sorted(tr.JUDGED, key=list(tr.RULES).index))   # the judge: last
    assert tr.choose({"expected_f1": 0.843, "logistic": 0.874, "ava_expected": 0.878}) == "logistic"
    assert tr.choose({"expected_f1": 0.843, "logistic": 0.874, "judge_expected": 0.878}) == "logistic"
    assert tr.choose({"expected_f1": 0.843, "logistic": 0.874, "judge_expected": 0.880}) == "judge_expected"


def test_fit_logistic_separates_and_stores_its_weights():
    rng = np.random.default_rng(0)
    own = rng.uniform(0.6, 0.99, size=(50, 2))
    bad = rng.uniform(0.01, 0.5, size=(50, 2))
    lg = tr.fit_logistic(np.vstack([own, bad]), np.array([1] * 50 + [0] * 50))
    assert lg.signals == tr.LOGISTIC_SIGNALS and all(c > 0 for c in lg.coef)
    assert lg.combine([0.9, 0.9]) > 0.5 > lg.combine([0.1, 0.1])


@pytest.mark.parametrize("context, text, start, want", [
    ("in 280 and 2 more", "2", 3, 11),            # first occurrence inside '280': the standalone '2'
    ("the fourth of four", "four", 4, 14),
    ("cannot, not now", "not", 3, 8),
    ("only 280 here", "2", 5, 5),                 # no whole-word occurrence: kept
    ("2 at the start", "2", 0, 0),                # already whole
    ("a (2) b", "2", 3, 3),                       # punctuation is a boundary
])
def test_word_start_by_hand(context, text, start, want):
    assert context[start:start + len(text)] == text
    assert tr.word_start(context, text, start) == want
