"""An extractive QA reader: start/end logits over a passage plus a no-answer score, read in windows.

The model is the packaged encoder (`defaults.ENCODER`) with LoRA adapters on every linear layer, its
LayerNorms and a two-logit head (start, end) trained here (`qascore-lab train reader`); it ships as a delta
(`runtime.delta`) on the pinned base. No answer is SQuAD 2.0's convention: the span that starts and ends
on [CLS].

Windows follow Hugging Face's QA preprocessing: `[CLS] question [SEP] passage-piece [SEP]`, at most
`max_len` WordPieces, consecutive pieces overlapping by `stride` WordPieces, with character offsets from the
fast tokenizer mapping each passage WordPiece back to the passage text. A question longer than
`max_question_len` WordPieces is cut to that many (fewer when a window would leave the passage no more
than `stride` WordPieces).

Decoding: in each window, every span of passage WordPieces (i <= j, at most `max_answer_len` long) scores
start[i] + end[j], and the null span start[0] + end[0]; one softmax over all of them gives each span's
probability and the window's no-answer probability. A question's reading keeps each window's `top_k`
spans; the passage answers the question as much as its most confident window says it does.
"""

from __future__ import annotations

import json
import math
from bisect import bisect_right
import re
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Callable, Mapping, Sequence

import numpy as np
import torch
from torch import nn

from qascore.records import Record
from qascore.runtime import defaults
from qascore.runtime.delta import apply_delta, base_hash, read_meta, save_delta
from qascore.runtime.devices import on_threads
from qascore.runtime.lora import add_lora, merge_lora
from qascore.runtime.windows import long_words, original_span, split_long_words
from qascore.text.squad import normalize_answer, squad_f1


DELTA = defaults.RESOURCES / "reader" / "reader.safetensors"
MAX_WINDOWS = 16   # windows read per passage at most (the metric reports more as truncated)
TOP_K = 20         # spans kept per window
JUDGED_K = 5       # top spans per window a verifier or the judge judges, for the rules that read their judgments


@dataclass
class ReaderSpec:
    """Everything that defines the reader model (stored in the delta's metadata)."""

    encoder: str = defaults.ENCODER
    max_len: int = 384
    stride: int = 128             # WordPieces shared by consecutive windows (Hugging Face's `stride`)
    max_question_len: int = 64
    max_answer_len: int = 30      # WordPieces
    lora_rank: int = 64           # 0: every weight trains (a delta too large to ship)
    lora_alpha: float = 128.0

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> "ReaderSpec":
        return cls(**{k: v for k, v in d.items() if k in cls.__dataclass_fields__})


# -- windows -------------------------------------------------------------------

@dataclass
class Windows:
    """Tokenised windows of (question, passage) pairs; one entry per window unless noted."""

    input_ids: list[list[int]] = field(default_factory=list)
    token_type_ids: list[list[int]] = field(default_factory=list)
    offsets: list[list[tuple[int, int]]] = field(default_factory=list)  # passage char span; (-1, -1) off passage
    example: list[int] = field(default_factory=list)      # which pair the window reads
    truncated: list[bool] = field(default_factory=list)   # per pair: some of the passage was left unread

    def __len__(self) -> int:
        return len(self.input_ids)

    def context_range(self, w: int) -> tuple[int, int]:
        """(first, last) token index of the passage in window `w`; (0, -1) when it holds none."""
        idx = [t for t, o in enumerate(self.offsets[w]) if o[0] >= 0]
        return (idx[0], idx[-1]) if idx else (0, -1)


_WORD = re.compile(r"\S+")


def _cut_words(text: str, n: int) -> tuple[str, bool]:
    """The first `n` white-space separated words of `text` (as they stand in it), and whether any were cut."""
    for k, m in enumerate(_WORD.finditer(text)):
        if k == n:
            return text[:m.start()], True
    return text, False


