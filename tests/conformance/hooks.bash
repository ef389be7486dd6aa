# Hook helpers: every hook is the checker in "conformance-hook" mode, which
# records its argv, env, stdin state, namespaces and the state pid's view
# under $T/hooklog/NAME/ and appends NAME to $T/hooklog/order.

HL() { echo "$T/hooklog"; }

# hook_json NAME [ARG...]: a hook entry resolved on the host
hook_json() {
	local name=$1; shift
	jq -cn --arg p "$CHECKER" --arg d "$T/hooklog/$name" '{path: $p, args: (["conformance-hook", $d] + $ARGS.positional)}' --args "$@"
}
# chook_json NAME [ARG...]: a hook entry resolved inside the container (/bin/checker, /hooklog)
chook_json() {
	local name=$1; shift
	jq -cn --arg d "/hooklog/$name" '{path: "/bin/checker", args: (["conformance-hook", $d] + $ARGS.positional)}' --args "$@"
}
# add_hook TYPE JSON
add_hook() { cfg '.hooks[$t] += [$h]' --arg t "$1" --argjson h "$2"; }
# hooklog_mount: bind $T/hooklog to /hooklog in the container
hooklog_mount() {
	mkdir -p "$T/hooklog"
	chmod 777 "$T/hooklog"
	add_mount '{"destination": "/hooklog", "type": "bind", "source": "'"$T"'/hooklog", "options": ["rbind", "rw"]}'
}
hook_ran() { [ -e "$T/hooklog/$1/argv.txt" ]; }
hook_done() { [ -e "$T/hooklog/$1/done.txt" ]; }
# hook_key NAME FILE KEY: value of KEY=... in the record FILE
hook_key() { awk -F= -v k="$3" '$1 == k { sub(/^[^=]*=/, ""); print; exit }' "$T/hooklog/$1/$2"; }
hook_stdin() { cat "$T/hooklog/$1/stdin.json"; }
hook_order() { tr '\n' ' ' <"$T/hooklog/order" 2>/dev/null | sed 's/ $//'; }
