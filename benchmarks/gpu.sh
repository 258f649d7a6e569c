#!/usr/bin/env bash
# The GPU checks and benchmarks of pujax, in two stages that each fit a 10-minute window on one GPU machine.
#   bash benchmarks/gpu.sh 1 OUTDIR   # every estimator on the GPU vs the CPU; MNIST nnPU, 5 seeds, 100/200 epochs,
#                                     # both minibatch layouts
#   bash benchmarks/gpu.sh 2 OUTDIR   # the method tests on the GPU; the estimators again; MNIST nnPU 200 epochs;
#                                     # VPU vs nnPU on MNIST; CIFAR-10 CNN (10 epochs)
#   bash benchmarks/gpu.sh 3 OUTDIR   # the neural tests on the GPU; MNIST nnPU with model selection on 10 % held-out
#                                     # rows (100 / 200 epochs, both layouts); VPU vs nnPU, full protocol
#   bash benchmarks/gpu.sh 4 OUTDIR   # Ada-PU on CIFAR-10 raw pixels (3 seeds); MNIST nnPU with model selection,
#                                     # stream layout, 100 and 200 epochs (the second a repeat of stage 3)
#   bash benchmarks/gpu.sh trees OUTDIR   # PU Extra Trees on MNIST, 1M x 50 and covtype's sample: first / warm fit,
#                                         # device vs host time, vs scikit-learn (host) and XGBoost RF (GPU)
# Needs PUJAX_DATA (mnist/, cifar10/) and a JAX with a CUDA backend; results go to OUTDIR (and the neural log).
set -u
stage=${1:?stage 1, 2, 3, 4 or trees}
O=${2:?output folder}
mkdir -p "$O"
export PYTHONPATH=$PWD PYTHONUNBUFFERED=1 XLA_PYTHON_CLIENT_PREALLOCATE=false
PY=${PY:-python3}
nvidia-smi -L
$PY -c "import jax, flax, optax, sklearn; print('jax', jax.__version__, 'flax', flax.__version__, 'optax', optax.__version__, 'sklearn', sklearn.__version__, jax.devices())"
if [ "$stage" = trees ]; then
  timeout 570 $PY -m benchmarks.trees_gpu --out "$O/trees_gpu_stage.md" > "$O/trees_gpu_stage.log" 2>&1
  tail -n 25 "$O/trees_gpu_stage.log"
elif [ "$stage" = 4 ]; then
  timeout 300 $PY -m benchmarks.adapu_cifar10 --device gpu --seeds 3 --out "$O/adapu_cifar10.md" > "$O/adapu_cifar10.log" 2>&1 &
  ada_pid=$!
  for run in "100 gpu-stream-100ep-val10" "200 gpu-stream-200ep-val10-repeat"; do
    set -- $run
    timeout 80 $PY -m benchmarks.neural --device gpu --sections mnist --risks nnpu --seeds 5 --epochs $1 \
      --batching stream --validation-fraction 0.1 --tag "$2" 2>&1 | grep -E "^\[|Error|error" | tail -n 5
  done
  cp benchmarks/results/neural_log.jsonl "$O/"
  wait $ada_pid
  tail -n 20 "$O/adapu_cifar10.log"
elif [ "$stage" = 3 ]; then
  timeout 240 $PY -m pytest -q -n 3 -p no:cacheprovider -rfE --durations=10 tests/test_neural.py tests/test_vpu.py \
    > "$O/pytest_gpu.log" 2>&1 &
  test_pid=$!
  for run in "epoch 100" "epoch 200" "stream 200"; do
    set -- $run
    timeout 80 $PY -m benchmarks.neural --device gpu --sections mnist --risks nnpu --seeds 5 --epochs $2 \
      --batching $1 --validation-fraction 0.1 --tag "gpu-$1-$2ep-val10" 2>&1 | grep -E "^\[|Error|error" | tail -n 5
  done
  cp benchmarks/results/neural_log.jsonl "$O/"
  timeout 200 $PY benchmarks/vpu.py --device gpu --full --out "$O/vpu_gpu.md" > "$O/vpu_gpu.log" 2>&1
  tail -n 12 "$O/vpu_gpu.log"
  wait $test_pid
  tail -n 20 "$O/pytest_gpu.log"
elif [ "$stage" = 1 ]; then
  JAX_PLATFORMS=cpu timeout 300 $PY -m benchmarks.accelerator run --json "$O/acc_cpu.json" > "$O/acc_cpu.log" 2>&1 &
  cpu_pid=$!
  timeout 150 $PY -m benchmarks.accelerator run --json "$O/acc_gpu.json" > "$O/acc_gpu.log" 2>&1
  tail -n 25 "$O/acc_gpu.log"
  for ep in 100 200; do
    for b in epoch stream; do
      timeout 80 $PY -m benchmarks.neural --device gpu --sections mnist --risks nnpu --seeds 5 --epochs $ep \
        --batching $b --tag "gpu-$b-${ep}ep" 2>&1 | grep -E "^\[|Error|error" | tail -n 5
    done
  done
  cp benchmarks/results/neural_log.jsonl "$O/"
  wait $cpu_pid
  tail -n 3 "$O/acc_cpu.log"
  $PY -m benchmarks.accelerator compare "$O/acc_cpu.json" "$O/acc_gpu.json" --out "$O/accelerator.md" | tail -n 30
else
  timeout 220 $PY -m pytest -q -n 6 -p no:cacheprovider -rfE --durations=15 tests/test_neural.py tests/test_vpu.py \
    tests/test_boosting.py tests/test_trees.py tests/test_svm.py tests/test_graph.py tests/test_linalg.py \
    tests/test_feature_selection.py tests/test_prior.py tests/test_risk.py tests/test_meta.py > "$O/pytest_gpu.log" 2>&1 &
  test_pid=$!
  JAX_PLATFORMS=cpu timeout 200 $PY -m benchmarks.accelerator run --json "$O/acc_cpu.json" > "$O/acc_cpu.log" 2>&1 &
  cpu_pid=$!
  timeout 120 $PY -m benchmarks.accelerator run --json "$O/acc_gpu.json" > "$O/acc_gpu.log" 2>&1
  for b in epoch stream; do
    timeout 60 $PY -m benchmarks.neural --device gpu --sections mnist --risks nnpu --seeds 5 --epochs 200 \
      --batching $b --tag "gpu-$b-200ep" 2>&1 | grep -E "^\[|Error|error" | tail -n 5
  done
  timeout 120 $PY benchmarks/vpu.py --device gpu --full --out "$O/vpu_gpu.md" > "$O/vpu_gpu.log" 2>&1
  tail -n 12 "$O/vpu_gpu.log"
  timeout 90 $PY -m benchmarks.neural --device gpu --sections cifar --risks nnpu --seeds 1 --epochs 10 \
    --tag gpu-10ep 2>&1 | grep -E "^\[|Error|error" | tail -n 5
  cp benchmarks/results/neural_log.jsonl "$O/"
  wait $cpu_pid
  $PY -m benchmarks.accelerator compare "$O/acc_cpu.json" "$O/acc_gpu.json" --out "$O/accelerator.md" | tail -n 24
  wait $test_pid
  tail -n 30 "$O/pytest_gpu.log"
fi