def make_windows(tokenizer: Any, questions: Sequence[str], contexts: Sequence[str], spec: ReaderSpec,
                 max_windows: int | None = MAX_WINDOWS, chunk: int = 2048) -> Windows:
    """Windows of every (question, passage) pair, tokenised in batches by the fast tokenizer.

    `max_windows` (None: no limit) bounds the windows of one pair; a passage longer than they hold is
    flagged in `truncated`, as is one cut before tokenising (a word is at least one WordPiece, so words
    past `max_windows` windows can never be read).
    """
    if len(questions) != len(contexts):
        raise ValueError("questions and contexts differ in length")
    out = Windows()
    step = spec.max_len - spec.stride
    for start in range(0, len(questions), chunk):
        # A word over the tokenizer's 100 characters is read in pieces it knows, not as one [UNK] (issue 64);
        # `added` maps the passage's offsets back to the text as given, so a span is still its own text.
        qs = [split_long_words(tokenizer, q.strip())[0] for q in questions[start:start + chunk]]
        cs: list[str] = []
        cut: list[bool] = []
        added: list[list[int]] = []
        words: list[list[tuple[int, int]]] = []
        for c in contexts[start:start + chunk]:
            if max_windows is not None:
                c, was_cut = _cut_words(c, spec.max_len + step * max_windows)
            else:
                was_cut = False
            pieces, spaces = split_long_words(tokenizer, c)
            cs.append(pieces)
            cut.append(was_cut)
            added.append(spaces)
            words.append([m.span() for b, e in long_words(tokenizer, c) for m in _RUN.finditer(c, b, e)]
                         if spaces else [])
        read = _cut_questions(tokenizer, qs, question_cap(spec))
        cut = [c or q != r for c, q, r in zip(cut, qs, read)]  # a question cut is text left unread too
        enc = tokenizer(read, cs, truncation="only_second", max_length=spec.max_len, stride=spec.stride,
                        return_overflowing_tokens=True, return_offsets_mapping=True, padding=False)
        seen: dict[int, int] = {}
        for w, ex in enumerate(enc["overflow_to_sample_mapping"]):
            k = seen.get(ex, 0)
            seen[ex] = k + 1
            if max_windows is not None and k >= max_windows:
                cut[ex] = True
                continue
            seq = enc.sequence_ids(w)
            offs = [(int(o[0]), int(o[1])) if s == 1 else (-1, -1) for o, s in zip(enc["offset_mapping"][w], seq)]
            if added[ex]:  # a piece of a long word stands for the whole word in a span
                offs = [o if o[0] < 0 else _whole_word(original_span(*o, added[ex]), words[ex]) for o in offs]
            out.input_ids.append(list(enc["input_ids"][w]))
            types = enc["token_type_ids"][w] if "token_type_ids" in enc else [int(s == 1) for s in seq]
            out.token_type_ids.append(list(types))
            out.offsets.append(offs)
            out.example.append(start + int(ex))
        out.truncated.extend(cut)
    return out


_RUN = re.compile(r"\w+")


def _whole_word(span: tuple[int, int], words: list[tuple[int, int]]) -> tuple[int, int]:
    """`span`, or the run of letters and digits in a long word (of `words`, ascending spans) that holds it:
    the reader's spans are at most `max_answer_len` pieces, and a 120-letter DNA string is 60 of them."""
    k = bisect_right(words, (span[0], math.inf)) - 1
    return words[k] if k >= 0 and words[k][0] <= span[0] and span[1] <= words[k][1] else span


def question_cap(spec: ReaderSpec) -> int:
    """WordPieces a question may keep: `max_question_len`, and fewer if the passage would get no more than
    `stride` WordPieces of a window ([CLS], [SEP], [SEP] take three)."""
    return max(1, min(spec.max_question_len, spec.max_len - spec.stride - 4))


def _cut_questions(tokenizer: Any, questions: list[str], max_tokens: int) -> list[str]:
    """Questions cut after their `max_tokens`-th WordPiece (most are far shorter and stay as they are).

    Only questions of more than `max_tokens` characters can have more WordPieces (each covers at least
    one character), so only they are tokenised here, and only their first `max_tokens` + 1 words (a word is
    at least one WordPiece): a 3,500-word question costs what a short one does."""
    long = [i for i, q in enumerate(questions) if len(q) > max_tokens]
    if not long:
        return questions
    heads = [_first_words(questions[i], max_tokens + 1) for i in long]
    enc = tokenizer(heads, add_special_tokens=False, return_offsets_mapping=True)
    out = list(questions)
    for i, head, offs in zip(long, heads, enc["offset_mapping"]):
        if len(offs) > max_tokens:
            out[i] = questions[i][:offs[max_tokens - 1][1]]
        elif len(head) < len(questions[i].rstrip()):  # words that tokenise to nothing: what follows is unread
            out[i] = head
    return out


