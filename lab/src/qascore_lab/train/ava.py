"""`qascore-lab train ava --config NAME`: train and evaluate one AVA configuration.

A configuration (JSON, in qascore_lab/resources/ava_configs/ or a path) names a model
(svm, A0, A1, A2), its layout and training settings. Training data are
AVA-Pos/Neg triples from WikiQA train; the dev-F1 threshold and early stopping
use WikiQA dev; the report gives precision / recall / F1 / accuracy / AUROC on
WikiQA test triples and, out of domain, on TREC-QA clean-dev triples.

`--extra-train trecqa` adds triples built by the same rules from TREC-QA train
(a model for the system-wise study, not for the zero-shot check): its
TREC-QA clean-dev figures are then marked as not zero-shot.
"""

from __future__ import annotations

import argparse
import json
import shutil
import time
from pathlib import Path
from typing import Any, Sequence

import numpy as np

from qascore_lab.datasets import data_root
from qascore_lab.datasets.as2 import EXTRA_TRAIN
from qascore.runtime import defaults
from qascore.runtime.ava_layouts import AVA_DIR

CONFIG_DIR = Path(__file__).resolve().parent.parent / "resources" / "ava_configs"


def load_config(name: str) -> dict[str, Any]:
    """A config by name (qascore_lab/resources/ava_configs/NAME.json) or by path."""
    p = Path(name)
    if not p.suffix:
        p = CONFIG_DIR / f"{name}.json"
    if not p.exists():
        known = sorted(f.stem for f in CONFIG_DIR.glob("*.json"))
        raise SystemExit(f"no AVA config '{name}'; known: {', '.join(known)}")
    cfg = json.loads(p.read_text(encoding="utf-8"))
    cfg.setdefault("name", p.stem)
    return cfg


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--evaluate", default=None, metavar="DELTA",
                   help="do not train: evaluate an existing verifier delta point-wise (e.g. the as2-qt reranker)")
    p.add_argument("--config", default="",
                   help="config name (see qascore_lab/resources/ava_configs) or JSON path; several, comma-separated, "
                        "share one cache of the frozen lower layers")
    p.add_argument("--data", default=None, help="folder holding wikiqa/ and trecqa/ (default: $QASCORE_DATA or ../shared/data)")
    p.add_argument("--out", default="runs/ava", help="folder for the delta/JSON model and the report")
    p.add_argument("--threads", type=int, default=1, help="torch CPU threads (default 1)")
    p.add_argument("--seed", type=int, default=None, help="override the config's seed")
    p.add_argument("--cache", default=None,
                   help="folder to keep frozen lower-layer states between runs (safetensors; speeds up re-runs)")
    p.add_argument("--table", action="store_true",
                   help="do not train: print the Table-4-style table of the configs' reports found in --out")
    p.add_argument("--extra-train", default="", metavar="CORPORA",
                   help="also train on AVA triples from these corpora (comma-separated; known: "
                        f"{', '.join(EXTRA_TRAIN)}); the model is named <config>-<corpus> and its "
                        "TREC-QA clean-dev figures are not zero-shot")
    p.add_argument("--extra-max-pos", type=int, default=None, metavar="N",
                   help="at most N positive pairs per question of an extra corpus (seeded); negatives "
                        "then follow the config's neg_ratio")
    p.add_argument("--ship", action="store_true",
                   help="also copy the trained model into the package as the `ava-<name>` resource")


# -- data -------------------------------------------------------------------

def read_extra(data: Path, name: str) -> list[Any]:
    """The AS2 questions of an extra training corpus."""
    from qascore_lab.datasets import DataNotFound
    from qascore_lab.datasets.as2 import read_extra_train

    try:
        return read_extra_train(name, data)
    except (ValueError, DataNotFound, FileNotFoundError) as err:
        raise SystemExit(f"--extra-train {name}: {err}") from err


