/**
 * The command line and a bad configuration (docs/API.md, "Running it"): --help and --version answer and exit 0
 * without touching any data dir; a bad PORT or LOG_LEVEL, or a DATA_DIR this user cannot read or write, is one
 * line on stderr naming the variable and why, exit 2, no stack trace, and a permission problem is never called damage.
 */
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import t, { type Test } from 'tap'
import { helpVariableNames } from '../src/cli.ts'
import { repositoryRoot, runToExit } from './support/process.ts'

t.setTimeout(600_000)
const tmpRoot = fs.mkdtempSync(path.join(os.tmpdir(), 'trueup-cli-'))
t.teardown(() => fs.rmSync(tmpRoot, { recursive: true, force: true }))
const packageVersion = JSON.parse(fs.readFileSync(path.join(repositoryRoot, 'package.json'), 'utf8')).version as string

/** The variable names of README.md's configuration table (a row may name two: `A` / `B`). */
function readmeVariables(): string[] {
  const readme = fs.readFileSync(path.join(repositoryRoot, 'README.md'), 'utf8')
  const table = readme.slice(readme.indexOf('## Configuration'), readme.indexOf('\n\n', readme.indexOf('| variable |')))
  return table.split('\n').filter((line) => line.startsWith('| `')).flatMap((line) => [...line.split('|')[1].matchAll(/`([A-Z_]+)`/g)].map((match) => match[1]))
}

t.test('--help lists every variable of README\'s table, --version the version; both exit 0 and touch no data dir', async (t) => {
  const dataDir = path.join(tmpRoot, 'never')
  const help = await runToExit({ dataDir, adminToken: 'x', args: ['--import=tsx', 'src/main.ts', '--help'] })
  t.equal(help.code, 0)
  t.equal(help.stderr, '')
  const documented = readmeVariables()
  t.ok(documented.length >= 20, `README's table read (${documented.length} variables)`)
  t.same([...helpVariableNames].sort(), [...documented].sort(), '--help and README list the same variables')
  for (const name of documented) t.match(help.stdout, new RegExp(`^  ${name} `, 'm'), `--help lists ${name}`)
  t.match(help.stdout, /^Usage: trueup/m)
  const version = await runToExit({ dataDir, adminToken: 'x', args: ['--import=tsx', 'src/main.ts', '--version'] })
  t.same([version.code, version.stdout, version.stderr], [0, `${packageVersion}\n`, ''], 'the package version')
  const unknown = await runToExit({ dataDir, adminToken: 'x', args: ['--import=tsx', 'src/main.ts', '--verbose'] })
  t.equal(unknown.code, 2, 'an unknown argument is refused')
  t.match(unknown.stderr, /^unknown argument "--verbose": [^\n]*\n$/, 'in one line')
  t.notOk(fs.existsSync(dataDir), 'no data dir was created')
})

/** A refused start: exit 2, exactly one line on stderr, nothing on stdout (no key, no token). */
function assertOneLine(t: Test, finished: { code: number | null; stdout: string; stderr: string }, pattern: RegExp, label: string): void {
  t.equal(finished.code, 2, `${label}: exit 2`)
  t.equal(finished.stderr.split('\n').length, 2, `${label}: one line (${finished.stderr.slice(0, 300)})`)
  t.match(finished.stderr, pattern, `${label}: names the variable and the reason`)
  t.equal(finished.stdout, '', `${label}: nothing on stdout`)
}

t.test('a bad PORT or LOG_LEVEL is one line naming it, exit 2, and no data dir', async (t) => {
  const dataDir = path.join(tmpRoot, 'bad-config')
  const cases: readonly [Record<string, string>, RegExp][] = [
    [{ PORT: 'http' }, /^invalid configuration: PORT must be a non-negative integer, got "http"\n$/],
    [{ PORT: '70000' }, /^invalid configuration: PORT must be 0\.\.65535\n$/],
    [{ LOG_LEVEL: 'loud' }, /^invalid configuration: LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent, got "loud"\n$/],
    [{ SNAPSHOT_COMMANDS_INTERVAL: '0' }, /^invalid configuration: SNAPSHOT_COMMANDS_INTERVAL must be at least 1\n$/],
  ]
  for (const [env, pattern] of cases) {
    assertOneLine(t, await runToExit({ dataDir, adminToken: 'x', env }), pattern, JSON.stringify(env))
  }
  t.notOk(fs.existsSync(dataDir), 'no data dir was created')
})

// Root may write anywhere: as root, the refused start runs as nobody (65534), for whom these directories are closed.
const nobody = process.getuid?.() === 0 ? 65534 : undefined
// nobody must reach the directories under tmpRoot to be refused by them, not by tmpRoot itself.
fs.chmodSync(tmpRoot, 0o755)

t.test('a DATA_DIR this user cannot write, or whose log it cannot read, is said so: not damage, exit 2', async (t) => {
  const closed = path.join(tmpRoot, 'closed')
  fs.mkdirSync(closed, { mode: 0o755 })
  if (nobody === undefined) fs.chmodSync(closed, 0o555)
  assertOneLine(t, await runToExit({ dataDir: closed, adminToken: 'x', asUser: nobody }), new RegExp(`^DATA_DIR ${closed} cannot be read and written: permission denied\n$`), 'an unwritable DATA_DIR')
  t.same(fs.readdirSync(closed), [], 'nothing written in it')

  // A data dir the user may write, holding a log (as a start by another user left it) it may not read.
  const foreignLog = path.join(tmpRoot, 'foreign-log')
  fs.mkdirSync(path.join(foreignLog, 'log'), { recursive: true })
  fs.writeFileSync(path.join(foreignLog, 'log', 'data.mdb'), Buffer.alloc(8192))
  fs.chmodSync(foreignLog, 0o777)
  fs.chmodSync(path.join(foreignLog, 'log'), nobody === undefined ? 0o000 : 0o700)
  const refused = await runToExit({ dataDir: foreignLog, adminToken: 'x', asUser: nobody })
  fs.chmodSync(path.join(foreignLog, 'log'), 0o700)
  assertOneLine(t, refused, new RegExp(`^DATA_DIR ${foreignLog}: ${foreignLog}/log cannot be read and written: permission denied\n$`), 'an unreadable log')
  t.notMatch(refused.stderr, /damaged|backup/, 'never reported as damage')
})
