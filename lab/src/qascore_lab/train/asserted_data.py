"""`qascore-lab train asserted-data`: answer texts labelled with the span each asserts as its answer.

The `judge` reads what an answer asserts with an extractive reader trained on these rows
(`train asserted`, `qascore.runtime.asserted`). A row is (question, text, the asserted span or none).

Sources (all public, ../shared/data):
- `squad`: SQuAD 1.1 train: the sentence holding the gold span, with 0-2 neighbouring sentences of its
  passage: the skill of picking the entity that answers among entities in other roles. A sentence of the
  passage without the answer, alone, asserts nothing (a share `--squad-null`).
- `evouna`: EVOUNA-TQ answers people judged correct that hold a gold alias: the alias's position.
- `composed`: a gold answer A and a real wrong answer B for the same question (EVOUNA-TQ's short wrong answers,
  or another answer of the same kind from the same SQuAD passage), written into discourse forms (`FORMS`):
  one of them asserted, the other in a side role (contrast, concession, correction, attribution, comparison,
  relation, distractor sentence, a list it picks from), both directions; or neither asserted (refusals,
  undecided choices, restatements). `swapped` forms take a correct EVOUNA-TQ LLM answer, put B in place of A
  and add a side-role sentence that names A.

Splits: by question (EVOUNA-TQ's train / dev / test, `datasets.evouna.split_of`; SQuAD by a salted hash of the
article title) AND by form: each form is hashed into train / dev / test (`form_split`), so a form a test row
uses never occurs in training. Only train forms on train questions train the reader; dev rows choose; test rows
report. Writes OUT/{train,dev,test}.jsonl and OUT/report.json.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import random
import re
from collections import Counter
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Iterator, Sequence

from qascore.text.squad import normalize_answer


@dataclass(frozen=True)
class Row:
    id: str
    question: str
    text: str
    start: int | None          # char span [start, end) of the asserted answer in text; None: asserts none
    end: int | None
    references: tuple[str, ...]
    label: int                 # 1: the text asserts a gold answer
    family: str
    form: str
    source: str
    split: str


# -- forms -------------------------------------------------------------------------------------------
# Each form writes X (asserted) between «» marks, so its position is known after formatting; Y is the side
# item. A null form asserts nothing: both items (or none) appear unmarked.

def _f(*templates: str) -> list[str]:
    return list(templates)


ASSERT_WITH_SIDE: dict[str, list[str]] = {
    "contrast": _f("«X», not Y.", "It's «X» rather than Y.", "Not Y: the answer is «X».",
                   "The answer is «X» (not Y, as is often assumed).", "«X». It isn't Y.",
                   "Definitely «X», and not Y.", "Y is wrong here; it's «X».", "It is «X» as opposed to Y.",
                   "People often mix it up with Y, but it's «X».", "«X» — Y is a common mix-up.",
                   "Y? No. «X».", "That's «X», not Y like some quiz books say."),
    "concession": _f("Although Y is often mentioned, the answer is «X».", "While many assume Y, it's actually «X».",
                     "Even though Y is a popular guess, it's «X».", "Granted, Y comes up a lot, but the right answer is «X».",
                     "Y is a reasonable guess, however the correct answer is «X».",
                     "It may seem like Y, yet the answer is «X».", "Despite what you might think about Y, it's «X».",
                     "Y would make sense at first glance, but it's «X».",
                     "True, Y is closely associated with this, but the answer you want is «X».",
                     "Much as Y gets the attention, the answer is «X»."),
    "correction": _f("Y. Wait, no — it's «X».", "Y... actually, scratch that: «X».",
                     "My first thought was Y, but on reflection it's «X».", "Initially I'd say Y; correction: «X».",
                     "Y — sorry, I meant «X».", "I said Y earlier, but that was a mistake. It's «X».",
                     "Let me correct myself: not Y but «X».", "Y. Hmm, double-checking... no, it's «X».",
                     "Update: the answer is «X», not Y as I first wrote.", "Y? Let me rethink. The answer is «X»."),
    "attribution": _f("Some people say Y, but it's really «X».", "A popular myth says Y; in fact it is «X».",
                      "Y is what many trivia sites claim, though the true answer is «X».",
                      "You'll hear Y a lot, but historians agree it's «X».", "Folk wisdom says Y. The record says «X».",
                      "Y is the answer in a famous misquote; the real one is «X».",
                      "Older textbooks said Y; the accepted answer now is «X».",
                      "My friend insists it's Y, but it's «X».", "According to rumours, Y; according to the facts, «X».",
                      "Many websites get this wrong and say Y. The right answer is «X»."),
    "comparison": _f("«X». Y is a close second.", "It's «X», just ahead of Y.", "«X»; Y is the runner-up.",
                     "The answer is «X». Y comes next on the list.", "«X» tops it, with Y not far behind.",
                     "It's «X», though Y is similar in many ways.", "«X», and Y would be the second choice.",
                     "Y ranks second; first place goes to «X».", "Compared with Y, «X» is the one that fits.",
                     "«X» edges out Y here."),
    "relation": _f("It's «X», a contemporary of Y.", "«X», who is often linked with Y.",
                   "The answer is «X», a close associate of Y.", "«X» — not to be confused with its neighbour Y.",
                   "«X», which is related to Y but distinct from it.", "«X», the successor of Y.",
                   "It was «X», working alongside Y.", "«X», a rival of Y.", "«X»; Y was its predecessor.",
                   "«X», influenced by Y."),
    "distractor": _f("Y is often discussed in this context. The answer to your question, though, is «X».",
                     "The answer is «X». Interestingly, Y also comes up in discussions of this topic.",
                     "Great question! Y has an interesting history too. But here, the answer is «X».",
                     "«X». Fun fact: Y is mentioned in many articles about this as well.",
                     "Background: Y played a part in the story. Answer: «X».",
                     "To answer directly: «X». For context, Y is a related topic worth reading about.",
                     "This is a common quiz question. Y appears in many similar questions. Here the answer is «X».",
                     "Y is a name you will see nearby on any map or timeline, but what you are asking for is «X».",
                     "Short answer: «X». Longer answer: it's a topic with many connections, including Y.",
                     "If you search this, Y shows up first, but the answer is «X»."),
    "pick": _f("Options: Y or «X». The correct one is «X».", "Between Y and «X», it's «X».",
               "Candidates are Y and «X»; I'd go with «X».", "A) Y  B) «X»  — the answer is B, «X».",
               "Is it Y or «X»? It's «X».", "Of Y and «X», the right one is «X».",
               "Y: no. «X»: yes.", "Y ✗  «X» ✓", "Choosing from Y and «X»: «X».", "Not Y. Not anything else. «X»."),
}
ASSERT_ALONE: dict[str, list[str]] = {
    "plain": _f("«X».", "It's «X».", "The answer is «X».", "That would be «X».", "I believe it's «X».",
                "**«X»**", "Answer: «X»", "«X», of course.", "Pretty sure it's «X».", "It was «X».",
                "That's «X».", "The correct answer is «X».", "«X» is the answer.", "I'd say «X».",
                "Easy one: «X».", "The answer you're looking for is «X».", "— «X»", "It is «X», I'm certain.",
                "«X», if I remember correctly.", "My answer: «X»."),
}
NULL_FORMS: dict[str, list[str]] = {
    "refusal": _f("I'm not sure whether it's X or Y.", "I can't say for certain; it might be X or Y.",
                  "I don't know. Some sources say X, others Y.", "Sorry, I don't have enough information to answer that.",
                  "It's either X or Y; I can't decide.", "I'd rather not guess between X and Y.",
                  "I cannot verify whether the answer is X.", "No idea, honestly. Maybe X? Maybe Y?",
                  "I'm unable to answer that reliably; X and Y are both mentioned in different places.",
                  "I couldn't find a definitive answer. X and Y have both been suggested.",
                  "As an AI, I can't confirm if it's X.", "Unclear: X, Y, or something else entirely."),
    "restate": _f("That's a good question.", "Let me think about that question for a moment.",
                  "This is a well-known trivia question.", "It depends on how you look at it.",
                  "Many people have wondered about that.", "There are a few ways to answer this.",
                  "I get asked this often.", "Interesting question — the answer surprises many people."),
}
FAMILIES = {**{k: "side" for k in ASSERT_WITH_SIDE}, **{k: "alone" for k in ASSERT_ALONE},
            **{k: "null" for k in NULL_FORMS}}
# Sentences that name A in a side role, appended to a real LLM answer once A in it is replaced by B (`swapped`).
SIDE_SENTENCES = _f("Some sources mistakenly give Y.", "(It is sometimes confused with Y.)",
                    "Not Y, as is commonly believed.", "Y is a frequent wrong guess.",
                    "Note that Y is a different, related answer.", "Many people would say Y, but that is incorrect.",
                    "Y was the answer in an older version of this question.", "Y is related but not the answer.",
                    "You may have heard Y; that's a misconception.", "Y comes up often, but it's not right here.")


def form_split(form_id: str, salt: str = "asserted") -> str:
    """train / dev / test (about 60 / 15 / 25) by a salted hash of the form's id: a form is used in one split only."""
    h = int(hashlib.sha1(f"{salt}:form:{form_id}".encode()).hexdigest()[:8], 16) / 2**32
    return "train" if h < 0.6 else "dev" if h < 0.75 else "test"


