#!/usr/bin/env bash
# gpu_recipe.sh — a head for the embedded target (SmolLM2) in one command on a lent GPU box, within 25 minutes:
# generate -> featurize -> train (with a final measured-τ evaluation) -> export -> speed-up bench, and the
# folder that ships as the package's built-in head (recipe/builtin-head/, for `--draft builtin`).
#
#   bash bench/gpu_recipe.sh prepare OUT_DIR   CPU side, beforehand (the GPU box has no network, and its
#                                              PII/Presidio stack is missing): the public prompt sets from a local
#                                              folder ($RECIPE_SRC, see bench/recipe_data.py; RECIPE_FETCH=1 curls
#                                              missing ones), synthesize prompts, clean + decontaminate, write the
#                                              data manifest
#   bash ../shared/gpu/make_bundle.sh OUT_DIR  pack it for the box (OUT_DIR lands in $EK_WORK/data)
#   ek.sh start bench/gpu_recipe.sh            on the box (no arguments, no edits): the GPU run from $EK_WORK/data,
#                                              results in $EK_WORK/recipe/ (result.json, data_manifest.json,
#                                              train summary, the exported head)
#   bash bench/gpu_recipe.sh --dry-run [WORK]  the same pipeline end to end on CPU with the tiny target and tiny
#                                              sizes, no network (tests/test_gpu_recipe.py runs it)
#
# Prompt sets (prepare): each is read from a local copy and recorded with its URL, licence and sha256 in
# data_manifest.json (bench/recipe_data.py lists them).
#   train  GSM8K train (openai/grade-school-math, MIT), self-instruct seed tasks (yizhongw/self-instruct,
#          Apache-2.0), GPTeacher roleplay + codegen (teknium1/GPTeacher, MIT), databricks-dolly-15k (chat-style
#          instructions, CC BY-SA 3.0) where its file is given, and
#          `eaglekit data synth-prompts` (Magpie, sampled from the target itself)
#   decontaminated against (never trained on): MT-bench (lm-sys/FastChat), Spec-Bench (hemingkx/Spec-Bench),
#          HumanEval (openai/human-eval), GSM8K test, AlpacaEval (tatsu-lab/alpaca_eval)
#   held out for the measured τ: MT-bench's first turns (80 prompts, 8 categories)
# The last line printed is one JSON object: {"bench": "gpu_recipe", "targets": {...}, "figures": {...}}.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd); root=$(cd "$here/.." && pwd)
PY=${PY:-python3}
EK="$PY -m eaglekit.cli"
export TOKENIZERS_PARALLELISM=false PYTHONUNBUFFERED=1 TLDEXTRACT_PUBLIC_SUFFIX_LIST_URLS=
export PYTHONPATH="$root${PYTHONPATH:+:$PYTHONPATH}"
mode=run; [ "${1:-}" = "--dry-run" ] && { mode=dry; shift; }
[ "${1:-}" = "prepare" ] && { mode=prepare; shift; }
[ "${1:-}" = "run" ] && shift

now() { date +%s.%N; }
step() { echo "== $(date -u +%H:%M:%S) $*" >&2; }

# --- sizes -----------------------------------------------------------------------------------------------
if [ $mode = dry ]; then
  TARGET=tiny DEVICE=cpu DTYPE=float32
  N_SYNTH=4 GEN_LIMIT=24 MAX_NEW=8 GEN_BATCH=8 FEAT_ARGS="--codec bf16 --teacher final_hidden_postnorm"
  TRAIN_ARGS="--max-steps 4 --seq-len 64 --batch-size 2 --ttt-steps 2 --draft-vocab-size 512 --save-every 4 --eval-every 1000"
  EVAL_TOKENS=6
else
  TARGET=embedded DEVICE=cuda DTYPE=bfloat16
  # 14.9k clean prompts x 256 new tokens ran at 4.8k tok/s through generate_batch on an H100 (7 min)
  N_SYNTH=${N_SYNTH:-3000} GEN_LIMIT="" MAX_NEW=256 GEN_BATCH=512 FEAT_ARGS="--codec fp8 --teacher topk_logprobs --topk 32"
  # 2 epochs, batch 8 x 2048: ~490 steps in ~4 min on an H100
  TRAIN_ARGS="--epochs 2 --seq-len 2048 --batch-size 8 --lr 3e-4 --save-every 200 --eval-every 100"
  EVAL_TOKENS=128
fi

# --- prepare (CPU side; no network needed) --------------------------------------------------------------------
manifest_add() {  # NAME ROLE URL LICENCE FILE (the dry run's stand-ins)
  $PY - "$@" <<'EOF'
import hashlib, json, os, sys
name, role, url, licence, path = sys.argv[1:6]
m = json.load(open("data_manifest.json")) if os.path.exists("data_manifest.json") else {"sets": []}
rows = sum(1 for l in open(path, encoding="utf-8") if l.strip())
m["sets"].append({"name": name, "role": role, "url": url, "licence": licence, "file": os.path.basename(path),
                  "rows": rows, "sha256": hashlib.sha256(open(path, "rb").read()).hexdigest()})
json.dump(m, open("data_manifest.json", "w"), indent=1)
EOF
}

