"""`qascore meta`: correlate metrics with human judgments on a file of records.

    qascore meta FILE --human FIELD --metric NAME [--score-field FIELD] [--compare A B]

The public benchmarks (`--benchmark kpqa`, ...) are the lab's: `qascore-lab meta --benchmark ...`.

Everything here calls qascore.meta; this module only parses, scores and prints.
"""

from __future__ import annotations

import argparse
import math
import sys
from typing import Any, Sequence

import numpy as np

from qascore import jsonio
from qascore.cli.options import load_metric
from qascore.cli.output import check_output, spec_paths, write_whole
from qascore.cli.runtime_args import add_runtime_arguments, apply_runtime_arguments, with_dtype
from qascore.errors import UsageError
from qascore.meta.classification import (OBJECTIVES, accuracy_resampled, auroc, auroc_resampled, binary_scores,
                                         tune_threshold)
from qascore.meta.compare import compare_correlations
from qascore.meta.correlation import (DEFAULT_RESAMPLES, DEFAULT_SEED, MAX_RESAMPLES, METHODS, SMALL_N, Correlation,
                                      bootstrap_indices, correlate_all, percentile_ci)
from qascore.meta.fields import human_scores, labels, number_field, text_field
from qascore.messages import warn
from qascore.progress import enabled as progress_enabled
from qascore.records import InputError, Record, parse_mapping, read_records

_NAN_NOTE = "n/a: the metric (or the human score) is constant on these items, so no correlation is defined"
_SYMBOL = {"pearson": "r", "spearman": "rho", "kendall": "tau_b"}


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("input", nargs="?", help="JSONL/CSV/TSV of records with a human score field")
    p.add_argument("--human", help="field holding the human judgment (INPUT mode; dotted paths allowed)")
    p.add_argument("--metric", "-m", action="append", default=[],
                   help="metric to compute, NAME[:key=value,...]; repeatable")
    p.add_argument("--score-field", action="append", default=[], metavar="FIELD",
                   help="a precomputed metric score already in the file (e.g. bleurt or scores.bleu1); repeatable")
    p.add_argument("--map", action="append", metavar="FIELD=COLUMN", help="column mapping as in `qascore score`")
    p.add_argument("--input-format", choices=("jsonl", "csv", "tsv"), help="override the file extension")
    p.add_argument("--format", choices=("table", "json"), default="table")
    p.add_argument("--methods", default=None,
                   help="comma list of pearson,spearman,kendall (INPUT default: all three; lab benchmarks: "
                        "the paper's)")
    p.add_argument("--ci", action=argparse.BooleanOptionalAction, default=None,
                   help="percentile bootstrap CIs of the correlations and of --label's AUROC and accuracy "
                        "(default: on for INPUT, off for lab benchmarks)")
    p.add_argument("--resamples", type=int, default=DEFAULT_RESAMPLES, help="bootstrap resamples")
    p.add_argument("--seed", type=int, default=DEFAULT_SEED, help="bootstrap seed")
    p.add_argument("--level", type=float, default=0.95, help="confidence level of the intervals")
    p.add_argument("--compare", nargs=2, metavar=("A", "B"), action="append",
                   help="test whether metric A correlates with humans better than metric B; repeatable")
    p.add_argument("--test", choices=("williams", "bootstrap", "both"), default="both",
                   help="significance test for --compare")
    p.add_argument("--compare-method", choices=METHODS, default="pearson",
                   help="coefficient compared by --compare (Williams: pearson or spearman)")
    c = p.add_argument_group("correct/incorrect labels (INPUT mode)")
    c.add_argument("--label", help="field holding a binary correctness label (0/1, true/false): prints AUROC, "
                                   "and accuracy/P/R/F1 at a threshold from --threshold or tuned on --split dev; "
                                   "AUROC and accuracy with bootstrap CIs over the test items")
    c.add_argument("--split", metavar="FIELD", help="field naming each record's split: records whose value is "
                                                    "--dev-value tune the threshold, the others are the test set")
    c.add_argument("--dev-value", default="dev", help="value of --split that marks dev records (default dev)")
    c.add_argument("--objective", choices=OBJECTIVES, default="accuracy", help="what the tuned threshold maximises")
    c.add_argument("--threshold", type=float, help="a fixed threshold instead of tuning one")
    c.add_argument("--system", metavar="FIELD", help="field naming the system that produced each record: also "
                                                    "each system's accuracy as the metric's decisions estimate it "
                                                    "against the labels' (RMSE, Kendall tau over systems)")
    p.add_argument("--html", metavar="OUT.html", help="INPUT mode with --human: also write a self-contained "
                   "report (table with CIs, scatter plots, pairwise test matrix; needs matplotlib)")
    add_runtime_arguments(p)


