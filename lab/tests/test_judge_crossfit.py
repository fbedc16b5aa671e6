"""lab/scripts/judge_crossfit.py: `split` leaves out exactly each half's EVOUNA-TQ and written training questions
and keeps everything else; `plant` writes a model pass's columns where `train judge` reads them."""

import importlib.util
import json
import zlib
from pathlib import Path

import pytest

_spec = importlib.util.spec_from_file_location("judge_crossfit", Path(__file__).parents[1] / "scripts" / "judge_crossfit.py")
assert _spec and _spec.loader
crossfit = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(crossfit)


def _write(folder: Path, rows: list[dict]) -> None:
    folder.mkdir(parents=True)
    (folder / "train.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    for name in ("dev.jsonl", "test.jsonl"):
        (folder / name).write_text("", encoding="utf-8")


def _read(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def test_split_halves_evouna_and_written_rows(tmp_path):
    qids = [f"q{i}" for i in range(12)]
    corpus = [{"id": f"c{i}", "qid": q, "source": src, "question": "Q?", "candidate": "a", "references": ["a"], "label": 1}
              for i, (q, src) in enumerate((q, s) for q in qids for s in ("evouna", "wikiqa"))]
    probes = [{"qid": f"written-{q}", "kind": kind, "question": "Q?"} for q in qids for kind in ("written-right_plain", "probe-swap")]
    _write(tmp_path / "corpus", corpus)
    (tmp_path / "corpus" / "report.json").write_text("{}", encoding="utf-8")
    _write(tmp_path / "probes", probes)
    crossfit.split(tmp_path / "corpus", tmp_path / "xf", tmp_path / "probes")

    half = {q: "A" if zlib.crc32(q.encode()) % 2 == 0 else "B" for q in qids + [f"written-{q}" for q in qids]}
    assert set(half.values()) == {"A", "B"}   # the twelve questions fall in both halves
    for h in "AB":
        kept = _read(tmp_path / "xf" / f"corpus{h}" / "train.jsonl")
        assert [r for r in corpus if not (r["source"] == "evouna" and half[r["qid"]] == h)] == kept
        kept = _read(tmp_path / "xf" / f"probes{h}" / "train.jsonl")
        assert [r for r in probes if not (r["kind"].startswith("written-") and half[r["qid"]] == h)] == kept
    evtrain = _read(tmp_path / "xf" / "evtrain" / "train.jsonl")
    assert [r["qid"] for r in evtrain] == qids and all(r["source"] == "probes" for r in evtrain)


@pytest.mark.slow
def test_plant_writes_the_asserted_columns_where_the_fit_reads_them(tmp_path):
    """`plant --pass asserted`: each half read by its own reader (here both the shipped one, so the planted columns
    equal the judge's own asserted features of every row), cached under the installed reader's hash."""
    import numpy as np

    from qascore.metrics import asserted, judge
    from qascore_lab.train.judge import cached_column, model_hashes
    from qascore_lab.train.verifier_rows import to_records

    rows = [{"id": f"w{i}", "qid": f"written-q{i}", "question": q, "candidate": c, "references": [ref],
             "label": lab, "source": "probes", "kind": "written-x", "family": "written-x", "pair": f"written-q{i}",
             "member": "right" if lab else "wrong"}
            for i, (q, c, ref, lab) in enumerate([
                ("Which planet is the Red Planet?", "Mars, the fourth planet.", "Mars", 1),
                ("Which planet is the Red Planet?", "Jupiter; Mars is the Morning Star.", "Mars", 0),
                ("Who wrote Hamlet?", "It was written by Christopher Marlowe.", "William Shakespeare", 0),
                ("Who wrote Hamlet?", "Shakespeare wrote it around 1600.", "William Shakespeare", 1)])]
    _write(tmp_path / "written", rows)
    crossfit.plant(tmp_path, str(asserted.DELTA), str(asserted.DELTA), tmp_path / "fit", tmp_path / "written",
                   "asserted")
    recs, _ = to_records(rows)
    path, digest = cached_column(tmp_path / "fit", "unseen-written-train4", "asserted",
                                 str(model_hashes()["asserted"]), recs)
    assert path.with_suffix(".rows").read_text() == digest
    np.testing.assert_allclose(np.load(path), judge.features(recs, ["asserted", "no_answer"]), atol=1e-6)


@pytest.mark.slow
def test_plant_keys_the_verifier_columns_by_the_verifier_the_fit_names(tmp_path):
    """`plant --verifier FILE`: the cache is named by FILE's hash (the one `train judge --verifier FILE` reads),
    and each half's column is that half verifier's read (here the shipped one for both)."""
    import numpy as np

    from qascore.metrics import judge
    from qascore.runtime.delta import file_sha256
    from qascore_lab.train.judge import cached_column
    from qascore_lab.train.verifier_rows import to_records

    rows = [{"id": f"w{i}", "qid": f"written-q{i}", "question": "Who wrote Hamlet?", "candidate": c,
             "references": ["William Shakespeare"], "label": lab, "source": "probes", "kind": "written-x",
             "family": "written-x", "pair": f"written-q{i}", "member": "right" if lab else "wrong"}
            for i, (c, lab) in enumerate([("Shakespeare wrote it.", 1), ("Christopher Marlowe.", 0)])]
    _write(tmp_path / "written", rows)
    other = tmp_path / "other.safetensors"
    other.write_bytes(b"the verifier a fit names: only hashed here")  # not the installed one's hash
    crossfit.plant(tmp_path, str(judge.VERIFIER), str(judge.VERIFIER), tmp_path / "fit", tmp_path / "written",
                   "verifier", str(other))
    recs, _ = to_records(rows)
    path, _ = cached_column(tmp_path / "fit", "unseen-written-train2", "verifier", file_sha256(other), recs)
    np.testing.assert_allclose(np.load(path), judge.features(recs, ["verifier"]), atol=1e-5)
