#!/usr/bin/env bash
# Issue 20's comparison in one shell call on one machine: PyTorch's own CNN step and a functorch DP-SGD step
# (scripts/bench-pytorch-cnn.py), then dp4j's DP step against DL4J's fit (PerformanceBenchmark --only cnn), all at
# one thread, float32, batch 256. Needs the shaded jar (mvn -B -q -DskipTests package) and PyTorch with functorch
# (Debian: apt-get install python3-torch). Not part of the tests or of CI.
#
#   bash scripts/bench-vs-pytorch.sh [rounds]
set -euo pipefail
cd "$(dirname "$0")/.."
rounds="${1:-5}"
export OMP_NUM_THREADS=1 MKL_NUM_THREADS=1
python=/usr/bin/python3
[ -x "$python" ] || python=python3
echo "== load average: $(cut -d' ' -f1-3 /proc/loadavg)"
"$python" scripts/bench-pytorch-cnn.py --rounds "$rounds"
"$python" scripts/bench-pytorch-cnn.py --rounds "$rounds" --model tanh
java -cp dp4j-samples/target/dp4j.jar org.dp4j.samples.bench.PerformanceBenchmark --only cnn --rounds "$rounds"
"$python" scripts/bench-pytorch-cnn.py --rounds "$rounds"
"$python" scripts/bench-pytorch-cnn.py --rounds "$rounds" --model tanh
echo "== load average: $(cut -d' ' -f1-3 /proc/loadavg)"
