#!/usr/bin/env bash
# Both pairs networks trained further on a GPU that is only lent for minutes, in one call: the
# CapsNet and the CNN baseline side by side on the one card, each on half of its host's cores, on
# the same new examples as people write them (capsnet/data/written.py: one digit or two, varied, in
# MNIST's ink or a pen's line, drawn on the GPU) from the same epoch on, from the shipped pairs
# weights, with a warm restart of the learning rate sized to the time there is. First an MNIST
# epoch, timed as bench/gpu_checks.sh times it (the card's epoch figure), and how fast the
# examples are made on the card against the paper's pairs on one core (bench/example_rate.py).
#
#     OUT=gpu-pairs bash bench/gpu_pairs.sh DATA SECONDS [BATCH] [LR]
#
# DATA: torchvision's MNIST folder (raw files, or gzipped ones to unpack); SECONDS: the whole run's
# budget (default 480); BATCH: pairs a step (default 256); LR: Adam's rate at the restart,
# decayed to a tenth of it by the last epoch (default 8e-4: the CPU's restart at batch 64 was 2e-4,
# and at 4 times the batch 4 times the rate learnt as much a pair: docs/training.md, Training on a GPU).
# What comes out lands in $OUT: log.txt as it runs; for each network, pairs.tgz / pairs-cnn.tgz
# (its folder's config.json, metrics.json and model card, and its output) and its
# model.safetensors in 15 MB parts (join with cat; the sha256 is in the log). PROBE and PAIRS
# (examples in a timed epoch and in a training epoch) default to 10000 and 55000, the most
# train.py's 55,000 training digits give an epoch; SINGLE, the share of them that hold one digit
# alone, 0.5 (the last CPU run's; the written examples' own share is a quarter).
set -u
DATA=${1:-./data}
BUDGET=${2:-480}
BATCH=${3:-256}
LR=${4:-8e-4}
OUT=${OUT:-gpu-pairs}
PY=${PYTHON:-python3}
PROBE=${PROBE:-10000}
VAL=${VAL:-5000}             # held-out digits to choose the epoch on (a smaller VAL only to try the script on a CPU)
PAIRS=${PAIRS:-55000}
SINGLE=${SINGLE:-0.5}        # the share of training examples that hold one digit alone (train.py --single-share)
source "$(dirname "$0")/gpu_prologue.sh"
CPUS=($($PY -c "import os; print(*sorted(os.sched_getaffinity(0)))"))   # the cores this may run on
HALF=$(( ${#CPUS[@]} / 2 ))
FIRST="taskset -c $(IFS=,; echo "${CPUS[*]:0:HALF}")"          # the CapsNet and its pair renderers
SECOND="taskset -c $(IFS=,; echo "${CPUS[*]:HALF}")"           # the CNN and its
trained() { $PY -c "import json; print(json.load(open('weights/$1/metrics.json'))['epochs'])"; }
DONE=$(trained pairs); DONE_CNN=$(trained pairs-cnn)
FROM=$(( (DONE > DONE_CNN ? DONE : DONE_CNN) + 1 ))   # both from the same epoch, so both see its examples

step "an MNIST epoch (55,000 images, data on the GPU, batch 128; the last of 2 timed)"
timeout 90 $PY -m bench.train_epoch --data-dir "$DATA" --images 55000 --epochs 2 --batch-size 128 --device-data on

step "examples made on the card, and the paper's pairs on one core"
timeout 90 $PY -m bench.example_rate --data-dir "$DATA" --device cuda --batches 50

probe() {     # pairs/s of both networks side by side on examples made as $1 says (train.py's --examples)
    step "pairs/s of both networks side by side, each on $HALF cores, --examples $1 (the last of 2 epochs of $PROBE)"
    $FIRST timeout 300 $PY -m bench.train_epoch --data-dir "$DATA" --task pairs --examples "$1" --images "$PROBE" \
        --epochs 2 --batch-size "$BATCH" > "$OUT/probe.txt" 2>&1 &
    local capsnet=$!
    $SECOND timeout 300 $PY -m bench.train_epoch --data-dir "$DATA" --task pairs --examples "$1" --model cnn \
        --images "$PROBE" --epochs 2 --batch-size "$BATCH" > "$OUT/probe-cnn.txt" 2>&1
    wait $capsnet
    cat "$OUT/probe.txt" "$OUT/probe-cnn.txt"
    RATE=$(rate "$OUT/probe.txt"); RATE_CNN=$(rate "$OUT/probe-cnn.txt")
    rm "$OUT/probe.txt" "$OUT/probe-cnn.txt"
}
rate() { sed -n 's/.*: [0-9.]* s, \([0-9]*\) pairs\/s.*/\1/p' "$1" | head -1; }
EXAMPLES=written
probe $EXAMPLES
if [ -z "$RATE" ] || [ -z "$RATE_CNN" ]; then      # rather the paper's pairs than no training at all
    echo "a probe failed on the written examples: the paper's pairs instead"
    EXAMPLES=mnist-pairs
    probe $EXAMPLES
fi
if [ -z "$RATE" ] || [ -z "$RATE_CNN" ]; then echo "a probe failed: no training"; exit 1; fi

# Both train the same epochs, as many as the slower fits in what is left but for the test reads
# and the packing after them (~40 s); an epoch with its validation and checkpoint is taken as 1.3
# times its steps' time.
TRAIN=$(( BUDGET - $(elapsed) - 40 ))
read -r EPOCHS DECAY MINUTES < <($PY -c "
slower = min($RATE, $RATE_CNN)
epochs = max(1, int($TRAIN / (1.3 * $PAIRS / slower)))
print(epochs, round(0.1 ** (1 / max(epochs - 1, 1)), 4), round($TRAIN / 60, 2))")
LAST=$(( FROM + EPOCHS - 1 ))
RUN=gpu-pairs-run              # outside \$OUT: only what is packed below comes back
rm -rf $RUN; mkdir -p $RUN
step "training epochs $FROM to $LAST ($EPOCHS of $PAIRS pairs, $(( EPOCHS * PAIRS )) pairs each), batch $BATCH, Adam from $LR x $DECAY an epoch, at most $MINUTES min"
FLAGS="--task pairs --examples $EXAMPLES --data-dir $DATA --val-size $VAL --start-epoch $FROM --epochs $LAST --pairs-per-epoch $PAIRS --batch-size $BATCH \
    --lr $LR --lr-decay $DECAY --max-minutes $MINUTES"
[ $EXAMPLES = written ] && FLAGS="$FLAGS --single-share $SINGLE"
RUNS=""
for network in pairs pairs-cnn; do
    if [ $network = pairs ]; then PIN=$FIRST; MODEL=capsnet; else PIN=$SECOND; MODEL=cnn; fi
    setsid $PIN timeout $(( TRAIN + 60 )) $PY train.py --model $MODEL --init-from weights/$network $FLAGS \
        --out $RUN/$network --checkpoint $RUN/$network.pt > $RUN/$network.txt 2>&1 < /dev/null &
    RUNS="$RUNS $!"
done
wait $RUNS
step "both ended"
for network in pairs pairs-cnn; do
    echo "--- $network"
    tr '\r' '\n' < $RUN/$network.txt | grep -a -E "^epoch [0-9]+: loss|chosen|rror|Traceback|stopping|device|nothing|test" \
        | tail -n 80
    if [ -f $RUN/$network/model.safetensors ]; then
        sha256sum $RUN/$network/model.safetensors
        split -b 15M -d $RUN/$network/model.safetensors "$OUT/$network.safetensors.part"
    fi
    tar czf "$OUT/$network.tgz" --exclude=model.safetensors -C $RUN $(cd $RUN && ls -d $network $network.txt 2>/dev/null)
done
step "done"
sleep 1      # tee writes out the log
