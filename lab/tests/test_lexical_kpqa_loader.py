"""The KPQA human-eval loader's protocol, on a tiny hand-written copy of the file layout."""

from __future__ import annotations

import pytest

from qascore_lab.datasets import DataNotFound, data_root, kpqa
from qascore.records import InputError


def _write(root, name, text):
    path = root / "kpqa_human_eval" / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


@pytest.fixture()
def root(tmp_path):
    _write(tmp_path, "marco_all.csv", "question,answer,reference1,scores\n"
           "q1,a1,r1,2.5\nq2,a2,r2,3\nq1,b1,r1,4\nq2,b2,r2,1.5\n")
    _write(tmp_path, "avsd_all.csv", "question,answer,reference1,reference2,reference3,reference4,reference5,"
           "reference6,scores\nq,a,r1,r2,r3,r4,r5,r6,5\nq,b,r1,r2,r3,r4,r5,r6,1\n")
    _write(tmp_path, "nrqa_mhpgm.csv", "Unnamed: 0,question,answer,reference1,reference2,scores,Bleu1\n"
           "0,q,a,\"r, one\",r two,0.6,0.25\n")
    _write(tmp_path, "semeval_mhpgm.csv", "Unnamed: 0,question,answer,reference1,reference2,Bleu1\n"
           "0,q,a,on the stove,1.0,0.5\n")
    _write(tmp_path, "marcomulti_unilm.csv", "question,answer,reference1,scores\nq,a,r,4.5\n")
    _write(tmp_path, "initial_commit_per_system/marco_unilm.csv", "query,hyps,refs1,scores\nq1,a1,r1,2.5\n")
    _write(tmp_path, "initial_commit_per_system/marco_mhpgm.csv", "query,hyps,refs1,scores\nq1,b1,r1,4\n")
    return tmp_path


def test_marco_halves_are_systems(root):
    recs = kpqa.load("marco", root=root)
    assert [r.extra["system"] for r in recs] == ["unilm", "unilm", "mhpgm", "mhpgm"]
    assert [r.extra["human"] for r in recs] == [2.5, 3.0, 4.0, 1.5]
    assert [r.candidate for r in kpqa.load("marco", system="mhpgm", root=root)] == ["b1", "b2"]


def test_avsd_uses_first_five_references(root):
    rec = kpqa.load("avsd", root=root)[0]
    assert rec.references == ["r1", "r2", "r3", "r4", "r5"]
    assert rec.extra["unused_references"] == ["r6"] and rec.extra["system"] == "mtn"


def test_narrativeqa_two_references_and_passthrough(root):
    rec = kpqa.load("narrativeqa", root=root)[0]
    assert rec.references == ["r, one", "r two"] and rec.extra["Bleu1"] == "0.25"
    assert rec.extra["human"] == 0.6 and "Unnamed: 0" not in rec.extra


def test_semeval_reference2_column_is_the_human_score(root):
    rec = kpqa.load("semeval", root=root)[0]
    assert rec.references == ["on the stove"] and rec.extra["human"] == 1.0


def test_initial_release_per_system_files(root):
    recs = kpqa.load("marco", release="initial", root=root)
    assert [(r.candidate, r.extra["system"]) for r in recs] == [("a1", "unilm"), ("b1", "mhpgm")]


def test_env_var_root(root, monkeypatch):
    monkeypatch.setenv("QASCORE_DATA", str(root))
    assert data_root() == root
    assert len(kpqa.load("marco-multi")) == 1


def test_missing_root_is_a_clear_error(tmp_path):
    with pytest.raises(DataNotFound, match="QASCORE_DATA"):
        kpqa.load("marco", root=tmp_path / "nowhere")
    with pytest.raises(DataNotFound, match="kpqa_human_eval"):
        kpqa.load("marco", root=tmp_path)


def test_bad_human_score_names_line_and_field(root):
    _write(root, "marcomulti_unilm.csv", "question,answer,reference1,scores\nq,a,r,4.5\nq,a,r,high\n")
    with pytest.raises(InputError) as err:
        kpqa.load("marco-multi", root=root)
    assert err.value.line == 3 and err.value.field == "scores"


@pytest.mark.parametrize("kw", [{"system": "gpt"}, {"release": "beta"}])
def test_bad_arguments(root, kw):
    with pytest.raises(ValueError):
        kpqa.load("marco", root=root, **kw)
    with pytest.raises(ValueError, match="unknown data set"):
        kpqa.load("squad", root=root)
