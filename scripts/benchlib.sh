# shellcheck shell=bash
# Sourced by the bench scripts: one run's costs and their medians with the spread, so that
# every figure is a median over interleaved runs, CPU beside wall, never a best-of-N.

# runcost FILE CMD...: runs CMD (stdout discarded) and appends "wall_s cpu_s rss_kb" to FILE
# (cpu = user + sys, GNU time).
runcost() {
	local f=$1; shift
	/usr/bin/time -f '%e %U %S %M' -o "$f.one" "$@" >/dev/null
	awk '{printf "%s %.3f %s\n", $1, $2 + $3, $4}' "$f.one" >>"$f"
	rm -f "$f.one"
}

# spread FILE COL: "median min max" of column COL of FILE.
spread() {
	cut -d' ' -f"$2" "$1" | sort -g | awk '{a[NR] = $1} END {print a[int((NR + 1) / 2)], a[1], a[NR]}'
}

# load: the load average now, to print beside the figures.
load() { cut -d' ' -f1-3 /proc/loadavg; }
