#!/usr/bin/env bash
# Runs claw's core benchmarks (issue 2, part 10) one after another and prints every target's
# verdict at the end. Usage, from anywhere:  bash bench/run_all.sh   (PYTHON=… to pick the interpreter)
# Exit status: 0 when every target was met, 1 when one was missed or a benchmark failed.
set -u -o pipefail

cd "$(dirname "$0")/.."
python="${PYTHON:-python}"
log="$(mktemp -t claw-bench.XXXXXX)"
status=0

for bench in cli_startup one_shot turn_overhead; do
    echo "=== $python -m bench.$bench"
    before="$(grep -c '^SUMMARY' "$log")"
    if ! "$python" -m "bench.$bench" 2>&1 | tee -a "$log"; then
        status=1
        if [ "$(grep -c '^SUMMARY' "$log")" = "$before" ]; then
            echo "SUMMARY bench.$bench: crashed before its summary (see its output above)" >>"$log"
        fi
    fi
    echo
done

echo "=== summary ($(uptime | sed 's/^ *//'))"
grep '^SUMMARY' "$log" | sed 's/^SUMMARY /  /'
echo "full output: $log"
exit "$status"