def all_forms() -> dict[str, tuple[str, str]]:
    """form id -> (family, template), every composed form and side sentence."""
    out: dict[str, tuple[str, str]] = {}
    for table in (ASSERT_WITH_SIDE, ASSERT_ALONE, NULL_FORMS):
        for fam, temps in table.items():
            for i, t in enumerate(temps):
                out[f"{fam}-{i:02d}"] = (fam, t)
    for i, t in enumerate(SIDE_SENTENCES):
        out[f"swapped-{i:02d}"] = ("swapped", t)
    return out


_MARK = re.compile(r"«X»")


def fill(template: str, x: str, y: str) -> tuple[str, int | None, int | None]:
    """The template with X and Y written in, and the span of the FIRST «X» (None where it has none)."""
    first = _MARK.search(template)
    if first is None:
        text = re.sub(r"\bX\b", x, template)
        return re.sub(r"\bY\b", y, text), None, None
    head = re.sub(r"\bY\b", y, template[:first.start()])
    tail = re.sub(r"\bY\b", y, _MARK.sub(x, template[first.end():]))
    return head + x + tail, len(head), len(head) + len(x)


# -- sources -------------------------------------------------------------------------------------------

def kind(text: str) -> str:
    """A coarse answer kind, so that a wrong answer B is of A's kind: year, number, name, other."""
    t = text.strip()
    if re.fullmatch(r"(1[0-9]|20)\d\d", t):
        return "year"
    if re.search(r"\d", t):
        return "number"
    if t[:1].isupper():
        return "name"
    return "other"


