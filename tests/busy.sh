# shellcheck shell=bash
# Busy loops competing for the cores while a test records a known workload
# (sourced by bash tests): its workers are then preempted.
#   busy_start N   starts N busy loops
#   busy_stop      kills them (put it in the test's EXIT trap too)
busy_pids=()

busy_start() {
  local i
  for ((i = 0; i < $1; i++)); do
    (while :; do :; done) >/dev/null 2>&1 &
    busy_pids+=($!)
  done
}

busy_stop() {
  local pid
  for pid in "${busy_pids[@]}"; do kill "$pid" 2>/dev/null; done
  busy_pids=()
}
