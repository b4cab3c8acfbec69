#!/usr/bin/env bash
# Runs every entry of a case folder written by the execution tests
# (SEZM_GPU_CASES=<dir> SeZMExecutionTests) with `sezm-run --device gpu
# --verify`: each module is compiled for the GPU and for the CPU, run on
# both, and every output compared (max |gpu - cpu| <= atol + rtol * max
# |cpu|). Each entry compiles only its own function where split-cases.py
# wrote one beside its inputs. Runs JOBS entries at a time; prints one line per entry and a
# summary; fails if any entry does. FLAGS go to every sezm-run (e.g.
# "--gemm-precision tf32x3").
#   verify-cases.sh CASES_DIR SEZM_RUN [RTOL] [ATOL] [JOBS] [FLAGS]
set -uo pipefail
cases=$1
run=$2
rtol=${3:-2e-5}
atol=${4:-1e-6}
jobs=${5:-1}
read -r -a flags <<< "${6:-}"
logs=$(mktemp -d)
for module in "$cases"/*/module.mlir; do
  test=$(dirname "$module")
  for entry_dir in "$test"/*/; do
    entry_dir=${entry_dir%/}
    [ -f "$entry_dir/inputs.txt" ] || continue
    entry=$(basename "$entry_dir")
    args=()
    while read -r name; do
      args+=(--input "$name=$entry_dir/$name.npy")
    done < "$entry_dir/inputs.txt"
    log="$logs/$(basename "$test")@$entry"
    # One function per entry where split-cases.py wrote it.
    source=$module
    [ -f "$entry_dir/module.mlir" ] && source=$entry_dir/module.mlir
    (
      if "$run" "$source" --entry "$entry" "${args[@]}" --device gpu \
          --verify --rtol "$rtol" --atol "$atol" "${flags[@]}" \
          > "$log.out" 2>&1; then
        echo ok > "$log.status"
      else
        echo FAIL > "$log.status"
      fi
    ) &
    while [ "$(jobs -r | wc -l)" -ge "$jobs" ]; do sleep 0.1; done
  done
done
wait
passed=0
failed=0
worst=0
for status in "$logs"/*.status; do
  name=$(basename "$status" .status)
  out="$logs/$name.out"
  rel=$(sed -n 's/.*max abs error [^,]*, relative \([^ ]*\).*/\1/p' "$out" |
        sort -g | tail -1)
  worst=$(printf '%s\n%s\n' "$worst" "${rel:-0}" | sort -g | tail -1)
  if [ "$(cat "$status")" = ok ]; then
    passed=$((passed + 1))
    echo "ok $name max-rel-error ${rel:-n/a}"
  else
    failed=$((failed + 1))
    echo "FAIL $name max-rel-error ${rel:-n/a}"
    sed 's/^/    /' "$out"
  fi
done
rm -rf "$logs"
echo "sezm-run --device gpu --verify: $passed passed, $failed failed; largest relative error $worst (tolerance rtol $rtol, atol $atol)"
[ "$failed" -eq 0 ]