def load_splits(data: Path, cfg: dict[str, Any], info: dict[str, Any] | None = None) -> dict[str, Any]:
    """Triples for train (subsampled as configured, plus any extra corpora), dev, test and TREC-QA clean-dev.

    A training question (WikiQA train or an extra corpus) that an evaluation split (WikiQA dev/test,
    TREC-QA clean-dev) also holds, by id or normalised text, is dropped and listed in `info`;
    `check_disjoint` then guards the result.
    """
    from qascore_lab.datasets.as2 import read_answer_phrases, read_trecqa, read_wikiqa
    from qascore_lab.train.ava_data import build_combined, build_triples, check_disjoint, drop_overlap, tag

    wiki = data / "wikiqa"
    if not wiki.exists():
        raise SystemExit(f"{wiki} not found; pass --data pointing at the folder with wikiqa/ and trecqa/")
    splits = {s: read_wikiqa(wiki, s) for s in ("train", "dev", "test")}
    trec_dir = data / "trecqa" / "clean-dev"
    trec_qs = read_trecqa(trec_dir) if trec_dir.exists() else []
    held_out = (splits["dev"], splits["test"], trec_qs)
    splits["train"], dropped = drop_overlap(splits["train"], held_out)
    extra = {}
    for n in cfg.get("extra_train") or []:
        extra[n], gone = drop_overlap(read_extra(data, n), held_out)
        dropped += tag(gone, n)
    if info is not None:
        info["dropped_from_train"] = [f"{q.qid}: {q.question}" for q in dropped]
    train_qs = splits["train"] + [q for n, qs in extra.items() for q in tag(qs, n)]
    check_disjoint({"train": train_qs, "dev": splits["dev"], "test": splits["test"]})
    phrases = read_answer_phrases(wiki / "WikiQASent.pos.ans.tsv")
    seed = int(cfg.get("seed", 13))
    train = build_triples(splits["train"], short=phrases, neg_ratio=cfg.get("neg_ratio"), seed=seed)
    if extra:
        train = build_combined(train, extra, neg_ratio=cfg.get("neg_ratio"),
                               max_pos_per_question=cfg.get("extra_max_pos"), seed=seed)
    out = {"train": train,
           "dev": build_triples(splits["dev"], short=phrases),
           "test": build_triples(splits["test"], short=phrases)}
    if trec_dir.exists():
        check_disjoint({"train": train_qs, "trec-clean-dev": trec_qs})
        trec = build_triples(trec_qs)
        cap = int(cfg.get("trec_sample", 1500))
        if len(trec) > cap:
            keep = sorted(np.random.default_rng(seed).choice(len(trec), cap, replace=False).tolist())
            trec = [trec[k] for k in keep]
        out["trec-clean-dev"] = trec
    return out


# -- evaluation ---------------------------------------------------------------

def pointwise(probs: np.ndarray, labels: Sequence[int], threshold: float) -> dict[str, float]:
    """Precision / recall / F1 / accuracy at the dev-tuned threshold, plus AUROC."""
    from qascore.meta.classification import auroc, binary_scores

    b = binary_scores(probs, list(labels), threshold)
    return {"precision": b.precision, "recall": b.recall, "f1": b.f1, "accuracy": b.accuracy,
            "auroc": auroc(probs, list(labels)), "n": b.n, "positives": b.n_positive}


def _predict_svm(model: Any, triples: Sequence[Any]) -> np.ndarray:
    from qascore_lab.train.svm import features

    x = np.array([features(t.question, t.reference, t.target, t.short) for t in triples])
    return model.predict_proba(x)


# -- run --------------------------------------------------------------------