def overlaps(a: str, refs: Sequence[str]) -> bool:
    """`a` shares a normalised word with a reference (or is empty)."""
    words = set(normalize_answer(a).split())
    return not words or any(words & set(normalize_answer(r).split()) for r in refs)


def whole_find(text: str, item: str) -> int:
    """The first case-insensitive occurrence of `item` in `text` standing as whole words, else -1."""
    m = re.search(r"(?<!\w)" + re.escape(item) + r"(?!\w)", text, flags=re.IGNORECASE)
    return m.start() if m else -1


@dataclass(frozen=True)
class Pair:
    qid: str
    question: str
    gold: str                  # A, as written into texts
    references: tuple[str, ...]
    wrong: str                 # B: a real wrong answer of A's kind
    split: str
    source: str


def evouna_pairs(root: str | None, rng: random.Random) -> tuple[list[Pair], list[Row]]:
    """Gold/wrong pairs from EVOUNA-TQ, and the `evouna` rows (correct answers that hold a gold alias)."""
    from qascore_lab.datasets import evouna

    qs = evouna.load(root)
    short_wrong = [a for q in qs for _, a, lab in q.answers if not lab and 0 < len(a.split()) <= 4]
    by_kind: dict[str, list[str]] = {}
    for a in short_wrong:
        by_kind.setdefault(kind(a), []).append(a.strip().rstrip("."))
    pairs, rows = [], []
    for q in qs:
        split = evouna.split_of(q.question)
        gold = min((r for r in q.references if r.strip()), key=lambda r: (len(r.split()) > 4, q.references.index(r)),
                   default="")
        if not gold:
            continue
        own = [a.strip().rstrip(".") for _, a, lab in q.answers
               if not lab and 0 < len(a.split()) <= 4 and not overlaps(a, q.references)]
        pool = own or [b for b in by_kind.get(kind(gold), []) if not overlaps(b, q.references)]
        if pool:
            pairs.append(Pair(f"evouna-{q.index}", q.question, gold, q.references, rng.choice(pool), split, "evouna"))
        for system, answer, label in q.answers:
            if not label or len(answer.split()) > 120:
                continue
            hits = sorted(((whole_find(answer, r), r) for r in q.references if len(r) > 1), key=lambda h: (h[0], -len(h[1])))
            hits = [h for h in hits if h[0] >= 0]
            if hits:
                s, r = hits[0]
                rows.append(Row(f"evouna-{q.index}-{system}", q.question, answer, s, s + len(r), q.references, 1,
                                "real", "evouna-correct", "evouna", split))
    return pairs, rows


