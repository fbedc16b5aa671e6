"""`qascore-lab bench gpu`: every figure a GPU is lent for, in one bounded run, written as gpu.json and gpu.md.

What it does, in this order (each step prints a timestamped line on stderr):

1. the CUDA tests: `pytest -m cuda -q` over the files under tests/ that mark tests `cuda`, as a
   subprocess with a timeout; its passed / failed / skipped counts and summary line are recorded
   (`--skip-tests` leaves this out);
2. the `bert-score` package's BERTScore (its BERTScorer, fp32, the packaged MiniLM directory and
   qascore `bertscore`'s default layer) timed on each profile's rows, the yardstick of the ratio column;
3. every model metric timed at each `--dtypes` on its profiles: answer metrics (`judge`, `ava`,
   `square`, `bertscore`, `kpqa-bertscore`, `kpqa-rougeL`) on `short` and `long`, QG metrics
   (`qrelscore`, and `answerability` where this qascore registers it) on `qg`;
4. the device's scores against the CPU's fp32 scores on the first `--check-rows` rows of each
   profile, per metric and dtype (max absolute per-row difference).

Rows are synthetic and seeded, the same as `qascore-lab bench models` reads (its `short` and `long`
profiles; qascore_lab.bench.synthetic's vocabulary): `short` = 2-6-word answers with short
references, `long` = 120-200-word answers (LLM paragraphs), `qg` = 6-12-word questions on
130-170-word passages, 12 questions per passage. Each timed figure is one call after one warm-up
pass on a slice of the rows, with every memo emptied before each call, and `torch.cuda.synchronize()`
before each clock read. A metric whose model is not installed (an ImportError or a missing weight
package or file) is one row saying so; any other failure is one row with its error; the run goes on.

`--budget-s` bounds the whole run. The timed call of each step gets at most its share of the time
left (bert-score and each timing weigh 1, each CPU check 2; the tests have their own timeout). A
2-row probe skips a step whose minimum rows (50, or all when fewer) cannot fit its share (the other
dtype's probe skips it before loading when it predicts over 4x the share); otherwise its rows are
cut to what its warm-up pass predicts will fit. Loading, probe and warm-up are paid from the time
left as they happen, so the run can end one step past the budget; once the budget is spent, every
step left is a row saying so. gpu.json and gpu.md are rewritten after every step, so a run killed
part way leaves what it measured.

Imports at module level are the standard library only: the GPU machine may lack spaCy, matplotlib
and the other extras (bert_score imports matplotlib and pandas; where they are absent, empty stand-in
modules are put in place for that one import: bert_score uses them only for plots and baseline files).
"""

from __future__ import annotations

import argparse
import dataclasses
import datetime as dt
import importlib.util
import json
import os
import platform
import random
import re
import subprocess
import sys
import time
import types
from pathlib import Path
from typing import Any, Callable, Sequence

ANSWER_METRICS = ("judge", "ava", "square", "bertscore", "kpqa-bertscore", "kpqa-rougeL")
QG_METRICS = ("qrelscore", "answerability")
METRICS = ANSWER_METRICS + QG_METRICS
PROFILES = ("short", "long", "qg")
# Rows per profile on a GPU: enough for a timed call of about a second at the targets
# (judge >= 3,000 rows/s bf16 on short answers; qrelscore >= 50 questions/s).
DEFAULT_ROWS = {"short": 4000, "long": 1000, "qg": 500}
MIN_ROWS = 50  # a step that cannot time this many rows (or all of them, when fewer) is skipped
MIN_SHARE_S = 0.5  # a step whose share of the budget left is under this is not started
# A dtype's step is not started when the other dtype's 2-row probe predicts its minimum rows at more than
# this many times its share (bf16 is slower than fp32 on CPUs without bf16 units; on a GPU at most a few
# times faster).
SIBLING_FACTOR = 4.0
ROOT = Path(__file__).resolve().parents[4]  # the checkout: lab/src/qascore_lab/bench/gpu.py


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--device", default="cuda", help="device to time (default cuda); the check compares it with "
                                                     "the CPU")
    p.add_argument("--rows", type=int, default=None,
                   help="rows timed per metric, profile and dtype (default: short %(short)d, long %(long)d, "
                        "qg %(qg)d)" % DEFAULT_ROWS)
    p.add_argument("--check-rows", type=int, default=200,
                   help="rows per metric and profile scored on both the device and the CPU (default 200; "
                        "never more than --rows)")
    p.add_argument("--out", default=None, help="folder for gpu.json, gpu.md and pytest.txt (default: $OUT, "
                                               "else ./gpu-bench)")
    p.add_argument("--budget-s", type=float, default=270.0,
                   help="seconds for every step, tests included, counted once the imports are done (default "
                        "270); work predicted to overrun is cut or skipped")
    p.add_argument("--skip-tests", action="store_true", help="do not run pytest -m cuda")
    p.add_argument("--tests-timeout", type=float, default=120.0,
                   help="seconds allowed to pytest -m cuda (default 120, never more than 45%% of --budget-s)")
    p.add_argument("--metrics", default=",".join(METRICS), help="comma list (default: all model metrics)")
    p.add_argument("--profiles", default=",".join(PROFILES), help="comma list of short, long, qg")
    p.add_argument("--dtypes", default="fp32,bf16", help="comma list (default fp32,bf16)")
    p.add_argument("--batch-size", type=int, default=None,
                   help="batch size for every metric that has one, and bert-score (default: each one's own)")
    p.add_argument("--no-bert-score", action="store_true", help="skip the bert-score package side")
    p.add_argument("--seed", type=int, default=0)