def train_config(cfg: dict[str, Any], data: Path, out: Path, *, threads: int = 1,
                 log: Any = print, cache: Any = None) -> dict[str, Any]:
    """Train one configuration, evaluate it, save model + report; returns the report."""
    from qascore.meta.classification import tune_threshold
    from qascore_lab.train.ava_data import stats, to_records

    out.mkdir(parents=True, exist_ok=True)
    name = cfg["name"]
    t0 = time.time()
    info: dict[str, Any] = {}
    data_splits = load_splits(data, cfg, info)
    report: dict[str, Any] = {"name": name, "config": cfg,
                              "data": {k: stats(v) for k, v in data_splits.items()}, **info}
    if cfg.get("extra_train"):
        report["extra_train"] = list(cfg["extra_train"])
        report["data"]["train-wikiqa"] = stats([t for t in data_splits["train"] if ":" not in t.qid])
        for corpus in cfg["extra_train"]:
            report["data"][f"train-{corpus}"] = stats([t for t in data_splits["train"]
                                                       if t.qid.startswith(f"{corpus}:")])
    log(f"[{name}] data: {json.dumps(report['data'])}")
    dev_labels = [t.label for t in data_splits["dev"]]
    if cfg["model"] == "svm":
        from qascore_lab.train.svm import features, fit

        tr = data_splits["train"]
        x = np.array([features(t.question, t.reference, t.target, t.short) for t in tr])
        model = fit(x, [t.label for t in tr], seed=int(cfg.get("seed", 13)), c=float(cfg.get("C", 1.0)),
                    class_weight=cfg.get("class_weight", "balanced"))
        model.threshold = tune_threshold(_predict_svm(model, data_splits["dev"]), dev_labels, "f1")
        predict = lambda triples: _predict_svm(model, triples)  # noqa: E731
        threshold = model.threshold
        path = out / f"{name}.json"
        train_seconds = time.time() - t0
        model.save(path, {"name": name, "config": cfg})
    else:
        import torch

        from qascore.runtime import ava_layouts
        from qascore.runtime.verifier import VerifierSpec
        from qascore_lab.train.verifier import TrainConfig, train

        torch.set_num_threads(threads)
        layout = ava_layouts.make_layout(cfg["layout"])
        spec = VerifierSpec(layout=cfg["layout"], n_views=ava_layouts.n_views(cfg["layout"]),
                            encoder=cfg.get("encoder", defaults.ENCODER), max_len=int(cfg.get("max_len", 128)),
                            train_layers=int(cfg.get("train_layers", 1)),
                            share_top=bool(cfg.get("share_top", False)), peer=bool(cfg.get("peer", False)),
                            pool=cfg.get("pool", "cls"))
        tcfg = TrainConfig(epochs=int(cfg.get("epochs", 2)), batch_size=int(cfg.get("batch_size", 16)),
                           lr=float(cfg.get("lr", 5e-5)), head_lr=float(cfg.get("head_lr", 1e-3)),
                           seed=int(cfg.get("seed", 13)), threads=threads,
                           init=str(out / f"{cfg['init']}.safetensors") if cfg.get("init") else None)
        recs, labels = to_records(data_splits["train"])
        ver = train(spec, layout, recs, labels, tcfg, dev=to_records(data_splits["dev"]),
                    log=lambda s: log(f"[{name}] {s}"), cache=cache)
        train_seconds = time.time() - t0
        threshold = ver.threshold
        predict = lambda triples: ver.predict(to_records(triples)[0], cache=cache)  # noqa: E731
        path = out / f"{name}.safetensors"
        ver.save(path, {"name": name, "config": cfg})
    report["train_seconds"] = round(train_seconds, 1)
    report["threshold"] = threshold
    report["model_file"] = str(path)
    report["model_bytes"] = path.stat().st_size
    for split in ("dev", "test", "trec-clean-dev"):
        if split not in data_splits:
            continue
        t1 = time.time()
        probs = predict(data_splits[split])
        report[split] = pointwise(probs, [t.label for t in data_splits[split]], threshold)
        report[split]["seconds"] = round(time.time() - t1, 1)
        if split == "trec-clean-dev" and "trecqa" in (cfg.get("extra_train") or []):
            report[split]["zero_shot"] = False
            report[split]["note"] = "not zero-shot: TREC-QA train was in the training data (TREC domain seen)"
        log(f"[{name}] {split}: " + ", ".join(f"{k} {v:.4f}" if isinstance(v, float) else f"{k} {v}"
                                               for k, v in report[split].items()))
    report["total_seconds"] = round(time.time() - t0, 1)
    (out / f"{name}.report.json").write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    return report


