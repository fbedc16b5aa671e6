"""`qascore-lab train probes`: the behavioural probe suite for answer judges (CheckList-style).

Each probe is a (question, references, candidate, label) row written from public data, tagged with its
`family`; most families come as minimal pairs (a `pair` id; the `right` member asserts a gold answer A,
the `wrong` member a wrong answer B in the same words). Families:

- `assertion`: "It is A, not B"; "Many people think it is B, but it is actually A" (pairs)
- `negation`: "B is not the answer; the answer is A"; "It isn't B. It's A." (pairs)
- `hedge`: "It might be A or possibly B" (incorrect: it does not commit; EVOUNA's and PEDANTS' guidelines),
  paired with the committed "It is A."
- `number`: a number or date near the gold one (pairs; `number_swaps.perturb`)
- `swap`: B put in place of A in a copy of a correct answer sentence (an EVOUNA-TQ answer people judged
  correct, or the SQuAD sentence that holds the span) (pairs)
- `refusal`: "I don't know; maybe B" (incorrect), paired with "It is A."
- `distractors`: "Not B or C: it is A" (correct; pairs with A and B swapped)
- `alias`: a correct alias that is not among the references (EVOUNA-TQ alias lists split in two, and
  answer-equivalence candidates people judged equivalent to the reference) (correct, single)
- `restate`: the question restated without an answer (incorrect, single)

Wrong answers B are real wrong answers wherever the data has them: EVOUNA-TQ answers people judged
incorrect (FiD's short spans, or a short LLM answer), answer-equivalence candidates judged not equivalent;
else the gold answer of another question on the same SQuAD passage, or of another EVOUNA-TQ question, of the
same coarse type (holds a digit or not). Splits follow the verification corpus (`train verifier-data`):
a question in its train / dev / test split stays there; EVOUNA-TQ questions by `evouna.split_of`,
answer-equivalence questions by the corpus's hash, SQuAD 1.1 questions the corpus did not use by a salted
hash (80 / 10 / 10). Questions of the evaluation sets the corpus holds out are dropped.

`family_table` is the suite's report per family (`bench probes` and `train judge --probes` print it).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import random
import re
from collections import Counter, defaultdict
from pathlib import Path
from functools import lru_cache
from typing import Any, Callable, Iterable, Iterator, Sequence

import numpy as np

from qascore_lab.train.verifier_corpus import normalize

# a question whose answer is a person: a wrong answer drawn for it is another person's name
_WANTS_PERSON = re.compile(r"^\s*(who|whom|whose)\b|\b(which|what) (person|man|woman|actor|actress|singer|writer|"
                           r"author|artist|player|president|king|queen|composer|painter|poet|director)\b")


def wants_person(question: str) -> bool:
    """True for questions whose answer is a person (who, which actor, ...)."""
    return bool(_WANTS_PERSON.search(question.lower()))


FAMILIES = ("assertion", "negation", "hedge", "number", "swap", "refusal", "distractors", "alias", "restate")
WRONG_FAMILIES = ("assertion", "negation", "hedge", "number", "swap", "refusal", "restate")  # wrong member is incorrect
CORRECT_FAMILIES = ("distractors", "alias")
SPLITS = ("train", "dev", "test")

# (right, wrong) phrasings: {A} the gold answer, {B} a wrong one, {C} a second wrong one where the data has it.
ASSERTION = ("It is {A}, not {B}.", "Many people think it is {B}, but it is actually {A}.",
             "The answer is {A}. Many people assume it is {B}, but that is a misconception.",
             "{A}. Some sources wrongly give {B}.", "Although {B} is often suggested, the answer is {A}.")
NEGATION = ("{B} is not the answer; the answer is {A}.", "It isn't {B}. It's {A}.", "Not {B}, but {A}.",
            "The answer is not {B} but {A}.", "It was never {B}; it is {A}.")
HEDGE = ("It might be {A} or possibly {B}.", "{A}, {B} or {C}.", "I'm not entirely sure, but I think it might be "
         "{A} or possibly {B}.", "Either {A} or {B}, I can't say which.", "Possibly {A}, though it could also be {B}.")
COMMITTED = ("It is {A}.", "The answer is {A}.", "{A}.")
REFUSAL = ("I don't know; maybe {B}.", "I'm not sure. Perhaps {B}?", "I cannot answer that with certainty, but a "
           "guess would be {B}.", "I don't have enough information to say. Possibly {B}.")
DISTRACTORS = ("Not {B} or {C}: it is {A}.", "It is neither {B} nor {C}; the answer is {A}.",
               "While some say {B}, the correct answer is {A}.", "People often confuse it with {B}, but it is {A}.")
NUMBER = ("The answer is {A}.", "It was {A}.", "I believe it is {A}.", "{A}.")
ALIAS = ("It is {A}.", "The answer is {A}.", "{A}.", "That would be {A}.")
RESTATE = ("You are asking: {Q}", "That is a good question: {Q}", "The question is {Q}",
           "To answer '{Q}', one has to look at the facts carefully.", "Let me think about {Q}")

_DIGIT = re.compile(r"\d")
PLAIN = re.compile(r"[A-Z0-9][A-Za-z0-9 .,'&-]{1,38}")
_NUMBER = re.compile(r"(?<![\d.,])\d+(?:,\d{3})*(?:\.\d+)?(?!\d)")


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--data", default=None, help="data root (default: $QASCORE_DATA or ../shared/data)")
    p.add_argument("--corpus", default="runs/verifier-data",
                   help="the verification corpus folder whose question splits the probes follow")
    p.add_argument("--out", default="runs/probes", help="folder for train.jsonl, dev.jsonl, test.jsonl, report.json")
    p.add_argument("--seed", type=int, default=13)
    p.add_argument("--squad-questions", type=int, default=3000, metavar="N",
                   help="SQuAD 1.1 questions the corpus did not use, sampled (seeded)")


@lru_cache(maxsize=None)
def norm(text: str) -> str:
    return normalize(text)


def overlaps(a: str, b: str) -> bool:
    """a and b share a normalised token, or one holds the other: not a clean wrong answer for each other."""
    na, nb = norm(a), norm(b)
    return not na or not nb or na in nb or nb in na or bool(set(na.split()) & set(nb.split()))


def coarse(text: str) -> bool:
    return bool(_DIGIT.search(text))


def salted(key: str, seed: int, salt: str) -> float:
    return int(hashlib.sha1(f"{seed}:{salt}:{key}".encode()).hexdigest()[:8], 16) / 0xFFFFFFFF


def squad_split(key: str, seed: int) -> str:
    """The probe split of a SQuAD question outside corpus v3: 10% test, 10% dev, the rest train, by hash."""
    h = salted(key, seed, "probes-squad")
    return "test" if h < 0.1 else "dev" if h < 0.2 else "train"


class Builder:
    """Writes the probe rows of one question into its split."""

    def __init__(self, seed: int) -> None:
        self.seed = seed
        self.rows: dict[str, list[dict[str, Any]]] = {s: [] for s in SPLITS}
        self.pairs = 0

    def rng(self, qid: str, family: str) -> random.Random:
        return random.Random(f"{self.seed}:{qid}:{family}")

    def add(self, split: str, qid: str, question: str, refs: Sequence[str], family: str, candidate: str,
            label: int, member: str, pair: str | None, origin: str, wrong_from: str = "") -> None:
        self.rows[split].append({"qid": qid, "source": "probes", "kind": f"probe-{family}", "family": family,
                                 "member": member, "pair": pair, "question": question, "references": list(refs),
                                 "negatives": [], "candidate": candidate, "label": label, "origin": origin,
                                 "wrong_from": wrong_from})

    def pair(self, split: str, qid: str, question: str, refs: Sequence[str], family: str, right: str, wrong: str,
             origin: str, wrong_from: str, right_label: int = 1) -> None:
        self.pairs += 1
        pid = f"{family}:{qid}:{self.pairs}"
        self.add(split, qid, question, refs, family, right, right_label, "right", pid, origin, wrong_from)
        self.add(split, qid, question, refs, family, wrong, 0, "wrong", pid, origin, wrong_from)

    def question(self, split: str, qid: str, question: str, refs: Sequence[str], gold: str, wrongs: Sequence[str],
                 origin: str, wrong_from: str, sentence: str | None = None, extra_alias: str | None = None) -> None:
        """Every family this question's data allows."""
        b = wrongs[0] if wrongs else None
        c = wrongs[1] if len(wrongs) > 1 else None
        fill = {"A": gold, "B": b or "", "C": c or ""}

        def form(template: str, **swap: str) -> str:
            return template.format(**{**fill, **swap})

        if b:
            for family, templates in (("assertion", ASSERTION), ("negation", NEGATION)):
                t = self.rng(qid, family).choice(templates)
                self.pair(split, qid, question, refs, family, form(t), form(t, A=b, B=gold), origin, wrong_from)
            r = self.rng(qid, "hedge")
            t = r.choice([h for h in HEDGE if "{C}" not in h or c])
            order = [gold, b] if r.random() < 0.5 else [b, gold]
            self.pair(split, qid, question, refs, "hedge", form(r.choice(COMMITTED)),
                      form(t, A=order[0], B=order[1]), origin, wrong_from)
            r = self.rng(qid, "refusal")
            self.pair(split, qid, question, refs, "refusal", form(r.choice(COMMITTED)), form(r.choice(REFUSAL)),
                      origin, wrong_from)
            t = self.rng(qid, "distractors").choice([d for d in DISTRACTORS if "{C}" not in d or c])
            self.pair(split, qid, question, refs, "distractors", form(t), form(t, A=b, B=gold), origin, wrong_from)
            if sentence:
                swapped = re.sub(re.escape(gold), b, sentence, flags=re.IGNORECASE)
                if swapped != sentence:
                    self.pair(split, qid, question, refs, "swap", sentence, swapped, origin, wrong_from)
        numbers = _NUMBER.findall(gold)
        if numbers:
            from qascore_lab.train.number_swaps import perturb

            r = self.rng(qid, "number")
            n = r.choice(numbers)
            near = gold.replace(n, perturb(n, r), 1)
            if norm(near) not in {norm(x) for x in refs}:
                t = r.choice(NUMBER)
                self.pair(split, qid, question, refs, "number", t.format(A=gold), t.format(A=near), origin, "perturbed")
        if extra_alias:
            t = self.rng(qid, "alias").choice(ALIAS)
            self.add(split, qid, question, refs, "alias", t.format(A=extra_alias), 1, "right", None, origin)
        if not any(norm(x) and norm(x) in norm(question) for x in refs):
            q = question.strip()
            t = self.rng(qid, "restate").choice(RESTATE)
            self.add(split, qid, question, refs, "restate", t.format(Q=q if q.endswith("?") else q + "?"), 0,
                     "wrong", None, origin)


