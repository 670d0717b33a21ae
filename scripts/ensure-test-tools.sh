#!/usr/bin/env bash
# npm test's pretest: the tools the tests need besides node. test/readme/walkthrough.test.ts runs README's
# walk-through as written, with bash, curl and jq; test/console/console.test.ts drives Debian's chromium
# (playwright-core brings no browser, and no browser download reaches this network); test/http/exports.test.ts
# reads the PDF export with pdftotext (poppler-utils), as an auditor's tools would. A fresh machine image
# may lack them: as root with apt-get (Debian, Ubuntu, CI here) they are installed; anywhere else this stops
# with what to install. CHROMIUM_PATH names another chromium for the console test.
set -euo pipefail

# PostgreSQL, pg_auto_failover and HAProxy, for the cluster's tests (test/cluster/)
bash "$(dirname "$0")/ensure-cluster-tools.sh"

# tool:package (Debian)
missing=()
for pair in curl:curl jq:jq pdftotext:poppler-utils; do
  command -v "${pair%%:*}" >/dev/null 2>&1 || missing+=("${pair#*:}")
done
[ -x "${CHROMIUM_PATH:-/usr/bin/chromium}" ] || missing+=(chromium)
[ ${#missing[@]} -eq 0 ] && exit 0

if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
  echo "ensure-test-tools: installing ${missing[*]} with apt-get (README's walk-through, the console's browser test and the PDF export test need them)"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}"
  exit 0
fi

echo "ensure-test-tools: npm test needs ${missing[*]}: test/readme/walkthrough.test.ts runs README's curl walk-through, test/console/console.test.ts drives chromium, test/http/exports.test.ts reads a PDF with pdftotext." >&2
echo "Install it (e.g. sudo apt-get install ${missing[*]}, or brew install ${missing[*]}) and run npm test again." >&2
exit 1
