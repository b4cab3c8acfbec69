#!/usr/bin/env bash
# One call on the GPU machine (which has no MLIR): unpacks the standalone
# tools carried in gpu-run/standalone (see docs/performance.md for how they
# are built), then runs the steps named on the command line:
#   demo        the water demo's energy and forces through sezm-run on the GPU
#               with --verify against the CPU
#   sezm-min    SeZM-min's energy, forces and virial on the water box through
#               sezm-run on the GPU, with --verify against the CPU
#   cases       the execution tests' cases through sezm-run --device gpu
#               --verify (test/GPU/verify-cases.sh)
#   cases-split the same with the GPU code in split precision
#               (--gemm-precision tf32x3)
#   bench:N,..  bench/so2-bench.sh at those atom counts (--no-compile unless
#               bench-compile:N,..)
#   ncu:N       an Nsight Compute profile of sezm's SO(2) kernels at N atoms
#   ncu-model:N  an Nsight Compute profile of one E+F step of SeZM-min's
#               artifact (or NCU_ARTIFACT) on the N-atom workload structure:
#               each kernel's share of the step and its % of its own roofline
#               (bench/ncu_table.py)
#   artifact    SeZM-min's artifact (gpu-run/sezm-min.sezm, sezm-compile
#               --forces-of energy --weights) through sezm-run on the GPU,
#               against the module on the CPU
#   md-example:N  examples/md-engine (sezm_model_compute_edges_gpu, the
#               device-resident entry) on the water box and the N-atom
#               workload structure, against sezm-run on the same artifact
#   dpa4:R,..   the imported DPA4 of SeZM-min's shape (the parity fixture,
#               test/Import/fixtures/sezm-min-shape.model.ckpt.pt): sezm-run
#               --verify (GPU against CPU) on the water box, then on the box
#               replicated R x R x R, sezm-run on the GPU and DeePMD-kit's own
#               eval (bench/deepmd_eval.py, deepmd-kit from the wheels carried
#               in gpu-run/wheels (bench/fetch-dpa4-wheels.sh): deepmd-kit
#               3.2.0, mpich (or its libraries alone, gpu-run/mpich-libs.zip),
#               dargs, wcmatch,
#               bracex, array-api-compat, lmdb, vesin, vesin-torch; its GPU
#               neighbour list, nvalchemiops, needs warp-lang, 149 MB, past
#               the carry, so it builds the list with vesin) timed and
#               compared
#   dpa4-md     the imported DPA4's artifact (gpu-run/dpa4.sezm, sezm-compile
#               of that checkpoint: DeePMD-kit's split, float64 positions,
#               forces, virial and energy) through sezm-md-example --double
#               (sezm_model_compute_edges_gpu_f64) on the water box, against
#               sezm-run on the same artifact; the float entry refuses it
#   race:N,..   the same DPA4, its artifact (gpu-run/dpa4.sezm) against
#               DeePMD-kit's forward_common_lower compiled with its Triton
#               kernels, on one edge list in one process, on the N-atom
#               workload structures (bench/dpa4_race.py), with any other
#               builds of it (gpu-run/dpa4-*.sezm) beside it; RACE_MODEL
#               and RACE_ARTIFACT name another checkpoint and its artifact;
#               each build's launches (kernel, ms) in $OUT/*.launches;
#               RACE_SEZM_ONLY=1 times the sezm builds alone (no DeePMD-kit
#               compile, no ratio)
#   gemm-precision:E  the default DPA4's GEMM-shaped ops alone at E rows,
#               IEEE and split precision (tf32x3) on the GPU against fp64 on
#               the CPU: errors and times (bench/gemm_precision.py)
#   scale:N,..  time and memory against N (bench/scale.sh): SeZM-min's
#               artifact (or SCALE_ARTIFACT) planned at each N and run where
#               the plan fits the GPU: step time, peak against plan, the GPU
#               neighbour search's share; a table and scale.png
#   graph       test/GPU/graph-on-gpu.test's checks without lit: the GPU
#               cell list's edges against the host list's, edge by edge, on
#               its four structures, in double to the bit (with pairs at
#               the cutoff), and the search timed
#   stages      the imported SeZM-min shape compiled in stages
#               (gpu-run/stages.sezm: sezm-compile --precision float64
#               --stages --target all): each stage and backward through
#               sezm-run on the GPU, chained (test/Import/Inputs/run-stages.sh),
#               against the artifact's whole energy_forces on the GPU (1e-10)
#   model:N,..  SeZM-min's artifact on the GPU on the N-atom workload
#               structure against PyTorch eager and torch.compile of the same
#               model (bench/sezm-min-bench.sh; model:N/RUNS for fewer runs)
# Logs go to $OUT (or /tmp/h200-out).
#   h200-run.sh STEP...
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
tools=$root/gpu-run/standalone
out=${OUT:-/tmp/h200-out}
mkdir -p "$out"
for packed in "$tools"/bin/*.xz "$root"/gpu-run/*.sezm.xz; do
  [ -e "$packed" ] || continue
  xz -d -k -f "$packed" 2>/dev/null ||
    python3 -c "import lzma,shutil,sys; shutil.copyfileobj(lzma.open(sys.argv[1]), open(sys.argv[1][:-3], 'wb'))" "$packed"
done
chmod +x "$tools"/bin/*
# The UUID tells runs on different machines apart (ratios move between them).
nvidia-smi --query-gpu=name,uuid,driver_version,clocks.sm,clocks.mem --format=csv |
  tee "$out/gpu.csv"
# DeePMD-kit from the carried wheels into /tmp/dp-wheels, and mpich's
# libraries onto the loader's path ($mpich_lib).
install_deepmd() {
  python3 -m pip install -q --no-deps --no-index --target /tmp/dp-wheels \
    "$root"/gpu-run/wheels/*.whl > "$out/wheels.log" 2>&1 ||
    { status=1; tail -5 "$out/wheels.log"; }
  # deepmd-kit's wheel finds libmpi through the mpich wheel's install
  # record, which pip --target does not keep: the library goes on the
  # loader's path instead, and deepmd-kit is told not to look.
  mkdir -p /tmp/mpich
  # The libraries alone (gpu-run/mpich-libs.zip, the wheel's data/lib
  # less libmpi_abi) fit the carry where the whole wheel does not.
  mpich_zip=$(ls "$root"/gpu-run/mpich-libs.zip \
    "$root"/gpu-run/wheels/mpich-*.whl 2>/dev/null | head -1)
  python3 -c "import sys, zipfile; z = zipfile.ZipFile(sys.argv[1]); [z.extract(n, '/tmp/mpich') for n in z.namelist() if '/data/lib/' in n]" \
    "$mpich_zip"
  sed -i 's/^CIBUILDWHEEL *= *1/CIBUILDWHEEL = 0/' \
    /tmp/dp-wheels/deepmd/lib/run_config.ini
  mpich_lib=$(dirname "$(find /tmp/mpich -name 'libmpi.so.12' | head -1)")
}
# Nsight Compute into $ncu; it talks to the profiled process over the
# loopback interface, which goes up.
find_ncu() {
  ncu=$(command -v ncu || ls /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1)
  ip link set lo up 2>/dev/null || true
}
# Runs python3 with DeePMD-kit importable.
deepmd_python() {
  LD_LIBRARY_PATH=$mpich_lib:${LD_LIBRARY_PATH:-} \
    PYTHONUNBUFFERED=1 PYTHONPATH=/tmp/dp-wheels:$root/bench/deepmd-shims \
    python3 "$@" 2>&1 | grep --line-buffered -v "WARNING\|^\[\|recommended\|DP_INFER"
}
status=0
for step in "$@"; do
  echo "=== $step"
  case $step in
    demo)
      work=/tmp/demo-weights
      python3 "$root/examples/water/make_weights.py" "$work"
      "$tools/bin/sezm-run" "$root/examples/water/model.mlir" \
        --forces-of energy --structure "$root/examples/water/water-box.xyz" \
        --cutoff 6 --species H,O --input embedding="$work/embedding.npy" \
        --input radial_to_kernel="$work/radial_to_kernel.npy" \
        --input channel_basis="$work/channel_basis.npy" \
        --device gpu --verify --bench 20 2>&1 | tee "$out/demo.log" || status=1
      ;;
    sezm-min)
      python3 "$root/examples/sezm-min/make_weights.py" /tmp/sezm-min.safetensors
      "$tools/bin/sezm-run" "$root/examples/sezm-min/model.mlir" \
        --weights /tmp/sezm-min.safetensors --forces-of energy \
        --structure "$root/examples/water/water-box.xyz" --cutoff 6 \
        --species H,O --device gpu --verify --bench 20 2>&1 |
        tee "$out/sezm-min.log" || status=1
      ;;
    cases | cases-split)
      # cases-split: the same, the GPU code with --gemm-precision tf32x3.
      flags=
      [ "$step" = cases-split ] && flags="--gemm-precision tf32x3"
      # The CPU JIT links OpenMP's runtime from this machine's path, which
      # the GPU machine lacks: the carried copy goes there.
      omp=/usr/lib/x86_64-linux-gnu/libomp.so.5
      [ -e "$omp" ] || cp "$tools/lib/libomp.so.5" "$omp" ||
        echo "no $omp: the CPU side of --verify will fail"
      if [ -z "${cases_made:-}" ]; then
        cases_made=1
        rm -rf /tmp/cases
        SEZM_GPU_CASES=/tmp/cases "$tools/bin/SeZMExecutionTests" \
          > "$out/cases-cpu.log" 2>&1 || { status=1; tail -20 "$out/cases-cpu.log"; }
        python3 "$root/test/GPU/split-cases.py" /tmp/cases
      fi
      bash "$root/test/GPU/verify-cases.sh" /tmp/cases "$tools/bin/sezm-run" \
        2e-5 1e-6 "$(nproc)" "$flags" > "$out/$step.log" 2>&1 || status=1
      grep -v "^ok" "$out/$step.log" | tail -40
      ;;
    bench:* | bench-compile:*)
      sizes=${step#*:}
      compile=--no-compile
      [ "${step%%:*}" = bench-compile ] && compile=
      bash "$root/bench/so2-bench.sh" "$root/gpu-run/so2_kernels.sezm" \
        "$tools/bin" --deepmd "$root/gpu-run/deepmd" $compile ${sizes//,/ } \
        2>&1 | tee "$out/bench-${sizes//,/-}.log" || status=1
      ;;
    artifact)
      python3 "$root/examples/sezm-min/make_weights.py" /tmp/sezm-min.safetensors
      water=(--structure "$root/examples/water/water-box.xyz" --cutoff 6 --species H,O)
      "$tools/bin/sezm-run" "$root/examples/sezm-min/model.mlir" \
        --weights /tmp/sezm-min.safetensors --forces-of energy "${water[@]}" \
        --output-dir /tmp/artifact-cpu > "$out/artifact-cpu.log" 2>&1 || status=1
      "$tools/bin/sezm-run" "$root/gpu-run/sezm-min.sezm" --entry energy_forces \
        "${water[@]}" --output-dir /tmp/artifact-gpu --bench 20 2>&1 |
        tee "$out/artifact.log" || status=1
      python3 "$root/bench/compare-npy.py" /tmp/artifact-cpu /tmp/artifact-gpu \
        2>&1 | tee -a "$out/artifact.log" || status=1
      ;;
    md-example:*)
      atoms=${step#md-example:}
      work=/tmp/md-example
      rm -rf "$work" && mkdir -p "$work"
      "$tools/bin/make-so2-workload" "$atoms" "$work" --structure-only
      for xyz in "$root/examples/water/water-box.xyz" "$work/structure.xyz"; do
        # The example makes its --output-dir (and the folders above it).
        rm -rf "$work/ref" "$work/out" && mkdir -p "$work/ref"
        "$tools/bin/sezm-run" "$root/gpu-run/sezm-min.sezm" --entry energy_forces \
          --structure "$xyz" --cutoff 6 --species H,O --output-dir "$work/ref" \
          > /dev/null || status=1
        "$tools/bin/sezm-md-example" "$root/gpu-run/sezm-min.sezm" "$xyz" \
          --species H,O --steps 20 --output-dir "$work/out/made" 2>&1 |
          tee -a "$out/md-example.log" || status=1
        python3 "$root/bench/compare-npy.py" "$work/ref" "$work/out/made" --rtol 2e-5 2>&1 |
          tee -a "$out/md-example.log" || status=1
      done
      ;;
    dpa4-md)
      water=$root/examples/water/water-box.xyz
      "$tools/bin/sezm-md-example" "$root/gpu-run/dpa4.sezm" "$water" \
        --double --steps 20 --output-dir "$out/dpa4-md" 2>&1 |
        tee "$out/dpa4-md.log" || status=1
      "$tools/bin/sezm-run" "$root/gpu-run/dpa4.sezm" --entry energy_forces \
        --structure "$water" --output-dir "$out/dpa4-run" 2>&1 | grep -v "^  kernel" |
        tee "$out/dpa4-run.log" || status=1
      for name in energy forces virial; do
        python3 "$root/utils/npytool.py" relerr "$out/dpa4-md/$name.npy" \
          "$out/dpa4-run/$name.npy" 1e-12 || status=1
      done
      # The float entry names the double one.
      "$tools/bin/sezm-md-example" "$root/gpu-run/dpa4.sezm" "$water" 2>&1 |
        tail -1 | tee -a "$out/dpa4-md.log"
      ;;
    dpa4:*)
      # DPA4_MODEL names another checkpoint (e.g. the DPA4-Mini fixture).
      checkpoint=${DPA4_MODEL:-$root/test/Import/fixtures/sezm-min-shape.model.ckpt.pt}
      water=$root/examples/water/water-box.xyz
      install_deepmd
      deepmd_eval() {
        deepmd_python "$root/bench/deepmd_eval.py" --model "$checkpoint" "$@"
      }
      # DeePMD-kit must run before the sezm side is worth its time.
      deepmd_eval --structure "$water" --repeat 1 | tee "$out/dpa4-deepmd-check.log"
      grep -q "deepmd-kit eval on" "$out/dpa4-deepmd-check.log" || { status=1; continue; }
      "$tools/bin/sezm-run" "$checkpoint" --structure "$water" --verify \
        2>&1 | tee "$out/dpa4-verify.log" || status=1
      for reps in $(echo "${step#dpa4:}" | tr , ' '); do
        structure=/tmp/water-$reps.xyz
        python3 "$root/bench/replicate_xyz.py" "$water" "$structure" \
          "$reps" "$reps" "$reps"
        "$tools/bin/sezm-run" "$checkpoint" --structure "$structure" \
          --device gpu --bench 10 --output-dir "$out/dpa4-sezm-$reps" 2>&1 |
          grep -v "^    " | tee "$out/dpa4-sezm-$reps.log" || status=1
        deepmd_eval --structure "$structure" --repeat 10 \
          --sezm "$out/dpa4-sezm-$reps" | tee "$out/dpa4-deepmd-$reps.log"
      done
      ;;
    race:*)
      # sezm and DeePMD-kit compiled (Triton L2) on one edge list, in one
      # process, on the N-atom workload structures (bench/dpa4_race.py).
      install_deepmd
      work=/tmp/race
      structures=()
      for atoms in $(echo "${step#race:}" | tr , ' '); do
        "$tools/bin/make-so2-workload" "$atoms" "$work/$atoms" --structure-only > /dev/null
        structures+=("$work/$atoms/structure.xyz")
      done
      # Other builds of it (gpu-run/dpa4-*.sezm, e.g. before a change) are
      # timed beside it.
      # RACE_MODEL and RACE_ARTIFACT race another checkpoint and its build;
      # RACE_REFERENCE names its fp64 build, which each side is measured
      # against too.
      options=()
      [ -n "${RACE_REFERENCE:-}" ] && options=(--reference "$RACE_REFERENCE")
      # RACE_SEZM_ONLY=1: the sezm builds alone (dpa4_race.py --sezm-only).
      [ -n "${RACE_SEZM_ONLY:-}" ] && options+=(--sezm-only)
      deepmd_python "$root/bench/dpa4_race.py" "${options[@]}" \
        --model "${RACE_MODEL:-$root/test/Import/fixtures/sezm-min-shape.model.ckpt.pt}" \
        --artifact "${RACE_ARTIFACT:-$root/gpu-run/dpa4.sezm}" $(ls "$root"/gpu-run/dpa4-*.sezm 2>/dev/null) \
        --runtime "$tools/lib/libsezm_runtime.so" --structure "${structures[@]}" \
        --plot "$out/race.png" --profile 14 --launches "$out" --save "$out" | tee "$out/race.log"
      # Without DeePMD-kit, a timed sezm line; with it, the ratio too.
      if [ -n "${RACE_SEZM_ONLY:-}" ]; then
        grep -q "sezm compute_edges" "$out/race.log" || status=1
      else
        grep -q "DeePMD-kit / sezm" "$out/race.log" || status=1
      fi
      ;;
    gemm-precision:*)
      # Each GEMM-shaped op of the default DPA4 alone at E rows: IEEE and
      # split precision (gpu-run/gemm-precision/{ieee,tf32x3}.sezm) against the fp64
      # module on the CPU (gpu-run/gemm-precision/f64.sezm), errors and times
      # (bench/gemm_precision.py; bench/pack-gemm-precision.sh builds them
      # and copies libomp.so.5 beside the runtime).
      # The fp64 module's CPU code runs on OpenMP: libomp.so.5 from this
      # machine's LLVM, carried in gpu-run/standalone/lib.
      LD_LIBRARY_PATH="$tools/lib:${LD_LIBRARY_PATH:-}" \
      python3 "$root/bench/gemm_precision.py" --exec "$tools/bin/sezm-exec" \
        --ieee "$root/gpu-run/gemm-precision/ieee.sezm" \
        --split "$root/gpu-run/gemm-precision/tf32x3.sezm" \
        --reference "$root/gpu-run/gemm-precision/f64.sezm" --rows "${step#gemm-precision:}" \
        2>&1 | tee "$out/gemm-precision.log"
      grep -q "largest tf32x3" "$out/gemm-precision.log" || status=1
      ;;
    graph)
      # --verify runs the CPU side through the JIT, which links OpenMP's
      # runtime from the path the GPU machine lacks: the carried copy.
      omp=/usr/lib/x86_64-linux-gnu/libomp.so.5
      [ -e "$omp" ] || cp "$tools/lib/libomp.so.5" "$omp"
      work=/tmp/graph-on-gpu
      rm -rf "$work" && mkdir -p "$work"
      test=$root/test/GPU/graph-on-gpu.test
      # The test's split-file parts, cut out by their headers.
      awk -v dir="$work" '/^#--- /{file=dir "/" $2; next} file{print > file}' "$test"
      python3 "$work/make.py" "$work"
      s=$work
      "$tools/bin/sezm-run" "$work/graph.mlir" --cutoff 5 --verify --atol 1e-4 \
        --structure "$s/triclinic.xyz,$s/thin.xyz,$s/slab.xyz,$s/cluster.xyz" \
        2>&1 | tee "$out/graph.log" || status=1
      # Equal lists: every sources and destinations line says error 0.
      [ "$(grep -c 'sources: max abs error 0,.* ok' "$out/graph.log")" = 4 ] &&
        [ "$(grep -c 'destinations: max abs error 0,.* ok' "$out/graph.log")" = 4 ] &&
        ! grep -q FAIL "$out/graph.log" && echo "graph: 4 structures equal" ||
        { echo "graph: FAILED"; status=1; }
      # In double (a float64 entry): edge vectors equal to the bit, pairs
      # 1e-9 A from the cutoff as the host list has them.
      "$tools/bin/sezm-run" "$work/graph64.mlir" --cutoff 5 --verify \
        --rtol 0 --atol 0 --structure "$s/triclinic.xyz,$s/edge.xyz" \
        2>&1 | tee "$out/graph64.log" || status=1
      [ "$(grep -c 'vectors: max abs error 0,.* ok' "$out/graph64.log")" = 2 ] &&
        ! grep -q FAIL "$out/graph64.log" && echo "graph64: 2 structures equal" ||
        { echo "graph64: FAILED"; status=1; }
      "$tools/bin/sezm-run" "$work/graph.mlir" --device gpu --cutoff 5 \
        --structure "$s/triclinic.xyz" --bench 3 2>&1 | grep "built in" |
        tee -a "$out/graph.log"
      ;;
    stages)
      xyz=$root/test/Import/fixtures/water-triclinic.xyz
      bash "$root/test/Import/Inputs/run-stages.sh" "$tools/bin/sezm-run" \
        "$root/gpu-run/stages.sezm" "$xyz" /tmp/stages-gpu \
        "python3 $root/utils/npytool.py" 1e-10 2>&1 | tee "$out/stages.log" ||
        status=1
      "$tools/bin/sezm-run" "$root/gpu-run/stages.sezm" --entry energy_stage1 \
        --structure "$xyz" --input features=/tmp/stages-gpu/s0/features.npy \
        2>&1 | grep "ran on" | tee -a "$out/stages.log"
      ;;
    scale:*)
      # Time and memory against N (bench/scale.sh): SeZM-min's artifact, or
      # SCALE_ARTIFACT, planned and, where the plan fits, run. The graph
      # check (SCALE_GRAPH_CHECK=1) runs its CPU side through the JIT, which
      # needs OpenMP's runtime where the GPU machine lacks it (as `graph`).
      if [ "${SCALE_GRAPH_CHECK:-0}" = 1 ]; then
        omp=/usr/lib/x86_64-linux-gnu/libomp.so.5
        [ -e "$omp" ] || cp "$tools/lib/libomp.so.5" "$omp"
      fi
      total_mib=$(nvidia-smi --query-gpu=memory.total --format=csv,noheader,nounits | head -1)
      device_gb=$(python3 -c "print($total_mib * 1048576 / 1e9)")
      bash "$root/bench/scale.sh" "${SCALE_ARTIFACT:-$root/gpu-run/sezm-min.sezm}" \
        "$tools/bin" "$device_gb" "${step#scale:}" 5 "$out/scale" 2>&1 |
        tee "$out/scale.log" || status=1
      ;;
    model:*)
      for size in $(echo "${step#model:}" | tr , ' '); do
        atoms=${size%/*}
        runs=20
        [ "$size" != "$atoms" ] && runs=${size#*/}
        bash "$root/bench/sezm-min-bench.sh" "$root/gpu-run/sezm-min.sezm" \
          "$tools/bin" "$atoms" "$runs" 2>&1 | tee "$out/model-$atoms.log" || status=1
      done
      ;;
    ncu:*)
      atoms=${step#ncu:}
      find_ncu
      "$ncu" --version | tail -1
      work=/tmp/so2-ncu
      "$tools/bin/make-so2-workload" "$atoms" "$work" > /dev/null
      for entry in rotate_mix fused_backward rotate_mix_kept fused_backward_kept; do
        wigner=wigner
        [ "${entry%_kept}" != $entry ] && wigner=wigner_kept
        inputs=(x src $wigner kc cb)
        [ "${entry#fused_backward}" != $entry ] &&
          inputs=(grad x src $wigner kc cb src_order src_rowptr)
        args=()
        for name in "${inputs[@]}"; do args+=(--input "$name=$work/$name.npy"); done
        "$ncu" --clock-control none --target-processes application-only --section SpeedOfLight --section Occupancy --section LaunchStats --section WarpStateStats --section MemoryWorkloadAnalysis \
          --metrics dram__bytes_read.sum,dram__bytes_write.sum -k regex:rotate_mix \
          "$tools/bin/sezm-exec" "$root/gpu-run/so2_kernels.sezm" \
          --entry $entry "${args[@]}" > "$out/ncu-$entry.txt" 2>&1 || {
          status=1
          tail -5 "$out/ncu-$entry.txt"
          echo "--- ncu on a PyTorch kernel, to tell ncu from sezm-exec:"
          "$ncu" --clock-control none python3 -c "import torch; a = torch.ones(1 << 20, device='cuda'); print((a + a).sum().item())" 2>&1 | tail -8
        }
        grep -E "Duration|Memory Throughput|DRAM Throughput|Registers Per|Achieved Occupancy|Theoretical Occupancy|Compute \(SM\) Throughput|L1/TEX Hit|L2 Hit|Warp Cycles Per Issued|Issue Slots Busy|Executed Ipc A|dram__bytes" "$out/ncu-$entry.txt" | head -30
      done
      rm -rf "$work"
      ;;
    ncu-model:*)
      atoms=${step#ncu-model:}
      find_ncu
      work=/tmp/model-ncu
      rm -rf "$work"
      "$tools/bin/make-so2-workload" "$atoms" "$work" --structure-only > /dev/null
      # Time, DRAM bytes and FP32 instructions per launch: a kernel's own
      # roofline is FLOP/s against the FP32 peak or bytes/s against DRAM's.
      "$ncu" --clock-control none --target-processes application-only --csv \
        --page raw --metrics gpu__time_duration.sum,dram__bytes.sum,sm__sass_thread_inst_executed_op_ffma_pred_on.sum,sm__sass_thread_inst_executed_op_fadd_pred_on.sum,sm__sass_thread_inst_executed_op_fmul_pred_on.sum,sm__throughput.avg.pct_of_peak_sustained_elapsed,gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed,launch__registers_per_thread \
        "$tools/bin/sezm-run" "${NCU_ARTIFACT:-$root/gpu-run/sezm-min.sezm}" \
        --entry energy_forces --structure "$work/structure.xyz" \
        > "$out/ncu-model-$atoms.csv" 2> "$out/ncu-model-$atoms.err" ||
        { status=1; tail -5 "$out/ncu-model-$atoms.err"; }
      # The roofline of the GPU at hand: an H100 SXM has H200's SMs but
      # 3.35 TB/s of DRAM bandwidth, not 4.8.
      peaks=()
      nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null |
        grep -q H100 && peaks=(--dram-peak 3.35e12)
      python3 "$root/bench/ncu_table.py" "$out/ncu-model-$atoms.csv" \
        "${peaks[@]}" 2>&1 | tee "$out/ncu-model-$atoms.md" || status=1
      rm -rf "$work"
      ;;
    train-water:*)
      # DeePMD-kit trains bench/water-model/input.json (SeZM-min's shape) on
      # the SPC/Fw dataset (bench/water-model/make_dataset.py, carried in
      # gpu-run/water-data) for at most SECONDS; the last checkpoint, its
      # frozen form and the learning curve go to $out/water-model.
      install_deepmd
      work=/tmp/train-water
      rm -rf "$work" && mkdir -p "$work" "$out/water-model"
      cp -r "$root/gpu-run/water-data" "$work/data"
      cp "$root/bench/water-model/input.json" "$work/"
      (cd "$work" && timeout "${step#train-water:}" env \
        LD_LIBRARY_PATH=$mpich_lib:${LD_LIBRARY_PATH:-} \
        PYTHONPATH=/tmp/dp-wheels:$root/bench/deepmd-shims \
        python3 -m deepmd --pt train input.json > "$out/water-model/train.log" 2>&1)
      tail -3 "$out/water-model/train.log"
      last=$(ls -t "$work"/model.ckpt-*.pt | head -1)
      echo "last checkpoint: $last"
      cp "$last" "$out/water-model/water.ckpt.pt" || status=1
      cp "$work/lcurve.out" "$out/water-model/" 2>/dev/null
      (cd "$work" && ln -sf "$last" model.ckpt.pt &&
        deepmd_python -m deepmd --pt freeze -c model.ckpt.pt -o "$out/water-model/water.pth" \
          > "$out/water-model/freeze.log" 2>&1) || tail -5 "$out/water-model/freeze.log"
      tail -4 "$out/water-model/lcurve.out"
      ;;
    *) echo "unknown step $step"; status=2 ;;
  esac
done
exit $status