prepare() {  # OUT_DIR [--offline]: train sets + eval sets -> OUT_DIR/{clean, heldout.jsonl, data_manifest.json}
  local out=$1 offline=${2:-}
  mkdir -p "$out" && cd "$out" && rm -f data_manifest.json
  local trains=() evals=()
  if [ -z "$offline" ]; then
    # Each public set is read from a local folder ($RECIPE_SRC; bench/recipe_data.py names every file and where
    # it is published: GSM8K train/test (openai/grade-school-math data/train.jsonl, data/test.jsonl), self-instruct
    # seed_tasks.jsonl, GPTeacher, databricks-dolly-15k, MT-bench (mt_bench/question.jsonl), Spec-Bench,
    # HumanEval.jsonl.gz, alpaca_eval), each source's sha256 going to data_manifest.json; a missing one is named
    # with its URL. RECIPE_FETCH=1 curls the missing ones into that folder first (the only step needing network).
    $PY "$here/recipe_data.py" prepare --src "${RECIPE_SRC:-$HOME/.cache/eaglekit/recipe-data/src}" --out . \
      ${RECIPE_FETCH:+--fetch} >&2
    for f in *.jsonl; do
      case $f in eval_*) evals+=("$f");; heldout.jsonl) ;; *) trains+=("$f");; esac
    done
  else  # dry run: the project's own quickstart prompts stand in for the train sets, the bench's for the evals
    cp "$root/eaglekit/data/prompts.jsonl" quickstart.jsonl
    manifest_add quickstart train "eaglekit/data/prompts.jsonl (dry-run stand-in)" "project's own" quickstart.jsonl
    $PY -c "import json; from serving.bench import BUILTIN_PROMPTS as B; print(''.join(json.dumps({'id': f'{c}-{i}', 'prompt': p, 'category': c}) + '\n' for c, ps in B.items() for i, p in enumerate(ps)), end='')" > heldout.jsonl
    manifest_add bench_builtin decontaminate "serving/bench.py BUILTIN_PROMPTS (dry-run stand-in)" "project's own" heldout.jsonl
    trains=(quickstart.jsonl) evals=(heldout.jsonl)
  fi
  step "synth-prompts: $N_SYNTH prompts from $TARGET"
  local synth_dev=cpu; [ -z "$offline" ] && $PY -c "import torch,sys; sys.exit(not torch.cuda.is_available())" && synth_dev=cuda
  $EK data synth-prompts --target "$TARGET" --n "$N_SYNTH" --device $synth_dev --batch-size 64 --out synth.jsonl
  manifest_add synth_prompts train "eaglekit data synth-prompts --target $TARGET --n $N_SYNTH (Magpie)" "generated" synth.jsonl
  [ -s synth.jsonl ] && trains+=(synth.jsonl)
  step "clean: ${trains[*]}; decontaminated against ${evals[*]}"
  # the train sets with their licences and terms (clean refuses unknown terms); GPTeacher's prompts come from
  # GPT-4 under terms against competing models: allowed by name, a decision the manifest and data card record
  $PY "$here/recipe_data.py" sources-yaml .
  local args=(--sources sources.yaml --allow-source gpteacher_roleplay --allow-source gpteacher_codegen) pii=()
  for e in "${evals[@]}"; do args+=(--decontaminate "$e"); done
  [ -n "$offline" ] && pii=(--no-pii)  # Presidio + spaCy take minutes to load; the real prepare keeps PII on
  $EK beam run clean "${args[@]}" "${pii[@]}" --output clean
  $PY - <<'EOF'
import json
m = json.load(open("data_manifest.json")); c = json.load(open("clean/manifest.json"))
m["clean"] = {"counts": c.get("counts"), "config": c.get("config")}
json.dump(m, open("data_manifest.json", "w"), indent=1)
EOF
  cd - >/dev/null
}

if [ $mode = prepare ]; then
  prepare "$(mkdir -p "${1:?give OUT_DIR}" && cd "$1" && pwd)"
  echo "prepared ${1}: now bash ../shared/gpu/make_bundle.sh $1 and run bench/gpu_recipe.sh on the box" >&2
  exit 0
fi

# --- the run (GPU box; CPU in --dry-run) -----------------------------------------------------------------
if [ $mode = dry ]; then
  W=$(mkdir -p "${1:-$(mktemp -d)}" && cd "${1:-.}" && pwd); DATA=$W/data; OUTD=$W/recipe
  rm -rf "$DATA" "$OUTD"; mkdir -p "$DATA"
  step "dry run in $W: prepare (offline stand-ins)"
  prepare "$DATA" --offline