def _first_words(text: str, n: int) -> str:
    """`text` up to the end of its `n`-th whitespace-separated word (all of it when it has fewer)."""
    end = 0
    for k, m in enumerate(re.finditer(r"\S+", text)):
        if k == n:
            break
        end = m.end()
    return text[:end]


def span_labels(windows: Windows, answers: Sequence[tuple[int, int] | None]) -> tuple[list[int], list[int]]:
    """(start, end) token labels per window for answers given as passage char spans [start, end) per pair
    (None: no answer). A window that does not hold the whole answer is labelled (0, 0), the null span."""
    starts, ends = [], []
    for w in range(len(windows)):
        ans = answers[windows.example[w]]
        first, last = windows.context_range(w)
        offs = windows.offsets[w]
        if ans is None or last < first or not (offs[first][0] <= ans[0] and offs[last][1] >= ans[1]):
            starts.append(0)
            ends.append(0)
            continue
        s = first
        while s <= last and offs[s][0] <= ans[0]:
            s += 1
        e = last
        while e >= first and offs[e][1] >= ans[1]:
            e -= 1
        starts.append(s - 1)
        ends.append(e + 1)
    return starts, ends


def window_arrays(tokenizer: Any, questions: Sequence[str], contexts: Sequence[str],
                  answers: Sequence[tuple[int, int] | None], spec: ReaderSpec) -> dict[str, np.ndarray]:
    """Every window of every pair as arrays padded to `max_len` (training: no window limit), with span labels.

    The same windows and labels as `make_windows` + `span_labels`, computed on arrays (no Python loop per
    token): keys input_ids, token_type_ids, lengths, mask ([CLS] + passage WordPieces), start, end, example.
    """
    qs = _cut_questions(tokenizer, [q.strip() for q in questions], question_cap(spec))
    enc = tokenizer(qs, list(contexts), truncation="only_second", max_length=spec.max_len, stride=spec.stride,
                    return_overflowing_tokens=True, return_offsets_mapping=True, padding="max_length",
                    return_tensors="np")
    ids = enc["input_ids"].astype(np.int64)
    att = enc["attention_mask"].astype(bool)
    types = enc["token_type_ids"].astype(np.int64)
    offs = enc["offset_mapping"]
    example = np.asarray(enc["overflow_to_sample_mapping"], dtype=np.int64)
    ctx = (types == 1) & att & (offs[:, :, 1] > offs[:, :, 0])   # [SEP] and padding have empty offsets
    big = np.iinfo(np.int64).max
    a_s = np.array([a[0] if a is not None else -1 for a in answers], dtype=np.int64)[example]
    a_e = np.array([a[1] if a is not None else big for a in answers], dtype=np.int64)[example]
    s_ok = ctx & (offs[:, :, 0] <= a_s[:, None])
    e_ok = ctx & (offs[:, :, 1] >= a_e[:, None])
    inside = s_ok.any(1) & e_ok.any(1)
    width = ids.shape[1]
    start = np.where(inside, width - 1 - s_ok[:, ::-1].argmax(1), 0)
    end = np.where(inside, e_ok.argmax(1), 0)
    mask = ctx.copy()
    mask[:, 0] = True
    return {"input_ids": ids, "token_type_ids": types, "lengths": att.sum(1), "mask": mask,
            "start": start, "end": end, "example": example}


def context_mask(windows: Windows, w: int, length: int) -> list[bool]:
    """Positions a span may use in window `w`: [CLS] (the null span) and the passage's WordPieces."""
    offs = windows.offsets[w]
    return [t == 0 or (t < len(offs) and offs[t][0] >= 0) for t in range(length)]


# -- model ---------------------------------------------------------------------

