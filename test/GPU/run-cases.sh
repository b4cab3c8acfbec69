#!/usr/bin/env bash
# Runs every case of a compiled case folder on the GPU with sezm-exec and
# compares each output with the CPU's (max |gpu - cpu| <= atol + rtol *
# max |cpu|). Prints one line per case and a summary; fails if any case does.
#   run-cases.sh CASES_DIR SEZM_EXEC [RTOL] [ATOL]
set -uo pipefail
cases=$1
exec=$2
rtol=${3:-2e-5}
atol=${4:-1e-6}
passed=0
failed=0
worst=0
for module in "$cases"/*/module.so; do
  test=$(dirname "$module")
  for entry_dir in "$test"/*/; do
    entry_dir=${entry_dir%/}
    [ -f "$entry_dir/inputs.txt" ] || continue
    entry=$(basename "$entry_dir")
    args=()
    while read -r name; do
      args+=(--input "$name=$entry_dir/$name.npy")
    done < "$entry_dir/inputs.txt"
    if out=$("$exec" "$module" --entry "$entry" "${args[@]}" \
          --expect "$entry_dir/expected" --rtol "$rtol" --atol "$atol" 2>&1); then
      passed=$((passed + 1))
      status=ok
    else
      failed=$((failed + 1))
      status=FAIL
    fi
    # The largest relative error this case reported.
    rel=$(echo "$out" | sed -n 's/.*relative to max |expected| [^:]*: \([^ ]*\).*/\1/p' |
          sort -g | tail -1)
    worst=$(printf '%s\n%s\n' "$worst" "${rel:-0}" | sort -g | tail -1)
    echo "$status $(basename "$test") @$entry max-rel-error ${rel:-n/a}"
    [ "$status" = ok ] || echo "$out" | sed 's/^/    /'
  done
done
echo "GPU cases: $passed passed, $failed failed; largest relative error $worst (tolerance rtol $rtol, atol $atol)"
[ "$failed" -eq 0 ]
