#!/usr/bin/env bash
# Installs the reference engines `qdsim validate` runs: ns-2.35 (`ns`, Debian's ns2) and the
# ns-3.37 libraries and headers (Debian's libns3-dev), pinned to the versions the translators
# were written against; and the programs the tests drive: Chromium and its WebDriver (the
# page of `qdsim report` opened in a headless browser, tests/test_report_html.py) and tshark
# (reading the packet captures qdsim writes). Needs root (or password-less sudo) for apt-get;
# without it, says what to run and leaves the tests that need them to skip.
#
# Chromium's pin is the Debian security archive's current build: that archive keeps only the
# newest, so when a newer Chromium replaces it this script installs that one instead and says
# so (move the pin: `apt-cache policy chromium chromium-driver` gives the candidate). The
# browser only opens the report's page in a test; no result depends on its version.
set -euo pipefail

PACKAGES=(ns2=2.35+dfsg-5 libns3-dev=3.37-2 tshark=4.0.17-0+deb12u3)
BROWSER=(chromium=148.0.7778.167-1~deb12u1 chromium-driver=148.0.7778.167-1~deb12u1)

have_ns2() { command -v ns >/dev/null 2>&1; }
have_ns3() { [ -f /usr/include/ns3/core-module.h ] && ls /usr/lib/*/libns3-core.so >/dev/null 2>&1; }
have_chromium() { [ -x /usr/bin/chromium ] && [ -x /usr/bin/chromedriver ]; }
have_tshark() { command -v tshark >/dev/null 2>&1; }

if have_ns2 && have_ns3 && have_chromium && have_tshark; then
	echo "engines: ns-2 ($(command -v ns)), ns-3 (libns3-dev), Chromium with chromedriver and tshark are installed"
	exit 0
fi

if [ "$(id -u)" -eq 0 ]; then
	SUDO=()
elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
	SUDO=(sudo -n)
else
	echo "engines: NOT installed (needs root): run  sudo apt-get install ${PACKAGES[*]} ${BROWSER[*]}" >&2
	echo "engines: the tests that run ns-2, ns-3, Chromium or tshark are skipped until then" >&2
	exit 0
fi

export DEBIAN_FRONTEND=noninteractive
install() { "${SUDO[@]}" apt-get install -y -q --no-install-recommends "$@"; }
if ! install "${PACKAGES[@]}" "${BROWSER[@]}"; then
	"${SUDO[@]}" apt-get update -q
	if ! install "${PACKAGES[@]}" "${BROWSER[@]}"; then
		echo "engines: ${BROWSER[*]} is no longer in Debian's archive (it keeps only the newest Chromium): installing the current one; move the pin in $0" >&2
		BROWSER=(chromium chromium-driver)
		install "${PACKAGES[@]}" "${BROWSER[@]}"
	fi
fi
echo "engines: installed ${PACKAGES[*]} ${BROWSER[*]}"