else
  W=${EK_WORK:-$HOME/ekgpu}; DATA=${1:-$W/data}; OUTD=$W/recipe
  [ -d "$DATA/clean" ] || { echo "no $DATA/clean: run 'bench/gpu_recipe.sh prepare DIR' on the CPU side and bundle it" >&2; exit 2; }
  $PY -c "import torch, sys; sys.exit(0 if torch.cuda.is_available() else 'no CUDA device: use --dry-run on CPU')"
  rm -rf "$OUTD"
fi
mkdir -p "$OUTD"; cp "$DATA/data_manifest.json" "$OUTD/" 2>/dev/null || true
t0=$(now)
step "generate ($TARGET, $DEVICE, $DTYPE, batch $GEN_BATCH, $MAX_NEW new tokens)"
$EK beam run generate --input "$DATA/clean" --output "$OUTD/gen" --target "$TARGET" --device $DEVICE --dtype $DTYPE \
  --batch-size $GEN_BATCH --max-new-tokens $MAX_NEW ${GEN_LIMIT:+--limit $GEN_LIMIT}
t1=$(now)
step "featurize"
$EK beam run featurize --input "$OUTD/gen" --output "$OUTD/feats" --target "$TARGET" --device $DEVICE --dtype $DTYPE $FEAT_ARGS
t2=$(now)
step "train (+ final measured τ on the held-out prompts)"
$EK train --data "$OUTD/feats" --out "$OUTD/run" --target "$TARGET" --device $DEVICE --no-progress $TRAIN_ARGS \
  --final-eval-prompts "$DATA/heldout.jsonl" --final-eval-max-tokens $EVAL_TOKENS
t3=$(now)
step "export"
$EK train export "$OUTD/run/best" "$OUTD/head" --format sglang
# the folder `--draft builtin` reads once it is copied to eaglekit/data/heads/ (eaglekit/heads.py), with what
# its model card (bench/MODEL_CARD.md) is filled in from
SHIP="$OUTD/builtin-head/smollm2-135m-instruct"; rm -rf "$SHIP"; mkdir -p "$SHIP"
cp "$OUTD/head/config.json" "$OUTD/head/model.safetensors" "$SHIP/"
t4=$(now)
if [ $mode = run ]; then
  step "speed-up bench (bench/serve.py, embedded engine on cuda)"
  $PY "$root/bench/serve.py" --head "$OUTD/head" --target "$TARGET" --device cuda --no-concurrency \
    | tail -n 1 > "$OUTD/serve.json" || echo '{}' > "$OUTD/serve.json"
else
  echo '{}' > "$OUTD/serve.json"
fi
t5=$(now)
$PY - "$OUTD" "$mode" "$t0" "$t1" "$t2" "$t3" "$t4" "$t5" <<'EOF'
import json, sys
out, mode, *t = sys.argv[1:]
t = [float(x) for x in t]
gen = json.load(open(f"{out}/gen/manifest.json")); summ = json.load(open(f"{out}/run/summary.json"))
fe = summ.get("final_eval") or {}
serve = json.load(open(f"{out}/serve.json"))
minutes = (t[-1] - t[0]) / 60
figures = {"mode": mode, "generate_s": round(t[1] - t[0], 1), "featurize_s": round(t[2] - t[1], 1),
           "train_and_final_eval_s": round(t[3] - t[2], 1), "export_s": round(t[4] - t[3], 1),
           "serve_bench_s": round(t[5] - t[4], 1), "total_minutes": round(minutes, 2),
           "generate_counts": gen["counts"]["generate"], "generate_throughput": gen.get("throughput"),
           "train_steps": summ["step"], "train_tokens": summ["tokens"], "sim_tau": summ.get("sim_tau"),
           "measured_tau_chain": (fe.get("runs") or [{}])[0].get("accept_length"),
           "measured_tau_tree": (fe.get("runs") or [{}, {}])[-1].get("accept_length"),
           "final_eval": fe, "serve": serve.get("figures") or serve.get("targets")}
import os, shutil
ship = f"{out}/builtin-head/smollm2-135m-instruct"
head_mb = round(os.path.getsize(f"{ship}/model.safetensors") / 2**20, 2)
figures["builtin_head"] = {"folder": ship, "model_safetensors_mb": head_mb,
                           "ship": f"cp -r {ship} eaglekit/data/heads/ (then fill bench/MODEL_CARD.md into it)"}
result = {"bench": "gpu_recipe",
          "targets": {"total_minutes": {"value": round(minutes, 2), "op": "<=", "goal": 25},
                      "builtin_head_mb": {"value": head_mb, "op": "<=", "goal": 25}},
          "figures": figures}
json.dump(result, open(f"{out}/result.json", "w"), indent=1)
for name in ("result.json", "data_manifest.json"):
    if os.path.exists(f"{out}/{name}"):
        shutil.copy(f"{out}/{name}", ship)
print(json.dumps(result))
EOF