# ---------------------------------------------------------------- rows

def profile_rows(profile: str, n: int, seed: int = 0) -> list[dict[str, Any]]:
    """`n` seeded row dicts of a profile: `short` / `long` as `bench models`, `qg` built here."""
    if profile in ("short", "long"):
        from qascore_lab.bench.models import rows

        return rows(profile, n, seed)
    if profile != "qg":
        raise ValueError(f"unknown profile '{profile}' (known: {', '.join(PROFILES)})")
    from qascore_lab.bench.synthetic import vocabulary

    rng = random.Random(seed + 1)
    vocab = vocabulary(seed=seed)[:800]
    out: list[dict[str, Any]] = []
    passage: list[str] = []
    for i in range(n):
        if i % 12 == 0:
            passage = [rng.choice(vocab) for _ in range(rng.randint(130, 170))]
        k = rng.randint(6, 12)  # a question shares about half its words with the passage
        question = " ".join(rng.choice(passage) if rng.random() < 0.5 else rng.choice(vocab) for _ in range(k)) + "?"
        start = rng.randrange(len(passage) - 4)
        answer = " ".join(passage[start:start + rng.randint(1, 4)])
        out.append({"id": f"qg{i}", "question": question, "candidate": question, "answer": answer,
                    "references": [" ".join(rng.choice(vocab) for _ in range(k)) + "?"], "negatives": [],
                    "context": " ".join(passage) + "."})
    return out


def to_records(data: list[dict[str, Any]], profile: str) -> list[Any]:
    """qascore Records; for `qg` the candidate is the generated question (and `answer` its target span)."""
    from qascore.records import Record

    names = {f.name for f in dataclasses.fields(Record)}
    out = []
    for r in data:
        cand = r["question"] if profile == "qg" else r["candidate"]
        kw: dict[str, Any] = {"id": r["id"], "question": r["question"], "candidate": cand,
                              "references": r["references"], "negatives": r["negatives"], "context": r["context"]}
        if "answer" in r:
            if "answer" in names:
                kw["answer"] = r["answer"]
            else:
                kw["extra"] = {"answer": r["answer"]}
        out.append(Record(**kw))
    return out


def lengths(recs: Sequence[Any]) -> dict[str, float]:
    """Mean words of candidate, first reference and context."""
    def mean(xs: list[int]) -> float:
        return round(sum(xs) / len(xs), 1) if xs else 0.0

    return {"candidate_words": mean([len(r.candidate.split()) for r in recs]),
            "reference_words": mean([len(r.references[0].split()) if r.references else 0 for r in recs]),
            "context_words": mean([len(r.context.split()) for r in recs])}


def metric_profiles(name: str, profiles: Sequence[str]) -> list[str]:
    wanted = ("qg",) if name in QG_METRICS or "qrelscore" in name else ("short", "long")
    return [p for p in profiles if p in wanted]


# ---------------------------------------------------------------- seams (stubbed by the CPU test)

