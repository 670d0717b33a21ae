/** Tests for version: the package's own version, as package.json at the repository's root states it. */
import fs from 'node:fs'
import t from 'tap'
import { version } from '../src/version.ts'

t.test('version is package.json\'s version, a semantic version', async (t) => {
  const packageJson = JSON.parse(fs.readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { name: string, version: string }
  t.equal(version, packageJson.version)
  t.match(version, /^\d+\.\d+\.\d+(?:-[0-9A-Za-z.-]+)?$/, 'major.minor.patch, an optional pre-release')
  t.not(version, packageJson.name, 'the version, not another field')
})
