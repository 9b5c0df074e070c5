#!/usr/bin/env bash
# Runs claw's benchmarks one after another and prints every target's verdict at the end.
# Usage, from anywhere:
#   bash bench/run_all.sh           # the core three (issue 2, part 10): cli_startup, one_shot, turn_overhead
#   bash bench/run_all.sh --check   # every benchmark of bench/README.md's table that has a target (issue 41);
#                                   # run it before resolving an issue that touches a hot path
# PYTHON=… picks the interpreter. Exit status: 0 when every target was met, 1 when one was missed or a
# benchmark failed, 2 for a usage error.
set -u -o pipefail

CORE=(cli_startup one_shot turn_overhead)
CHECK=(cli_startup one_shot turn_overhead peers gateway_clients gateway_handshake session_scale channels_webhook
       tui_stream auth_flood sandbox_exec text_tool_calls realmodel)

case "${1:-}" in
    "") benches=("${CORE[@]}") ;;
    --check) benches=("${CHECK[@]}") ;;
    *) echo "usage: bash bench/run_all.sh [--check]" >&2; exit 2 ;;
esac

cd "$(dirname "$0")/.."
python="${PYTHON:-python}"
log="$(mktemp -t claw-bench.XXXXXX)"
status=0
started=$SECONDS

for bench in "${benches[@]}"; do
    echo "=== $python -m bench.$bench   ($(date -u +%H:%M:%S) UTC)"
    before="$(grep -c '^SUMMARY' "$log")"
    if ! "$python" -m "bench.$bench" 2>&1 | tee -a "$log"; then
        status=1
        if [ "$(grep -c '^SUMMARY' "$log")" = "$before" ]; then
            echo "SUMMARY bench.$bench: crashed before its summary (see its output above) MISSED" >>"$log"
        fi
    fi
    echo
done

# A benchmark's exit status already says whether it missed; the SUMMARY lines are checked too, so that one
# exiting 0 after printing a miss cannot pass.
grep -q '^SUMMARY .* MISSED$' "$log" && status=1
echo "=== summary ($(uptime | sed 's/^ *//'); $(( (SECONDS - started) / 60 )) min)"
grep '^SUMMARY' "$log" | sed 's/^SUMMARY /  /'
echo "$(grep -c '^SUMMARY .* met$' "$log") met, $(grep -c '^SUMMARY .* MISSED$' "$log") missed"
echo "full output: $log"
exit "$status"