def registered(name: str) -> bool:
    from qascore.metrics.registry import metric_class

    try:
        metric_class(name)
    except KeyError:
        return False
    return True


def load_metric(name: str, device: str, dtype: str, batch_size: int | None) -> Any:
    """The metric on `device` at `dtype` (fp32: the option left at its default)."""
    from qascore.metrics.registry import load, metric_class

    opts: dict[str, Any] = {"device": device}
    if dtype != "fp32":
        opts["dtype"] = dtype
    if batch_size is not None and "batch_size" in metric_class(name).option_specs():
        opts["batch_size"] = batch_size
    return load(name, **opts)


def bert_score_class() -> Any:
    """bert_score's BERTScorer (ImportError where the package is absent).

    bert_score imports matplotlib and pandas for its plots and baseline files only; where they are
    absent, empty stand-in modules serve that one import and are removed from sys.modules after it."""
    try:
        from bert_score import BERTScorer

        return BERTScorer
    except ImportError as err:
        if (err.name or "").split(".")[0] not in _PLOT_MODULES:
            raise
    for mod in [m for m in sys.modules if m == "bert_score" or m.startswith("bert_score.")]:
        del sys.modules[mod]  # the half-imported package
    missing = {top for top in _PLOT_MODULES if importlib.util.find_spec(top) is None}
    stand_ins = {mod: types.ModuleType(mod) for mod in _PLOT_SUBMODULES if mod.split(".")[0] in missing}
    for mod, obj in stand_ins.items():
        parent, _, leaf = mod.rpartition(".")
        if parent in stand_ins:
            setattr(stand_ins[parent], leaf, obj)
    if "mpl_toolkits.axes_grid1" in stand_ins:
        stand_ins["mpl_toolkits.axes_grid1"].make_axes_locatable = None  # type: ignore[attr-defined]
    sys.modules.update(stand_ins)
    try:
        from bert_score import BERTScorer
    finally:
        for mod in stand_ins:  # bert_score keeps its references; nothing else sees the stand-ins
            sys.modules.pop(mod, None)
    return BERTScorer


_PLOT_MODULES = ("matplotlib", "mpl_toolkits", "pandas")
_PLOT_SUBMODULES = ("matplotlib", "matplotlib.pyplot", "mpl_toolkits", "mpl_toolkits.axes_grid1", "pandas")


def bert_score_version() -> str | None:
    try:
        from importlib.metadata import version

        return version("bert-score")
    except Exception:  # noqa: BLE001 -- absent or a plain directory on PYTHONPATH
        mod = sys.modules.get("bert_score")
        return getattr(mod, "__version__", None) if mod else None


def run_tests(root: Path, timeout: float, out_dir: Path | None = None) -> dict[str, Any]:
    """`pytest -m cuda -q` over the test files under root/tests that mark tests `cuda`, as a subprocess."""
    tests = root / "tests"
    if not tests.is_dir():
        return {"ran": False, "note": f"no tests/ folder at {root}"}
    files = [str(p.relative_to(root)) for p in sorted(tests.rglob("test_*.py"))
             if re.search(r"mark\.cuda\b", p.read_text(encoding="utf-8", errors="replace"))]
    cmd = [sys.executable, "-m", "pytest", "-m", "cuda", "-q", "-rs", "-p", "no:cacheprovider", *(files or ["tests"])]
    env = dict(os.environ)
    paths = [str(root / d) for d in ("src", "lab/src") if (root / d).is_dir()]
    env["PYTHONPATH"] = os.pathsep.join(paths + [p for p in [env.get("PYTHONPATH", "")] if p])
    t = time.perf_counter()
    timed_out = False
    try:
        proc = subprocess.run(cmd, cwd=root, env=env, capture_output=True, text=True, timeout=timeout)
        text, rc = proc.stdout + proc.stderr, proc.returncode
    except subprocess.TimeoutExpired as err:
        text = "".join(x.decode(errors="replace") if isinstance(x, bytes) else (x or "") for x in (err.stdout, err.stderr))
        rc, timed_out = None, True
    secs = time.perf_counter() - t
    if out_dir is not None:
        (out_dir / "pytest.txt").write_text(f"$ {' '.join(cmd)}\n{text}", encoding="utf-8")
    res: dict[str, Any] = {"ran": True, "command": "python " + " ".join(cmd[1:]), "rc": rc,
                           "seconds": round(secs, 1), **pytest_counts(text)}
    if timed_out:
        res["note"] = f"timed out after {timeout:.0f} s"
    return res


