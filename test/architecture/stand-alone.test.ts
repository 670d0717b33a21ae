/**
 * The repository stands alone: no tracked file cites a document that is not in it (the specification, contract
 * and style guide the project was started from live outside), and every citation of docs/API.md by section
 * ("docs/API.md, Rate limits") names a heading that docs/API.md has, so a reader can open what is cited.
 */
import { execFileSync } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import t from 'tap'

const root = path.resolve(import.meta.dirname, '../..')
const tracked = execFileSync('git', ['ls-files', '-z'], { cwd: root, encoding: 'utf8' }).split('\0').filter((file) => file !== '')
/** Text files we write; fixtures (bank files, their licences) and recorded results are others' words or data. */
const ours = tracked.filter((file) => /\.(ts|mjs|js|md|sh|json|html|css)$|^\.ci\//.test(file) && !file.startsWith('test/fixtures/') && !file.startsWith('bench/results/') && file !== 'package-lock.json')
const outside = /\b(CONTRACT|SPEC|STYLE)\.md\b|\.\.\/shared\//

t.test('no file cites a document outside the repository', async (t) => {
  t.ok(ours.length > 100, `read ${ours.length} files`)
  const citing = ours.flatMap((file) => fs.readFileSync(path.join(root, file), 'utf8').split('\n')
    .flatMap((line, index) => (outside.test(line) ? [`${file}:${index + 1}: ${line.trim().slice(0, 120)}`] : [])))
  t.same(citing, [], 'cite docs/API.md (or another file of this repository) instead')
})

t.test('every "docs/API.md, <section>" names a heading of docs/API.md', async (t) => {
  const headings = fs.readFileSync(path.join(root, 'docs/API.md'), 'utf8').split('\n').filter((line) => /^#{2,3} /.test(line)).map((line) => line.replace(/^#+ /, ''))
  t.ok(headings.includes('Conventions') && headings.includes('Rate limits'), 'the headings were read')
  let citations = 0
  const unknown: string[] = []
  for (const file of ours) {
    for (const match of fs.readFileSync(path.join(root, file), 'utf8').matchAll(/docs\/API\.md, ([A-Z][^\n]*)/g)) {
      citations++
      if (!headings.some((heading) => match[1].startsWith(heading))) unknown.push(`${file}: docs/API.md, ${match[1].slice(0, 60)}`)
    }
  }
  t.ok(citations > 50, `${citations} citations checked`)
  t.same(unknown, [], 'each cited section exists (a renamed heading needs its citations renamed)')
})