def _bucket(salt: str, key: str) -> float:
    return int(hashlib.sha1(f"{salt}:{key}".encode()).hexdigest()[:8], 16) / 2**32


def squad_split(title: str) -> str:
    h = _bucket("asserted-squad", title)
    return "train" if h < 0.8 else "dev" if h < 0.9 else "test"


_SENT = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9\"'(])")


def sentences(context: str) -> list[tuple[int, int]]:
    """(start, end) of each sentence of a passage (a plain splitter: enough for windows around an answer)."""
    out, pos = [], 0
    for m in _SENT.finditer(context):
        out.append((pos, m.start()))
        pos = m.end()
    out.append((pos, len(context)))
    return [(a, b) for a, b in out if b > a]


def squad_rows_and_pairs(root: str | None, n: int, null_share: float,
                         rng: random.Random) -> tuple[list[Row], list[Pair]]:
    """`squad` rows (a window of sentences around the gold span; some answer-free sentences as null rows) and
    gold/wrong pairs (another question's answer of the same kind in the same passage)."""
    from qascore_lab.datasets import squad

    qs = [q for q in squad.load_v11(root) if q.answers]
    rng.shuffle(qs)
    by_passage: dict[int, list[squad.SquadQuestion]] = {}
    for q in qs:
        by_passage.setdefault(q.passage_index, []).append(q)
    rows, pairs = [], []
    for q in qs[:n]:
        a = q.answers[0]
        split = squad_split(q.title)
        sents = sentences(q.context)
        k = next((i for i, (s, e) in enumerate(sents) if s <= a.start < e), None)
        if k is None or a.start + len(a.text) > sents[k][1]:
            continue
        if rng.random() < null_share:
            others = [i for i, (s, e) in enumerate(sents)
                      if i != k and normalize_answer(a.text) not in normalize_answer(q.context[s:e])]
            if others:
                s, e = sents[rng.choice(others)]
                rows.append(Row(f"squad-{q.id}-null", q.question, q.context[s:e], None, None, (a.text,), 0, "real",
                                "squad-null", "squad", split))
                continue
        lo = max(0, k - rng.randint(0, 1))
        hi = min(len(sents), k + 1 + rng.randint(0, 1))
        s0, e0 = sents[lo][0], sents[hi - 1][1]
        rows.append(Row(f"squad-{q.id}", q.question, q.context[s0:e0], a.start - s0, a.start - s0 + len(a.text),
                        tuple(x.text for x in q.answers), 1, "real", "squad-window", "squad", split))
        rivals = [o.answers[0].text for o in by_passage[q.passage_index]
                  if o.id != q.id and kind(o.answers[0].text) == kind(a.text) and len(o.answers[0].text.split()) <= 5
                  and not overlaps(o.answers[0].text, [x.text for x in q.answers])]
        if rivals and len(a.text.split()) <= 5:
            pairs.append(Pair(f"squad-{q.id}", q.question, a.text, tuple(x.text for x in q.answers),
                              rng.choice(rivals), split, "squad"))
    return rows, pairs


# -- composition ---------------------------------------------------------------------------------------

