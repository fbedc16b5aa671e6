"""Property-based checks (hypothesis) of the command line's promises, on generated inputs:

- readers (JSONL/CSV/TSV from random bytes, BOMs, other encodings, ragged rows, huge fields):
  records come back or an InputError names the file; nothing else escapes;
- the option parser, for every registered metric and option, with random text and Python values:
  a metric comes back or a `-m NAME:key=value: ...` usage error does;
- `score` on random valid records, for every lexical metric (METEOR aside: its JVM takes
  ~20 s to start, tests/test_meteor.py covers it) and one model metric (BERTScore on the tiny
  random BERT): exit 0 with one finite score per record, or exit 2 with one
  `qascore: error: ...` line; never a traceback, never a partial output file.

Bounded for the fast suite: fixed example counts (EXAMPLES), derandomised so CI runs the
same cases every time; `--hypothesis-show-statistics` prints the counts.
"""

from __future__ import annotations

import contextlib
import io
import json
import math
import tempfile
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from qascore.cli import main
from qascore.cli.errors import message_of
from qascore.cli.options import load_metric
from qascore.errors import UsageError
from qascore.metrics.options import OptionError
from qascore.metrics.registry import _REGISTRY, metric_class
from qascore.records import CORE_FIELDS, InputError, read_records
from test_encoder import tiny_bert  # noqa: F401  (session fixture)

EXAMPLES = {"bytes": 300, "jsonl": 250, "table": 250, "score_table": 120, "option_text": 500,
            "option_python": 300, "option_name": 100, "score_lexical": 120, "score_model": 50}
LEXICAL = ("em", "f1", "bleu1", "bleu2", "bleu3", "bleu4", "rougeL", "cider")


def bounded(n: int) -> Any:
    return settings(max_examples=n, deadline=None, derandomize=True, database=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                           HealthCheck.function_scoped_fixture])


def run_cli(argv: list[str]) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        rc = main(argv)
    return rc, out.getvalue(), err.getvalue()


def assert_clean_failure(rc: int, err: str) -> None:
    """Exit 2 with exactly one error line (warnings may precede it), no traceback."""
    assert rc == 2, err
    assert "Traceback" not in err
    lines = [ln for ln in err.splitlines() if not ln.startswith("qascore: warning: ")]
    assert len(lines) == 1 and lines[0].startswith("qascore: error: "), err


# -- readers ---------------------------------------------------------------------------------
BOMS = st.sampled_from([b"", b"", b"\xef\xbb\xbf", b"\xff\xfe", b"\xfe\xff"])
ENCODINGS = st.sampled_from(["utf-8", "utf-8-sig", "utf-16", "latin-1", "cp1252", "utf-16-le"])
TEXT = st.text(st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=40)
HUGE = st.sampled_from([0, 0, 0, 200_000])  # now and then a field larger than csv's default limit
JSON_VALUE = st.recursive(st.none() | st.booleans() | st.integers() | st.floats() | TEXT,
                          lambda inner: st.lists(inner, max_size=3) | st.dictionaries(TEXT, inner, max_size=3),
                          max_leaves=8)


def _read_ok_or_input_error(data: bytes, suffix: str) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / f"in{suffix}"
        path.write_bytes(data)
        try:
            records = read_records(path)
        except InputError as err:
            assert str(err).startswith(str(path)), err
            return
        assert all(isinstance(r.candidate, str) and isinstance(r.references, list) for r in records)


@bounded(EXAMPLES["bytes"])
@given(bom=BOMS, body=st.binary(max_size=300), suffix=st.sampled_from([".jsonl", ".csv", ".tsv"]))
def test_random_bytes_read_or_fail_with_a_located_error(bom, body, suffix):
    _read_ok_or_input_error(bom + body, suffix)


@st.composite
def jsonl_files(draw: Any) -> bytes:
    rows = draw(st.lists(st.dictionaries(st.sampled_from(CORE_FIELDS + ("human", "extra")), JSON_VALUE,
                                         max_size=6) | JSON_VALUE, min_size=0, max_size=5))
    lines = [json.dumps(r) for r in rows]
    if lines and draw(st.booleans()):  # cut a line short
        k = draw(st.integers(0, len(lines) - 1))
        lines[k] = lines[k][: draw(st.integers(0, len(lines[k])))]
    text = "\n".join(lines) + draw(st.sampled_from(["", "\n", "\r\n", "\n\n"]))
    return text.encode(draw(ENCODINGS), errors="replace")


@bounded(EXAMPLES["jsonl"])
@given(data=jsonl_files())
def test_jsonl_in_any_encoding_reads_or_fails_with_a_located_error(data):
    _read_ok_or_input_error(data, ".jsonl")


@st.composite
def table_files(draw: Any) -> tuple[bytes, str]:
    delim = draw(st.sampled_from([",", "\t"]))
    header = draw(st.lists(st.sampled_from(["question", "candidate", "reference1", "reference2", "references",
                                             "id", "human"]) | TEXT, min_size=1, max_size=5))
    rows = []
    for _ in range(draw(st.integers(0, 4))):
        width = len(header) if draw(st.booleans()) else draw(st.integers(0, len(header) + 2))  # ragged rows
        cells = [draw(TEXT) + "a" * draw(HUGE) for _ in range(width)]
        rows.append(cells)
    out = io.StringIO()
    import csv

    writer = csv.writer(out, delimiter=delim)
    writer.writerow(header)
    writer.writerows(rows)
    return out.getvalue().encode(draw(ENCODINGS), errors="replace"), ".csv" if delim == "," else ".tsv"


