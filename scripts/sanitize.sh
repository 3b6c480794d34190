#!/usr/bin/env bash
# Build the C parts (the machine, unspool.core._speedups; the argument snapshots,
# unspool.protocols._snapshots; InterleavedParser's fast path, unspool.protocols._direct)
# with AddressSanitizer and UndefinedBehaviorSanitizer, then run the core and lenient tests
# on them, a bounded differential fuzz run (C machine vs the pure-Python reference, strict
# and lenient) and the protocol parts' differential tests.  Any sanitizer
# report aborts the run, so "passed" means zero reports.
#
#   scripts/sanitize.sh            core tests + 2000 fuzz examples
#   scripts/sanitize.sh --quick    the C half of the core tests + 200 fuzz examples (CI)
#
# CPython is not built with ASan, so libasan is preloaded and PYTHONMALLOC=malloc
# routes Python's allocations through it; leak detection is off because the
# interpreter keeps memory on purpose at exit (reference leaks are covered by
# tests/core/test_speedups.py instead).
set -euo pipefail
cd "$(dirname "$0")/.."

PY=${PYTHON:-.venv/bin/python}
QUICK=0
[[ "${1:-}" == "--quick" ]] && QUICK=1

WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

FLAGS="-fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer -g -O1"
UNSPOOL_CFLAGS="$FLAGS" UNSPOOL_LDFLAGS="-fsanitize=address,undefined" \
    "$PY" setup.py -q build_ext --build-lib "$WORK/lib" --build-temp "$WORK/tmp" --force \
    >"$WORK/build.log" 2>&1 || { cat "$WORK/build.log"; exit 1; }

# a copy of the package with the sanitized extension in it, first on sys.path
cp -r src/unspool "$WORK/pkg-unspool"
find "$WORK/pkg-unspool" -name '*.so' -delete
mkdir -p "$WORK/path"
mv "$WORK/pkg-unspool" "$WORK/path/unspool"
cp "$WORK"/lib/unspool/core/_speedups*.so "$WORK/path/unspool/core/"
cp "$WORK"/lib/unspool/protocols/_snapshots*.so "$WORK"/lib/unspool/protocols/_direct*.so \
    "$WORK/path/unspool/protocols/"

LIBS="$(gcc -print-file-name=libasan.so):$(gcc -print-file-name=libubsan.so)"
export LD_PRELOAD="$LIBS"
export ASAN_OPTIONS="detect_leaks=0:abort_on_error=1:halt_on_error=1"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
export PYTHONMALLOC=malloc
export PYTHONPATH="$WORK/path"
export UNSPOOL_SANITIZED=1 UNSPOOL_REQUIRE_SPEEDUPS=1

"$PY" -c "import unspool.core._speedups as s, unspool.protocols._snapshots as a, unspool.protocols._direct as d, unspool; assert unspool.accelerated; print('sanitized build:', s.__file__, a.__file__, d.__file__)"

# timing and memory guards are left out: under ASan every realloc copies and freed
# memory sits in quarantine
if [[ $QUICK == 1 ]]; then
    SELECT=(-k "not python and not bounded_cost and not bounded_memory")
    EXAMPLES=200
else
    SELECT=(-k "not bounded_cost and not bounded_memory")
    EXAMPLES=2000
fi
CORE=()
for f in tests/core/test_*.py; do  # the modules conftest.py runs on both machines, less cost
    case "$f" in
        */test_cost.py | */test_speedups.py | */test_pyliteral.py | */test_repair_kinds.py) ;;
        *) CORE+=("$f") ;;
    esac
done
"$PY" -m pytest -q -x -p no:cacheprovider -n 2 "${CORE[@]}" "${SELECT[@]}"
UNSPOOL_DIFF_EXAMPLES=$EXAMPLES "$PY" -m pytest -q -x -p no:cacheprovider -n0 tests/core/test_speedups.py \
    --hypothesis-show-statistics
"$PY" -m pytest -q -x -p no:cacheprovider -n 2 tests/protocols/test_args_snapshots.py \
    tests/protocols/test_values.py tests/protocols/test_interleaved_direct.py tests/protocols/test_tags_direct.py
echo "sanitize: no AddressSanitizer/UBSan reports"
