# The first program inside the OS sandbox (pid 2; bwrap's own init is pid 1). It starts the
# network bridge when the grant names hosts, runs the command in the foreground, and when
# the command ends reports on fd 5 how many processes it left behind. They do not outlive
# it: this script ends, bwrap's init follows, and the kernel kills whatever remains in the
# pid namespace. A TERM for the sandbox reaches the command; this script waits for it
# (a trap that does nothing defers until the foreground command has ended, per POSIX).
#
# usage: bash -p init.sh NET NODE BRIDGE SOCKET -- COMMAND [ARGS...]   (or sh where there is no bash)
#   NET is "net" or "none"; NODE, BRIDGE and SOCKET are used only with "net".
#
# First of all, every descriptor above 2 but the report pipe (5) is closed: bubblewrap passes
# on whatever the kernel had open without close-on-exec (a descriptor its own parent handed
# it, a native library's file), and none of it is the command's, nor the bridge's (which the
# command could read through /proc). Closing a descriptor above 9 needs a shell that takes
# such numbers (bash; dash does not): where one is left open, the command does not run. (The
# shell's own descriptor of this script is close-on-exec, and is left to it.)
for fd in /proc/self/fd/*; do
  fd=${fd##*/}
  case "$fd" in 0 | 1 | 2 | 5 | '*') continue ;; esac
  [ -e "/proc/self/fd/$fd" ] || continue
  [ "/proc/self/fd/$fd" -ef "$0" ] && continue
  case "$fd" in
    [3-9]) eval "exec $fd>&-" ;;
    *) if [ -n "${BASH_VERSION:-}" ]; then eval "exec $fd>&-"; fi ;;
  esac
done
for fd in /proc/self/fd/*; do
  fd=${fd##*/}
  case "$fd" in 0 | 1 | 2 | 5 | '*') continue ;; esac
  if [ -e "/proc/self/fd/$fd" ] && ! [ "/proc/self/fd/$fd" -ef "$0" ]; then
    echo "runtimectl sandbox: descriptor $fd, inherited from the kernel, could not be closed (no shell here closes descriptors above 9); the command was not run" >&2
    printf 'fd-leak\n' >&5
    exit 125
  fi
done
net=$1 node=$2 bridge_js=$3 socket=$4
shift 4
[ "$1" = -- ] && shift
bridge=
if [ "$net" = net ]; then
  ready=/tmp/.runtimectl-bridge-ready
  NODE_OPTIONS= "$node" "$bridge_js" "$socket" 3128 "$ready" </dev/null 5>&- &
  bridge=$!
  while [ ! -e "$ready" ]; do
    if ! kill -0 "$bridge" 2>/dev/null; then
      echo "runtimectl sandbox: the network bridge did not start" >&2
      printf 'bridge-failed\n' >&5
      exit 125
    fi
    sleep 0.005
  done
  rm -f "$ready"
fi
trap : TERM INT HUP
# The command gets the sandbox's stderr; this shell's own notes ("Terminated" when the command
# dies of a signal) go nowhere: unsandboxed, nobody would print them.
# (The redirections are made inside the subshell that becomes the command: dash would apply a
# simple command's own redirections in this shell while it waits, and print there.)
exec 6>&2 2>/dev/null
(exec 2>&6 6>&- 5>&- && exec "$@")
rc=$?
left=0
for p in /proc/[0-9]*; do
  p=${p#/proc/}
  case "$p" in 1 | "$$" | "$bridge") continue ;; esac
  left=$((left + 1))
done
printf 'exit %s left %s\n' "$rc" "$left" >&5
exit "$rc"
