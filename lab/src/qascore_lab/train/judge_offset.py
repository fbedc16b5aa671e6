"""`qascore-lab train judge-offset`: one more rule feature for the shipped judge card, as an offset fitted alone.

The card's trees, Platt scaling, threshold and other offsets stay as they are; the new yes/no feature is appended
to the card's features (no tree reads it) with the log-odds offset that maximises the likelihood of the labels of
the rows where it fires, given the card's own log-odds there. A rule that fires on few rows (a list answer with too
few items) is fitted where it fires, on rows neither the trees nor the verifier read, without refitting the rest.
A routed card's offset goes on its short-gold card, fitted on the rows that card reads (`judge.routes`); the
sentence card does not read the feature. Deterministic: no seed. The fit is written into the card (`offset_fits`)
beside the command.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

import numpy as np
from scipy.optimize import minimize_scalar

from qascore.metrics import judge
from qascore.records import Record
from qascore.runtime.delta import file_sha256

BOUNDS = (-20.0, 0.0)  # a rule only lowers the score (the card's monotone rule); -20 is certain rejection


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--feature", required=True, help=f"a yes/no rule feature of qascore.metrics.judge not on the card "
                                                    f"(one of {', '.join(judge.SIGNALS)})")
    p.add_argument("--rows", action="append", required=True, metavar="JSONL",
                   help="labelled rows (question, candidate, references, label) to fit on; repeatable")
    p.add_argument("--card", default=str(judge.DEFAULT_MODEL),
                   help="the card to extend, in place (default: the shipped one; a routed card's short-gold card, on "
                        "the rows it reads); its trees file stays beside it")
    p.add_argument("--sentences", action="store_true",
                   help="also the card's routed sentence card: one offset for both, fitted on the rows each reads")


def fit_offset(log_odds: np.ndarray, labels: np.ndarray) -> float:
    """The offset o maximising sum log sigmoid(+-(log_odds + o)) over rows labelled 1 / 0."""
    def loss(o: float) -> float:
        z = log_odds + o
        return float(np.sum(labels * np.logaddexp(0, -z) + (1 - labels) * np.logaddexp(0, z)))
    return float(minimize_scalar(loss, bounds=BOUNDS, method="bounded", options={"xatol": 1e-6}).x)


def _log_odds(loaded: dict[str, Any], features: list[str], records: list[Record]) -> np.ndarray:
    """The card's log-odds for `records`, read as the metric reads them (its own verifier, its tagger precision)."""
    x = judge.features(records, features, verifier=judge.card_verifier(loaded),
                       tagger_int8=judge.reads_tagger_in_int8(loaded))
    p = np.clip(judge.predict(loaded, x), 1e-9, 1 - 1e-9)
    return np.asarray(np.log(p / (1 - p)))


def run(args: argparse.Namespace) -> int:
    path = Path(args.card)
    stored: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))  # as stored: the trees by file name
    route, both = stored.get(judge.SENTENCES), getattr(args, "sentences", False)
    if both and route is None:
        raise SystemExit(f"train judge-offset: {path} routes to no sentence card")
    paths = [path, *([path.parent / route["card"]] if both else [])]
    cards = [stored, *(json.loads(p.read_text(encoding="utf-8")) for p in paths[1:])]
    if args.feature not in judge.SIGNALS or any(args.feature in c["features"] for c in cards):
        raise SystemExit(f"train judge-offset: {args.feature} must be a rule feature of the judge not yet on the card")
    rows = [json.loads(line) for p in args.rows for line in open(p, encoding="utf-8") if line.strip()]
    recs = [Record(id=str(k), question=r["question"], candidate=r["candidate"], references=list(r["references"]))
            for k, r in enumerate(rows)]
    routing = judge.read_card(str(path))
    fires = judge.features(recs, (args.feature,))[:, 0] > 0
    log_odds, labels = [], []
    for loaded, idx in judge.routes(routing, recs):  # each card's fired rows, read by that card
        if loaded is routing or both:
            picked = [i for i in idx if fires[i]]
            card = cards[0] if loaded is routing else cards[1]
            log_odds.append(_log_odds(loaded, card["features"], [recs[i] for i in picked]) if picked else np.zeros(0))
            labels.append(np.array([int(rows[i]["label"]) for i in picked], dtype=float))
    y = np.concatenate([np.zeros(0), *labels])
    if len(y) == 0:
        raise SystemExit(f"train judge-offset: {args.feature} fires on none of the {len(rows)} rows")
    offset = fit_offset(np.concatenate(log_odds), y)
    fit = {"rows": len(rows), "fired": len(y), "fired_correct": int(y.sum()), "offset": offset,
           "command": "qascore-lab train judge-offset " + " ".join(sys.argv[sys.argv.index("judge-offset") + 1:])
           if "judge-offset" in sys.argv else None}
    for card, p in reversed(list(zip(cards, paths))):  # the sentence card first: the routing card names it by hash
        card["features"] = [*card["features"], args.feature]
        card["offsets"] = {**card.get("offsets", {}), args.feature: offset}
        card.setdefault("offset_fits", {})[args.feature] = fit
        if p == path and both:
            card[judge.SENTENCES]["sha256"] = file_sha256(paths[1])
        p.write_text(json.dumps(card, separators=(",", ":")) + "\n", encoding="utf-8")  # as `write_card` does
    print(f"{args.feature}: fires on {len(y)} of {len(rows)} rows ({int(y.sum())} correct); offset {offset:.4f}; "
          f"wrote {', '.join(map(str, paths))}")
    return 0
