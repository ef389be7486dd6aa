# bash completion for tinyrun                                 -*- shell-script -*-
#
# The commands and their options come from the binary itself (`tinyrun help
# --commands`, `tinyrun help --options CMD`: one "OPTION [VALUE]" per line,
# from the same table as --help and the man page), so they cannot drift.

# Container ids under the --root given on the command line (or the default).
_tinyrun_ids() {
	local root=/run/tinyrun i
	for ((i = 1; i < ${#COMP_WORDS[@]} - 1; i++)); do
		case "${COMP_WORDS[i]}" in
		--root) root="${COMP_WORDS[i + 1]}" ;;
		--root=*) root="${COMP_WORDS[i]#--root=}" ;;
		esac
	done
	"$_tinyrun_bin" --root "$root" list -q 2>/dev/null
}

# Work with or without the bash-completion package.
_tinyrun_files() { # [-d]
	if declare -F _filedir >/dev/null; then
		_filedir "$@"
	elif [[ "${1:-}" == -d ]]; then
		COMPREPLY=($(compgen -d -- "$cur"))
	else
		COMPREPLY=($(compgen -f -- "$cur"))
	fi
}

# _tinyrun_value PLACEHOLDER: complete the value of an option.
_tinyrun_value() {
	case "$1" in
	DIR) _tinyrun_files -d ;;
	FILE | PATH) _tinyrun_files ;;
	*"|"*) COMPREPLY=($(compgen -W "${1//|/ }" -- "$cur")) ;;
	*) COMPREPLY=() ;;
	esac
}

# Images under $TINYAWS_IMAGES_DIR (as tinyrun reads it), for an image id.
_tinyrun_images() {
	local d="${TINYAWS_IMAGES_DIR:-/var/lib/tinyaws/images}" f
	for f in "$d"/*/; do
		[[ -d "$f" ]] && f="${f%/}" && echo "${f##*/}"
	done
}

# bundle KIND IMAGE [-- CMD...]: its kinds (tinyaws, the only one: as
# `tinyrun bundle` says), then an image directory or id; nothing after --.
_tinyrun_bundle_arg() {
	local n=0 i
	for ((i = cmd_index + 1; i < cword; i++)); do
		case "${words[i]}" in
		--) return ;;
		-*) [[ -n "${takes[${words[i]}]:-}" ]] && ((i++)) ;;
		*) ((n++)) ;;
		esac
	done
	if ((n == 0)); then
		COMPREPLY=($(compgen -W "tinyaws" -- "$cur"))
	elif ((n == 1)); then
		_tinyrun_files -d
		[[ "$cur" == */* ]] || COMPREPLY+=($(compgen -W "$(_tinyrun_images)" -- "$cur"))
	fi
}

_tinyrun() {
	local cur prev words cword
	if declare -F _init_completion >/dev/null; then
		_init_completion || return
	else
		words=("${COMP_WORDS[@]}")
		cword=$COMP_CWORD
		cur="${COMP_WORDS[COMP_CWORD]}"
		prev="${COMP_WORDS[COMP_CWORD - 1]}"
	fi
	_tinyrun_bin="${words[0]}"

	# OPTION -> value placeholder ("" for a flag), for the globals or a command
	local -A takes=()
	local opt arg i cmd="" cmd_index=0
	while read -r opt arg; do takes[$opt]="$arg"; done < <("$_tinyrun_bin" help --options --global 2>/dev/null)

	# the command: the first word after the global options and their values
	for ((i = 1; i < cword; i++)); do
		case "${words[i]}" in
		-*) [[ -n "${takes[${words[i]}]:-}" ]] && ((i++)) ;;
		*)
			cmd="${words[i]}"
			cmd_index=$i
			break
			;;
		esac
	done

	if [[ -n "$cmd" ]]; then
		takes=()
		while read -r opt arg; do takes[$opt]="$arg"; done < <("$_tinyrun_bin" help --options "$cmd" 2>/dev/null)
		takes[--help]=""
	fi
	# the value of an option: never an id
	if [[ "$prev" == -* && -n "${takes[$prev]:-}" ]] && ((cword - 1 > cmd_index || cmd_index == 0)); then
		_tinyrun_value "${takes[$prev]}"
		return
	fi
	if [[ "$cur" == -* ]]; then
		COMPREPLY=($(compgen -W "${!takes[*]}" -- "$cur"))
		return
	fi
	if [[ -z "$cmd" ]]; then
		COMPREPLY=($(compgen -W "$("$_tinyrun_bin" help --commands 2>/dev/null)" -- "$cur"))
		return
	fi

	# does the command still want an id (one, after the command's options)?
	local have_id=""
	for ((i = cmd_index + 1; i < cword; i++)); do
		case "${words[i]}" in
		-*) [[ -n "${takes[${words[i]}]:-}" ]] && ((i++)) ;;
		*) have_id=1 ;;
		esac
	done
	case "$cmd" in
	start | state | kill | delete | exec | ps | pause | resume | update | events)
		if [[ -z "$have_id" ]]; then
			COMPREPLY=($(compgen -W "$(_tinyrun_ids)" -- "$cur"))
		elif [[ "$cmd" == kill ]]; then
			COMPREPLY=($(compgen -W "TERM KILL HUP INT QUIT USR1 USR2 STOP CONT" -- "$cur"))
		fi
		;;
	run)
		[[ -z "$have_id" ]] && _tinyrun_files -d
		;;
	help)
		[[ -z "$have_id" ]] && COMPREPLY=($(compgen -W "$("$_tinyrun_bin" help --commands 2>/dev/null)" -- "$cur"))
		;;
	bundle)
		_tinyrun_bundle_arg
		;;
	esac
} &&
	complete -F _tinyrun tinyrun