def pytest_counts(text: str) -> dict[str, Any]:
    """The counts of pytest's last summary line ('2 failed, 17 passed, 1 warning in 40.1s')."""
    counts = {"passed": 0, "failed": 0, "skipped": 0, "errors": 0}
    summary = ""
    for line in reversed(text.splitlines()):
        body = line.strip().strip("=").strip()
        if re.search(r"\d+ (passed|failed|skipped|errors?|deselected|xfailed|xpassed)\b", body) and \
                re.search(r"\bin [\d.]+s\b", body):
            summary = body
            break
    for num, word in re.findall(r"(\d+) (passed|failed|skipped|errors?)\b", summary):
        counts["errors" if word.startswith("error") else word] += int(num)
    return {**counts, "summary": summary or "(no pytest summary line)"}


# ---------------------------------------------------------------- timing

class Clock:
    """Elapsed time, the budget left, and timestamped progress lines on stderr."""

    def __init__(self, budget_s: float) -> None:
        self.start = time.perf_counter()
        self.budget = budget_s

    def elapsed(self) -> float:
        return time.perf_counter() - self.start

    def left(self) -> float:
        return self.budget - self.elapsed()

    def log(self, msg: str) -> None:
        now = dt.datetime.now(dt.timezone.utc).strftime("%H:%M:%S")
        print(f"[{now} +{self.elapsed():6.1f}s] {msg}", file=sys.stderr, flush=True)


def fit_rows(n: int, rate: float, seconds: float, floor: int = MIN_ROWS) -> int:
    """Rows of `n` that a step running at `rate` rows/s does in `seconds`; 0 when not even min(n, floor)."""
    can = n if rate * seconds >= n else int(rate * max(seconds, 0.0))
    return can if can >= min(n, floor) else 0


