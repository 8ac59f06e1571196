# Sourced by bench/gpu_checks.sh and bench/gpu_pairs.sh, once DATA, OUT and PY are set: everything
# printed from here on also goes to $OUT/log.txt; `step` heads each part with the seconds since the
# start; the machine is described, and MNIST's gzipped files in DATA are unpacked.
START=$(date +%s)
mkdir -p "$OUT"
exec > >(tee "$OUT/log.txt") 2>&1
export PYTHONUNBUFFERED=1 CAPSNET_DATA_DIR=$DATA
elapsed() { echo $(( $(date +%s) - START )); }
step() { echo; echo "=== $(elapsed) s: $*"; }

step "the machine"
nvidia-smi --query-gpu=name,memory.total,driver_version,clocks.sm,clocks.max.sm --format=csv
$PY -c "import torch, torchvision; print('torch', torch.__version__, 'cuda', torch.version.cuda, 'cudnn', torch.backends.cudnn.version(), 'torchvision', torchvision.__version__, torch.cuda.get_device_name() if torch.cuda.is_available() else 'no GPU')"
grep -m1 'model name' /proc/cpuinfo; echo "$(nproc) cores"
for f in "$DATA"/MNIST/raw/*.gz; do [ -e "$f" ] && gunzip -kf "$f"; done