class ReaderModel(nn.Module):
    """The encoder (LoRA on its linear layers, LayerNorms trainable) + a start/end head."""

    def __init__(self, spec: ReaderSpec, base: Any) -> None:
        super().__init__()
        self.spec = spec
        self.bert = base
        self.qa = nn.Linear(base.config.hidden_size, 2)
        if spec.lora_rank:
            for p in base.parameters():
                p.requires_grad_(False)
            add_lora(base.encoder, spec.lora_rank, spec.lora_alpha)
            for n, p in base.named_parameters():
                if "LayerNorm" in n:
                    p.requires_grad_(True)

    def forward(self, input_ids: torch.Tensor, attention_mask: torch.Tensor,
                token_type_ids: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        h = self.bert(input_ids=input_ids, attention_mask=attention_mask,
                      token_type_ids=token_type_ids).last_hidden_state
        logits = self.qa(h).float()
        return logits[..., 0], logits[..., 1]

    def trained_names(self) -> list[str]:
        """What a delta holds: every trainable parameter (adapters, LayerNorms, head)."""
        return [n for n, p in self.named_parameters() if p.requires_grad]


def load_base(spec: ReaderSpec) -> nn.Module:
    """A private copy of the base encoder (no pooler: the reader reads every token)."""
    from transformers import AutoModel

    from qascore.runtime.encoder import _quiet_transformers

    with _quiet_transformers():   # the base's unused pooler weights are reported as unexpected: expected here
        return AutoModel.from_pretrained(defaults.resolve(spec.encoder), attn_implementation="sdpa",
                                         dtype=torch.float32, add_pooling_layer=False)


# -- decoding ------------------------------------------------------------------

def decode(start: torch.Tensor, end: torch.Tensor, mask: torch.Tensor, max_answer_len: int,
           top_k: int = TOP_K) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor]:
    """Span distribution per window.

    start, end: (B, L) logits; mask: (B, L) bool, True at [CLS] and at passage WordPieces. Returns
    (log P(null) (B,), log P of the top spans (B, K), their start and end token indices (B, K)); a slot
    with no valid span has log P = -inf.
    """
    start, end = start.float(), end.float()
    b, n = start.shape
    ctx = mask.clone()
    ctx[:, 0] = False
    neg = torch.finfo(torch.float32).min / 4
    s = start.masked_fill(~ctx, neg)
    e = end.masked_fill(~ctx, neg)
    i = torch.arange(n, device=start.device)
    band = (i[None, :] >= i[:, None]) & (i[None, :] - i[:, None] < max_answer_len)
    valid = band[None] & ctx[:, :, None] & ctx[:, None, :]
    pair = (s[:, :, None] + e[:, None, :]).masked_fill(~valid, float("-inf")).view(b, -1)
    null = start[:, 0] + end[:, 0]
    logz = torch.logsumexp(torch.cat([pair, null[:, None]], dim=1), dim=1)
    k = min(top_k, pair.shape[1])
    top, idx = pair.topk(k, dim=1)
    return null - logz, top - logz[:, None], idx // n, idx % n


@dataclass
class Reading:
    """What the reader made of one (question, passage): per window, P(no answer) and its top spans."""

    windows: list[tuple[float, list[tuple[str, float]]]]
    truncated: bool = False

    @property
    def p_null(self) -> float:
        """P(no answer) of the most confident window (1.0 when there was nothing to read)."""
        return min((p for p, _ in self.windows), default=1.0)

    @property
    def p_answer(self) -> float:
        return 1.0 - self.p_null

    @property
    def best(self) -> tuple[str, float]:
        """The most probable span over all windows and its probability ("", 0.0 when none)."""
        spans = [s for _, sp in self.windows for s in sp]
        return max(spans, key=lambda s: s[1]) if spans else ("", 0.0)

    def match(self, answer: str, judged: Mapping[str, float] | None = None,
              judge: Mapping[str, float] | None = None) -> dict[str, float]:
        """How the reading meets a target answer: F1 of the best span; the reader's probability mass on
        spans equal to it after SQuAD normalisation (`mass`) and its expected token F1 (`expected_f1`),
        each in the window where it is largest. With `judged` (span text -> a verifier's P(the span answers
        the question as `answer` does), for the `judged_spans`): `ava_best`, that of the best span, and
        `ava_expected`, the sum over each window's top `JUDGED_K` spans of P(span) x P(correct), in the
        window where it is largest. With `judge` (span text -> the `judge` metric's P(correct) of the span
        as the candidate, `answer` as the reference): `judge_best` and `judge_expected` alike."""
        target = normalize_answer(answer)
        mass, expected, verified, judged_exp = 0.0, 0.0, 0.0, 0.0
        for _, spans in self.windows:
            mass = max(mass, sum(p for t, p in spans if normalize_answer(t) == target))
            expected = max(expected, sum(p * squad_f1(t, answer) for t, p in spans))
            if judged is not None:
                verified = max(verified, sum(p * judged[t] for t, p in spans[:JUDGED_K]))
            if judge is not None:
                judged_exp = max(judged_exp, sum(p * judge[t] for t, p in spans[:JUDGED_K]))
        out = {"f1": squad_f1(self.best[0], answer), "mass": mass, "expected_f1": expected}
        if judged is not None:
            out["ava_best"] = judged.get(self.best[0], 0.0)
            out["ava_expected"] = verified
        if judge is not None:
            out["judge_best"] = judge.get(self.best[0], 0.0)
            out["judge_expected"] = judged_exp
        return out

    def judged_spans(self) -> list[str]:
        """The distinct span texts a verifier judges for the rules that read it (each window's top `JUDGED_K`)."""
        return sorted({t for _, spans in self.windows for t, _ in spans[:JUDGED_K]})


