#!/usr/bin/env bash
# Every pytest test, in two passes (`make test` calls this after the Vitest tests):
#  1. the tests that start no browser, no Spark and no network namespaces, spread over two
#     processes (pytest-xdist): they mostly wait on the subprocesses, servers and sockets they
#     start, and serially they took most of CI's 90 minutes;
#  2. the browser stories, the Spark jobs and the multi-host tests, one at a time: a studio with its
#     own Spark driver, or a Spark job at full parallelism, takes the machine's two cores.
# Both passes always run; the script fails if either failed. Extra arguments go to both passes
# (a pass the arguments leave without tests is not a failure).
set -uo pipefail
cd "$(dirname "$0")/.."
PY=${PY:-.venv/bin/python}
SERIAL='e2e or spark or multihost'

"$PY" -m pytest -n "${TEST_PROCESSES:-2}" -m "not ($SERIAL)" "$@"
first=$?
"$PY" -m pytest -m "$SERIAL" "$@"
second=$?
no_tests=5  # pytest's exit code when the arguments selected no test of a pass
for status in "$first" "$second"; do
  if [ "$status" -ne 0 ] && [ "$status" -ne "$no_tests" ]; then exit "$status"; fi
done
if [ "$first" -eq "$no_tests" ] && [ "$second" -eq "$no_tests" ]; then exit "$no_tests"; fi
