#!/usr/bin/env bash
# The sweep: every file and directory under tests/data and examples through
# every command of tests/sweep/commands that reads it (the table says which
# reads which), one process per (file, command), several at a time.  Exit
# statuses 0-3 are the tools' answers and fine; a sanitizer report, a
# signal, a time-out or any other status fails, naming the command and the
# file.  make check runs it (through tests/run-tests.sh) with the plain and
# with the ASan+UBSan tools.
#
#   tests/sweep/run.sh [--bin DIR] [-j N] [--only REGEX] [--table FILE]
#                      [--root DIR]... [--timeout SECONDS] [--list]
#
#   --bin DIR     the tools (default $DRA_BIN, else build/bin)
#   -j N          runs at a time (default: the number of CPUs)
#   --only REGEX  only the commands matching REGEX (bash =~)
#   --table FILE  the command table (default tests/sweep/commands)
#   --root DIR    where the files are (repeatable; default tests/data examples)
#   --timeout S   a run taking longer fails (default 120)
#   --list        print the command lines instead of running them
#
# Sanitizers: ASAN_OPTIONS and UBSAN_OPTIONS make a process exit 97 on a
# report (leak checking stays on) and send ASan's and LSan's reports to a
# log file of the run's own (GCC's UBSan writes its report to standard
# error whatever log_path says; the failure shows either).
# Runs start from the top of the tree with the tools first on PATH, HOME in
# scratch and no KUBECONFIG; one dra-example-driver, started (and checked)
# by the sweep, serves the {sock} of every run.
#
# Output: the size (files, commands, runs), a FAIL block per failed run
# with the start of its sanitizer log or standard error, the time taken, and
# a closing "N passed, N failed" counting commands (a command passes when
# all of its runs do; the shared driver counts as one).  Exit 0, 1 when a run
# failed, 2 on a usage or table error.
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 2
top=$PWD

bin=${DRA_BIN:-$top/build/bin}
jobs=$(nproc 2>/dev/null || echo 2)
only=
table=tests/sweep/commands
roots=()
limit=120
list=0
while (($#)); do
    case $1 in
    --bin | -j | --only | --table | --root | --timeout)
        (($# >= 2)) || { echo "sweep: $1 needs a value" >&2 && exit 2; }
        case $1 in
        --bin) bin=$2 ;;
        -j) jobs=$2 ;;
        --only) only=$2 ;;
        --table) table=$2 ;;
        --root) roots+=("$2") ;;
        --timeout) limit=$2 ;;
        esac
        shift 2
        ;;
    --list) list=1 && shift ;;
    *) echo "sweep: unknown argument: $1" >&2 && exit 2 ;;
    esac
