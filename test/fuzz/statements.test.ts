/**
 * Statement file fuzzing: fast-check fills the text fields of camt.053, MT940 and BAI2 files with hostile
 * shapes (huge texts, control characters as bytes and as XML references, unpaired surrogates, undeclared
 * entities, markup, astral characters) and gives them many lines. Properties of the readers, for every
 * file: readStatements never throws; a file it reads holds only text a JSON body could hold (within the
 * lengths, no control character but tab, no unpaired surrogate) and at most 10,000 lines; a file it refuses
 * is statement_invalid with details saying where, in an answer of bounded size. Then over HTTP: such files
 * never get a 5xx, and the window list stays within its byte bound.
 *
 * Replay: FUZZ_SEED=<seed> npx tap test/fuzz/statements.test.ts. Scale: FUZZ_SCALE=0.2 for a quick run.
 */
import fc from 'fast-check'
import t from 'tap'
import { freeTextProblem } from '../../src/api/schemas/text.ts'
import { pageBytesMax } from '../../src/ledger/pages.ts'
import { fileTextLengthsMax, statementLinesMax } from '../../src/statements/limits.ts'
import { readStatements } from '../../src/statements/read.ts'
import type { ReadResult, Statement } from '../../src/statements/types.ts'
import { adminCreateKey, adminCreateWorkspace, scopesAll } from '../support/api.ts'
import { call, startTestService } from '../support/service.ts'

const seed = process.env.FUZZ_SEED === undefined ? (Date.now() ^ (process.pid << 10)) | 0 : Number(process.env.FUZZ_SEED) | 0
const scale = Number(process.env.FUZZ_SCALE ?? 1)
t.comment(`fast-check seed ${seed} (replay: FUZZ_SEED=${seed} npx tap test/fuzz/statements.test.ts)`)

/** Text for one field of a file, as a bank or an attacker might write it (before the format's own escaping). */
const hostileText: fc.Arbitrary<string> = fc.oneof(
  { weight: 4, arbitrary: fc.string({ maxLength: 30 }) },
  { weight: 2, arbitrary: fc.string({ unit: 'binary', maxLength: 30 }) },
  { weight: 1, arbitrary: fc.string({ unit: 'grapheme', maxLength: 20 }) },
  { weight: 2, arbitrary: fc.constantFrom('\u0000', '\u001b[31m', '\r', 'a\r\nb', '\u0085', '\u009b', '\u007f', '\t', 'A\ud800B', '\udc00', '\u{1F600}') },
  { weight: 2, arbitrary: fc.constantFrom('&xxe;', '&#0;', '&#27;', '&#13;', '&#xD800;', '&#x1F600;', '&#x110000;', '&amp;', '&lt;b&gt;', '<b>', '&', ']]>', '?20', '/CNTP/', '//', ',', '/', '-', ':61:') },
  { weight: 2, arbitrary: fc.integer({ min: 60, max: 1200 }).map((length) => 'x'.repeat(length)) },
  { weight: 1, arbitrary: fc.constantFrom(501, 1001, 65, 101, 100_000, 2_000_000).map((length) => 'y'.repeat(length)) },
)

interface Shape { readonly texts: readonly string[]; readonly lines: number }

const shape: fc.Arbitrary<Shape> = fc.record({
  texts: fc.array(hostileText, { minLength: 6, maxLength: 6 }),
  lines: fc.oneof({ weight: 8, arbitrary: fc.integer({ min: 0, max: 5 }) }, { weight: 1, arbitrary: fc.constantFrom(9_999, 10_000, 10_001, 12_000) }),
})

/** The hostile texts go into the statement's own fields and its first line; the other lines are plain, so a file of many lines stays small. */
const plainOr = (index: number, text: string): string => (index === 0 ? text : `L${index}`)