# Main-score rules of `answerability` with a target answer (without one it is always p_answer); the
# training command measures each on held-out SQuAD questions and stores the best in the delta. The
# `VERIFIED` ones read a verifier's judgments of the reader's spans against the answer (`verify`), the
# `JUDGED` ones the `judge` metric's (`verify` with the judge's P(correct)).
RULES: dict[str, Callable[[Reading, dict[str, float]], float]] = {
    "p_answer": lambda r, m: r.p_answer,
    "expected_f1": lambda r, m: m["expected_f1"],
    "mass": lambda r, m: m["mass"],
    "p_answer_x_f1": lambda r, m: r.p_answer * m["f1"],
    "ava_expected": lambda r, m: m["ava_expected"],
    "p_answer_x_ava": lambda r, m: r.p_answer * m["ava_best"],
    "judge_expected": lambda r, m: m["judge_expected"],
}
VERIFIED = frozenset({"ava_expected", "p_answer_x_ava"})
JUDGED = frozenset({"judge_expected"})
LOGISTIC = "logistic"   # the rule whose weights a delta stores (`Logistic`)
EPS = 1e-4              # probabilities are clipped to [EPS, 1 - EPS] before their log-odds


def log_odds(p: float) -> float:
    p = min(max(p, EPS), 1 - EPS)
    return math.log(p / (1 - p))


@dataclass(frozen=True)
class Logistic:
    """The `logistic` rule: sigmoid(intercept + sum of coef x log-odds(signal)), the signals being other
    rules' scores; fitted by `qascore-lab train reader` on the bad-question check and stored in the delta
    (`rule_weights`), so that a reader carries its own weights."""

    signals: tuple[str, ...]
    coef: tuple[float, ...]
    intercept: float

    def __post_init__(self) -> None:
        bad = [s for s in self.signals if s not in RULES or s in VERIFIED or s in JUDGED]
        if bad or len(self.coef) != len(self.signals):
            raise ValueError(f"logistic rule: signals must be rules that need no verifier or judge, one coefficient each "
                             f"(got signals {list(self.signals)}, {len(self.coef)} coefficients)")

    def __call__(self, reading: Reading, m: dict[str, float]) -> float:
        return self.combine([RULES[s](reading, m) for s in self.signals])

    def combine(self, values: Sequence[float]) -> float:
        """The score from the signals' values (in `signals` order)."""
        z = self.intercept + sum(c * log_odds(v) for c, v in zip(self.coef, values))
        return 1.0 / (1.0 + math.exp(-z))

    def to_dict(self) -> dict[str, Any]:
        return {"signals": list(self.signals), "coef": list(self.coef), "intercept": self.intercept}

    @classmethod
    def from_dict(cls, d: Mapping[str, Any] | None) -> "Logistic | None":
        if not d:
            return None
        return cls(tuple(d["signals"]), tuple(float(c) for c in d["coef"]), float(d["intercept"]))


def score(reading: Reading, answer: str | None, rule: str, judged: Mapping[str, float] | None = None,
          logistic: Logistic | None = None, judge: Mapping[str, float] | None = None) -> float:
    """The main score under `rule` (P(answerable) without an answer); `judged` for the VERIFIED rules
    (`verify`), `judge` for the JUDGED ones (`verify` with the judge), `logistic` for the `logistic` rule."""
    if answer is None:
        return reading.p_answer
    if rule in VERIFIED and judged is None:
        raise ValueError(f"rule '{rule}' reads a verifier's judgments of the spans (`verify`); none were given")
    if rule in JUDGED and judge is None:
        raise ValueError(f"rule '{rule}' reads the judge's judgments of the spans (`verify`); none were given")
    return rule_score(reading, reading.match(answer, judged, judge), rule, logistic)


