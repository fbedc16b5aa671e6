"""`qascore-lab train verifier-data`: one answer-verification corpus for the AVA and SQuArE verifiers.

Rows are (question, references, negatives, candidate, label) with a `source`
tag, split by question into train and dev:

- `ae`: answer-equivalence pairs (short answers and sentences); 10% of their
  questions (salted hash, so the split does not move when sources change) are dev.
- `squad`: SQuAD v2 dev, answerable questions, reference = the first gold span.
  Positives: another annotator's distinct gold span (`squad-span`), the passage
  sentence holding the gold span (`squad-sent`). Negatives: another sentence of
  the passage that holds no gold answer (`squad-sent-neg`), and spans of the
  passage of the answer's kind (same spaCy entity label, else a noun chunk)
  that overlap no gold span and equal no gold answer (`squad-hard-neg`).
  10% of the questions are dev.
- `squad-sentref` (on by default since the second `ava`): the same questions with a *sentence* as the
  reference (the holder sentence), so the model sees the shape of WikiQA and
  TREC-QA triples. Positives: a window of the holder sentence around the gold
  span (2-6 words either side, at least 3 words shorter than the sentence;
  `squad-sentref-window`) and the gold span itself (`squad-sentref-span`).
  Negatives: another sentence of the passage holding no gold answer
  (`squad-sentref-neg`) and a span of the answer's kind (`squad-sentref-hard`).
  A separate seeded generator draws them, so the `squad` rows stay the same.
- `wikiqa` / `trecqa`: AVA triples (AVA-Pos/Neg, `train.ava_data`) from the
  train split; WikiQA dev triples form the `wikiqa` part of the dev split.
- `numswap` (off by default): for each training row labelled correct whose question asks for a
  number, the candidate with that number changed, labelled incorrect (`train.number_swaps`); the
  dev rows' pairs go to `numswap-probe.jsonl`, outside the dev split.
- `evouna-alias` (off by default): each EVOUNA-TQ training row whose question has two or more gold
  answers, copied with one other alias as its only reference (`alias_copies`): the verifier reads a
  row's first reference only, so without them it meets one arbitrary alias per question.

SQuArE reads `negatives` too. They are "blind" (the same for every row of a
question), so their number never gives a row's label away: for SQuAD, spans
of the answer's kind that are not used as negative targets; for AS2 corpora,
incorrect candidates of the question other than any target.

Nothing of an evaluation split enters: a question whose normalised text (or,
for SQuAD, whose passage) appears in the KPQA human sets, WikiQA dev/test,
TREC-QA clean-dev/raw-dev or QGEval is dropped, and the report counts them.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import random
import re
import time
from collections import Counter
from pathlib import Path
from typing import Any, Iterable, Sequence

from qascore_lab.train import number_swaps
from qascore_lab.train.ava_data import question_key

SOURCES = ("ae", "squad", "squad-sentref", "wikiqa", "trecqa", "evouna", "selqa", "trecqa-all", "squad11", "numswap",
           "evouna-alias")
# TREC-QA's small manually judged TRAIN stays out; TRAIN-ALL (noisy automatic labels) is in.
DEFAULT_SOURCES = ("ae", "squad", "squad-sentref", "wikiqa", "evouna", "selqa", "trecqa-all", "squad11")
DEV_SHARE = 0.10


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--data", default=None, help="data root (default: $QASCORE_DATA or ../shared/data)")
    p.add_argument("--out", default="runs/verifier-data", help="folder for train.jsonl, dev.jsonl, report.json")
    p.add_argument("--sources", default=",".join(DEFAULT_SOURCES),
                   help=f"comma-separated sources (known: {', '.join(SOURCES)})")
    p.add_argument("--seed", type=int, default=13)
    p.add_argument("--squad-questions", type=int, default=None, metavar="N",
                   help="at most N SQuAD questions (seeded sample; default all)")
    p.add_argument("--as2-neg-ratio", type=float, default=2.0,
                   help="negatives per positive in WikiQA/TREC-QA training triples (seeded subsample)")
    p.add_argument("--squad11-questions", type=int, default=2000, metavar="N",
                   help="SQuAD 1.1 train questions used (seeded sample; the CPU training budget)")
    p.add_argument("--as2-max-pos", type=int, default=4, metavar="N",
                   help="at most N positive triples per question for SelQA and TREC-QA TRAIN-ALL")


def in_dev(key: str, seed: int, share: float = DEV_SHARE) -> bool:
    """Salted-hash split by question: stable whatever other rows exist."""
    h = hashlib.sha1(f"{seed}:{key}".encode()).hexdigest()
    return int(h[:8], 16) / 0xFFFFFFFF < share


def normalize(text: str) -> str:
    """Answer text for the corpus's equality tests: case-folded, punctuation to spaces, articles dropped.

    (Unlike SQuAD's rule, which deletes punctuation, "U.S.-led" becomes "u s led": the corpus was built,
    and its figures measured, with this rule.)
    """
    text = re.sub(r"[^\w\s]", " ", text.casefold())
    return " ".join(w for w in text.split() if w not in ("a", "an", "the"))


def row(source: str, kind: str, qid: str, question: str, refs: Sequence[str], candidate: str, label: int,
        negatives: Sequence[str] = (), **extra: Any) -> dict[str, Any]:
    return {"qid": qid, "source": source, "kind": kind, "question": question, "references": list(refs),
            "negatives": list(negatives), "candidate": candidate, "label": int(label), **extra}


# -- evaluation questions that must stay out ---------------------------------------------------

def held_out(data: Path) -> tuple[set[str], set[str], dict[str, int]]:
    """(normalised questions, normalised passages) of every evaluation split, and counts per split."""
    from qascore_lab.datasets import kpqa, qgeval
    from qascore_lab.datasets.as2 import read_trecqa, read_wikiqa

    questions: set[str] = set()
    passages: set[str] = set()
    counts: dict[str, int] = {}

    def add(name: str, qs: Iterable[str]) -> None:
        keys = {question_key(q) for q in qs if question_key(q)}
        counts[name] = len(keys)
        questions.update(keys)

    for name, recs in kpqa.load_all(root=data).items():
        add(f"kpqa-{name}", (r.question for r in recs))
    for split in ("dev", "test"):
        add(f"wikiqa-{split}", (q.question for q in read_wikiqa(data / "wikiqa", split)))
    for split in ("clean-dev", "raw-dev"):
        folder = data / "trecqa" / split
        if folder.is_dir():
            add(f"trecqa-{split}", (q.question for q in read_trecqa(folder)))
    qg = qgeval.load(data, with_metrics=False)
    add("qgeval-references", (r.references[0] for r in qg if r.references))
    passages.update(question_key(r.context) for r in qg)
    counts["qgeval-passages"] = len({question_key(r.context) for r in qg})
    return questions, passages, counts


# -- sources ---------------------------------------------------------------------------------

def ae_rows(data: Path) -> list[dict[str, Any]]:
    from qascore_lab.datasets import answer_equivalence

    return [row("ae", "ae", f"ae:{question_key(p.question)}", p.question, [p.reference], p.candidate, p.label)
            for p in answer_equivalence.load(data)]


def _span_kind(doc: Any, start: int, end: int) -> str | None:
    """The entity label of the span [start, end) (by character overlap), or None."""
    for ent in doc.ents:
        overlap = min(end, ent.end_char) - max(start, ent.start_char)
        if overlap > 0 and overlap >= 0.5 * (end - start):
            return ent.label_
    return None


def _window(sentence: Any, start: int, end: int, rng: random.Random) -> str | None:
    """2-6 words either side of the span [start, end) inside `sentence`, or None when that is nearly all of it."""
    words = [(m.start() + sentence.start_char, m.end() + sentence.start_char, m.group())
             for m in re.finditer(r"\S+", sentence.text)]
    inside = [i for i, (s, e, _) in enumerate(words) if e > start and s < end]
    if not inside:
        return None
    k = rng.randint(2, 6)
    lo, hi = max(0, inside[0] - k), min(len(words), inside[-1] + 1 + k)
    if hi - lo > len(words) - 3:
        return None
    return " ".join(w for _, _, w in words[lo:hi])


def squad_rows(data: Path, rng: random.Random, limit: int | None, skip_passages: set[str],
               skip_questions: set[str], *, seed: int = 13, kinds: Sequence[str] = ("squad",),
               questions: Sequence[Any] | None = None) -> tuple[list[dict[str, Any]], int]:
    """Rows from SQuAD v2 dev answerable questions (or `questions`), and how many were dropped as held out.

    `kinds`: "squad" (span references) and/or "squad-sentref" (holder-sentence references).
    """
    from qascore_lab.datasets import squad
    from qascore_lab.text.perturb import nlp

    ref_rng = random.Random(f"{seed}:sentref")   # its own draws: the `squad` rows stay as they were

    qs = list(questions) if questions is not None else squad.load(root=data, answerable_only=True)
    dropped = [q for q in qs if question_key(q.context) in skip_passages or question_key(q.question) in skip_questions]
    qs = [q for q in qs if q not in set(dropped)]
    if limit is not None and len(qs) > limit:
        qs = sorted(rng.sample(qs, limit), key=lambda q: (q.passage_index, q.id))
    pipe = nlp()
    docs = {}
    for idx, _title, context in squad.passages(qs):
        docs[idx] = pipe(context)
    out = []
    for q in qs:
        doc = docs[q.passage_index]
        gold = q.answers[0]
        golds = {normalize(a.text) for a in q.answers}
        spans = [(a.start, a.end) for a in q.answers]
        qid = f"squad:{q.id}"
        ref = [gold.text]

        def overlaps(s: int, e: int) -> bool:
            return any(min(e, ge) > max(s, gs) for gs, ge in spans)

        kind = _span_kind(doc, gold.start, gold.end)
        if kind is not None:
            pool = [e for e in doc.ents if e.label_ == kind]
        else:
            pool = list(doc.noun_chunks)
        seen: set[str] = set()
        hard = []
        for sp in pool:
            t = normalize(sp.text)
            if t and t not in golds and t not in seen and not overlaps(sp.start_char, sp.end_char):
                seen.add(t)
                hard.append(sp.text)
        rng.shuffle(hard)
        neg_targets, neg_refs = hard[:2], hard[2:4]
        sents = list(doc.sents)
        holder = next((s for s in sents if s.start_char <= gold.start < s.end_char), None)
        others = [s.text.strip() for s in sents if s is not holder
                  and not any(g and g in normalize(s.text) for g in golds) and len(s.text.split()) >= 4]
        if "squad-sentref" in kinds and holder is not None:
            sent = [holder.text.strip()]
            win = _window(holder, gold.start, gold.end, ref_rng)
            if win is not None:
                out.append(row("squad-sentref", "squad-sentref-window", qid, q.question, sent, win, 1, neg_refs))
            out.append(row("squad-sentref", "squad-sentref-span", qid, q.question, sent, gold.text, 1, neg_refs))
            if others:
                out.append(row("squad-sentref", "squad-sentref-neg", qid, q.question, sent, ref_rng.choice(others), 0,
                               neg_refs))
            if hard:
                out.append(row("squad-sentref", "squad-sentref-hard", qid, q.question, sent, ref_rng.choice(hard), 0,
                               neg_refs))
        if "squad" not in kinds:
            continue
        alt = next((a.text for a in q.answers[1:] if normalize(a.text) != normalize(gold.text)), None)
        if alt is not None:
            out.append(row("squad", "squad-span", qid, q.question, ref, alt, 1, neg_refs))
        if holder is not None:
            out.append(row("squad", "squad-sent", qid, q.question, ref, holder.text.strip(), 1, neg_refs))
        if others:
            out.append(row("squad", "squad-sent-neg", qid, q.question, ref, rng.choice(others), 0, neg_refs))
        for t in neg_targets:
            out.append(row("squad", "squad-hard-neg", qid, q.question, ref, t, 0, neg_refs))
    return out, len(dropped)


def as2_rows(name: str, questions: Sequence[Any], neg_ratio: float | None, seed: int,
             max_pos: int | None = None, **extra: Any) -> list[dict[str, Any]]:
    """AVA triples of AS2 questions, with blind negatives (up to 2 incorrect candidates, none a target)."""
    from qascore_lab.train.ava_data import build_triples

    by_q = {q.qid: q for q in questions}
    triples = build_triples(questions, neg_ratio=neg_ratio, seed=seed, max_pos_per_question=max_pos)
    targets: dict[str, set[str]] = {}
    for t in triples:
        targets.setdefault(t.qid, set()).add(t.target)
    out = []
    for t in triples:
        q = by_q[t.qid]
        negs = [q.candidates[j] for j in q.negatives if q.candidates[j] not in targets[t.qid]][:2]
        out.append(row(name, name, f"{name}:{t.qid}", t.question, [t.reference], t.target, t.label, negs, **extra))
    return out


def evouna_rows(data: Path, seed: int) -> dict[str, list[dict[str, Any]]]:
    """EVOUNA-TQ answers judged by people, split by question into train / dev / test (60 / 20 / 20)."""
    from qascore_lab.datasets import evouna

    out: dict[str, list[dict[str, Any]]] = {"train": [], "dev": [], "test": []}
    for q in evouna.load(data):
        part = out[evouna.split_of(q.question, seed)]
        for system, text, label in q.answers:
            part.append(row("evouna", "evouna-fid" if system == "fid" else "evouna-llm", f"evouna:{q.index}",
                            q.question, q.references, text, label, system=system))
    return out


# -- the corpus --------------------------------------------------------------------------------

def build(data: Path, sources: Sequence[str], seed: int, *, squad_questions: int | None = None,
          as2_neg_ratio: float | None = 2.0, squad11_questions: int | None = 2000, as2_max_pos: int | None = 4
          ) -> tuple[list[dict], list[dict], list[dict], dict[str, Any]]:
    """(train rows, dev rows, test rows, report); only EVOUNA-TQ has test rows (for reporting)."""
    from qascore_lab.datasets.as2 import read_selqa, read_trecqa, read_trecqa_train_all, read_wikiqa

    unknown = [s for s in sources if s not in SOURCES]
    if unknown:
        raise SystemExit(f"unknown source(s) {unknown}; known: {', '.join(SOURCES)}")
    rng = random.Random(seed)
    skip_q, skip_p, held = held_out(data)
    report: dict[str, Any] = {"seed": seed, "sources": list(sources), "held_out_questions": held, "dropped": {}}
    train: list[dict] = []
    dev: list[dict] = []
    test: list[dict] = []

    def split_by_hash(rows: list[dict], name: str) -> None:
        kept = [r for r in rows if question_key(r["question"]) not in skip_q]
        report["dropped"][name] = report["dropped"].get(name, 0) + len({r["qid"] for r in rows}) - \
            len({r["qid"] for r in kept})
        for r in kept:
            (dev if in_dev(question_key(r["question"]), seed) else train).append(r)

    if "ae" in sources:
        split_by_hash(ae_rows(data), "ae")
    squad_kinds = [s for s in sources if s.startswith("squad")]
    if squad_kinds:
        rows, gone = squad_rows(data, rng, squad_questions, skip_p, skip_q, seed=seed, kinds=squad_kinds)
        report["dropped"]["squad"] = gone
        split_by_hash(rows, "squad")
    for name in ("wikiqa", "trecqa"):
        if name not in sources:
            continue
        qs = read_wikiqa(data / "wikiqa", "train") if name == "wikiqa" else read_trecqa(data / "trecqa" / "train")
        kept = [q for q in qs if question_key(q.question) not in skip_q]
        report["dropped"][name] = len(qs) - len(kept)
        train.extend(as2_rows(name, kept, as2_neg_ratio, seed))
    if "wikiqa" in sources:
        dev.extend(as2_rows("wikiqa", read_wikiqa(data / "wikiqa", "dev"), None, seed))
    if "squad11" in sources:
        from qascore_lab.datasets import squad

        rows, gone = squad_rows(data, random.Random(f"{seed}:squad11"), squad11_questions, skip_p, skip_q, seed=seed,
                                kinds=("squad", "squad-sentref"), questions=squad.load_v11(data))
        report["dropped"]["squad11"] = gone
        for r in rows:
            r["source"], r["qid"] = "squad11", "squad11:" + r["qid"].split(":", 1)[1]
        train.extend(r for r in rows if question_key(r["question"]) not in skip_q)
    if "selqa" in sources:
        groups = read_selqa(data)
        kept = [(g, q) for g, q in groups if question_key(q.question) not in skip_q]
        report["dropped"]["selqa"] = len(groups) - len(kept)
        sel_dev = [q for g, q in kept if in_dev(f"selqa:{g}", seed)]
        sel_train = [q for g, q in kept if not in_dev(f"selqa:{g}", seed)]
        train.extend(as2_rows("selqa", sel_train, as2_neg_ratio, seed, as2_max_pos))
        dev.extend(as2_rows("selqa", sel_dev, None, seed))
    if "trecqa-all" in sources:
        qs = read_trecqa_train_all(data)
        kept = [q for q in qs if question_key(q.question) not in skip_q]
        report["dropped"]["trecqa-all"] = len(qs) - len(kept)
        train.extend(as2_rows("trecqa-all", kept, as2_neg_ratio, seed, as2_max_pos, noisy=True))
    if "evouna" in sources:
        parts = evouna_rows(data, seed)
        for name, part in (("train", train), ("dev", dev), ("test", test)):
            kept = [r for r in parts[name] if question_key(r["question"]) not in skip_q]
            report["dropped"].setdefault("evouna", 0)
            report["dropped"]["evouna"] += len({r["qid"] for r in parts[name]}) - len({r["qid"] for r in kept})
            part.extend(kept)
    dev_q = {question_key(r["question"]) for r in dev + test}
    clash = [r for r in train if question_key(r["question"]) in dev_q]   # one question in two sources
    train = [r for r in train if question_key(r["question"]) not in dev_q]
    test_q = {question_key(r["question"]) for r in test}
    dev = [r for r in dev if question_key(r["question"]) not in test_q or r["source"] == "evouna"]
    report["train_rows_dropped_as_dev_questions"] = len(clash)
    train, dup_t = dedup(train)
    dev, dup_d = dedup(dev)
    report["duplicates_removed"] = {"train": dup_t, "dev": dup_d}
    check_split(train, dev + test, skip_q)
    for name, part in (("train", train), ("dev", dev), ("test", test)):
        for i, r in enumerate(part):
            r["id"] = f"{name}-{i}"
    if "numswap" in sources:  # derived from the other sources' training rows, so it comes last
        train.extend(neg for _, neg in number_swaps.swap_pairs(train, random.Random(seed)))
    if "evouna-alias" in sources:
        train.extend(alias_copies(train, seed))
    report["train"], report["dev"], report["test"] = describe(train), describe(dev), describe(test)
    return train, dev, test, report


def alias_copies(rows: Sequence[dict], seed: int) -> list[dict]:
    """Each EVOUNA-TQ row with 2+ gold answers, once more with one alias other than its first as its only
    reference; the alias is drawn per question, so every answer to it is judged against the same one."""
    return [{**r, "references": [random.Random(f"{seed}:alias:{r['qid']}").choice(r["references"][1:])],
             "source": "evouna-alias", "id": f"{r['id']}-alias"}
            for r in rows if r["source"] == "evouna" and len(r["references"]) >= 2]


def dedup(rows: list[dict]) -> tuple[list[dict], int]:
    """Drop repeated (question, reference, candidate) rows; where their labels disagree, drop them all."""
    labels: dict[tuple, set[int]] = {}
    for r in rows:
        labels.setdefault(key(r), set()).add(r["label"])
    out, seen = [], set()
    for r in rows:
        k = key(r)
        if k in seen or len(labels[k]) > 1:
            continue
        seen.add(k)
        out.append(r)
    return out, len(rows) - len(out)


def key(r: dict) -> tuple[str, str, str]:
    return (question_key(r["question"]), normalize(r["references"][0]), normalize(r["candidate"]))


def check_split(train: Sequence[dict], dev: Sequence[dict], held: set[str]) -> None:
    """Raise if a question is in both splits, or if a training question is an evaluation question."""
    tq = {question_key(r["question"]) for r in train}
    both = tq & {question_key(r["question"]) for r in dev}
    if both:
        raise ValueError(f"{len(both)} questions in both train and dev, e.g. {sorted(both)[:2]}")
    leak = tq & held
    if leak:
        raise ValueError(f"{len(leak)} training questions are in an evaluation split, e.g. {sorted(leak)[:2]}")


def describe(rows: Sequence[dict]) -> dict[str, Any]:
    """Rows per source and label, questions, and candidate length quantiles (words)."""
    import numpy as np

    per: dict[str, dict[str, int]] = {}
    for r in rows:
        d = per.setdefault(r["kind"], {"pos": 0, "neg": 0})
        d["pos" if r["label"] else "neg"] += 1
    lens = np.array([len(r["candidate"].split()) for r in rows] or [0])
    return {"rows": len(rows), "questions": len({r["qid"] for r in rows}), "positives": sum(r["label"] for r in rows),
            "by_kind": per, "by_source": dict(Counter(r["source"] for r in rows)),
            "candidate_words": {q: float(np.percentile(lens, q)) for q in (10, 50, 90, 99)}}


def read_split(folder: str | Path, split: str) -> list[dict]:
    with (Path(folder) / f"{split}.jsonl").open(encoding="utf-8") as fh:
        return [json.loads(line) for line in fh if line.strip()]


def run(args: argparse.Namespace) -> int:
    from qascore_lab.datasets import data_root

    t0 = time.time()
    data = data_root(args.data)
    sources = [s.strip() for s in args.sources.split(",") if s.strip()]
    train, dev, test, report = build(data, sources, args.seed, squad_questions=args.squad_questions,
                                     as2_neg_ratio=args.as2_neg_ratio, squad11_questions=args.squad11_questions,
                                     as2_max_pos=args.as2_max_pos)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    files = {"train": train, "dev": dev, "test": test}
    if "numswap" in sources:  # dev rows and their swaps, outside the dev split: a probe of the error it targets
        files["numswap-probe"] = [r for pair in number_swaps.swap_pairs(dev, random.Random(f"{args.seed}:probe"))
                                  for r in pair]
    for name, rows in files.items():
        with (out / f"{name}.jsonl").open("w", encoding="utf-8") as fh:
            for r in rows:
                fh.write(json.dumps(r, ensure_ascii=False) + "\n")
    report["command"] = (f"qascore-lab train verifier-data --sources {','.join(sources)} --seed {args.seed}"
                         + (f" --squad-questions {args.squad_questions}" if args.squad_questions else "")
                         + f" --as2-neg-ratio {args.as2_neg_ratio} --squad11-questions {args.squad11_questions}"
                         + f" --as2-max-pos {args.as2_max_pos}")
    report["seconds"] = round(time.time() - t0, 1)
    (out / "report.json").write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    print(json.dumps({k: report[k] for k in ("train", "dev", "dropped", "duplicates_removed")}, indent=1))
    print(f"wrote {out}/train.jsonl ({len(train)} rows), dev.jsonl ({len(dev)} rows), test.jsonl ({len(test)} "
          f"rows), report.json "
          f"in {report['seconds']}s")
    return 0
