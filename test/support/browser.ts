/**
 * @module Test support: Debian's chromium (installed by scripts/ensure-test-tools.sh, npm's pretest) driven
 * headless by playwright-core, which ships no browser of its own. A missing browser is an error that says
 * how to install it, never a silent skip.
 */

import fs from 'node:fs'
import { chromium, type Browser } from 'playwright-core'

export const chromiumPath = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium'

/**
 * The flags that make chromium quiet on a closed network: without the background-networking ones it
 * keeps trying Google's hosts at every start.
 */
const flags = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync']

export interface LaunchedBrowser {
  readonly browser: Browser
  close(): Promise<void>
}

export async function launchChromium(): Promise<LaunchedBrowser> {
  if (!fs.existsSync(chromiumPath)) {
    throw new Error(`No chromium at ${chromiumPath}: the console test needs Debian's chromium package. Run bash scripts/ensure-test-tools.sh as root (npm test's pretest does), or apt-get install chromium, or set CHROMIUM_PATH.`)
  }
  // launch() gives chromium a fresh, empty --user-data-dir of its own (a temporary profile it deletes on close).
  const browser = await chromium.launch({ executablePath: chromiumPath, args: flags, timeout: 30_000 })
  return { browser, close: () => browser.close() }
}