def rule_score(reading: Reading, m: dict[str, float], rule: str, logistic: Logistic | None = None) -> float:
    """The main score under `rule` from a reading's `match` with the answer, for callers that read the match
    for more than one rule or detail."""
    if rule == LOGISTIC:
        return need_weights(logistic)(reading, m)
    return float(RULES[rule](reading, m))


def need_weights(logistic: Logistic | None) -> Logistic:
    """The `logistic` rule's weights, or the error that says how a delta gets them."""
    if logistic is None:
        raise ValueError("rule 'logistic' needs the weights a reader delta stores (`rule_weights`); this one "
                         "has none: `qascore-lab train reader --evaluate DELTA --rule-checks-only --store` fits them")
    return logistic


def verify(predict: Callable[[list[Record]], np.ndarray], questions: Sequence[str], readings: Sequence[Reading],
           answers: Sequence[str | None]) -> list[dict[str, float] | None]:
    """Per reading, a verifier's P(span answers the question as the answer does) for its `judged_spans`
    (None where there is no answer): `predict` maps Records (question, candidate = span, references =
    [answer]) to probabilities, one call for all. A search-query-style question gets its question mark
    (`answer_match.as_question`), as the `ava` metric reads it."""
    from qascore.text.answer_match import as_question

    flat: list[Record] = []
    owner: list[tuple[int, str]] = []
    for i, (q, rd, a) in enumerate(zip(questions, readings, answers)):
        if a is None:
            continue
        for t in rd.judged_spans():
            flat.append(Record(question=as_question(q), candidate=t, references=[a]))
            owner.append((i, t))
    out: list[dict[str, float] | None] = [None if a is None else {} for a in answers]
    probs = predict(flat) if flat else np.zeros(0)
    for (i, t), p in zip(owner, probs):
        out[i][t] = float(p)  # type: ignore[index]
    return out


# -- the trained object ----------------------------------------------------------

