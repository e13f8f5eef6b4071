#!/usr/bin/env bash
# edonio's unit tests: parts of the driver tested on their own. The segment structure, the
# planning of collective passes and the cgroup memory limit are built with the sanitizers; ROMIO's
# fetcher is tried on trees and a tarball made around ROMIO_SRCDIR (when set: configure's ROMIO
# source).
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
    -I"$top/ad_edonio" -o "$work/t_segment" "$here/t_segment.c" "$top/ad_edonio/ad_edonio_segment.c"
"$cc" -std=c11 -O1 -g -Wall -Wextra -Werror -fsanitize=address,undefined -fno-omit-frame-pointer \
    -I"$top/ad_edonio" -o "$work/t_seglock" "$here/t_seglock.c" "$top/ad_edonio/ad_edonio_seglock.c" \
    "$top/ad_edonio/ad_edonio_segment.c"
"$cc" -std=c11 -O1 -g -Wall -Wextra -Werror -fsanitize=address,undefined -fno-omit-frame-pointer \
    -I"$top/ad_edonio" -o "$work/t_plan" "$here/t_plan.c" "$top/ad_edonio/ad_edonio_plan.c"
"$cc" -std=c11 -O1 -g -Wall -Wextra -Werror -fsanitize=address,undefined -fno-omit-frame-pointer \
    -I"$top/ad_edonio" -o "$work/t_memlimit" "$here/t_memlimit.c" \
    "$top/ad_edonio/ad_edonio_memlimit.c"
status=0
"$work/t_segment" || status=1
"$work/t_seglock" || status=1
"$work/t_plan" || status=1
TMPDIR="$work" "$work/t_memlimit" || status=1
if [ -n "${ROMIO_SRCDIR:-}" ]; then
    "$here/fetch.sh" "$ROMIO_SRCDIR" || status=1
fi
exit $status
