#!/usr/bin/env bash
# Installs the reference engines `qdsim validate` runs: ns-2.35 (`ns`, Debian's ns2) and the
# ns-3.37 libraries and headers (Debian's libns3-dev), pinned to the versions the translators
# were written against. Needs root (or password-less sudo) for apt-get; without it, says what
# to run and leaves the engine tests to skip.
set -euo pipefail

PACKAGES=(ns2=2.35+dfsg-5 libns3-dev=3.37-2)

have_ns2() { command -v ns >/dev/null 2>&1; }
have_ns3() { [ -f /usr/include/ns3/core-module.h ] && ls /usr/lib/*/libns3-core.so >/dev/null 2>&1; }

if have_ns2 && have_ns3; then
	echo "engines: ns-2 ($(command -v ns)) and ns-3 (libns3-dev) are installed"
	exit 0
fi

if [ "$(id -u)" -eq 0 ]; then
	SUDO=()
elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
	SUDO=(sudo -n)
else
	echo "engines: NOT installed (needs root): run  sudo apt-get install ${PACKAGES[*]}" >&2
	echo "engines: the tests that run ns-2 and ns-3 are skipped until then" >&2
	exit 0
fi

export DEBIAN_FRONTEND=noninteractive
if ! "${SUDO[@]}" apt-get install -y -q --no-install-recommends "${PACKAGES[@]}"; then
	"${SUDO[@]}" apt-get update -q
	"${SUDO[@]}" apt-get install -y -q --no-install-recommends "${PACKAGES[@]}"
fi
echo "engines: installed ${PACKAGES[*]}"