def run(args: argparse.Namespace) -> int:
    apply_runtime_arguments(args)  # --dtype goes into each model metric's spec: --compare names follow
    if args.compare and args.dtype is not None:
        args.compare = [with_dtype(pair, args.dtype) for pair in args.compare]
    check_numbers(args)
    check_output(args.html, [args.input, *spec_paths(args.metric)], "--html")
    if args.html:  # the [report] extra, looked for before anything is read or computed
        from qascore.cli.report import _pyplot

        _pyplot()
    if args.html and (getattr(args, "benchmark", None) or not args.human):
        raise UsageError("--html needs INPUT and --human (the report plots metrics against the human score)")
    if not args.input:
        raise ValueError("give an INPUT file (with --human)")
    return _run_file(args)


def check_numbers(args: argparse.Namespace) -> None:
    """The numeric options, before anything is read or scored (issue 42): each error names its option."""
    if not 1 <= args.resamples <= MAX_RESAMPLES:
        raise UsageError(f"--resamples must be between 1 and {MAX_RESAMPLES:,} (got {args.resamples})")
    if args.seed < 0 or args.seed >= 2**63:
        raise UsageError(f"--seed must be an integer >= 0 and < 2**63 (got {args.seed})")
    if not 0 < args.level < 1:
        raise UsageError(f"--level must be between 0 and 1, exclusive (got {args.level})")
    if args.threshold is not None and not math.isfinite(args.threshold):
        raise UsageError(f"--threshold must be a finite number (got {args.threshold})")


# -- shared ------------------------------------------------------------------------
class _Scorer:
    """Loads each metric spec once and scores records with it (the only model-touching part)."""

    def __init__(self) -> None:
        self._metrics: dict[str, Any] = {}
        self.signatures: dict[str, str] = {}

    def metric(self, spec: str) -> Any:
        if spec not in self._metrics:
            self._metrics[spec] = load_metric(spec)
        return self._metrics[spec]

    def threshold(self, spec: str) -> float | None:
        """The stored correct/incorrect threshold of a loaded metric (e.g. a verifier's), else None."""
        return self._metrics[spec].decision_threshold() if spec in self._metrics else None

    def __call__(self, spec: str, records: Sequence[Record]) -> list[float]:
        result = self.metric(spec).score(records)
        self.signatures[spec] = result.signature
        return result.scores


def _methods(args: argparse.Namespace, default: Sequence[str]) -> tuple[str, ...]:
    if not args.methods:
        return tuple(default)
    out = tuple(m.strip() for m in args.methods.split(",") if m.strip())
    bad = [m for m in out if m not in METHODS]
    if bad:
        raise ValueError(f"unknown method(s) {bad}; choose from {', '.join(METHODS)}")
    return out


def _say(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)


def _p(p: float) -> str:
    from qascore.cli.report import p_text  # one format for the terminal and the HTML page

    return "nan" if math.isnan(p) else p_text(p)


def _cell(c: Correlation, ci: bool) -> str:
    if math.isnan(c.value):
        return "n/a"
    if not ci:
        return f"{c.value:7.3f}"
    return f"{c.value:7.3f} [{c.ci_low:6.3f}, {c.ci_high:6.3f}]"


def _check_compare(args: argparse.Namespace, names: Sequence[str]) -> None:
    if args.compare and args.test == "williams" and args.compare_method == "kendall":  # else it prints nothing
        raise UsageError("--test williams compares Pearson or Spearman correlations, not Kendall's tau; with "
                         "--compare-method kendall use --test bootstrap")
    for name in (n for pair in args.compare or () for n in pair):
        if name not in names:
            raise ValueError(f"--compare: '{name}' is not one of the metrics: {', '.join(names)}")


def _compare_all(human: np.ndarray, columns: dict[str, np.ndarray], args: argparse.Namespace) -> list[dict]:
    """Every --compare pair, in the order given, under each requested test (names checked up front by
    `_check_compare`, before anything is scored)."""
    tests = ("williams", "bootstrap") if args.test == "both" else (args.test,)
    return [row for a, b in args.compare for row in _compare_pair(human, columns, a, b, tests, args)]