done
((${#roots[@]})) || roots=(tests/data examples)
[[ $jobs =~ ^[1-9][0-9]*$ ]] || { echo "sweep: -j wants a positive number, not '$jobs'" >&2 && exit 2; }
[[ $limit =~ ^[1-9][0-9]*$ ]] || { echo "sweep: --timeout wants seconds, not '$limit'" >&2 && exit 2; }
[[ -r $table ]] || { echo "sweep: cannot read the table $table" >&2 && exit 2; }
[[ $bin == /* ]] || bin=$top/$bin

# ---- the items: files, and directories with a trailing / ---------------------------
items=()
while IFS= read -r -d '' p; do
    [[ -d $p ]] && p=$p/
    items+=("$p")
done < <(find "${roots[@]}" -mindepth 1 \( -type f -o -type d \) -print0 | LC_ALL=C sort -z)
nfiles=0 ndirs=0
for p in "${items[@]}"; do
    if [[ $p == */ ]]; then ndirs=$((ndirs + 1)); else nfiles=$((nfiles + 1)); fi
done

# ---- the table ---------------------------------------------------------------------
declare -A named=() lists=()
scopes=() cmds=() lines=()
n=0
while IFS= read -r line || [[ -n $line ]]; do
    n=$((n + 1))
    [[ $line =~ ^[[:space:]]*(#|$) ]] && continue
    if [[ $line =~ ^@([A-Za-z0-9_-]+)[[:space:]]*=[[:space:]]*([^[:space:]]+)[[:space:]]*$ ]]; then
        named[${BASH_REMATCH[1]}]=${BASH_REMATCH[2]}
        continue
    fi
    if [[ $line =~ ^%([A-Za-z0-9_-]+)[[:space:]]*=[[:space:]]*(.*[^[:space:]])[[:space:]]*$ ]]; then
        lists[${BASH_REMATCH[1]}]=${BASH_REMATCH[2]}
        continue
    fi
    if [[ ! $line =~ ^([^[:space:]]+)[[:space:]]+(.+)$ ]]; then
        echo "sweep: $table:$n: want SCOPE COMMAND, @NAME = SCOPE or %NAME = VALUES" >&2
        exit 2
    fi
    scope=${BASH_REMATCH[1]} cmd=${BASH_REMATCH[2]}
    if [[ $cmd =~ \{%([A-Za-z0-9_-]+)\} ]]; then
        name=${BASH_REMATCH[1]}
        [[ -n ${lists[$name]+x} ]] || { echo "sweep: $table:$n: unknown list %$name" >&2 && exit 2; }
        IFS='|' read -ra values <<<"${lists[$name]}"
        for v in "${values[@]}"; do
            v=${v#"${v%%[![:space:]]*}"} v=${v%"${v##*[![:space:]]}"}
            scopes+=("$scope") cmds+=("${cmd//"{%$name}"/$v}") lines+=("$n")
        done
    else
        scopes+=("$scope") cmds+=("$cmd") lines+=("$n")
    fi
done <"$table"

# expand_scope SCOPE: its patterns, named scopes replaced, one per line
expand_scope() {
    local p depth=${2:-0} parts q
    IFS=, read -ra parts <<<"$1"
    for p in "${parts[@]}"; do
        if [[ $p == @* || $p == '!@'* ]]; then
            local name=${p#!}
            name=${name#@}
            [[ -n ${named[$name]+x} && $depth -lt 8 ]] || { echo "sweep: $table: unknown scope @$name" >&2 && return 1; }
            if [[ $p == '!'* ]]; then
                # !@NAME: the items of NAME's own patterns taken out
                while IFS= read -r q; do
                    [[ $q == '!'* ]] || echo "!$q"
                done < <(expand_scope "${named[$name]}" $((depth + 1)))
            else
                expand_scope "${named[$name]}" $((depth + 1)) || return 1
            fi
        else
            echo "$p"
        fi
    done
}

# scope_items SCOPE: the indexes of its items in REPLY (cached per scope)
declare -A scope_cache=()
scope_items() {
    if [[ -z ${scope_cache[$1]+x} ]]; then
        local pats p k in neg is_dir out=()
        mapfile -t pats < <(expand_scope "$1") || return 1
        ((${#pats[@]})) || return 1
        for k in "${!items[@]}"; do
            local path=${items[k]}
            in=0 is_dir=0
            [[ $path == */ ]] && is_dir=1
            for p in "${pats[@]}"; do
                neg=0
                [[ $p == '!'* ]] && neg=1 && p=${p#!}
                if [[ $p == */ ]]; then ((is_dir)) || continue; else ((!is_dir)) || continue; fi
                # shellcheck disable=SC2053
                if [[ $path == $p ]]; then
                    ((neg)) && in=0 && break
                    in=1
                fi
            done
            ((in)) && out+=("$k")
        done
        scope_cache[$1]=${out[*]}
    fi
    REPLY=${scope_cache[$1]}
}

job_cmd=() job_item=()
per_cmd_runs=()
for c in "${!cmds[@]}"; do
    per_cmd_runs[c]=0
    [[ -z $only || ${cmds[c]} =~ $only ]] || continue
    scope_items "${scopes[c]}" || { echo "sweep: $table:${lines[c]}: bad or empty scope ${scopes[c]}" >&2 && exit 2; }
    for k in $REPLY; do
        job_cmd+=("$c") job_item+=("$k")
        per_cmd_runs[c]=$((per_cmd_runs[c] + 1))
    done
done
ncmds=0
for c in "${!cmds[@]}"; do ((per_cmd_runs[c] > 0)) && ncmds=$((ncmds + 1)); done
nruns=${#job_cmd[@]}

work=
# command_of I: the command line of run I in REPLY, placeholders quoted
command_of() {
    local path=${items[job_item[$1]]%/} q t s
    printf -v q %q "$path"
    printf -v t %q "$work/t/$1"
    printf -v s %q "$work/d/p/dra.sock"
    REPLY=${cmds[job_cmd[$1]]//\{\}/$q}
    REPLY=${REPLY//\{tmp\}/$t}
    REPLY=${REPLY//\{sock\}/$s}
}
needs_shell() { [[ $1 == *[\|\;\&\<\>\$\`]* ]]; }

if ((list)); then
    # shellcheck disable=SC2016 # expanded by the generated script
    work='$SWEEP_WORK'
    for i in "${!job_cmd[@]}"; do
        command_of "$i"
        echo "$REPLY"
    done
    exit 0
fi

echo "sweep: $nfiles files and $ndirs directories x $ncmds commands = $nruns runs (${bin#"$top"/}, $jobs at a time)"

# ---- running -----------------------------------------------------------------------
work=$(mktemp -d /tmp/dra-sweep.XXXXXX) || exit 2
drv_pid=
cleanup() {
    [[ -n $drv_pid ]] && kill "$drv_pid" 2>/dev/null && wait "$drv_pid" 2>/dev/null
    rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
mkdir -p "$work/s" "$work/e" "$work/t" "$work/home" "$work/d"
export PATH="$bin:$PATH" HOME=$work/home LC_ALL=C.UTF-8
unset KUBECONFIG DRA_SELECT_HISTORY
san_opts() { # LOG: the sanitizer options of a process logging to LOG.PID
    ASAN="exitcode=97:log_path=$1:detect_leaks=1"
    UBSAN="exitcode=97:log_path=$1:print_stacktrace=1:halt_on_error=1"
}

# scratch directories, made in one go for the runs that name {tmp}
tmps=()
for i in "${!job_cmd[@]}"; do
    [[ ${cmds[job_cmd[i]]} == *'{tmp}'* ]] && tmps+=("$work/t/$i")
done
((${#tmps[@]})) && printf '%s\0' "${tmps[@]}" | xargs -0 mkdir

# the shared driver
san_opts "$work/s/driver"
ASAN_OPTIONS=$ASAN UBSAN_OPTIONS=$UBSAN "$bin/dra-example-driver" --plugin-dir "$work/d/p" \
    --registry-dir "$work/d/reg" --cdi-dir "$work/d/cdi" --node node-1 </dev/null >/dev/null 2>"$work/e/driver" &
drv_pid=$!
for ((w = 0; w < 600; w++)); do
    [[ -S $work/d/p/dra.sock ]] && break
    kill -0 "$drv_pid" 2>/dev/null || break
    sleep 0.05
done

declare -A job_of=()
fail_rc=()
running=0
# judge PID RC: the run of PID ended with RC
judge() {
    local i=${job_of[$1]}
    unset "job_of[$1]"
    running=$((running - 1))
    if (($2 > 3)) || compgen -G "$work/s/$i.*" >/dev/null; then
        fail_rc[i]=$2
    fi
}
# reap: wait for a run to end.  The runs' PIDs are named: `wait -n` without
# them can miss a child that ended before the call (bash 5.2).
reap() {
    local pid='' rc
    wait -n -p pid "${!job_of[@]}" 2>/dev/null # not bash's "Segmentation fault": the report says it
    rc=$?
    if [[ -n ${pid:-} ]]; then
        judge "$pid" "$rc"
        return
    fi
    for pid in "${!job_of[@]}"; do
        kill -0 "$pid" 2>/dev/null && continue
        wait "$pid" 2>/dev/null
        judge "$pid" $?
    done
}

# Each run in a shell of its own that waits for it with its notices
# silenced and exits with its status: a run killed by a signal ends that
# shell normally (128 + the signal), so this shell has no job of its own
# dying by a signal to announce ("Segmentation fault") when it reaps it
# during some other command; the verdict below says it.
# shellcheck disable=SC2016 # expanded by that shell
quiet='"$@" </dev/null & wait $! 2>/dev/null'
start=$SECONDS
for i in "${!job_cmd[@]}"; do
    command_of "$i"
    san_opts "$work/s/$i"
    if needs_shell "$REPLY"; then
        ASAN_OPTIONS=$ASAN UBSAN_OPTIONS=$UBSAN bash -c "$quiet" run timeout -k 5 "$limit" bash -c "$REPLY" </dev/null >/dev/null 2>"$work/e/$i" &
    else
        argv=()
        eval "argv=($REPLY)"
        ASAN_OPTIONS=$ASAN UBSAN_OPTIONS=$UBSAN bash -c "$quiet" run timeout -k 5 "$limit" "${argv[@]}" </dev/null >/dev/null 2>"$work/e/$i" &
    fi
    job_of[$!]=$i
    running=$((running + 1))
    while ((running >= jobs)); do reap; done
done
while ((running > 0)); do reap; done
took=$((SECONDS - start))

# ---- the driver's own verdict ------------------------------------------------------
drv_bad=
if ! kill -0 "$drv_pid" 2>/dev/null; then
    wait "$drv_pid"
    drv_rc=$?
    drv_bad="it stopped during the sweep (exit $drv_rc)"
elif [[ ! -S $work/d/p/dra.sock ]]; then
    drv_bad="it did not start"
else
    kill -TERM "$drv_pid"
    wait "$drv_pid"
    drv_rc=$?
    ((drv_rc > 3)) && drv_bad="exit $drv_rc on SIGTERM"
fi
drv_pid=
compgen -G "$work/s/driver.*" >/dev/null && drv_bad="sanitizer report (exit ${drv_rc:-?})"

# ---- the report --------------------------------------------------------------------
describe() { # RC: why a run failed
    local rc=$1
    if ((rc == 97)); then
        echo "sanitizer report (exit 97)"
    elif ((rc == 124 || rc == 137)); then
        echo "no answer within $limit s"
    elif ((rc > 128)); then
        echo "killed by signal $((rc - 128)) (SIG$(kill -l $((rc - 128)) 2>/dev/null || echo '?'))"
    elif ((rc > 3)); then
        echo "exit $rc (outside 0-3)"
    else
        echo "sanitizer report (exit $rc)"
    fi
}
show() { # LOGPREFIX ERRFILE: the start of the sanitizer logs (and their
    # SUMMARY lines), else of standard error, indented
    local logs=("$1".*)
    [[ -e ${logs[0]} ]] || logs=("$2")
    {
        cat "${logs[@]}" 2>/dev/null | grep -v -e '^[[:space:]]*$' -e '^=*$' | head -n 15
        grep -h '^SUMMARY: ' "${logs[@]}" 2>/dev/null
    } | sed 's/^/    /'
}

per_cmd_failed=()
for c in "${!cmds[@]}"; do per_cmd_failed[c]=0; done
for i in "${!fail_rc[@]}"; do
    c=${job_cmd[i]}
    per_cmd_failed[c]=$((per_cmd_failed[c] + 1))
    command_of "$i"
    echo "FAIL sweep ($table:${lines[c]}): $REPLY: $(describe "${fail_rc[i]}")"
    show "$work/s/$i" "$work/e/$i"
done
if [[ -n $drv_bad ]]; then
    echo "FAIL sweep: the shared dra-example-driver: $drv_bad"
    show "$work/s/driver" "$work/e/driver"
fi

passed=0 failed=0
for c in "${!cmds[@]}"; do
    ((per_cmd_runs[c] > 0)) || continue
    if ((per_cmd_failed[c] > 0)); then failed=$((failed + 1)); else passed=$((passed + 1)); fi
done
if [[ -n $drv_bad ]]; then failed=$((failed + 1)); else passed=$((passed + 1)); fi
echo "sweep: $nruns runs in $took s, ${#fail_rc[@]} failed"
echo "$passed passed, $failed failed"
((failed == 0))
