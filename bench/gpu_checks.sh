#!/usr/bin/env bash
# The CUDA checks in one run, for a machine with a GPU that is only lent for minutes: the GPU
# tests, the fast tier of tests, the training step's throughput with a profile, whole epochs, and
# a CapsNet retrained from scratch under train.py's validation protocol for what time is left,
# its epochs and learning-rate decay set from the epoch time just measured.
#
#     OUT=gpu-checks bash bench/gpu_checks.sh DATA SECONDS
#
# DATA: torchvision's MNIST folder (raw files, or gzipped ones to unpack); SECONDS: the whole run's
# budget (default 540). What comes out lands in $OUT: log.txt as it runs; once the retrain ends,
# retrain.tgz (its folder: config.json, metrics.json, its model card; its output; the epoch
# timings) and its model.safetensors in 15 MB parts (join with cat; the sha256 is in the log).
set -u
DATA=${1:-./data}
BUDGET=${2:-540}
OUT=${OUT:-gpu-checks}
PY=${PYTHON:-python3}
source "$(dirname "$0")/gpu_prologue.sh"

step "the GPU tests"
timeout 150 $PY -m pytest -m gpu -p no:cacheprovider -q -rs tests/test_cuda.py tests/test_datasets.py tests/test_pairs.py

step "whole epochs of train.py (55,000 images, data on the GPU, the last of 2 epochs timed)"
timeout 100 $PY -m bench.train_epoch --data-dir "$DATA" --images 55000 --epochs 2 --batch-size 128 --device-data on \
    | tee "$OUT/epoch.txt"
EPOCH=$(sed -n 's/.*global batch 128.*: \([0-9.]*\) s, .*/\1/p' "$OUT/epoch.txt" | head -1)
echo "the epoch's steps: ${EPOCH:-unmeasured (10 assumed)} s"

# The retrain gets what is left but for its test read and the benchmark after it (~100 s); an
# epoch with its validation and checkpoint is taken as 1.4 times its steps' time.
TRAIN=$(( BUDGET - $(elapsed) - 100 ))
read -r EPOCHS DECAY MINUTES < <($PY -c "
epochs = max(5, min(300, int($TRAIN / (1.4 * float('${EPOCH:-10}')))))
# 0.9 an epoch up to 50 epochs; a longer run decays slower, to the same 0.9^50 at its end
print(epochs, round(0.9 ** (50 / max(epochs, 50)), 4), round($TRAIN / 60, 2))")
RUN=gpu-retrain                # outside \$OUT: only what is packed below comes back
rm -rf $RUN; mkdir -p $RUN
mv "$OUT/epoch.txt" $RUN/
step "the retrain: $EPOCHS epochs of batch 128 at 1e-3 x $DECAY an epoch, at most $MINUTES min"
setsid timeout $(( TRAIN + 60 )) $PY train.py --data-dir "$DATA" --batch-size 128 --epochs "$EPOCHS" --lr 1e-3 --lr-decay "$DECAY" \
    --max-minutes "$MINUTES" --out $RUN/weights --checkpoint $RUN/last.pt > $RUN/retrain.txt 2>&1 < /dev/null &
RETRAIN=$!

step "the fast tier of tests, beside the retrain (on this machine's packages: no gradio here)"
WORKERS=$($PY -c "import xdist" 2>/dev/null && echo "-n 6")    # pytest-xdist where the machine has it
timeout $(( TRAIN - 20 )) $PY -m pytest -m "not slow" -p no:cacheprovider -q $WORKERS -rfE \
    --continue-on-collection-errors 2>&1 | tail -60

wait $RETRAIN
step "the retrain ended ($?)"
tr '\r' '\n' < $RUN/retrain.txt | grep -a -E "^epoch [0-9]+: loss|chosen|rror|Traceback|stopping|device|nothing" \
    | tail -n 320
if [ -f $RUN/weights/model.safetensors ]; then
    sha256sum $RUN/weights/model.safetensors
    split -b 15M -d $RUN/weights/model.safetensors "$OUT/model.safetensors.part"
fi
tar czf "$OUT/retrain.tgz" --exclude=model.safetensors $RUN/weights $RUN/retrain.txt $RUN/epoch.txt

step "the training step's throughput (steps alone, random images) and a profile"
left() { local seconds=$(( BUDGET - $(elapsed) - $1 )); echo $(( seconds > 10 ? seconds : 10 )); }
timeout "$(left 5)" $PY -m bench.train_throughput --device cuda --batch-size 128 256 512 1024 \
    --steps 30 --repeats 3 --warmup 5 --profile
step "done"
sleep 1      # tee writes out the log