function camtOf({ texts: [id, account, infoText, ustrdText, nameText, ref], lines }: Shape): Buffer {
  const entry = (index: number, info = plainOr(index, infoText), ustrd = plainOr(index, ustrdText), name = plainOr(index, nameText)): string => `<Ntry><Amt Ccy="EUR">1.00</Amt><CdtDbtInd>CRDT</CdtDbtInd><BookgDt><Dt>2026-11-03</Dt></BookgDt>`
    + `<AddtlNtryInf>${info}</AddtlNtryInf><NtryDtls><TxDtls><Refs><AcctSvcrRef>${plainOr(index, ref)}${index}</AcctSvcrRef></Refs>`
    + `<RltdPties><Dbtr><Nm>${name}</Nm></Dbtr></RltdPties><RmtInf><Ustrd>${ustrd}</Ustrd></RmtInf></TxDtls></NtryDtls></Ntry>`
  const balance = (code: string, amount: string, date: string): string => `<Bal><Tp><CdOrPrtry><Cd>${code}</Cd></CdOrPrtry></Tp><Amt Ccy="EUR">${amount}</Amt><CdtDbtInd>CRDT</CdtDbtInd><Dt><Dt>${date}</Dt></Dt></Bal>`
  return Buffer.from(`<?xml version="1.0" encoding="UTF-8"?><Document xmlns="urn:iso:std:iso:20022:tech:xsd:camt.053.001.02"><BkToCstmrStmt><Stmt><Id>${id}</Id>`
    + `<Acct><Id><Othr><Id>${account}</Id></Othr></Id><Ccy>EUR</Ccy></Acct>${balance('OPBD', '0.00', '2026-11-02')}${balance('CLBD', `${lines}.00`, '2026-11-03')}`
    + `${Array.from({ length: lines }, (_, index) => entry(index)).join('')}</Stmt></BkToCstmrStmt></Document>`, 'utf8')
}

function mt940Of({ texts: [reference, account, detailsText, customer, supplementaryText, nameText], lines }: Shape): Buffer {
  const line = (index: number, details = plainOr(index, detailsText), supplementary = plainOr(index, supplementaryText), name = plainOr(index, nameText)): string => `:61:2611031103C1,00NTRF${plainOr(index, customer)}${index}//B${index}\n${supplementary}\n:86:${index % 2 === 0 ? details : `166?20${details}?32${name}`}`
  return Buffer.from(`:20:${reference}\n:25:${account}\n:28C:1/1\n:60F:C261102EUR0,00\n${Array.from({ length: lines }, (_, index) => line(index)).join('\n')}\n:62F:C261103EUR${lines},00\n-\n`, 'latin1')
}

function bai2Of({ texts: [fileId, account, text, customer, bank, more], lines }: Shape): Buffer {
  const detail = (index: number): string => `16,165,100,0,${plainOr(index, bank)}${index},${plainOr(index, customer)},${plainOr(index, text)}/\n88,${plainOr(index, more)}/`
  // Credits of 100 each; the closing balance, every control total and record count add up.
  const closing = 100 + lines * 100
  const total = 100 + closing + lines * 100
  const accountRecords = 2 + 2 * lines
  const records = [
    `01,BANK,CUST,261103,0600,${fileId},,,2/`, '02,CUST,BANK,1,261103,2400,USD,2/', `03,${account},USD,010,100,,,015,${closing},,/`,
    ...Array.from({ length: lines }, (_, index) => detail(index)),
    `49,${total},${accountRecords}/`, `98,${total},1,${accountRecords + 2}/`, `99,${total},1,${accountRecords + 4}/`,
  ]
  return Buffer.from(records.join('\n') + '\n', 'latin1')
}

const formats = { camt053: camtOf, mt940: mt940Of, bai2: bai2Of } as const

