# curves.sh: the cost curves of `make bench` (sourced by bench.sh after bench_setup).
#
# create time of tinyrun and crun (interleaved, CURVE_N samples a point) for
#   - 0/10/100/1000 bind mounts (an empty host dir on /mnt/vN, rbind,nosuid,nodev);
#   - a seccomp profile of 10 and of 400 rules (defaultAction allow, each rule ERRNO on
#     an argument value nothing passes, so /bin/sleep runs under every one of them),
#     cached (tinyrun's filter cache warm) and not (the bench's private cache emptied before
#     each create: the driver's -W; crun compiles every time either way);
#   - config.json of ~1 KiB and of 1 MiB (annotations);
# and state (of one), list and create with 1/100/1000 containers (running /bin/sleep)
# already under --root. Writes $OUT/curves.tsv (the driver's lines), a table
# ($OUT/curves.md, tests/bench/curves.awk) and a plot ($OUT/curves.png, gnuplot).
# shellcheck shell=bash

CURVE_RUNTIMES=(tinyrun crun)
CURVE_MOUNTS=${CURVE_MOUNTS:-"0 10 100 1000"}
CURVE_CROWDS=${CURVE_CROWDS:-"1 100 1000"}

curve_templates() {
	local m n names
	mkdir -p "$TMP/vol"
	for m in $CURVE_MOUNTS; do
		jq --arg vol "$TMP/vol" --argjson m "$m" '.mounts += [range($m) |
			{destination: "/mnt/v\(.)", type: "bind", source: $vol,
			 options: ["rbind", "nosuid", "nodev"]}]' \
			"$TMP/config-sleep.json" >"$TMP/config-mounts-$m.json" || return 1
	done
	names=$(jq -c '[.syscalls[].names[]] | unique' seccomp/profiles/default.json) || return 1
	for n in 10 400; do
		jq --argjson names "$names" --argjson n "$n" '.linux.seccomp = {
			defaultAction: "SCMP_ACT_ALLOW", architectures: ["SCMP_ARCH_X86_64"],
			syscalls: [range($n) | {names: [$names[. % ($names | length)]],
				action: "SCMP_ACT_ERRNO", errnoRet: 38,
				args: [{index: ((. / ($names | length)) | floor), value: 3735928559,
					op: "SCMP_CMP_EQ"}]}]}' \
			"$TMP/config-sleep.json" >"$TMP/config-seccomp-$n.json" || return 1
	done
	cp "$TMP/config-sleep.json" "$TMP/config-size-small.json"
	jq '.annotations = ([range(9000) | {key: "bench.example.com/k\(.)",
		value: ("v" * 96)}] | from_entries)' \
		"$TMP/config-sleep.json" >"$TMP/config-size-1m.json" || return 1
}

curve_specs() {
	local rt
	for rt in "${CURVE_RUNTIMES[@]}"; do printf '%s=%s\n' "$rt" "${BIN[$rt]}"; done
}

# curve LABEL TEMPLATE [driver options]: create time of one config.
curve() {
	local label=$1 tmpl=$2
	shift 2
	# shellcheck disable=SC2046 # one spec a line, no spaces
	in_ns "$DRIVER" curve -d "$TMP" -T "$TIMEOUT" -n "$CURVE_N" -l "$label" -f "$tmpl" "$@" \
		$(curve_specs)
}

curves() {
	local m n k small
	curve_templates || { say "bench: could not write the curve configs"; return 1; }
	: >"$OUT/curves.tsv"
	for m in $CURVE_MOUNTS; do
		say "bench: curve: create with $m mounts"
		curve "mounts=$m" "config-mounts-$m.json" >>"$OUT/curves.tsv"
	done
	for n in 10 400; do
		say "bench: curve: create with a $n-rule seccomp profile, cached and not"
		curve "seccomp=$n" "config-seccomp-$n.json" >>"$OUT/curves.tsv"
		curve "seccomp=$n-nocache" "config-seccomp-$n.json" -W /run/tinyrun-cache \
			>>"$OUT/curves.tsv"
	done
	small=$(( ($(stat -c %s "$TMP/config-size-small.json") + 512) / 1024 ))
	say "bench: curve: create with config.json of ${small} KiB and 1024 KiB"
	curve "config=${small}KiB" config-size-small.json >>"$OUT/curves.tsv"
	curve "config=1024KiB" config-size-1m.json >>"$OUT/curves.tsv"
	for k in $CURVE_CROWDS; do
		say "bench: curve: state, list, create with $k containers under --root"
		# shellcheck disable=SC2046
		in_ns "$DRIVER" many -d "$TMP" -T "$TIMEOUT" -n "$CURVE_N" -k "$k" -l "root=$k" \
			$(curve_specs) >>"$OUT/curves.tsv"
	done
	awk -F'\t' -f tests/bench/curves.awk "$OUT/curves.tsv" >"$OUT/curves.md"
	curves_plot
}

# One PNG, four panels: mounts, seccomp, crowd, config size (medians, ms).
curves_plot() {
	local dat=$TMP/curves.dat
	command -v gnuplot >/dev/null || { say "bench: no gnuplot, no plot (make deps)"; return 0; }
	# family x runtime ms, from "create@mounts=10", "state@root=100", ...
	awk -F'\t' '$1 ~ /@/ && $6 > 0 {
		split($1, a, "@"); split(a[2], b, "=")
		x = b[2]; sub(/[^0-9].*/, "", x)
		fam = (b[1] == "root" ? a[1] "@root" : b[1])
		if (b[2] ~ /nocache/) fam = fam "-nocache"
		print fam, $2, x, $3 }' "$OUT/curves.tsv" | sort -k1,1 -k2,2 -k3,3n >"$dat"
	gnuplot <<EOF 2>"$TMP/gnuplot.err" || say "bench: gnuplot failed: $(head -3 "$TMP/gnuplot.err")"
set terminal png size 1200,900
set output "$OUT/curves.png"
set multiplot layout 2,2 title "create/state/list cost curves: tinyrun vs crun (median ms)"
set key left top
set ylabel "ms"
set xlabel "bind mounts"
plot "< grep '^mounts tinyrun' $dat" using 3:4 with linespoints title "tinyrun create", \
     "< grep '^mounts crun' $dat" using 3:4 with linespoints title "crun create"
set xlabel "seccomp rules"
plot "< grep '^seccomp tinyrun' $dat" using 3:4 with linespoints title "tinyrun (cached)", \
     "< grep '^seccomp-nocache tinyrun' $dat" using 3:4 with linespoints title "tinyrun (not cached)", \
     "< grep '^seccomp crun' $dat" using 3:4 with linespoints title "crun"
set xlabel "containers under --root"
set logscale x
plot for [c in "state list create"] "< grep '^".c."@root tinyrun' $dat" using 3:4 with linespoints title "tinyrun ".c, \
     for [c in "state list create"] "< grep '^".c."@root crun' $dat" using 3:4 with linespoints dashtype 2 title "crun ".c
unset logscale x
set xlabel "config.json, KiB"
plot "< grep '^config tinyrun' $dat " using 3:4 with linespoints title "tinyrun create", \
     "< grep '^config crun' $dat " using 3:4 with linespoints title "crun create"
unset multiplot
EOF
}
