"""`qascore-lab bench models`: every model metric's speed in one run, as ratios, on short and long rows.

Each row of the table names its threads, device, dtype and the rows' length
profile (mean words of candidate / reference / context), so a figure can be
read without the command line. Profiles:

- `short`: NQ-style span answers (2-6 words) and references, one 80-word passage;
- `long`: LLM-paragraph answers (120-200 words), short references, a 400-word passage;
- `qg200`: question generation on real text: SQuAD 2.0 dev passages of 180-220 words (../shared/data, at most 12
  questions per passage, each with its gold answer span). The synthetic words above cost 2.6 WordPieces each
  against English's 1.3, which would double the windows a reader needs; without the data the profile falls back
  to synthetic 200-word passages with a 1-4-word span of each as the answer, and says so.
  The QG metrics (`qrelscore`, `answerability`) read the question as candidate; the others the answer.

`--metrics` takes metric specs (`answerability:model=DIR/reader.safetensors` for an unshipped reader);
`answerability` is not among the defaults: `--metrics answerability,qrelscore --profiles qg200` prints it beside
`qrelscore`.

Texts are synthetic (the scale runs' Zipf vocabulary, qascore_lab.bench.synthetic),
seeded, so both sides of a ratio read identical rows. Ratios measured in the same
run: `bertscore` and `kpqa-bertscore` against the `bert-score` package on the same
encoder and layer (rows/s of bert-score over ours: >1 means we are faster);
`qrelscore` against its own uncached fp32 path (one sequence per LM pass, no
de-duplication, no memo of the context-only pass). Each figure is the fastest of
`--repeat` runs (models loaded before timing; every memo, KPW's and QRelScore's
included, emptied before each run, so every timed call meets its texts cold). On a GPU each row also gives
peak GPU memory.
"""

from __future__ import annotations

import argparse
import random
from typing import Any, Callable

import numpy as np

from qascore_lab.bench.synthetic import vocabulary
from qascore_lab.bench.timing import fastest

METRICS = ("bertscore", "kpqa-bertscore", "kpqa-rougeL", "ava", "square", "judge", "qrelscore")
PROFILES = {"short": (2, 6, 80), "long": (120, 200, 400), "qg200": (2, 6, 200)}  # candidate words lo..hi, passage words
QG_METRICS = ("qrelscore", "answerability")  # they score the question (candidate) against the passage


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--rows", type=int, default=48, help="rows per profile (qrelscore: 12 questions per passage)")
    p.add_argument("--metrics", default=",".join(METRICS),
                   help="comma list of model metric specs (also answerability, not a default); a key=value item "
                        "continues the spec before it: answerability:focus=100,dtype=int8,qrelscore")
    p.add_argument("--profiles", default="short,long", help=f"comma list of {', '.join(PROFILES)}")
    p.add_argument("--threads", type=int, default=None, help="torch threads (default: qascore's default)")
    p.add_argument("--device", default="auto")
    p.add_argument("--dtype", default="fp32")
    p.add_argument("--repeat", type=int, default=2, help="keep the fastest of N runs")
    p.add_argument("--data-root", default=None, help="folder holding squad_v2_dev/ (qg200; default ../shared/data)")
    p.add_argument("--no-reference", action="store_true", help="skip the bert-score and uncached-QRelScore sides")


def split_specs(text: str) -> list[str]:
    """The metric specs of a comma list, where a `key=value` item without a colon continues the spec before
    it: "answerability:focus=100,dtype=int8,qrelscore" -> ["answerability:focus=100,dtype=int8", "qrelscore"]."""
    out: list[str] = []
    for item in filter(None, (part.strip() for part in text.split(","))):
        if out and "=" in item and ":" not in item:
            out[-1] += f",{item}"
        else:
            out.append(item)
    return out


def squad_rows(n: int, root: str | None = None, words: tuple[int, int] = (180, 220)) -> list[dict[str, Any]]:
    """`n` SQuAD 2.0 dev questions (answerable) on passages of `words` words, at most 12 per passage, in file
    order; the question is the QG candidate, its first gold answer the `span` (answerability's `answer`)."""
    from qascore_lab.datasets import squad

    per: dict[int, int] = {}
    out: list[dict[str, Any]] = []
    for q in squad.load(root=root, answerable_only=True):
        if not words[0] <= len(q.context.split()) <= words[1] or per.get(q.passage_index, 0) >= 12:
            continue
        per[q.passage_index] = per.get(q.passage_index, 0) + 1
        ans = q.answers[0].text
        out.append({"id": f"qg200-{q.id}", "question": q.question, "candidate": ans, "references": [ans],
                    "negatives": ["no"], "context": q.context, "span": ans, "qg_candidate": q.question})
        if len(out) == n:
            break
    return out


def rows(profile: str, n: int, seed: int = 0, root: str | None = None) -> list[dict[str, Any]]:
    """`n` records of a length profile (seeded synthetic text; qg200: SQuAD passages when the data is there);
    one passage per 12 rows (as QG data: many questions per passage)."""
    if profile == "qg200":
        from qascore_lab.datasets import DataNotFound

        try:
            return squad_rows(n, root)
        except DataNotFound as err:
            print(f"note: qg200 reads synthetic passages ({err})")
    lo, hi, ctx_words = PROFILES[profile]
    rng = random.Random(seed)
    spans = random.Random(seed + 1)
    vocab = vocabulary(seed=seed)

    def text(k: int) -> str:
        return " ".join(rng.choice(vocab[:800]) for _ in range(k))

    out, passage = [], ""
    for i in range(n):
        if i % 12 == 0:
            passage = text(ctx_words) + "."
        answer = text(rng.randint(lo, hi))
        ref = " ".join(w for w in answer.split()[:6] if rng.random() < 0.7) or text(3)
        words = passage.split()
        k = spans.randint(1, 4)   # its own stream: the texts of every profile stay what they were
        at = spans.randrange(0, len(words) - k)
        out.append({"id": f"{profile}{i}", "question": text(rng.randint(6, 12)) + "?", "candidate": answer,
                    "references": [ref], "negatives": [text(5)], "context": passage,
                    "span": " ".join(words[at:at + k])})
    for r in out:  # qrelscore scores the question (candidate) against the passage
        r["qg_candidate"] = r["question"]
    return out


