#!/bin/bash
# Builds the Lace fib programs bench-runtime compares libfj with (issue 28):
# Lace's library from its own sources with its own CMake release build,
# then bench/lace/fibs.c against it, compiled as Lace's benchmarks are
# (-O3 -DNDEBUG -std=gnu11 -flto: CMake's C_STANDARD 11) and linked with the cutoff rows' leaf,
# BUILD's libfjb_leaf.a: the very object bench-runtime calls below the
# cutoff (bench/fib_leaf.c).
#
#   usage: bench/lace.sh LACE_SRC BUILD OUT
#     LACE_SRC  a checkout of github.com/trolando/lace (v1.4.2 measured)
#     BUILD     fjtrace's meson build folder, bench-runtime built
#     OUT       where the programs go: fib-lace-lo, fib-lace-lo-cutoff
#               (Lace's order: -L, -K), fib-lace-so, fib-lace-so-cutoff
#               (the samples' order: -S, -C)
#   then, e.g.: BUILD/bench/bench-runtime -n 38 -r 3 -L OUT/fib-lace-lo \
#     -K OUT/fib-lace-lo-cutoff -S OUT/fib-lace-so -C OUT/fib-lace-so-cutoff
set -euo pipefail

usage() {
  echo "usage: $0 LACE_SRC BUILD OUT" >&2
  exit 2
}
(($# == 3)) || usage
lace=$1 build=$2 out=$3
here=$(cd "$(dirname "$0")" && pwd)
leaf=$build/bench/libfjb_leaf.a
[[ -f $lace/src/lace.c && -f $lace/CMakeLists.txt ]] || {
  echo "$0: $lace is not a Lace source tree (no src/lace.c)" >&2
  exit 1
}
[[ -f $leaf ]] || {
  echo "$0: $leaf is missing: build fjtrace's benchmarks first (ninja -C $build)" >&2
  exit 1
}
mkdir -p "$out"
cmake -S "$lace" -B "$out/lace-build" -DCMAKE_BUILD_TYPE=Release >"$out/cmake.log"
cmake --build "$out/lace-build" --target lace >>"$out/cmake.log"
lib=$(find "$out/lace-build" -name liblace.a | head -n 1)
config=$(dirname "$(find "$out/lace-build" -name lace_config.h | head -n 1)")
[[ -f $lib && -d $config ]] || {
  echo "$0: Lace's build made no liblace.a or lace_config.h (see $out/cmake.log)" >&2
  exit 1
}
build_one() { # NAME DEFINE...
  local name=$1
  shift
  cc -O3 -DNDEBUG -std=gnu11 -flto -Wall -Wextra -Werror "$@" -I"$lace/src" -I"$config" \
    -I"$here" -o "$out/$name" "$here/lace/fibs.c" "$lib" "$leaf" -lpthread -lm
}
build_one fib-lace-lo
build_one fib-lace-lo-cutoff -DCUTOFF
build_one fib-lace-so -DORDER_SO
build_one fib-lace-so-cutoff -DORDER_SO -DCUTOFF
echo "built in $out: fib-lace-lo (-L), fib-lace-lo-cutoff (-K), fib-lace-so (-S), fib-lace-so-cutoff (-C)"