def _compare_pair(human: np.ndarray, columns: dict[str, np.ndarray], a: str, b: str, tests: Sequence[str],
                  args: argparse.Namespace) -> list[dict]:
    out = []
    for test in tests:
        if test == "williams" and args.compare_method == "kendall":
            continue
        try:
            res = compare_correlations(human, columns[a], columns[b], args.compare_method, test,
                                       n_resamples=args.resamples, seed=args.seed, level=args.level)
        except ValueError as err:  # e.g. a constant metric on this data set: say so, go on
            out.append({"a": a, "b": b, "method": args.compare_method, "test": test, "error": str(err)})
            continue
        out.append({"a": a, "b": b, **res.as_dict()})
    return out


def _print_compare(rows: list[dict], indent: str = "") -> None:
    for c in rows:
        if "error" in c:
            print(f"{indent}{c['a']} vs {c['b']} ({c['method']}, {c['test']}): undefined: {c['error']}")
            continue
        sym = _SYMBOL[c["method"]]
        head = (f"{indent}{c['a']} vs {c['b']} ({c['method']}): {sym}_A={c['r_a']:.3f} {sym}_B={c['r_b']:.3f} "
                f"diff={c['diff']:+.3f}; ")
        if c["test"] == "williams":
            print(head + f"Williams t({c['n'] - 3})={c['statistic']:.3f}, corr(A,B)={c['r_ab']:.3f}, "
                  f"one-sided p={_p(c['p_value'])}")
        else:
            floor = f" (<{1 / c['n_resamples']:.0e})" if c["p_value"] == 0 else ""
            print(head + f"paired bootstrap {c['n_resamples']} resamples: diff CI [{c['ci_low']:.3f}, "
                  f"{c['ci_high']:.3f}], p=share(A<=B)={_p(c['p_value'])}{floor}")


# -- INPUT mode ----------------------------------------------------------------------
def _run_file(args: argparse.Namespace) -> int:
    if not args.human and not args.label:
        raise ValueError("--human FIELD (or --label FIELD) is required with an INPUT file")
    if args.compare and not args.human:
        raise ValueError("--compare needs --human")
    for flag, value in (("--system", args.system), ("--split", args.split), ("--threshold", args.threshold)):
        if value is not None and not args.label:  # they shape the --label table: alone they would do nothing
            raise UsageError(f"{flag} needs --label FIELD (it applies to the correct/incorrect table)")
    if not args.metric and not args.score_field:
        raise ValueError("give at least one --metric or --score-field")
    names = [*args.score_field, *args.metric]
    dupes = sorted({n for n in names if names.count(n) > 1})
    if dupes:
        raise ValueError(f"metric/score field named twice: {', '.join(dupes)}")
    _check_compare(args, names)
    scorer = _Scorer()
    for spec in args.metric:  # options are checked before anything is read
        scorer.metric(spec)
    records = read_records(args.input, mapping=parse_mapping(args.map), fmt=args.input_format)
    human = human_scores(records, args.human) if args.human else None
    if human is not None:
        _warn_small_n(len(records))
    gold = labels(records, args.label) if args.label else None
    if args.system:  # every record names its system, checked before any metric runs
        for rec in records:
            text_field(rec, args.system)
    columns: dict[str, np.ndarray] = {}
    for field in args.score_field:
        columns[field] = np.array([number_field(r, field) for r in records])
    for spec in args.metric:
        if progress_enabled():
            _say(f"scoring {len(records)} records with {spec}...")
        columns[spec] = np.asarray(scorer(spec, records), dtype=float)
    classification = _classify(records, gold, columns, args, scorer) if gold is not None else None
    if human is None:
        assert classification is not None  # --label or --human is required above
        return _print_classification(classification, scorer, args)
    if len(records) < 3:
        raise InputError(f"needs at least 3 records to correlate, got {len(records)}", source=args.input)
    methods = _methods(args, METHODS)
    ci = True if args.ci is None else args.ci
    table = {name: correlate_all(human, vals, methods, ci=ci, n_resamples=args.resamples, seed=args.seed,
                                 level=args.level) for name, vals in columns.items()}
    compare = _compare_all(human, columns, args) if args.compare else []
    if args.html:
        _write_report(args, human, columns, table, methods, scorer)
    if args.format == "json":
        out = {"input": args.input, "human": args.human, "n": len(records),
               "metrics": {k: {m: c.as_dict() for m, c in v.items()} for k, v in table.items()},
               "signatures": scorer.signatures}
        if compare:
            out["compare"] = compare
        if classification:
            out["classification"] = classification
        jsonio.dump(out, sys.stdout, indent=2)
        print()
        return 0
    width = max(6, *(len(k) for k in table))
    cellw = 24 if ci else 7
    print(f"n={len(records)} items; human field '{args.human}'; p two-sided (t-test for r and rho)"
          + (f"; {args.level:.0%} percentile bootstrap CIs, {args.resamples} resamples, seed {args.seed}"
             if ci else ""))
    print(f"{'metric':<{width}}  " + "  ".join(f"{_SYMBOL[m]:>{cellw}}  {'p':>7}" for m in methods))
    for name, cors in table.items():
        print(f"{name:<{width}}  " + "  ".join(f"{_cell(cors[m], ci):>{cellw}}  {_p(cors[m].p_value):>7}"
                                               for m in methods))
    if any(math.isnan(c.value) for cors in table.values() for c in cors.values()):
        print(_NAN_NOTE)
    if compare:
        print()
        _print_compare(compare)
    if classification:
        print()
        _print_classification(classification, None, args)
    for spec, sig in scorer.signatures.items():
        print(f"signature: {sig}")
    return 0


