/**
 * One descriptor per statement format, in one registry (src/statements/formats.ts): every place that names
 * the formats derives from it, so a new format is its reader file plus one line there.
 */
import fs from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import t from 'tap'
import { adminRoutes } from '../../src/api/admin-routes.ts'
import { v2Routes } from '../../src/api/route-table.ts'
import { formatQuery } from '../../src/api/statement-file.ts'
import { buildOpenApi } from '../../src/edge/openapi.ts'
import type { StatementFileInput } from '../../src/embedded/ledger.ts'
import { formatOfContent, formatOfContentType, isStatementFormat } from '../../src/statements/detect.ts'
import { statementFormats, type StatementFormat } from '../../src/statements/formats.ts'
import { readStatements } from '../../src/statements/read.ts'
import type { Statement } from '../../src/statements/types.ts'
import { fixture } from './fixtures.ts'

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..')
const names = statementFormats.map((format) => format.name)

/** Checked by the typecheck: true only when A and B are the same type. */
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false
const embeddedFormatIsTheRegistrys: Same<NonNullable<StatementFileInput['format']>, StatementFormat> = true
const statementFormatIsTheRegistrys: Same<Statement['format'], (typeof statementFormats)[number]['name']> = true

t.test('the registry: one descriptor a format, names and media types unique', async (t) => {
  t.ok(embeddedFormatIsTheRegistrys && statementFormatIsTheRegistrys)
  t.ok(names.length > 0)
  t.equal(new Set(names).size, names.length)
  const mediaTypes = statementFormats.flatMap((format) => format.mediaTypes.map((type) => type.mediaType))
  t.equal(new Set(mediaTypes).size, mediaTypes.length, 'a media type names one format')
})

t.test('detect.ts: ?format= names, Content-Types and sniffing come from the descriptors', async (t) => {
  for (const format of statementFormats) {
    t.ok(isStatementFormat(format.name), format.name)
    for (const { mediaType } of format.mediaTypes) t.equal(formatOfContentType(`${mediaType.toUpperCase()}; charset=utf-8`), format.name, mediaType)
  }
  t.notOk(isStatementFormat('camt054'))
  const samples: Record<StatementFormat, string> = { camt053: 'v08-kwd-batch-reversal.xml', mt940: 'jejik-generic.sta', bai2: 'jpy-crlf.bai' }
  for (const format of statementFormats) {
    const bytes = fixture(format.name, samples[format.name])
    t.equal(formatOfContent(bytes), format.name, `${format.name} sniffed`)
    t.same(readStatements(bytes, null, format.name), format.read(bytes), `${format.name} read by its descriptor's reader`)
  }
})

t.test('the format query and the OpenAPI document list the registry\'s formats and media types', async (t) => {
  t.same((formatQuery.schema as { enum?: unknown }).enum, names, '?format= enum')
  const document = buildOpenApi({ v2: v2Routes, admin: adminRoutes, plain: [] }, { bodyBytesMax: 1 << 20, importBodyBytesMax: 1 << 24 }) as any
  const mediaTypes = statementFormats.flatMap((format) => format.mediaTypes.map((type) => type.mediaType))
  for (const [pattern, route] of [['/v2/statements', 'post'], ['/v2/reconciliations/{id}/lines', 'post']] as const) {
    const operation = document.paths[pattern][route]
    const content = Object.keys(operation.requestBody.content)
    for (const mediaType of mediaTypes) t.ok(content.includes(mediaType), `${pattern} takes ${mediaType}`)
    const format = operation.parameters.find((parameter: any) => parameter.name === 'format')
    t.same(format.schema.enum, names, `${pattern} ?format= enum`)
  }
})

function sourceFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name)
    if (entry.isDirectory()) return sourceFiles(full)
    return entry.name.endsWith('.ts') ? [full] : []
  })
}

t.test('no source file but a format\'s own reader files names the format or its media types', async (t) => {
  const registry = fs.readFileSync(path.join(root, 'src/statements/formats.ts'), 'utf8')
  const readers = [...registry.matchAll(/from '\.\/([a-z0-9-]+)\.ts'/g)].map((match) => match[1])
  t.ok(readers.length >= names.length, 'the registry imports each reader')
  // A reader's own file and its helpers (camt053-entry.ts, mt940-fields.ts, bai2-records.ts) may name it.
  const own = (file: string): boolean => readers.some((reader) => path.basename(file).startsWith(reader))
  const mediaTypes = statementFormats.flatMap((format) => format.mediaTypes.map((type) => type.mediaType))
  const literals = [...names, ...mediaTypes].map((text) => new RegExp(`['"\`]${text.replace(/[/.]/g, '\\$&')}['"\`]`))
  const naming = sourceFiles(path.join(root, 'src')).filter((file) => !own(file)).flatMap((file) => {
    const text = fs.readFileSync(file, 'utf8')
    return literals.filter((literal) => literal.test(text)).map((literal) => `${path.relative(root, file)}: ${literal.source}`)
  })
  t.same(naming, [], 'every other place derives from the registry')
})