def compose(pairs: Sequence[Pair], llm: dict[str, list[tuple[str, int]]], rng: random.Random,
            per_pair: int) -> Iterator[Row]:
    """Composed rows: per pair, `per_pair` forms drawn from the pair's split (forms of other splits never meet
    its questions), each direction of a side form (the gold asserted, or the wrong answer asserted beside
    the gold) equally often; plus a `swapped` row where the pair's question has a correct LLM answer."""
    forms = all_forms()
    by_split: dict[str, list[str]] = {}
    for fid in forms:
        by_split.setdefault(form_split(fid), []).append(fid)
    for p in pairs:
        usable = [f for f in by_split.get(p.split, []) if forms[f][0] != "swapped"]
        for j, fid in enumerate(rng.sample(usable, min(per_pair, len(usable)))):
            fam, template = forms[fid]
            gold_asserted = rng.random() < 0.5
            x, y = (p.gold, p.wrong) if gold_asserted else (p.wrong, p.gold)
            if FAMILIES[fam] == "null" and rng.random() < 0.5:
                x, y = y, x
            text, s, e = fill(template, x, y)
            label = int(s is not None and gold_asserted)
            yield Row(f"{p.qid}-c{j}", p.question, text, s, e, p.references, label, fam, fid, p.source, p.split)
        swaps = [f for f in by_split.get(p.split, []) if forms[f][0] == "swapped"]
        for answer, start in llm.get(p.qid, [])[:1]:
            if not swaps:
                break
            fid = rng.choice(swaps)
            gold_here = answer[start:start + len(p.gold)]
            body = answer[:start] + p.wrong + answer[start + len(gold_here):]
            if whole_find(body, p.gold) >= 0:
                continue
            side = fill(forms[fid][1], p.gold, p.gold)[0]
            text = f"{body.rstrip()} {side}" if rng.random() < 0.7 else f"{side} {body.lstrip()}"
            s = whole_find(text, p.wrong)
            if s < 0:
                continue
            yield Row(f"{p.qid}-swap", p.question, text, s, s + len(p.wrong), p.references, 0, "swapped", fid,
                      p.source, p.split)


def llm_holders(rows: Sequence[Row]) -> dict[str, list[tuple[str, int]]]:
    """question id -> (a correct LLM answer, the start of its gold mention), from the `evouna` rows."""
    out: dict[str, list[tuple[str, int]]] = {}
    for r in rows:
        if r.source == "evouna" and r.start is not None and not r.id.endswith("-fid"):
            out.setdefault(r.id.rsplit("-", 1)[0], []).append((r.text, r.start))
    return out


def build(root: str | None, seed: int, squad_questions: int, squad_null: float, per_pair: int) -> dict[str, list[Row]]:
    rng = random.Random(seed)
    ev_pairs, ev_rows = evouna_pairs(root, rng)
    sq_rows, sq_pairs = squad_rows_and_pairs(root, squad_questions, squad_null, rng)
    holders = llm_holders(ev_rows)
    for rows in holders.values():
        rng.shuffle(rows)
    composed = list(compose(ev_pairs + sq_pairs, holders, rng, per_pair))
    out: dict[str, list[Row]] = {"train": [], "dev": [], "test": []}
    for r in ev_rows + sq_rows + composed:
        out[r.split].append(r)
    for rows in out.values():
        rng.shuffle(rows)
    return out


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--out", required=True, help="folder for train/dev/test.jsonl and report.json")
    p.add_argument("--data-root", default=None, help="../shared/data by default")
    p.add_argument("--seed", type=int, default=13)
    p.add_argument("--squad-questions", type=int, default=12000, help="SQuAD 1.1 questions read (default 12000)")
    p.add_argument("--squad-null", type=float, default=0.1, help="share of them written as answer-free sentences")
    p.add_argument("--per-pair", type=int, default=3, help="composed forms per gold/wrong pair (default 3)")


def run(args: argparse.Namespace) -> int:
    splits = build(args.data_root, args.seed, args.squad_questions, args.squad_null, args.per_pair)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    report: dict[str, object] = {"seed": args.seed, "args": {k: v for k, v in vars(args).items() if not k.startswith("_")},
                                 "forms": {s: sorted(f for f in all_forms() if form_split(f) == s)
                                           for s in ("train", "dev", "test")}}
    for split, rows in splits.items():
        with open(out / f"{split}.jsonl", "w", encoding="utf-8") as fh:
            for r in rows:
                fh.write(json.dumps(asdict(r), ensure_ascii=False) + "\n")
        report[split] = {"rows": len(rows), "by_source": dict(Counter(r.source for r in rows)),
                         "by_family": dict(Counter(r.family for r in rows)),
                         "null": sum(r.start is None for r in rows), "label_1": sum(r.label for r in rows)}
    (out / "report.json").write_text(json.dumps(report, indent=1) + "\n", encoding="utf-8")
    print(json.dumps({s: report[s] for s in splits}, indent=1))
    return 0