def corpus_splits(folder: Path) -> dict[str, str]:
    """question key -> the corpus split that holds it."""
    from qascore_lab.train.ava_data import question_key
    from qascore_lab.train.verifier_corpus import read_split

    out: dict[str, str] = {}
    for split in SPLITS:
        path = folder / f"{split}.jsonl"
        if path.is_file():
            for r in read_split(folder, split):
                out.setdefault(question_key(r["question"]), split)
    return out


def short(text: str, words: int = 6) -> bool:
    return 0 < len(text.split()) <= words and "\n" not in text


def evouna_probes(b: Builder, data: Path, seen: dict[str, str], skip: set[str]) -> None:
    from qascore_lab.datasets import evouna
    from qascore_lab.train.ava_data import question_key

    qs = evouna.load(data)
    # the fallback wrong answers: other questions' first aliases of the same split and coarse type (holds a
    # digit; the question asks for a person), in plain form (TriviaQA's lists also hold "X (disambiguation)")
    by_type: dict[tuple[str, bool, float], list[str]] = defaultdict(list)
    for q in qs:
        g = q.references[0]
        if PLAIN.fullmatch(g):
            by_type[(evouna.split_of(q.question, b.seed), coarse(g), wants_person(q.question))].append(g)
    for q in qs:
        key = question_key(q.question)
        if key in skip:
            continue
        split = seen.get(key, evouna.split_of(q.question, b.seed))
        qid = f"evouna:{q.index}"
        gold = q.references[0]
        wrongs, wrong_from = [], "system"
        for system, text, label in sorted(q.answers, key=lambda a: a[0] != "fid"):
            t = text.strip().rstrip(".")
            if label == 0 and short(t) and not any(overlaps(t, ref) for ref in q.references) and t not in wrongs:
                wrongs.append(t)
        if not wrongs:
            pool = by_type[(split, coarse(gold), wants_person(q.question))]
            draw = b.rng(qid, "other").sample(pool, min(40, len(pool)))
            pick = next((g for g in draw if not any(overlaps(g, ref) for ref in q.references)), None)
            if pick:
                wrongs, wrong_from = [pick], "other-question"
        sentence = None
        for system, text, label in q.answers:
            if system != "fid" and label == 1 and len(text.split()) <= 60 and gold.casefold() in text.casefold():
                sentence = text.strip()
                break
        refs: list[str] = list(q.references)
        alias = None
        if len(refs) >= 2:  # the alias family: half the list as references, an alias of the other half asserted
            r = b.rng(qid, "alias-split")
            shuffled = refs[:]
            r.shuffle(shuffled)
            kept, held = shuffled[: len(shuffled) // 2 or 1], shuffled[len(shuffled) // 2 or 1:]
            held = [h for h in held if not any(norm(k) and (norm(k) in norm(h) or norm(h) in norm(k)) for k in kept)]
            if held:
                alias = r.choice(held)
                b.add(split, qid, q.question, kept, "alias", r.choice(ALIAS).format(A=alias), 1, "right", None,
                      "evouna-tq")
        b.question(split, qid, q.question, refs, gold, wrongs, "evouna-tq", wrong_from, sentence=sentence)


def ae_probes(b: Builder, data: Path, seen: dict[str, str], skip: set[str]) -> None:
    from qascore_lab.datasets import answer_equivalence
    from qascore_lab.train.ava_data import question_key
    from qascore_lab.train.verifier_corpus import in_dev

    groups: dict[tuple[str, str], list[Any]] = defaultdict(list)
    for p in answer_equivalence.load(data):
        groups[(p.question, p.reference)].append(p)
    for (question, ref), ps in groups.items():
        key = question_key(question)
        if key in skip or not short(ref, 8):
            continue
        split = seen.get(key, "dev" if in_dev(key, b.seed) else "train")
        if split == "test":
            continue
        qid = f"ae:{key}"
        wrongs = [p.candidate.strip().rstrip(".") for p in ps if p.label == 0 and short(p.candidate)
                  and not overlaps(p.candidate, ref)]
        alias = next((p.candidate.strip().rstrip(".") for p in ps if p.label == 1 and short(p.candidate)
                      and not overlaps(p.candidate, ref)), None)
        if alias:
            t = b.rng(qid, "alias").choice(ALIAS)
            b.add(split, qid, question, [ref], "alias", t.format(A=alias), 1, "right", None, "answer-equivalence")
        b.question(split, qid, question, [ref], ref.strip().rstrip("."), wrongs[:2], "answer-equivalence", "system")


def squad_probes(b: Builder, data: Path, seen: dict[str, str], skip: set[str], limit: int) -> None:
    from qascore_lab.datasets import squad
    from qascore_lab.train.ava_data import question_key

    qs = squad.load_v11(data)
    by_passage: dict[int, list[Any]] = defaultdict(list)
    for q in qs:
        by_passage[q.passage_index].append(q)
    unused = [q for q in qs if question_key(q.question) not in seen]
    chosen = {q.id for q in random.Random(f"{b.seed}:probes-squad").sample(unused, min(limit, len(unused)))}
    for q in qs:
        key = question_key(q.question)
        if key in skip or not q.answers:
            continue
        if key in seen:
            split = seen[key]
        elif q.id in chosen:
            split = squad_split(key, b.seed)
        else:
            continue
        gold = q.answers[0].text
        if not short(gold, 8):
            continue
        refs = list(dict.fromkeys(a.text for a in q.answers))
        others = [o.answers[0].text for o in by_passage[q.passage_index] if o.id != q.id and o.answers]
        wrongs = [o for o in dict.fromkeys(others) if short(o) and coarse(o) == coarse(gold)
                  and not any(overlaps(o, r) for r in refs)]
        b.rng(q.id, "wrongs").shuffle(wrongs)
        start = q.answers[0].start
        sentences = [m for m in re.finditer(r"[^.!?]+[.!?]", q.context) if m.start() <= start < m.end()]
        sentence = sentences[0].group().strip() if sentences else None
        if sentence and len(sentence.split()) > 60:
            sentence = None
        b.question(split, f"squad11:{q.id}", q.question, refs, gold, wrongs[:2], "squad-1.1", "other-question",
                   sentence=sentence)


def build(data: Path, corpus: Path, seed: int, squad_questions: int) -> tuple[dict[str, list[dict]], dict]:
    from qascore_lab.train.verifier_corpus import held_out

    skip, _, _ = held_out(data)
    seen = corpus_splits(corpus)
    b = Builder(seed)
    evouna_probes(b, data, seen, skip)
    ae_probes(b, data, seen, skip)
    squad_probes(b, data, seen, skip, squad_questions)
    report: dict[str, Any] = {"seed": seed, "corpus": str(corpus), "squad_questions": squad_questions}
    for split, rows in b.rows.items():
        for i, r in enumerate(rows):
            r["id"] = f"probe-{split}-{i}"
        report[split] = {"rows": len(rows), "questions": len({r["qid"] for r in rows}),
                         "families": dict(sorted(Counter(r["family"] for r in rows).items())),
                         "origins": dict(sorted(Counter(r["origin"] for r in rows).items())),
                         "wrong_from": dict(sorted(Counter(r["wrong_from"] for r in rows if r["wrong_from"]).items()))}
    qsets = {s: {r["qid"] for r in rows} for s, rows in b.rows.items()}
    assert not (qsets["train"] & qsets["dev"]) and not (qsets["train"] & qsets["test"]) \
        and not (qsets["dev"] & qsets["test"]), "a question in two probe splits"
    return b.rows, report


def read(folder: str | Path, split: str) -> list[dict[str, Any]]:
    path = Path(folder) / f"{split}.jsonl"
    if not path.is_file():
        raise SystemExit(f"{path} not found: build the probes with `qascore-lab train probes --out {folder}`")
    with path.open(encoding="utf-8") as fh:
        return [json.loads(line) for line in fh if line.strip()]


def pairs(rows: Sequence[dict[str, Any]]) -> Iterator[tuple[int, int]]:
    """(right index, wrong index) of every complete pair."""
    members: dict[str, dict[str, int]] = defaultdict(dict)
    for i, r in enumerate(rows):
        if r.get("pair"):
            members[r["pair"]][r["member"]] = i
    for m in members.values():
        if "right" in m and "wrong" in m:
            yield m["right"], m["wrong"]


def by_questions(rows: Sequence[dict[str, Any]], n: int, seed: int) -> list[dict[str, Any]]:
    """The rows of a seeded sample of n questions, in file order."""
    qids = sorted({r["qid"] for r in rows})
    keep = set(random.Random(seed).sample(qids, min(n, len(qids))))
    return [r for r in rows if r["qid"] in keep]


def by_pairs(rows: Sequence[dict[str, Any]], n: int, seed: int) -> list[dict[str, Any]]:
    """The rows of a seeded sample of n pairs (all rows where there are fewer), in file order."""
    names = sorted({r["pair"] for r in rows if r.get("pair")})
    keep = set(random.Random(seed).sample(names, min(n, len(names))))
    return [r for r in rows if r.get("pair") in keep]


def ordered(families: Iterable[str]) -> list[str]:
    """Family names for a table: the suite's in its order, then others (probe-styles, probe-dates) by name."""
    present = set(families)
    return [f for f in FAMILIES if f in present] + sorted(present - set(FAMILIES))


def audited(rows: Sequence[dict[str, Any]], verdicts: dict[str, bool]) -> list[dict[str, Any]]:
    """Copies of the `alias` rows that a person read (`verdicts`: probe id -> would a person grading the answer
    accept it; lab/results/probes_alias_audit.json), in family `alias-people-accept` (a right member) or
    `alias-people-refuse` (a wrong one): TriviaQA's alias lists hold redirects no grader accepts ("ISO
    3166-1:BN", "Lady Choc Ice"), so the family's own `right_accepted` is not the rate at which a judge
    accepts correct aliases."""
    out = []
    for r in rows:
        if r["family"] == "alias" and r["id"] in verdicts:
            ok = bool(verdicts[r["id"]])
            out.append({**r, "family": "alias-people-accept" if ok else "alias-people-refuse",
                        "member": "right" if ok else "wrong", "label": int(ok)})
    return out


def family_table(rows: Sequence[dict[str, Any]], scores: Sequence[float], accepted: Sequence[bool]
                 ) -> dict[str, dict[str, float | int]]:
    """family -> {n, pairs, right_higher, wrong_accepted, right_accepted} (rates; None where a family has no
    such member)."""
    s = np.asarray(scores, dtype=float)
    acc = np.asarray(accepted, dtype=bool)
    out: dict[str, dict[str, Any]] = {}
    pair_list = list(pairs(rows))
    for fam in ordered(r["family"] for r in rows):
        idx = [i for i, r in enumerate(rows) if r["family"] == fam]
        if not idx:
            continue
        right = [i for i in idx if rows[i]["member"] == "right"]
        wrong = [i for i in idx if rows[i]["member"] == "wrong"]
        fam_pairs = [(a, b) for a, b in pair_list if rows[a]["family"] == fam]
        higher = [1.0 if s[a] > s[b] else 0.5 if s[a] == s[b] else 0.0 for a, b in fam_pairs]
        out[fam] = {"n": len(idx), "pairs": len(fam_pairs),
                    "right_higher": float(np.mean(higher)) if higher else None,
                    "wrong_accepted": float(acc[wrong].mean()) if wrong else None,
                    "right_accepted": float(acc[right].mean()) if right else None}
    return out


def _template(template: str) -> re.Pattern[str]:
    body = re.escape(template).replace(r"\{A\}", "(?P<A>.+?)").replace(r"\{B\}", "(?P<B>.+?)")
    return re.compile(f"^{body}$", re.DOTALL)


_ASSERTION_PATTERNS = tuple(_template(t) for t in ASSERTION)


def assertion_parts(candidate: str) -> tuple[str, str] | None:
    """(A, B) of an `assertion` right member, read back through the suite's templates; None for other text."""
    for pattern in _ASSERTION_PATTERNS:
        m = pattern.match(candidate)
        if m:
            return m["A"], m["B"]
    return None


def _assertion_rights(rows: Iterable[dict[str, Any]]) -> Iterator[tuple[dict[str, Any], str, str]]:
    """(row, A, B) of every `assertion` right member among `rows`, read back through the suite's templates."""
    for r in rows:
        found = assertion_parts(r["candidate"]) if r["family"] == "assertion" and r["member"] == "right" else None
        if found is not None:
            yield r, found[0], found[1]


def gold_and_wrong(rows: Sequence[dict[str, Any]]) -> Iterator[tuple[dict[str, Any], str, str]]:
    """(row, A, B) per question, read back from the right member of its `assertion` pair."""
    seen: set[str] = set()
    for r, a, b in _assertion_rights(rows):
        if r["qid"] not in seen:
            seen.add(r["qid"])
            yield r, a, b


def assertion_pairs(folder: Path) -> Iterator[tuple[str, dict[str, Any], str, str]]:
    """(split, right member, A, B) of every `assertion` pair of a suite folder, in its splits. A question of
    the answer-equivalence data has several."""
    for split in SPLITS:
        for r, a, b in _assertion_rights(read(folder, split)):
            yield split, r, a, b


Build = Callable[[Path, int], dict[str, list[dict[str, Any]]]]


def composed_command(out: str, build: Build, prefix: str) -> tuple[Callable[[argparse.ArgumentParser], None],
                                                                    Callable[[argparse.Namespace], int]]:
    """`add_arguments` and `run` of a lab command that composes pairs from the suite's questions (`probe-lists`,
    `probe-plain`, `probe-names`, `probe-generic`, `probe-described`, `probe-descriptions`, `probe-relations`,
    `probe-comparisons`, `probe-roles`):
    `build(suite folder, seed)` gives the rows of each split, written to `out` (the default folder) with ids
    `<prefix>-<split>-<i>` and a line per split."""

    def add_arguments(p: argparse.ArgumentParser) -> None:
        p.add_argument("--probes", default="runs/probes", help="the probe suite (`train probes`): its questions and splits")
        p.add_argument("--out", default=out, help="folder for train/dev/test.jsonl")
        p.add_argument("--seed", type=int, default=13)

    def run(args: argparse.Namespace) -> int:
        rows = build(Path(args.probes), args.seed)
        for split in SPLITS:
            write_split(Path(args.out), split, rows[split], prefix)
            print(f"{split}: {len(rows[split])} rows ({len(rows[split]) // 2} pairs)")
        return 0

    return add_arguments, run


def write_split(out: Path, split: str, rows: list[dict[str, Any]], prefix: str) -> None:
    """One split of a composed-probe folder (`train probe-styles`, `probe-dates`, `composed_command`'s) as
    JSONL, each row given the id `<prefix>-<split>-<i>`."""
    out.mkdir(parents=True, exist_ok=True)
    for i, row in enumerate(rows):
        row["id"] = f"{prefix}-{split}-{i}"
    with open(out / f"{split}.jsonl", "w", encoding="utf-8") as fh:
        fh.writelines(json.dumps(row, ensure_ascii=False) + "\n" for row in rows)


def run(args: argparse.Namespace) -> int:
    from qascore_lab.datasets import data_root

    rows, report = build(data_root(args.data), Path(args.corpus), args.seed, args.squad_questions)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    for split, part in rows.items():
        with (out / f"{split}.jsonl").open("w", encoding="utf-8") as fh:
            for r in part:
                fh.write(json.dumps(r, ensure_ascii=False) + "\n")
    (out / "report.json").write_text(json.dumps(report, indent=1) + "\n", encoding="utf-8")
    print(json.dumps(report, indent=1))
    return 0
