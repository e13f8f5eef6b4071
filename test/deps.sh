# edonio test harness: what the suites that build third-party code share (source it).
# The sourcing script defines log MESSAGE and die MESSAGE, and sets WORK before setup_edonio_env.

# Install missing Debian packages when we are root; otherwise say what is needed and stop.
ensure_packages() {
    local missing=() pkg
    for pkg in "$@"; do
        dpkg -s "$pkg" >/dev/null 2>&1 || missing+=("$pkg")
    done
    [[ ${#missing[@]} -eq 0 ]] && return 0
    if [[ $(id -u) -ne 0 ]]; then
        die "missing packages: ${missing[*]} (run: sudo apt-get install -y ${missing[*]})"
    fi
    log "installing ${missing[*]}"
    # A fresh machine may have no package lists yet: update once and retry.
    if ! apt_install "${missing[@]}"; then
        apt-get update >&2
        apt_install "${missing[@]}" || die "could not install ${missing[*]}"
    fi
}

apt_install() {
    DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "$@" >&2
}

# Fail early and clearly on a wrong EDONIO_LIB; make it absolute, since the tests run from
# other directories.
check_edonio_lib() {
    [[ -z ${EDONIO_LIB:-} ]] && return 0
    [[ -f $EDONIO_LIB ]] || die "EDONIO_LIB=$EDONIO_LIB: no such file (build libedonio.so first)"
    EDONIO_LIB=$(realpath "$EDONIO_LIB")
}

# The environment the tests run in: edonio preloaded (after a sanitizer runtime, if any) and
# forced, with its statistics in $WORK, or nothing extra (stock MPICH).
setup_edonio_env() {
    TEST_ENV=()
    [[ -z ${EDONIO_LIB:-} ]] && return 0
    STATS_FILE=$WORK/edonio-stats.log
    : >"$STATS_FILE"
    TEST_ENV=(LD_PRELOAD="${EDONIO_SANITIZER_RUNTIME:+$EDONIO_SANITIZER_RUNTIME }$EDONIO_LIB"
        ROMIO_FSTYPE_FORCE=edonio: EDONIO_STATS="$STATS_FILE")
    log "using $EDONIO_LIB (stats in $STATS_FILE)"
}

# WORK: this suite's own scratch directory (NAME under EDONIO_TEST_WORKDIR, else a fresh one),
# emptied. OWN_WORKDIR=1 when the suite made it and may remove it.
setup_workdir() {
    local name=$1
    if [[ -n ${EDONIO_TEST_WORKDIR:-} ]]; then
        mkdir -p "$EDONIO_TEST_WORKDIR"
        WORK=$(realpath "$EDONIO_TEST_WORKDIR")/$name
        OWN_WORKDIR=0
    else
        WORK=$(mktemp -d "${TMPDIR:-/tmp}/edonio-$name.XXXXXX")
        OWN_WORKDIR=1
    fi
    rm -rf "$WORK"
    mkdir -p "$WORK"
}

# How many files edonio closed so far (lines in $STATS_FILE).
stats_lines() {
    grep -c '^edonio:' "$STATS_FILE" || true
}

# With edonio in use, it must have served files; the sourcing script defines report STATUS NAME DETAIL.
check_edonio_used() {
    local closed
    [[ -z ${EDONIO_LIB:-} ]] && return 0
    closed=$(stats_lines)
    log "edonio closed $closed files"
    if [[ $closed -gt 0 ]]; then
        report PASS edonio-used "$closed files closed by edonio"
    else
        report FAIL edonio-used "no 'edonio:' line in $STATS_FILE"
    fi
}
