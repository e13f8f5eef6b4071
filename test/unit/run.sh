#!/usr/bin/env bash
# edonio's unit tests: parts of the driver tested on their own, built with the sanitizers.
#
#   test/unit/run.sh [--workdir DIR]
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
work=${EDONIO_TEST_WORKDIR:-$(mktemp -d)}
[ "${1:-}" = "--workdir" ] && work=$2
mkdir -p "$work"

cc=${CC:-gcc}
"$cc" -std=c11 -O1 -g -Wall -Wextra -Werror -fsanitize=address,undefined -fno-omit-frame-pointer \
    -I"$top/ad_edonio" -o "$work/t_cache" "$here/t_cache.c" "$top/ad_edonio/ad_edonio_cache.c"
"$work/t_cache"
