# timeline.awk: where the time of one traced command goes, from `perf trace -o FILE` output
# (lines "TS ( DUR ms): COMM/TID CALL(ARGS) = RET", times in ms). Used by profile.sh.
# Prints the span, per-thread syscall and off-syscall (user space + scheduling) time, the
# longest syscalls, and the longest gaps between one syscall's end and the thread's next one.
# perf trace adds a few microseconds to every syscall; gaps under ~0.1 ms are mostly that.

function call_of(s,    c) {
	c = s
	sub(/^ *\.\.\. \[continued\]: /, "", c)
	sub(/\(.*/, "", c)
	if (match(s, /<\/[^>]*>/))	# the file an fd argument names, e.g. <.../cgroup.procs>
		c = c " " substr(s, RSTART + 1, RLENGTH - 2)
	return c
}

# "? ( ): COMM/TID ... [continued]: CALL()": a call whose start perf did not see; the gap
# before the thread's next call was (mostly) spent blocked in it.
/^ *\? \( *\): .*\[continued\]: / {
	tid = $0; sub(/^[^:]*\): /, "", tid); sub(/ .*/, "", tid); sub(/.*\//, "", tid)
	call = $0; sub(/.*\[continued\]: /, "", call); sub(/\(.*/, "", call)
	if (tid in last_end)
		last_call[tid] = last_call[tid] " and blocked in " call
	next
}

/^ *[0-9.]+ \( *[0-9.]+ ms\): / {
	ts = $1 + 0
	dur = $0; sub(/^ *[0-9.]+ \( */, "", dur); dur = dur + 0
	rest = $0; sub(/^[^:]*\): /, "", rest)
	tid = rest; sub(/ .*/, "", tid); sub(/.*\//, "", tid)
	call = rest; sub(/^[^ ]+ +/, "", call); call = call_of(call)
	if (!(tid in first)) { first[tid] = ts; order[++ntids] = tid }
	if (tid in last_end && ts > last_end[tid]) {
		gap = ts - last_end[tid]
		off[tid] += gap
		gaps[++ngaps] = sprintf("%9.3f ms  tid %s, after %s, before %s", gap, tid, last_call[tid], call)
	}
	insys[tid] += dur
	ncalls[tid]++
	end = ts + dur
	if (!(tid in last_end) || end > last_end[tid]) { last_end[tid] = end; last_call[tid] = call }
	longs[++nlongs] = sprintf("%9.3f ms  tid %s %s (at %.3f)", dur, tid, call, ts)
	if (ts < t0 || t0 == "") t0 = ts
	if (end > t1) t1 = end
}

function top(arr, n, k,    i, j, tmp) {
	for (i = 2; i <= n; i++) {	# insertion sort, descending on the leading number
		tmp = arr[i]
		for (j = i - 1; j >= 1 && arr[j] + 0 < tmp + 0; j--) arr[j + 1] = arr[j]
		arr[j + 1] = tmp
	}
	for (i = 1; i <= n && i <= k; i++) print "  " arr[i]
}

END {
	printf("span %.3f ms (first to last traced syscall)\n", t1 - t0)
	for (i = 1; i <= ntids; i++) {
		t = order[i]
		printf("  tid %s: %d syscalls, %.3f ms in syscalls, %.3f ms between them, from %.3f to %.3f\n",
		       t, ncalls[t], insys[t], off[t], first[t] - t0, last_end[t] - t0)
	}
	print "longest syscalls:"
	top(longs, nlongs, 8)
	print "longest gaps between a thread's syscalls (its own CPU work or waiting for a CPU):"
	top(gaps, ngaps, 8)
}