def profile_text(recs: list[dict[str, Any]], qg: bool) -> str:
    def words(key: str) -> float:
        return float(np.mean([len((r[key] if isinstance(r[key], str) else r[key][0]).split()) for r in recs]))

    cand = words("qg_candidate" if qg else "candidate")
    return f"cand {cand:.0f}w ref {words('references'):.0f}w ctx {words('context'):.0f}w"


def _records(recs: list[dict[str, Any]], qg: bool) -> list[Any]:
    from qascore.records import Record

    return [Record(id=r["id"], question=r["question"], candidate=r["qg_candidate"] if qg else r["candidate"],
                   references=r["references"], negatives=r["negatives"], context=r["context"],
                   answer=r["span"] if qg else "") for r in recs]


def _gpu_peak(device: str) -> Callable[[], str]:
    import torch

    if not device.startswith("cuda"):
        return lambda: "-"
    torch.cuda.reset_peak_memory_stats()
    return lambda: f"{torch.cuda.max_memory_allocated() / 2**20:.0f} MiB"


def _bert_score_side(recs: list[Any], device: str, kpqa: bool) -> Callable[[], Any] | None:
    """bert-score's BERTScorer on qascore's encoder and layer, model loaded; None without the package."""
    try:
        from bert_score import BERTScorer
    except ImportError:
        return None
    from qascore.metrics.registry import load
    from qascore.runtime import defaults

    layer = load("bertscore").layer
    scorer = BERTScorer(model_type=defaults.resolve(defaults.ENCODER), num_layers=layer, device=device,
                        idf=False, nthreads=0)
    cands = [r.candidate for r in recs]
    refs = [r.references[0] for r in recs]
    scorer.score(cands[:2], refs[:2])
    return lambda: scorer.score(cands, refs)


def _uncached_qrel(recs: list[Any], device: str) -> Callable[[], Any]:
    from qascore.metrics.qrelscore.engine import Engine

    eng = Engine(device=device, dedupe=False, base_memo=False, lm_max_tokens=1)
    qs, cs = [r.candidate for r in recs], [r.context for r in recs]
    eng.grg_raw(qs[:1], cs[:1])
    return lambda: (eng.lrm_raw(qs, cs), eng.grg_raw(qs, cs))


def run(args: argparse.Namespace) -> int:
    import torch

    from qascore.metrics.registry import load
    from qascore.runtime.cache import empty
    from qascore.runtime.devices import check_device, pick_device, set_threads

    threads = set_threads(args.threads)
    device = pick_device(check_device(args.device))
    dtype = args.dtype
    print(f"qascore-lab bench models: {args.rows} rows per profile, fastest of {args.repeat}; torch "
          f"{torch.__version__}; ratio = reference seconds / qascore seconds (>1: qascore faster)")
    specs = split_specs(args.metrics)
    w = max([15, *map(len, specs)])   # the metric column fits the longest spec
    head = f"{'metric':<{w}} {'profile':<8} {'lengths':<28} {'thr':>3} {'device':<7} {'dtype':<5} " \
           f"{'rows/s':>8} {'reference':<26} {'ratio':>6} {'GPU peak':>9}"
    print(head)
    print("-" * len(head))
    for profile in args.profiles.split(","):
        data = rows(profile, args.rows, root=args.data_root)
        for name in specs:
            qg = name.startswith(QG_METRICS)
            recs = _records(data, qg)
            opts = {"device": device} if device else {}
            if dtype != "fp32":
                opts["dtype"] = dtype
            metric = load(name, **opts)
            metric.score(recs[:2])  # models loaded before timing
            peak = _gpu_peak(device)
            def cold() -> None:  # memos (KPW, tokens, QRelScore's context pass) emptied: each run meets its texts anew
                metric.forget_memos()
                empty("qrel-grg-base")
                empty("kpw-cache")

            _, secs = fastest(lambda: metric.score(recs), args.repeat, before=cold)
            mem = peak()
            ref_name, ratio = "-", "-"
            if not args.no_reference:
                ref: Callable[[], Any] | None = None
                if name in ("bertscore", "kpqa-bertscore"):
                    ref, ref_name = _bert_score_side(recs, device, name != "bertscore"), "bert-score pkg, same encoder"
                elif name == "qrelscore":
                    ref, ref_name = _uncached_qrel(recs, device), "own uncached fp32 path"
                if ref is not None:
                    _, ref_secs = fastest(ref, args.repeat)
                    ratio = f"{ref_secs / secs:.2f}x"
                elif name in ("bertscore", "kpqa-bertscore"):
                    ref_name = "bert-score not installed"
            shown = metric.options.get("dtype") or dtype   # a spec's own dtype (answerability:dtype=int8) wins
            print(f"{name:<{w}} {profile:<8} {profile_text(data, qg):<28} {threads:>3} {device:<7} {shown:<5} "
                  f"{len(recs) / secs:8.1f} {ref_name:<26} {ratio:>6} {mem:>9}", flush=True)
    return 0
