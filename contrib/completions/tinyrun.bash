# bash completion for tinyrun                                 -*- shell-script -*-

# Container ids under the --root given on the command line (or the default).
_tinyrun_ids() {
	local root=/run/tinyrun i
	for ((i = 1; i < ${#COMP_WORDS[@]} - 1; i++)); do
		case "${COMP_WORDS[i]}" in
		--root) root="${COMP_WORDS[i + 1]}" ;;
		--root=*) root="${COMP_WORDS[i]#--root=}" ;;
		esac
	done
	tinyrun --root "$root" list -q 2>/dev/null
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

	local commands="create start state kill delete run exec ps pause resume list update events spec features help"
	local globals="--root --log --log-format --debug --systemd-cgroup --cgroup-manager --version --help"

	# Find the command: the first word after the global options and their values.
	local i cmd="" cmd_index=0
	for ((i = 1; i < cword; i++)); do
		case "${words[i]}" in
		--root | --log | --log-format | --cgroup-manager) ((i++)) ;;
		-*) ;;
		*)
			cmd="${words[i]}"
			cmd_index=$i
			break
			;;
		esac
	done

	if [[ -z "$cmd" ]]; then
		case "$prev" in
		--root) _tinyrun_files -d; return ;;
		--log) _tinyrun_files; return ;;
		--log-format) COMPREPLY=($(compgen -W "text json" -- "$cur")); return ;;
		--cgroup-manager) COMPREPLY=($(compgen -W "cgroupfs systemd" -- "$cur")); return ;;
		esac
		if [[ "$cur" == -* ]]; then
			COMPREPLY=($(compgen -W "$globals" -- "$cur"))
		else
			COMPREPLY=($(compgen -W "$commands" -- "$cur"))
		fi
		return
	fi

	case "$prev" in
	-b | --bundle) _tinyrun_files -d; return ;;
	--pid-file | --log | -p | --process | -r | --resources | --config) _tinyrun_files; return ;;
	--console-socket) _tinyrun_files; return ;;
	--cwd) return ;;
	-f | --format) COMPREPLY=($(compgen -W "table json" -- "$cur")); return ;;
	--seccomp) COMPREPLY=($(compgen -W "default strict" -- "$cur")); return ;;
	--preserve-fds | --id | -e | --env | -u | --user | --interval | --cgroup) return ;;
	esac

	local opts="--help"
	case "$cmd" in
	create) opts+=" --bundle --pid-file --console-socket --no-pivot --no-new-keyring --preserve-fds --config" ;;
	run) opts+=" --bundle --detach --keep --id --pid-file --console-socket --no-pivot --no-new-keyring --preserve-fds --config" ;;
	kill) opts+=" --all" ;;
	delete) opts+=" --force" ;;
	exec) opts+=" --process --detach --tty --console-socket --env --cwd --user --additional-gids --cap --no-new-privs --pid-file --preserve-fds --ignore-paused --cgroup" ;;
	ps) opts+=" --format" ;;
	list) opts+=" --quiet --format" ;;
	update) opts+=" --resources --memory --memory-reservation --memory-swap --cpu-shares --cpu-quota --cpu-period --cpuset-cpus --cpuset-mems --pids-limit --blkio-weight" ;;
	events) opts+=" --stats --interval" ;;
	spec) opts+=" --bundle --rootless --seccomp" ;;
	esac

	if [[ "$cur" == -* ]]; then
		COMPREPLY=($(compgen -W "$opts" -- "$cur"))
		return
	fi

	# Does the command still want an id (only one, right after the command's options)?
	local have_id=""
	for ((i = cmd_index + 1; i < cword; i++)); do
		case "${words[i]}" in
		-b | --bundle | --pid-file | --console-socket | --preserve-fds | --id | -p | --process | -r | --resources | -f | --format | --seccomp | -e | --env | --cwd | -u | --user | --interval | --cgroup | --config) ((i++)) ;;
		-*) ;;
		*) have_id=1 ;;
		esac
	done
	case "$cmd" in
	start | state | kill | delete | exec | ps | pause | resume | update | events)
		[[ -z "$have_id" ]] && COMPREPLY=($(compgen -W "$(_tinyrun_ids)" -- "$cur"))
		[[ -n "$have_id" && "$cmd" == kill ]] &&
			COMPREPLY=($(compgen -W "TERM KILL HUP INT QUIT USR1 USR2 STOP CONT" -- "$cur"))
		;;
	run)
		[[ -z "$have_id" ]] && _tinyrun_files -d
		;;
	help)
		COMPREPLY=($(compgen -W "$commands" -- "$cur"))
		;;
	esac
} &&
	complete -F _tinyrun tinyrun