@bounded(EXAMPLES["table"])
@given(table=table_files())
def test_csv_tsv_ragged_huge_and_odd_encodings_read_or_fail_with_a_located_error(table):
    _read_ok_or_input_error(*table)


@bounded(EXAMPLES["score_table"])
@given(table=table_files())
def test_score_on_any_table_exits_0_or_2_and_never_leaves_a_partial_file(table):
    data, suffix = table
    with tempfile.TemporaryDirectory() as tmp:
        path, out = Path(tmp) / f"in{suffix}", Path(tmp) / "out.jsonl"
        path.write_bytes(data)
        rc, _, err = run_cli(["score", str(path), "-m", "f1", "-o", str(out)])
        if rc == 0:
            assert out.is_file()
        else:
            assert_clean_failure(rc, err)
            assert sorted(p.name for p in Path(tmp).iterdir()) == [path.name]


# -- the option parser -----------------------------------------------------------------------
OPTIONS = [(name, key) for name in sorted(_REGISTRY) for key in metric_class(name).option_specs()]
ODD_TEXT = st.sampled_from(["true", "no", "1", "0", "-1", "abc", "1e309", "nan", "inf", "", "auto", "none",
                            "shipped", "max", "mean", "joint", "2.5", "99999999999999999999", "fp32", "0+3"])


def _accepted_or_usage_error(spec: str) -> None:
    try:
        load_metric(spec)
    except UsageError as err:
        assert str(err).startswith("-m "), err
    except Exception as err:  # noqa: BLE001 -- what the CLI would print must be a user error (exit 2)
        text, status = message_of(err)
        assert status == 2, f"{spec}: {type(err).__name__}: {err}"


@bounded(EXAMPLES["option_text"])
@given(option=st.sampled_from(OPTIONS), value=ODD_TEXT | TEXT.filter(lambda t: "," not in t))
def test_every_option_with_random_text_loads_or_is_a_usage_error(option, value):
    name, key = option
    _accepted_or_usage_error(f"{name}:{key}={value}")


@bounded(EXAMPLES["option_python"])
@given(option=st.sampled_from(OPTIONS),
       value=st.none() | st.booleans() | st.integers() | st.floats() | TEXT | st.lists(st.integers(), max_size=2))
def test_every_option_with_random_python_values_is_typed_or_refused(option, value):
    name, key = option
    spec = metric_class(name).option_specs()[key]
    try:
        got = spec.check(value)
    except ValueError:
        return
    if spec.type == "bool":
        assert isinstance(got, bool)
    elif spec.type in ("int", "float") and got is not None:
        assert isinstance(got, (int, float)) and not isinstance(got, bool) and math.isfinite(got)
        assert (spec.min is None or got >= spec.min) and (spec.max is None or got <= spec.max)
    elif spec.type == "choice" and got is not None:
        assert got in spec.choices


@bounded(EXAMPLES["option_name"])
@given(name=st.sampled_from(sorted(_REGISTRY)), key=TEXT.filter(lambda t: t and "," not in t and "=" not in t))
def test_unknown_option_names_are_refused(name, key):
    if key.strip() in metric_class(name).option_specs():
        return
    try:
        load_metric(f"{name}:{key}=1")
    except UsageError as err:
        assert "unknown option" in str(err) or "key=value" in str(err)
    else:
        raise AssertionError(f"{name}:{key}=1 was accepted")


def test_option_error_is_what_the_python_api_raises():
    try:
        metric_class("bertscore")(idf="maybe")
    except OptionError as err:
        assert err.key == "idf" and "expected a boolean" in err.message


# -- score on random valid records -------------------------------------------------------------
WORDS = st.text(st.characters(codec="utf-8", exclude_categories=("Cs", "Cc")), max_size=30)
RECORD = st.fixed_dictionaries({"question": WORDS, "candidate": WORDS,
                                "references": st.lists(WORDS, min_size=1, max_size=3)},
                               optional={"id": st.integers(0, 5) | TEXT, "human": st.floats()})


def _score_records(rows: list[dict], metrics: list[str]) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        path, out = Path(tmp) / "in.jsonl", Path(tmp) / "out.jsonl"
        path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
        argv = ["score", str(path), "-o", str(out), "--format", "json"]
        for m in metrics:
            argv += ["-m", m]
        rc, stdout, err = run_cli(argv)
        assert rc == 0, err
        assert "Traceback" not in err
        scored = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
        assert len(scored) == len(rows)
        for row in scored:
            assert all(math.isfinite(v) for v in row["scores"].values())
        corpus = json.loads(stdout)
        from qascore.cli.options import output_label, parse_metric_spec

        assert set(corpus) == {output_label(*parse_metric_spec(m)) for m in metrics}  # options that change numbers keyed


@bounded(EXAMPLES["score_lexical"])
@given(rows=st.lists(RECORD, min_size=1, max_size=6))
def test_every_lexical_metric_scores_random_valid_records(rows):
    _score_records(rows, list(LEXICAL))


@bounded(EXAMPLES["score_model"])
@given(rows=st.lists(RECORD, min_size=1, max_size=4))
def test_bertscore_scores_random_valid_records(tiny_bert, rows):  # noqa: F811
    from qascore.cli import options

    # `bertscore:model=<dir>` through the real CLI; the tiny random BERT stands in for MiniLM.
    spec = f"bertscore:model={tiny_bert}"
    assert options.parse_metric_spec(spec)[1] == {"model": tiny_bert}
    _score_records(rows, [spec])