def _write_report(args: argparse.Namespace, human: np.ndarray, columns: dict[str, np.ndarray],
                  table: dict[str, dict[str, Correlation]], methods: Sequence[str], scorer: _Scorer) -> None:
    from qascore.cli.report import page

    test = "williams" if args.test != "bootstrap" and args.compare_method != "kendall" else "bootstrap"
    text = page(source=args.input, human_name=args.human, human=human, columns=columns, table=table,
                methods=methods, compare_method=args.compare_method, test=test, n_resamples=args.resamples,
                seed=args.seed, signatures=scorer.signatures)
    write_whole(args.html, lambda fh: fh.write(text))
    _say(f"wrote {args.html}")


def _warn_small_n(n: int, what: str = "items", figures: str = "bootstrap CIs and p-values") -> None:
    """The one warning below SMALL_N items, for --human's correlations and --label's AUROC and accuracy alike."""
    if n < SMALL_N:
        warn(f"only {n} {what}: {figures} are unreliable below {SMALL_N} items "
             f"(an interval may reach 1.000); see docs/meta.md")


def _classify(records: Sequence[Record], gold: np.ndarray, columns: dict[str, np.ndarray],
              args: argparse.Namespace, scorer: _Scorer) -> dict[str, Any]:
    """AUROC on the test items; accuracy/P/R/F1 at a threshold: --threshold, else tuned on the dev
    split, else the metric's own stored threshold (a verifier's), else none."""
    if args.split:
        dev = np.array([text_field(r, args.split) == args.dev_value for r in records])
        if not dev.any() or dev.all():
            raise ValueError(f"--split {args.split}: need both '{args.dev_value}' records and others "
                             f"(got {int(dev.sum())} dev of {len(records)})")
        if args.threshold is None and len(set(gold[dev].tolist())) < 2:
            only = "correct" if bool(gold[dev][0]) else "incorrect"
            raise ValueError(f"--split {args.split}: the {int(dev.sum())} '{args.dev_value}' records are all {only} "
                             f"by --label {args.label}: a threshold tuned on one class means nothing; put both "
                             f"classes in the dev split, or give --threshold")
    else:
        dev = np.zeros(len(records), dtype=bool)
    test = ~dev
    n_test = int(test.sum())
    # the same resamples of the test items for every metric (as --human's CIs); the threshold stays fixed
    ci = args.ci is not False and n_test > 0
    idx = bootstrap_indices(n_test, args.resamples, args.seed) if ci else None
    if ci and (args.human is None or n_test != len(records)):  # --human has warned already about the same items
        _warn_small_n(n_test, "test items" if args.split else "items", "bootstrap CIs")
    out: dict[str, Any] = {"label": args.label, "n_test": n_test, "n_dev": int(dev.sum()),
                           "objective": args.objective if args.split and args.threshold is None else None,
                           "ci": {"level": args.level, "n_resamples": args.resamples, "seed": args.seed} if ci else None,
                           "metrics": {}}
    for name, vals in columns.items():
        row: dict[str, Any] = {}
        try:
            row["auroc"] = auroc(vals[test], gold[test])
        except ValueError as err:
            row["auroc"], row["auroc_error"] = None, str(err)
        if idx is not None and row["auroc"] is not None:
            row["auroc_ci"] = list(percentile_ci(auroc_resampled(vals[test], gold[test], idx), args.level))
        threshold, source = args.threshold, "--threshold"
        if threshold is None and args.split:
            threshold, source = tune_threshold(vals[dev], gold[dev], args.objective), "dev"
        if threshold is None:
            threshold, source = scorer.threshold(name), "stored with the model"
        if threshold is not None:
            row.update(binary_scores(vals[test], gold[test], threshold).as_dict())
            if idx is not None:
                row["accuracy_ci"] = list(percentile_ci(accuracy_resampled(vals[test], gold[test], threshold, idx),
                                                        args.level))
            row["threshold_from"] = source
            if args.system:
                row["systems"] = _systems(records, test, vals >= threshold, gold, args.system)
        out["metrics"][name] = row
    return out