class Reader:
    """Model + tokenizer: readings of (question, passage) pairs."""

    def __init__(self, spec: ReaderSpec, model: ReaderModel | None = None, tokenizer: Any = None,
                 info: dict[str, Any] | None = None, rule: str = "expected_f1",
                 logistic: Logistic | None = None) -> None:
        from qascore.runtime.encoder import load_tokenizer

        self.spec = spec
        self.tokenizer = tokenizer if tokenizer is not None else load_tokenizer(spec.encoder)
        if not getattr(self.tokenizer, "is_fast", False):
            raise ValueError("the reader needs a fast tokenizer (character offsets)")
        self.model = model if model is not None else ReaderModel(spec, load_base(spec))
        self.info = dict(info or {})
        self.rule = rule
        self.logistic = logistic
        # int8 linear layers (`load_shared(int8=True)`), whose batches `read` shares out to threads; without
        # calibrated ranges their activations are scaled per batch, so that a window's reading would move with the
        # windows beside it: such a reader reads one window per batch; with ranges (`runtime.int8
        # .fixed_range_linears`) windows are batched as in fp32
        self.int8 = False
        self.window_per_batch = False

    @property
    def device(self) -> str:
        return str(next(self.model.parameters()).device)

    def read(self, questions: Sequence[str], contexts: Sequence[str], *, batch_size: int = 32,
             dtype: str | None = None, top_k: int = TOP_K, max_windows: int | None = MAX_WINDOWS,
             tick: Callable[[int], None] | None = None) -> list[Reading]:
        """One Reading per pair; windows run longest first, in batches (one window each in int8 scaled per
        window), under `dtype` autocast."""
        from qascore.runtime.encoder import autocast

        if self.window_per_batch:
            batch_size = 1

        win = make_windows(self.tokenizer, questions, contexts, self.spec, max_windows=max_windows)
        self.model.eval()
        device = self.device
        per_window: list[tuple[float, list[tuple[str, float]]]] = [(1.0, [])] * len(win)
        order = sorted(range(len(win)), key=lambda w: -len(win.input_ids[w]))
        pad = self.tokenizer.pad_token_id or 0

        def run(idx: list[int]) -> list[tuple[int, tuple[float, list[tuple[str, float]]]]]:
            n = max(len(win.input_ids[w]) for w in idx)
            ids = torch.full((len(idx), n), pad, dtype=torch.long)
            types = torch.zeros((len(idx), n), dtype=torch.long)
            att = torch.zeros((len(idx), n), dtype=torch.long)
            mask = torch.zeros((len(idx), n), dtype=torch.bool)
            for r, w in enumerate(idx):
                m = len(win.input_ids[w])
                ids[r, :m] = torch.tensor(win.input_ids[w])
                types[r, :m] = torch.tensor(win.token_type_ids[w])
                att[r, :m] = 1
                mask[r] = torch.tensor(context_mask(win, w, n))
            with torch.no_grad(), autocast(device, dtype):  # both per thread: `on_threads` may run this on a worker
                s, e = self.model(ids.to(device), att.to(device), types.to(device))
            lnull, lp, si, ei = (t.cpu() for t in decode(s, e, mask.to(device), self.spec.max_answer_len, top_k))
            done = []
            for r, w in enumerate(idx):
                ctx = contexts[win.example[w]]
                offs = win.offsets[w]
                spans = [(ctx[offs[a][0]:offs[z][1]], float(np.exp(v)))
                         for v, a, z in zip(lp[r].tolist(), si[r].tolist(), ei[r].tolist()) if v > float("-inf")]
                done.append((w, (float(np.exp(lnull[r].item())), spans)))
            return done

        # an int8 reader's batches shared out to the CPU's threads (its kernels keep to one)
        for done in on_threads(run, [order[b0:b0 + batch_size] for b0 in range(0, len(order), batch_size)], self.int8):
            for w, reading in done:
                per_window[w] = reading
            if tick:
                tick(len(done))
        out = [Reading([], truncated=t) for t in win.truncated]
        for w, ex in enumerate(win.example):
            out[ex].windows.append(per_window[w])
        return out

    def save(self, path: str | Path, extra: dict[str, Any] | None = None) -> None:
        meta = {"spec": asdict(self.spec), "base_hash": base_hash(defaults.resolve(self.spec.encoder)),
                "rule": self.rule, "info": self.info}
        if self.logistic is not None:
            meta["rule_weights"] = self.logistic.to_dict()
        meta.update(extra or {})
        save_delta(self.model, path, self.model.trained_names(), meta)

    @classmethod
    def load(cls, path: str | Path = DELTA) -> "Reader":
        """The reader saved at `path` rebuilt on its pinned base encoder (adapters merged for inference)."""
        meta = read_meta(path)
        spec = ReaderSpec.from_dict(meta["spec"])
        model = ReaderModel(spec, load_base(spec))
        apply_delta(model, path, expect_base=base_hash(defaults.resolve(spec.encoder)), required=model.trained_names())
        merge_lora(model)
        model.eval()
        return cls(spec, model, info=meta.get("info", {}), rule=str(meta.get("rule", "expected_f1")),
                   logistic=Logistic.from_dict(meta.get("rule_weights")))


def describe(path: str | Path = DELTA) -> str:
    return json.dumps(read_meta(path), indent=2, sort_keys=True)


def load_shared(path: str | Path = DELTA, device: str | None = None, *, int8: bool = False) -> Reader:
    """The reader saved at `path` on `device` (None: the process default, runtime.devices), created once per
    process, device and precision and shared by every metric that reads with it. `int8`: its encoder's
    linear layers in dynamic int8 (runtime/int8.py; CPU only), over the ranges calibrated beside `path` where
    there are some (batched), else scaled per window (one window per batch)."""
    from qascore.runtime.cache import shared
    from qascore.runtime.devices import pick_device

    key = str(Path(path).resolve())
    dev = pick_device(device)
    if int8:
        from qascore.runtime.int8 import require_cpu

        require_cpu(dev)

    def make() -> Reader:
        reader = Reader.load(key)
        reader.model.to(dev)
        if int8:
            from qascore.runtime.int8 import fixed_range_linears, int8_linears, read_ranges

            ranges = read_ranges(key)
            reader.model.bert = int8_linears(reader.model.bert) if ranges is None else fixed_range_linears(
                reader.model.bert, ranges)
            reader.int8, reader.window_per_batch = True, ranges is None
        return reader

    return shared(("reader", key, dev, int8), make)