/** Every property of one reader's result; null when all hold, else what broke. */
function problemOf(result: ReadResult): string | null {
  if (!result.ok) {
    if (result.code !== 'statement_invalid') return `code ${result.code}`
    const details = result.details ?? []
    if (details.length === 0 || details.some((detail) => typeof detail.path !== 'string' || typeof detail.message !== 'string')) return 'details without path and message'
    const size = JSON.stringify(result).length
    return size > 4_000 ? `a refusal of ${size} characters` : null
  }
  let lines = 0
  for (const statement of result.statements) {
    lines += statement.entries.length
    const problem = textProblemOf(statement)
    if (problem !== null) return problem
  }
  return lines > statementLinesMax ? `${lines} lines read` : null
}

function textProblemOf(statement: Statement): string | null {
  const texts: Array<[string | null, number, string]> = [[statement.statement_ref, fileTextLengthsMax.statementRef, 'statement_ref'], [statement.account, fileTextLengthsMax.account, 'account']]
  for (const entry of statement.entries) {
    texts.push([entry.reference, fileTextLengthsMax.reference, 'reference'], [entry.description, fileTextLengthsMax.description, 'description'])
    texts.push([entry.counterparty?.name ?? null, fileTextLengthsMax.counterpartyName, 'counterparty.name'], [entry.counterparty?.account ?? null, fileTextLengthsMax.counterpartyAccount, 'counterparty.account'])
  }
  for (const [value, lengthMax, field] of texts) {
    if (value === null) continue
    if (value.length > lengthMax) return `${field} of ${value.length} characters read`
    const problem = freeTextProblem(value)
    if (problem !== null) return `${field} ${JSON.stringify(value.slice(0, 60))} read: ${problem}`
  }
  return null
}

t.test('the readers on hostile files: never a throw, only text a JSON body could hold, refusals saying where', async (t) => {
  const outcomes = { read: 0, refused: 0 }
  for (const [format, fileOf] of Object.entries(formats)) {
    fc.assert(fc.property(shape, (input) => {
      let result: ReadResult
      try {
        result = readStatements(fileOf(input), null, format as keyof typeof formats)
      } catch (error) {
        throw new Error(`${format} threw: ${String(error)}`)
      }
      outcomes[result.ok ? 'read' : 'refused'] += 1
      const problem = problemOf(result)
      if (problem !== null) throw new Error(`${format}: ${problem}`)
    }), { seed, numRuns: Math.max(20, Math.round(100 * scale)) })
  }
  t.ok(outcomes.read > 0 && outcomes.refused > 0, `both kinds met: ${JSON.stringify(outcomes)}`)
})

t.test('over HTTP: hostile files never get a 5xx, and the window list stays within its byte bound', async (t) => {
  const service = await startTestService()
  t.teardown(() => service.destroy())
  if ((await adminCreateWorkspace(service, 'fuzz')).status !== 201) throw new Error('workspace')
  const key = (await adminCreateKey(service, 'fuzz', scopesAll)).secret
  const statuses = new Map<number, number>()
  let runs = 0
  await fc.assert(fc.asyncProperty(fc.constantFrom(...Object.keys(formats) as (keyof typeof formats)[]), shape, async (format, input) => {
    runs += 1
    // Accounts for whatever identifier the file names, so some files get as far as the import.
    const account = input.texts[1]
    await call(service.baseUrl, 'POST', '/v2/accounts', { key, body: { name: `assets:f${runs}`, currency: 'EUR', external_id: account } })
    const reply = await call(service.baseUrl, 'POST', `/v2/statements?format=${format}`, { key, raw: formats[format](input), headers: { 'content-type': 'application/octet-stream' } })
    statuses.set(reply.status, (statuses.get(reply.status) ?? 0) + 1)
    if (reply.status >= 500) throw new Error(`${format}: ${reply.status} ${reply.text.slice(0, 300)}`)
  }), { seed, numRuns: Math.max(10, Math.round(60 * scale)) })
  t.comment(`statuses ${JSON.stringify([...statuses])}`)
  const list = await call(service.baseUrl, 'GET', '/v2/reconciliations?limit=1000', { key })
  t.equal(list.status, 200, 'the window list answers')
  t.ok(Buffer.byteLength(list.text) <= pageBytesMax, 'within the byte bound')
})