def _systems(records: Sequence[Record], test: np.ndarray, decisions: np.ndarray, gold: np.ndarray,
             field: str) -> dict[str, Any]:
    """Per-system accuracy estimated from the decisions vs the labels', on the test items."""
    from qascore.meta.system import accuracy_by_system

    keep = [int(i) for i in np.flatnonzero(test)]
    names = [text_field(records[i], field) for i in keep]
    est, true, agree = accuracy_by_system(names, list(decisions[keep]), list(gold[keep]))
    return {"estimated": dict(est), "human": dict(true), "rmse": agree.rmse, "kendall": agree.kendall_tau_b,
            "kendall_p": agree.kendall_p}


def _print_classification(res: dict[str, Any], scorer: _Scorer | None, args: argparse.Namespace) -> int:
    if args.format == "json" and scorer is not None:
        jsonio.dump({"input": args.input, "classification": res, "signatures": scorer.signatures}, sys.stdout,
                  indent=2)
        print()
        return 0
    stored = any(r.get("threshold_from") == "stored with the model" for r in res["metrics"].values())
    how = (f"threshold {args.threshold:g}" if args.threshold is not None else
           f"threshold tuned on {res['n_dev']} dev items for {res['objective']}" if res["objective"] else
           "each verifier's threshold stored with its model (others: give --threshold or --split)" if stored else
           "no threshold (give --threshold or --split)")
    ci = res.get("ci")
    print(f"label field '{res['label']}': {res['n_test']} test items; {how}; predicted correct = score >= threshold"
          + (f"; AUROC and accuracy with {ci['level']:.0%} percentile bootstrap CIs over the test items "
             f"({ci['n_resamples']} resamples, seed {ci['seed']}; the threshold held fixed)" if ci else ""))
    width = max(6, *(len(k) for k in res["metrics"]))
    has_thr = any("threshold" in r for r in res["metrics"].values())
    auc_w = 22 if ci else 6  # '0.875 [0.700, 1.000]'
    acc_w = 22 if ci else 8
    print(f"{'metric':<{width}}  {'AUROC':>{auc_w}}"
          + (f"  threshold  {'accuracy':>{acc_w}}  precision  recall      F1" if has_thr else ""))
    for name, r in res["metrics"].items():
        auc = _with_ci(r["auroc"], r.get("auroc_ci"), 6) if r["auroc"] is not None else "n/a"
        line = f"{name:<{width}}  {auc:>{auc_w}}"
        if "threshold" in r:
            line += (f"  {r['threshold']:9.4g}  {_with_ci(r['accuracy'], r.get('accuracy_ci'), 8):>{acc_w}}"
                     f"  {r['precision']:9.3f}  {r['recall']:6.3f}  {r['f1']:6.3f}")
        elif has_thr:
            line += f"  {'-':>9}  (no stored threshold: give --threshold or --split)"
        print(line)
    for r in res["metrics"].values():
        if r.get("auroc_error"):
            print(f"n/a: {r['auroc_error']}")
            break
    for name, r in res["metrics"].items():
        if "systems" in r:
            _print_systems(name, r["systems"], args.system)
        elif args.system:
            print(f"\n{name}: no accuracy per system ('{args.system}'): it needs a threshold (give --threshold or "
                  f"--split)")
    if scorer is not None:
        for sig in scorer.signatures.values():
            print(f"signature: {sig}")
    return 0


def _with_ci(value: float, ci: Sequence[float] | None, width: int) -> str:
    """'0.875 [0.700, 1.000]' (an interval with no defined resample: [n/a]), or the value alone."""
    if ci is None:
        return f"{value:{width}.3f}"
    if any(math.isnan(x) for x in ci):
        return f"{value:.3f} [n/a]"
    return f"{value:.3f} [{ci[0]:.3f}, {ci[1]:.3f}]"


def _print_systems(name: str, sy: dict[str, Any], field: str) -> None:
    print(f"\n{name}: accuracy per system ('{field}'), estimated from its decisions vs the labels'")
    width = max(6, *(len(str(k)) for k in sy["human"]))
    print(f"{'system':<{width}}  estimated  human")
    for k, h in sy["human"].items():
        print(f"{str(k):<{width}}  {sy['estimated'][k]:9.3f}  {h:5.3f}")
    print(f"RMSE {sy['rmse']:.4f}; Kendall tau-b {sy['kendall']:.3f} (p {_p(sy['kendall_p'])})")

