"""Chunked scoring (`score --chunk-size`, `--resume`): equal to the whole-file path, line for line.

The expected outputs come from the whole-file path (`score` without
--chunk-size), which the rest of the suite checks against reference
implementations; corpus means are checked against math.fsum / np.mean.
"""

from __future__ import annotations

import json
import math
import random
from pathlib import Path

import numpy as np
import pytest
from test_encoder import tiny_bert  # noqa: F401  (session fixture)

from qascore.cli import main
from qascore.stream import ExactMean

WORDS = "the a cat dog sat ran on mat red blue big small house river bank city old new".split()


def make_rows(n: int, seed: int = 0, ids: bool = True) -> list[dict]:
    rng = random.Random(seed)

    def sent() -> str:
        return " ".join(rng.choice(WORDS) for _ in range(rng.randint(0, 7)))

    rows = []
    for i in range(n):
        row = {"question": sent() + "?", "candidate": sent(),
               "references": [sent() or "x" for _ in range(rng.randint(1, 3))], "human": i % 5}
        if ids:
            row = {"id": f"r{i}", **row}
        rows.append(row)
    return rows


def write(path: Path, rows: list[dict]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def run_json(args: list[str], capsys) -> dict:
    assert main([*args, "--format", "json"]) == 0
    return json.loads(capsys.readouterr().out)


LEXICAL = ["-m", "em", "-m", "f1", "-m", "bleu4", "-m", "rougeL:agg=mean"]


@pytest.mark.parametrize("chunk", [1, 4, 7, 100])
@pytest.mark.parametrize("ids", [True, False])
def test_chunked_equals_whole_file(tmp_path, capsys, chunk, ids):
    src = write(tmp_path / "in.jsonl", make_rows(23, ids=ids))
    whole, chunked = tmp_path / "whole.jsonl", tmp_path / "chunked.jsonl"
    a = run_json(["score", str(src), *LEXICAL, "-o", str(whole)], capsys)
    b = run_json(["score", str(src), *LEXICAL, "-o", str(chunked), "--chunk-size", str(chunk)], capsys)
    assert chunked.read_text() == whole.read_text()  # same lines, same order, same digits
    for label in a:
        assert b[label]["signature"] == a[label]["signature"] and b[label]["n"] == a[label]["n"] == 23
        assert b[label]["corpus"] == pytest.approx(a[label]["corpus"], rel=1e-12, abs=1e-15)


def test_chunked_csv_input(tmp_path, capsys):
    src = tmp_path / "in.csv"
    src.write_text("id,candidate,reference1,reference2\n1,the cat,the cat sat,\n2,a dog,the dog,a dog ran\n")
    whole, chunked = tmp_path / "w.jsonl", tmp_path / "c.jsonl"
    run_json(["score", str(src), "-m", "f1", "-o", str(whole)], capsys)
    run_json(["score", str(src), "-m", "f1", "-o", str(chunked), "--chunk-size", "1"], capsys)
    assert chunked.read_text() == whole.read_text()


def test_cider_is_refused_with_the_reason(tmp_path, capsys):
    src = write(tmp_path / "in.jsonl", make_rows(5))
    assert main(["score", str(src), "-m", "f1", "-m", "cider", "--chunk-size", "2"]) == 2
    err = capsys.readouterr().err
    assert "cider cannot be scored in chunks" in err and "document frequencies" in err
    assert "leave out --chunk-size" in err


def test_idf_bertscore_takes_two_passes(tmp_path, capsys, tiny_bert, monkeypatch):
    """IDF fitted on the whole file in a first pass: chunks of 2 give the whole file's scores."""
    import qascore.metrics.bertscore as bs

    monkeypatch.setattr(bs, "_ZERO_WEIGHT_WARNED", bs._ZERO_WEIGHT_WARNED)  # its warn-once state is restored after
    src = write(tmp_path / "in.jsonl", make_rows(9))
    spec = f"bertscore:model={tiny_bert},layer=2,idf=true"
    whole, chunked = tmp_path / "w.jsonl", tmp_path / "c.jsonl"
    a = run_json(["score", str(src), "-m", spec, "-o", str(whole)], capsys)
    b = run_json(["score", str(src), "-m", spec, "-o", str(chunked), "--chunk-size", "2"], capsys)
    assert b[spec]["signature"] == a[spec]["signature"]  # every option given changes numbers: the key is the spec
    got = [json.loads(x) for x in chunked.read_text().splitlines()]
    want = [json.loads(x) for x in whole.read_text().splitlines()]
    for g, w in zip(got, want, strict=True):
        assert g["id"] == w["id"]
        assert g["details"][spec] == pytest.approx(w["details"][spec], abs=1e-6)
    # Without the first pass, IDF from each chunk alone changes the scores: the test can tell.
    from qascore.metrics.bertscore import BertScore
    from qascore.records import read_records

    recs = read_records(src)
    per_chunk = [s for i in range(0, 9, 2)
                 for s in BertScore(model=tiny_bert, layer=2, idf=True).score(recs[i:i + 2]).scores]
    assert max(abs(x - w["scores"][spec]) for x, w in zip(per_chunk, want)) > 1e-4


def test_resume_after_a_kill_mid_line(tmp_path, capsys):
    src = write(tmp_path / "in.jsonl", make_rows(20))
    full, part = tmp_path / "full.jsonl", tmp_path / "part.jsonl"
    a = run_json(["score", str(src), *LEXICAL, "-o", str(full), "--chunk-size", "3"], capsys)
    lines = full.read_text().splitlines(keepends=True)
    part.write_text("".join(lines[:8]) + lines[8][:17])  # killed while writing line 9
    assert main(["score", str(src), *LEXICAL, "-o", str(part), "--chunk-size", "3", "--resume",
                 "--format", "json"]) == 0
    captured = capsys.readouterr()
    b = json.loads(captured.out)
    assert "scored 14 records (6 kept from the output)" in captured.err  # 8 lines: 2 whole chunks of 3
    assert part.read_text() == full.read_text()  # nothing lost, nothing twice
    for label in a:
        assert b[label]["n"] == 20
        assert b[label]["corpus"] == pytest.approx(a[label]["corpus"], rel=1e-12, abs=1e-15)


def test_resume_of_a_finished_run_scores_nothing(tmp_path, capsys):
    src = write(tmp_path / "in.jsonl", make_rows(6, ids=False))
    out = tmp_path / "out.jsonl"
    a = run_json(["score", str(src), "-m", "f1", "-o", str(out), "--chunk-size", "4"], capsys)
    before = out.read_text()
    assert main(["score", str(src), "-m", "f1", "-o", str(out), "--chunk-size", "4", "--resume"]) == 0
    captured = capsys.readouterr()
    assert "scored 0 records (6 kept from the output)" in captured.err
    assert out.read_text() == before
    assert f"{a['f1']['corpus']:8.4f}" in captured.out


def test_resume_refuses_another_input(tmp_path, capsys):
    src = write(tmp_path / "in.jsonl", make_rows(6))
    other = write(tmp_path / "other.jsonl", make_rows(6, seed=1, ids=False))
    out = tmp_path / "out.jsonl"
    assert main(["score", str(other), "-m", "f1", "-o", str(out), "--chunk-size", "2"]) == 0
    assert main(["score", str(src), "-m", "f1", "-o", str(out), "--chunk-size", "2", "--resume"]) == 2
    assert f"{out}:1: --resume: this line is record" in capsys.readouterr().err


def test_resume_refuses_other_metrics_and_needs_output(tmp_path, capsys):
    src = write(tmp_path / "in.jsonl", make_rows(4))
    out = tmp_path / "out.jsonl"
    assert main(["score", str(src), "-m", "f1", "-o", str(out), "--chunk-size", "2"]) == 0
    assert main(["score", str(src), "-m", "em", "-o", str(out), "--chunk-size", "2", "--resume"]) == 2
    assert "no score for 'em'" in capsys.readouterr().err
    assert main(["score", str(src), "-m", "em", "--chunk-size", "2", "--resume"]) == 2
    assert "--resume needs --output" in capsys.readouterr().err
    assert main(["score", str(src), "-m", "em", "--chunk-size", "0"]) == 2
    assert "--chunk-size must be at least 1" in capsys.readouterr().err


def test_bad_record_in_a_later_chunk_names_line_and_field(tmp_path, capsys):
    rows = make_rows(7)
    rows[5]["references"] = "not a list"
    src = write(tmp_path / "in.jsonl", rows)
    assert main(["score", str(src), "-m", "f1", "--chunk-size", "2"]) == 2
    assert f"{src}:6: field 'references'" in capsys.readouterr().err


def test_exact_mean_is_order_free_and_exactly_rounded():
    rng = random.Random(3)
    xs = [rng.uniform(-1, 1) * 10 ** rng.randint(-8, 8) for _ in range(2000)] + [1e16, 1.0, -1e16]
    fwd, back = ExactMean(), ExactMean()
    fwd.extend(xs)
    back.extend(reversed(xs))
    assert fwd.value == back.value == math.fsum(xs) / len(xs)
    assert fwd.value != float(np.mean(xs))  # numpy's pairwise sum loses the 1.0 next to 1e16
    well_posed = ExactMean()
    well_posed.extend(xs[:2000])
    assert well_posed.value == pytest.approx(float(np.mean(xs[:2000])), rel=1e-12)
    assert ExactMean().value == 0.0


def test_chunks_stay_aligned_after_a_resume():
    from qascore.stream import chunks

    assert list(chunks(range(10), 4)) == [[0, 1, 2, 3], [4, 5, 6, 7], [8, 9]]
    # resumed at position 6: the rest of chunk [4, 8) first, then the same chunks as before
    assert list(chunks(range(6, 10), 4, start=6)) == [[6, 7], [8, 9]]
    assert list(chunks(range(8, 10), 4, start=8)) == [[8, 9]]


def test_resumed_model_metric_is_bit_identical(tmp_path, capsys, tiny_bert):
    src = write(tmp_path / "in.jsonl", make_rows(13, seed=2))
    spec = f"bertscore:model={tiny_bert},layer=2"
    full, part = tmp_path / "full.jsonl", tmp_path / "part.jsonl"
    assert main(["score", str(src), "-m", spec, "-o", str(full), "--chunk-size", "4"]) == 0
    part.write_text("".join(full.read_text().splitlines(keepends=True)[:6]))
    assert main(["score", str(src), "-m", spec, "-o", str(part), "--chunk-size", "4", "--resume"]) == 0
    assert part.read_text() == full.read_text()