def format_table(reports: Sequence[dict[str, Any]]) -> str:
    """One row per configuration: the paper's Table 4 (F1) plus P / R / accuracy / AUROC, WikiQA test
    and TREC-QA clean-dev, at the threshold tuned for F1 on WikiQA dev."""
    head = ("| configuration | layout | test P | test R | test F1 | test acc | test AUROC "
            "| TREC P | TREC R | TREC F1 | TREC AUROC | train s | model bytes |")
    lines = [head, "|" + "---|" * (head.count("|") - 1)]
    for r in reports:
        t, o = r["test"], r.get("trec-clean-dev", {})
        f = lambda d, k: f"{d[k]:.4f}" if k in d else "-"  # noqa: E731
        layout = str(r["config"].get("layout", "4 features")).replace("|", "\\|")  # markdown cell
        seen = " (TREC not zero-shot)" if o.get("zero_shot") is False else ""
        lines.append(f"| {r['name']}{seen} | {layout}"
                     f"{' (peer)' if r['config'].get('peer') else ''} | {f(t, 'precision')} | {f(t, 'recall')} "
                     f"| {f(t, 'f1')} | {f(t, 'accuracy')} | {f(t, 'auroc')} | {f(o, 'precision')} "
                     f"| {f(o, 'recall')} | {f(o, 'f1')} | {f(o, 'auroc')} | {r['train_seconds']} "
                     f"| {r['model_bytes']} |")
    return "\n".join(lines)


def evaluate_model(path: Path, data: Path, out: Path, *, threads: int = 1) -> dict[str, Any]:
    """Point-wise evaluation of an existing verifier delta on the AVA triples (threshold: best F1 on dev)."""
    import torch

    from qascore.meta.classification import tune_threshold
    from qascore.runtime.ava_layouts import load_verifier
    from qascore_lab.train.ava_data import stats, to_records

    torch.set_num_threads(threads)
    ver = load_verifier(path)
    cfg = {"name": f"{path.stem}-eval", "model": "existing", "layout": ver.spec.layout, "file": str(path)}
    splits = load_splits(data, cfg)
    report: dict[str, Any] = {"name": cfg["name"], "config": cfg, "data": {k: stats(v) for k, v in splits.items()},
                              "train_seconds": ver.info.get("seconds", 0), "model_file": str(path),
                              "model_bytes": path.stat().st_size}
    probs = {k: ver.predict(to_records(v)[0]) for k, v in splits.items() if k != "train"}
    report["threshold"] = thr = tune_threshold(probs["dev"], [t.label for t in splits["dev"]], "f1")
    for k, p in probs.items():
        report[k] = pointwise(p, [t.label for t in splits[k]], thr)
        print(f"[{cfg['name']}] {k}: " + ", ".join(f"{a} {b:.4f}" for a, b in report[k].items()), flush=True)
    (out / f"{cfg['name']}.report.json").write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    return report


def run(args: argparse.Namespace) -> int:
    from qascore.runtime.partial import StateCache

    if args.evaluate:
        evaluate_model(Path(args.evaluate), data_root(args.data), Path(args.out), threads=args.threads)
        return 0

    if args.table:
        reports = []
        for name in args.config.split(","):
            p = Path(args.out) / f"{name.strip()}.report.json"
            if p.exists():
                reports.append(json.loads(p.read_text(encoding="utf-8")))
            else:
                print(f"(no report for {name.strip()} in {args.out})")
        print(format_table(reports))
        return 0

    caches: dict[int, StateCache] = {}  # one per number of frozen layers
    extra = [c.strip() for c in args.extra_train.split(",") if c.strip()]
    for name in args.config.split(","):
        cfg = load_config(name.strip())
        if args.seed is not None:
            cfg["seed"] = args.seed
        if extra:
            cfg["extra_train"] = extra
            cfg["name"] = "-".join([cfg["name"], *extra])
            if args.extra_max_pos is not None:
                cfg["extra_max_pos"] = args.extra_max_pos
        cache = caches.setdefault(int(cfg.get("train_layers", 1)),
                                  StateCache(Path(args.cache) if args.cache else None))
        report = train_config(cfg, data_root(args.data), Path(args.out), threads=args.threads,
                              log=lambda s: print(s, flush=True), cache=cache)
        cache.save()
        if args.ship:
            dest = AVA_DIR
            src = Path(report["model_file"])
            shutil.copy(src, dest / f"ava-{cfg['name']}{src.suffix}")
            print(f"shipped {dest / ('ava-' + cfg['name'] + src.suffix)}")
    return 0
