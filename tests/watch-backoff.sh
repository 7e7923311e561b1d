#!/bin/sh
# tests/watch-backoff.sh BINDIR DIR BASE_MS CAP_MS: fill DIR with links to
# the tools of BINDIR and a dra-watch that passes its hidden options
# --test-backoff-base-ms BASE_MS --test-backoff-cap-ms CAP_MS after the
# subcommand, so that a test's dra-watch retries at once instead of after
# client-go's waits (the tools read no environment for it).
set -eu
real=$(cd "$1" && pwd) dir=$2 base=$3 cap=$4
mkdir -p "$dir"
for t in "$real"/*; do
    ln -sfn "$t" "$dir/"
done
rm -f "$dir/dra-watch"
cat >"$dir/dra-watch" <<SH
#!/bin/sh
case "\$1" in
get | snapshot | record | run)
    c=\$1
    shift
    exec "$real/dra-watch" "\$c" --test-backoff-base-ms $base --test-backoff-cap-ms $cap "\$@"
    ;;
esac
exec "$real/dra-watch" "\$@"
SH
chmod +x "$dir/dra-watch"