def warm_rows(n: int) -> int:
    """Rows of the warm-up pass: a tenth, at least 4 (all of them when fewer)."""
    return min(n, max(4, n // 10))


def _sync(device: str) -> None:
    if device.startswith("cuda"):
        import torch

        torch.cuda.synchronize()


def _cold(metric: Any) -> None:
    """Every memo emptied (tokens, n-grams, KPW, QRelScore's context pass): each call meets its texts anew."""
    forget = getattr(metric, "forget_memos", None)
    if forget is not None:
        forget()
    try:
        from qascore.runtime.cache import empty

        empty("kpw-cache")
        empty("qrel-grg-base")
    except ImportError:
        pass


def timed(fn: Callable[[], Any], device: str) -> tuple[Any, float]:
    _sync(device)
    t = time.perf_counter()
    out = fn()
    _sync(device)
    return out, time.perf_counter() - t


def _scores(result: Any) -> list[float]:
    return [float(x) for x in result.scores]


def _why(err: BaseException) -> str:
    first = (str(err).strip().splitlines() or [""])[0][:300]
    if isinstance(err, (ImportError, FileNotFoundError)):
        return f"not installed: {first}"
    return f"failed: {type(err).__name__}: {first}"


def _peak_reset(device: str) -> None:
    if device.startswith("cuda"):
        import torch

        torch.cuda.reset_peak_memory_stats()


def _peak(device: str) -> float | None:
    if not device.startswith("cuda"):
        return None
    import torch

    return round(torch.cuda.max_memory_allocated() / 2**20, 1)


# ---------------------------------------------------------------- the run

class Run:
    def __init__(self, args: argparse.Namespace, out: Path) -> None:
        self.args = args
        self.out = out
        self.clock = Clock(args.budget_s)
        self.device = args.device
        self.data: dict[str, list[Any]] = {}
        self.metrics: dict[tuple[str, str], Any] = {}  # (name, dtype) -> loaded metric on the device
        self.unavailable: dict[str, str] = {}  # name -> why (not installed, not registered)
        self.results: list[dict[str, Any]] = []
        self.bert: dict[str, dict[str, Any]] = {}
        self.bert_scores: dict[str, list[float]] = {}
        self.probes: dict[tuple[str, str], float] = {}
        self.tests: dict[str, Any] = {"ran": False, "note": "--skip-tests"} if args.skip_tests else {}
        self.header = self._header()
        self.weight = self.weights_left = 1.0

    # -- bookkeeping
    def _header(self) -> dict[str, Any]:
        import torch
        import transformers

        from qascore.version import __version__

        dev = self.device
        if dev.startswith("cuda"):
            name = torch.cuda.get_device_name(torch.device(dev))
        else:
            name = _cpu_name()
        commit = None
        try:
            commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True,
                                    text=True, timeout=10).stdout.strip() or None
        except Exception:  # noqa: BLE001 -- a copy without .git, or no git
            pass
        return {"device": dev, "device_name": name, "torch": torch.__version__, "cuda": torch.version.cuda,
                "transformers": transformers.__version__, "qascore": __version__, "commit": commit,
                "python": platform.python_version(), "cpu_threads": torch.get_num_threads(),
                "tf32_matmul": bool(torch.backends.cuda.matmul.allow_tf32),
                "started_utc": dt.datetime.now(dt.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
                "argv": sys.argv[1:], "budget_s": self.args.budget_s, "batch_size": self.args.batch_size}

    def share(self) -> float:
        """This step's seconds: its weight's share of the budget left among the steps left."""
        return self.clock.left() * self.weight / max(self.weights_left, 1e-9)

    def write(self) -> None:
        doc = {**self.header, "elapsed_s": round(self.clock.elapsed(), 1), "tests": self.tests,
               "profiles": {p: lengths(r) for p, r in self.data.items()}, "bert_score": self.bert,
               "results": self.results}
        (self.out / "gpu.json").write_text(json.dumps(doc, indent=1) + "\n", encoding="utf-8")
        (self.out / "gpu.md").write_text(markdown(doc), encoding="utf-8")

    def rows(self, profile: str) -> list[Any]:
        if profile not in self.data:
            n = self.args.rows or DEFAULT_ROWS[profile]
            self.data[profile] = to_records(profile_rows(profile, n, self.args.seed), profile)
        return self.data[profile]

    # -- steps
    def step_tests(self) -> None:
        limit = min(self.args.tests_timeout, 0.45 * self.args.budget_s)
        self.clock.log(f"tests: pytest -m cuda (timeout {limit:.0f} s)")
        self.tests = run_tests(ROOT, limit, self.out)
        self.clock.log(f"tests: {self.tests.get('summary', self.tests.get('note'))}")

    def step_bert_score(self, profile: str) -> None:
        recs = self.rows(profile)
        entry: dict[str, Any] = {"rows": 0}
        self.bert[profile] = entry
        try:
            cls = bert_score_class()
        except ImportError as err:
            entry["note"] = f"bert_score not importable: {err}"
            self.clock.log(f"bert-score {profile}: {entry['note']}")
            return
        entry["version"] = bert_score_version()
        allowed = self.share()
        if allowed < MIN_SHARE_S:
            entry["note"] = "skipped: --budget-s spent"
            self.clock.log(f"bert-score {profile}: {entry['note']}")
            return
        from qascore.metrics.bertscore import default_layer
        from qascore.runtime import defaults

        cands = [r.candidate for r in recs]
        refs = [r.context if profile == "qg" else r.references[0] for r in recs]
        try:
            path = defaults.resolve(defaults.ENCODER)
            layer = default_layer(defaults.ENCODER, 6)
            kw = {"batch_size": self.args.batch_size} if self.args.batch_size else {}
            scorer = cls(model_type=path, num_layers=layer, device=self.device, idf=False, nthreads=0, **kw)
            n_w = warm_rows(len(recs))
            scorer.score(cands[:n_w], refs[:n_w])  # load + warm-up
            _, tw = timed(lambda: scorer.score(cands[:n_w], refs[:n_w]), self.device)
            n = fit_rows(len(recs), n_w / tw, allowed)
            if n == 0:
                entry["note"] = "skipped: predicted to overrun its share of --budget-s"
                self.clock.log(f"bert-score {profile}: {entry['note']}")
                return
            (_, _, f), secs = timed(lambda: scorer.score(cands[:n], refs[:n]), self.device)
        except Exception as err:  # noqa: BLE001 -- one row saying why, the run goes on
            entry["note"] = _why(err)
            self.clock.log(f"bert-score {profile}: {entry['note']}")
            return
        self.bert_scores[profile] = [float(x) for x in f][: self.check_n()]
        entry.update(rows=n, seconds=secs, rows_per_s=round(n / secs, 1), layer=layer)
        if n < len(recs):
            entry["note"] = f"cut to {n} of {len(recs)} rows by --budget-s"
        self.clock.log(f"bert-score {profile}: {n} rows in {secs:.2f} s ({n / secs:.1f} rows/s)")

    def check_n(self) -> int:
        return min(self.args.check_rows, self.args.rows or self.args.check_rows)

    def step_time(self, name: str, profile: str, dtype: str) -> None:
        row: dict[str, Any] = {"metric": name, "profile": profile, "dtype": dtype, "rows": 0}
        self.results.append(row)
        if name in self.unavailable:
            row["note"] = self.unavailable[name]
            return
        allowed = self.share()  # for the timed call; loading and the warm-up are paid from the budget left
        recs = self.rows(profile)
        floor = min(len(recs), MIN_ROWS)
        sibling = self.probes.get((name, profile))  # seconds per row of the other dtype's probe
        if allowed < MIN_SHARE_S:
            row["note"] = "skipped: --budget-s spent"
        elif sibling is not None and floor * sibling > SIBLING_FACTOR * allowed:
            row["note"] = (f"skipped: {floor} rows predicted {floor * sibling:.0f} s at another dtype's probe, over "
                           f"{SIBLING_FACTOR:.0f}x its {allowed:.0f} s share of --budget-s")
        if row.get("note"):
            self.clock.log(f"{name} {profile} {dtype}: {row['note']}")
            return
        t0 = time.perf_counter()
        try:
            metric = self.metrics.get((name, dtype)) or load_metric(name, self.device, dtype, self.args.batch_size)
            self.metrics[(name, dtype)] = metric
            metric.score(recs[:2])  # models loaded (and moved to the device) before timing
            row["load_s"] = round(time.perf_counter() - t0, 2)
            _cold(metric)
            _, tp = timed(lambda: metric.score(recs[:2]), self.device)  # unbatched rate: a pessimistic probe
            self.probes[(name, profile)] = tp / 2
            if floor * tp / 2 > allowed:
                row["note"] = (f"skipped: {floor} rows predicted {floor * tp / 2:.0f} s (2-row probe), over its "
                               f"{allowed:.0f} s share of --budget-s")
                self.clock.log(f"{name} {profile} {dtype}: {row['note']}")
                return
            n_w = warm_rows(len(recs))
            _cold(metric)
            _, tw = timed(lambda: metric.score(recs[:n_w]), self.device)  # the warm-up pass
            n = fit_rows(len(recs), n_w / tw, allowed)
            if n == 0:
                row["note"] = (f"skipped: {len(recs)} rows predicted {len(recs) * tw / n_w:.0f} s, over its "
                               f"{max(allowed, 0):.0f} s share of --budget-s")
                self.clock.log(f"{name} {profile} {dtype}: {row['note']}")
                return
            _cold(metric)
            _peak_reset(self.device)
            _, secs = timed(lambda: metric.score(recs[:n]), self.device)
        except Exception as err:  # noqa: BLE001 -- one row saying why, the run goes on
            why = _why(err)
            row["note"] = why
            if why.startswith("not installed"):
                self.unavailable[name] = why
            self.metrics.pop((name, dtype), None)
            self.clock.log(f"{name} {profile} {dtype}: {why}")
            return
        row.update(rows=n, seconds=secs, rows_per_s=round(n / secs, 1), gpu_peak_mib=_peak(self.device))
        base = self.bert.get(profile, {})
        if base.get("rows_per_s"):
            row["ratio_to_bert_score"] = round(n / secs / (base["rows"] / base["seconds"]), 4)
        if n < len(recs):
            row["note"] = f"cut to {n} of {len(recs)} rows by --budget-s"
        self.clock.log(f"{name} {profile} {dtype}: {n} rows in {secs:.2f} s ({n / secs:.1f} rows/s)")

    def step_check(self, name: str, profile: str) -> None:
        rows = [r for r in self.results if r["metric"] == name and r["profile"] == profile and r.get("rows")]
        if not rows:
            return
        allowed = self.share()
        if allowed < MIN_SHARE_S:
            for r in rows:
                r["check_note"] = "CPU check skipped: --budget-s spent"
            self.clock.log(f"check {name} {profile}: skipped (--budget-s spent)")
            return
        recs = self.rows(profile)[: min(self.check_n(), min(r["rows"] for r in rows))]
        try:
            cpu = load_metric(name, "cpu", "fp32", self.args.batch_size)
            cpu.score(recs[:2])  # load
            n_w = min(len(recs), 4)
            _cold(cpu)
            _, tw = timed(lambda: cpu.score(recs[:n_w]), "cpu")
            # the device side of the check is fast next to the CPU's: the share is the CPU's
            n = fit_rows(len(recs), n_w / tw, allowed, floor=min(20, len(recs)))
            if n == 0:
                for r in rows:
                    r["check_note"] = "CPU check skipped: predicted to overrun its share of --budget-s"
                self.clock.log(f"check {name} {profile}: skipped (budget)")
                return
            _cold(cpu)
            ref = _scores(cpu.score(recs[:n]))
            for r in rows:
                dev = self.metrics[(name, r["dtype"])]
                _cold(dev)
                got = _scores(dev.score(recs[:n]))
                r["check_rows"] = n
                r["max_abs_vs_cpu"] = max(abs(a - b) for a, b in zip(got, ref))
                if name == "bertscore" and r["dtype"] == "fp32" and profile in self.bert_scores:
                    theirs = self.bert_scores[profile][:n]
                    r["max_abs_vs_bert_score_f"] = max(abs(a - b) for a, b in zip(got, theirs))
        except Exception as err:  # noqa: BLE001
            for r in rows:
                r["check_note"] = f"CPU check {_why(err)}"
            self.clock.log(f"check {name} {profile}: {_why(err)}")
            return
        diffs = ", ".join(f"{r['dtype']} {r['max_abs_vs_cpu']:.2e}" for r in rows)
        self.clock.log(f"check {name} {profile}: {n} rows, max |{self.device} - cpu fp32| {diffs}")

    # -- the plan
    def plan(self) -> list[tuple[float, Callable[[], None]]]:
        """(weight, step) in order: tests, bert-score, timings, then the CPU checks (weight 2: the CPU is
        the slow side). Tests have their own timeout and weight 0."""
        a = self.args
        profiles = [p.strip() for p in a.profiles.split(",") if p.strip()]
        dtypes = [d.strip() for d in a.dtypes.split(",") if d.strip()]
        names = [m.strip() for m in a.metrics.split(",") if m.strip()]
        for p in profiles:
            if p not in PROFILES:
                raise SystemExit(f"bench gpu: unknown profile '{p}' (known: {', '.join(PROFILES)})")
        steps: list[tuple[float, Callable[[], None]]] = []
        if not a.skip_tests:
            steps.append((0.0, self.step_tests))
        used = {p for n in names for p in metric_profiles(n, profiles)}
        if not a.no_bert_score:
            steps += [(1.0, lambda p=p: self.step_bert_score(p)) for p in profiles if p in used]  # type: ignore[misc]
        checks: list[tuple[float, Callable[[], None]]] = []
        for name in names:
            if name not in METRICS and not registered(name):
                raise SystemExit(f"bench gpu: unknown metric '{name}'")
            if not registered(name):
                self.unavailable[name] = "not registered in this qascore"
                self.results.append({"metric": name, "profile": "-", "dtype": "-", "rows": 0,
                                     "note": self.unavailable[name]})
                continue
            for p in metric_profiles(name, profiles):
                steps += [(1.0, lambda n=name, p=p, d=d: self.step_time(n, p, d)) for d in dtypes]  # type: ignore[misc]
                checks.append((2.0, lambda n=name, p=p: self.step_check(n, p)))  # type: ignore[misc]
        return steps + checks

    def go(self) -> None:
        steps = self.plan()
        self.clock = Clock(self.args.budget_s)  # the budget counts from the first step (imports done)
        self.clock.log(f"bench gpu on {self.header['device_name']} ({self.device}); torch {self.header['torch']}, "
                       f"transformers {self.header['transformers']}; {len(steps)} steps, budget "
                       f"{self.args.budget_s:.0f} s; writing {self.out}")
        for i, (weight, step) in enumerate(steps):
            self.weight, self.weights_left = weight, sum(w for w, _ in steps[i:])
            step()
            self.write()
        self.clock.log(f"done in {self.clock.elapsed():.1f} s: {self.out / 'gpu.md'}")


def _cpu_name() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return f"CPU: {line.split(':', 1)[1].strip()}"
    except OSError:
        pass
    return f"CPU: {platform.processor() or platform.machine()}"


def _fmt(x: Any, spec: str) -> str:
    return "-" if x is None else format(x, spec)


def markdown(doc: dict[str, Any]) -> str:
    """gpu.md: a header naming the device and versions, the tests line, one table."""
    dev = doc["device"]
    lines = [f"# `qascore-lab bench gpu` on {doc['device_name']} ({dev})", "",
             f"- {doc['started_utc']}; torch {doc['torch']} (CUDA {doc['cuda'] or '-'}), transformers "
             f"{doc['transformers']}, qascore {doc['qascore']}" + (f" at {doc['commit']}" if doc.get("commit") else "")
             + f", Python {doc['python']}, {doc['cpu_threads']} CPU threads; the steps took {doc['elapsed_s']:.0f} s "
               f"of a {doc['budget_s']:.0f} s budget",
             f"- command: `qascore-lab bench gpu {' '.join(doc['argv'][2:] if doc['argv'][:2] == ['bench', 'gpu'] else doc['argv'])}`"]
    t = doc["tests"]
    if t.get("ran"):
        lines.append(f"- CUDA tests (`pytest -m cuda`): {t['passed']} passed, {t['failed']} failed, {t['skipped']} "
                     f"skipped, {t['errors']} errors ({t['summary']})" + (f"; {t['note']}" if t.get("note") else ""))
    else:
        lines.append(f"- CUDA tests: not run ({t.get('note', '-')})")
    for p, ln in doc["profiles"].items():
        lines.append(f"- profile `{p}`: candidate {ln['candidate_words']:.0f} words, reference "
                     f"{ln['reference_words']:.0f}, context {ln['context_words']:.0f} (synthetic, seeded)")
    lines += ["- rows/s: rows scored per second in one call after a warm-up pass, memos emptied, the device "
              "synchronised before each clock read. ratio: rows/s over the `bert-score` package's on the same "
              "profile's rows (its BERTScorer, fp32, the same MiniLM directory and layer; > 1: faster than it). "
              f"max abs diff: largest per-row |{dev} - CPU fp32| on the first N rows.", "",
              "| metric | profile | dtype | rows | rows/s | ratio to bert-score | max abs diff vs CPU fp32 (N) | note |",
              "|---|---|---|---:|---:|---:|---|---|"]
    for p, b in doc["bert_score"].items():
        lines.append(f"| bert-score (package {b.get('version') or '?'}) | {p} | fp32 | {b.get('rows', 0)} | "
                     f"{_fmt(b.get('rows_per_s'), '.1f')} | {'1' if b.get('rows_per_s') else '-'} | - | "
                     f"{b.get('note', '')} |")
    for r in doc["results"]:
        check = "-"
        if r.get("max_abs_vs_cpu") is not None:
            check = f"{r['max_abs_vs_cpu']:.2e} ({r['check_rows']})"
        notes = [x for x in (r.get("note"), r.get("check_note")) if x]
        if r.get("max_abs_vs_bert_score_f") is not None:
            notes.append(f"max abs F diff vs bert-score {r['max_abs_vs_bert_score_f']:.2e}")
        lines.append(f"| {r['metric']} | {r['profile']} | {r['dtype']} | {r.get('rows', 0)} | "
                     f"{_fmt(r.get('rows_per_s'), '.1f')} | {_fmt(r.get('ratio_to_bert_score'), '.2f')} | {check} | "
                     f"{'; '.join(notes).replace('|', '/')} |")
    return "\n".join(lines) + "\n"


def run(args: argparse.Namespace) -> int:
    from qascore.runtime.devices import check_device

    device = check_device(args.device)
    if device is None:
        raise SystemExit("bench gpu: --device auto is not a device to time; name cuda, cuda:N or cpu")
    args.device = device
    out = Path(args.out or os.environ.get("OUT") or "gpu-bench")
    out.mkdir(parents=True, exist_ok=True)
    Run(args, out).go()
    return 0
