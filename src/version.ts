/** @module The package's version (package.json), for `trueup --version` and GET /healthz. */

import fs from 'node:fs'

// Read, not imported: package.json lies outside src/ (the build's root); from src/ and from dist/ alike it is one level up.
const packageJson = JSON.parse(fs.readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }

export const version: string = packageJson.version
