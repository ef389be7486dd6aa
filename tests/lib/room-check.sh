#!/usr/bin/env bash
# room-check.sh: the OCI core carries no sandbox branch (issue 31 §6). Lists
# every line of a core C file (oci/, runtime/, rootfs/, seccomp/, outside the
# */sandbox/ rooms) that names "sandbox" or "tinyaws" (any case, also inside
# identifiers) where tests/lib/room-allowlist.txt does not allow that word in
# that file; exit 1 when there is one. Paths into a room do not count.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.." || exit 2
allow="tests/lib/room-allowlist.txt"

allowed_words() {   # FILE -> its allowed words, one a line
	awk -v f="$1" '$1 == f { n = split($2, w, ","); for (i = 1; i <= n; i++) print tolower(w[i]) }' "$allow"
}

bad=0
while IFS= read -r file; do
	words="$(allowed_words "$file")"
	while IFS= read -r hit; do
		word="$(tr '[:upper:]' '[:lower:]' <<<"$hit" | grep -oE 'sandbox|tinyaws' | sort -u |
			grep -vxF -f <(printf '%s\n' "$words" | grep . || echo '#none'))"
		if [ -n "$word" ]; then
			printf '%s:%s\n' "$file" "$hit"
			bad=1
		fi
	done < <(sed -E 's#(oci|runtime|rootfs)/sandbox/[A-Za-z0-9_./-]*##g' "$file" | grep -niE 'sandbox|tinyaws')
done < <(find oci runtime rootfs seccomp -name '*.c' -not -path '*/sandbox/*' | sort)
if [ "$bad" = 1 ]; then
	echo "room-check: core files above name the sandbox or tinyaws: move the code into a room" \
	     "(runtime/sandbox/, oci/sandbox/, rootfs/sandbox/) and call it through its room.h," \
	     "or, for an entry point of the room, allow the word in $allow" >&2
fi
exit "$bad"
