# Sourced by tools/install_py315.sh and tools/install_wheel_tools.sh: fetch
# packages from Debian sid without touching the system's dpkg/apt state. A
# private apt configuration in a temporary folder (removed on exit: own
# sources.list naming sid, and experimental only if sid lacks a package; own
# lists and cache dirs) against the Debian mirror this machine's apt already
# uses (read from /etc/apt at run time; SID_MIRROR, or the older PY315_MIRROR,
# overrides). apt checks each .deb against sid's signed Release file.
#
# The sourcing script defines log().

# sid_apt PKG: a private apt state for Debian sid in a temporary folder (removed on
# exit), updated; adds experimental when sid has no candidate for PKG. Sets apt_opts.
sid_apt() {
  # The Debian archive this machine's apt is configured for: the URI that serves the
  # system's own codename (apt resolves deb822 and one-line sources alike; nothing is
  # downloaded by --print-uris).
  local mirror=${SID_MIRROR:-${PY315_MIRROR:-}} codename uris opt="" keyring=/usr/share/keyrings/debian-archive-keyring.gpg
  if [[ -z $mirror ]]; then
    codename=$(. /etc/os-release && echo "${VERSION_CODENAME:-}")
    uris=$(apt-get update --print-uris 2>/dev/null | sed -n "s|^'\([^']*\)/dists/\([^/]*\)/InRelease'.*|\1 \2|p")
    mirror=$(awk -v c="$codename" '$2 == c { print $1; exit }' <<<"$uris")
    [[ -n $mirror ]] || mirror=$(awk '$1 ~ /\/debian$/ { print $1; exit }' <<<"$uris")
  fi
  [[ -n $mirror ]] || { log "no Debian mirror found in /etc/apt (set SID_MIRROR)"; exit 1; }
  [[ -f $keyring ]] && opt="[signed-by=$keyring] "
  apt_dir=$(mktemp -d -t sid-apt.XXXXXX)
  trap 'rm -rf "$apt_dir"' EXIT
  mkdir -p "$apt_dir/lists/partial" "$apt_dir/cache/archives/partial"
  apt_opts=(-o "Dir::Etc::sourcelist=$apt_dir/sources.list" -o "Dir::Etc::sourceparts=-"
            -o "Dir::State::Lists=$apt_dir/lists" -o "Dir::Cache=$apt_dir/cache"
            -o "APT::Sandbox::User=root" -q)
  echo "deb ${opt}$mirror sid main" >"$apt_dir/sources.list"
  log "apt update (sid) from the mirror in /etc/apt"
  apt-get "${apt_opts[@]}" update >"$apt_dir/update.log" 2>&1 || { cat "$apt_dir/update.log" >&2; exit 1; }
  if [[ $(candidate "$1") == "" ]]; then
    echo "deb ${opt}$mirror experimental main" >>"$apt_dir/sources.list"
    log "$1 not in sid; adding experimental"
    apt-get "${apt_opts[@]}" update >"$apt_dir/update.log" 2>&1 || { cat "$apt_dir/update.log" >&2; exit 1; }
    [[ $(candidate "$1") != "" ]] || { log "$1 is in neither sid nor experimental"; exit 1; }
  fi
}

# candidate PKG: the version apt would fetch, or nothing.
candidate() {
  apt-cache "${apt_opts[@]}" policy "$1" 2>/dev/null | awk '/Candidate:/ && $2 != "(none)" { print $2 }'
}

# sid_download DIR PKG...: fetch the .debs into DIR (apt checks them against the
# signed Release file).
sid_download() {
  local dir=$1
  shift
  mkdir -p "$dir"
  (cd "$dir" && apt-get "${apt_opts[@]}" download "$@" >"$apt_dir/download.log" 2>&1) \
    || { cat "$apt_dir/download.log" >&2; exit 1; }
}
