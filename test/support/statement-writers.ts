/** Small writers of camt.053, MT940 and BAI2 files from statements, so property tests can read them back. */
import { currencyExponent } from '../../src/ledger/currency.ts'
import type { Statement, StatementEntry } from '../../src/statements/types.ts'

/** `12345` minor units of a 2-exponent currency as `123.45` (or `123,45`), unsigned. */
export function decimalOf(minor: number, currency: string, separator: '.' | ','): string {
  const exponent = currencyExponent(currency) ?? 2
  const digits = String(Math.abs(minor)).padStart(exponent + 1, '0')
  if (exponent === 0) return separator === ',' ? `${digits},` : digits
  return `${digits.slice(0, -exponent)}${separator}${digits.slice(-exponent)}`
}

const xmlEscapes: Readonly<Record<string, string>> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' }
const escapeXml = (text: string): string => text.replace(/[&<>"]/g, (character) => xmlEscapes[character])

function camtEntry(entry: StatementEntry, currency: string): string {
  const role = entry.mark === 'credit' ? 'Dbtr' : 'Cdtr'
  const parties = entry.counterparty === null ? '' : `<NtryDtls><TxDtls><RltdPties>${
    entry.counterparty.name === null ? '' : `<${role}><Nm>${escapeXml(entry.counterparty.name)}</Nm></${role}>`}${
    entry.counterparty.account === null ? '' : `<${role}Acct><Id><Othr><Id>${escapeXml(entry.counterparty.account)}</Id></Othr></Id></${role}Acct>`
  }</RltdPties></TxDtls></NtryDtls>`
  return `<Ntry><Amt Ccy="${currency}">${decimalOf(entry.amount, currency, '.')}</Amt><CdtDbtInd>${entry.amount < 0 ? 'DBIT' : 'CRDT'}</CdtDbtInd>${
    entry.reversal ? '<RvslInd>true</RvslInd>' : ''}<Sts>BOOK</Sts><BookgDt><Dt>${entry.date}</Dt></BookgDt>${
    entry.value_date === null ? '' : `<ValDt><Dt>${entry.value_date}</Dt></ValDt>`}${
    entry.reference === null ? '' : `<AcctSvcrRef>${escapeXml(entry.reference)}</AcctSvcrRef>`}${parties}${
    entry.description === null ? '' : `<AddtlNtryInf>${escapeXml(entry.description)}</AddtlNtryInf>`}</Ntry>`
}

function camtBalance(code: string, amount: number, date: string, currency: string): string {
  return `<Bal><Tp><CdOrPrtry><Cd>${code}</Cd></CdOrPrtry></Tp><Amt Ccy="${currency}">${decimalOf(amount, currency, '.')}</Amt><CdtDbtInd>${amount < 0 ? 'DBIT' : 'CRDT'}</CdtDbtInd><Dt><Dt>${date}</Dt></Dt></Bal>`
}

export function writeCamt053(statements: readonly Statement[], version = '08'): string {
  const body = statements.map((statement) => `<Stmt><Id>${escapeXml(statement.statement_ref)}</Id>` +
    `<FrToDt><FrDtTm>${statement.period.from}T00:00:00</FrDtTm><ToDtTm>${statement.period.to}T23:59:59</ToDtTm></FrToDt>` +
    `<Acct><Id><Othr><Id>${escapeXml(statement.account)}</Id></Othr></Id><Ccy>${statement.currency}</Ccy></Acct>` +
    camtBalance('OPBD', statement.opening.amount, statement.opening.date, statement.currency) +
    camtBalance('CLBD', statement.closing.amount, statement.closing.date, statement.currency) +
    statement.entries.map((entry) => camtEntry(entry, statement.currency)).join('\n') + '</Stmt>').join('\n')
  return `<?xml version="1.0" encoding="UTF-8"?>\n<Document xmlns="urn:iso:std:iso:20022:tech:xsd:camt.053.001.${version}">` +
    `<BkToCstmrStmt><GrpHdr><MsgId>M</MsgId><CreDtTm>2026-01-01T00:00:00</CreDtTm></GrpHdr>\n${body}\n</BkToCstmrStmt></Document>\n`
}

const yymmdd = (date: string): string => date.slice(2).replace(/-/g, '')

function mt940Balance(tag: string, amount: number, date: string, currency: string): string {
  return `:${tag}:${amount < 0 ? 'D' : 'C'}${yymmdd(date)}${currency}${decimalOf(amount, currency, ',')}`
}

function mt940Entry(entry: StatementEntry, currency: string): string[] {
  const direction = entry.mark === 'credit' ? 'C' : 'D'
  const lines = [`:61:${yymmdd(entry.value_date ?? entry.date)}${yymmdd(entry.date).slice(2)}${entry.reversal ? 'R' : ''}${direction}${decimalOf(entry.amount, currency, ',')}NTRF${entry.reference ?? 'NONREF'}`]
  if (entry.counterparty !== null) {
    const { name, account } = entry.counterparty
    lines.push(`:86:166?20${entry.description ?? ''}${account === null ? '' : `?31${account}`}${name === null ? '' : `?32${name}`}`)
  } else if (entry.description !== null) {
    lines.push(`:86:${entry.description}`)
  }
  return lines
}

/** `statement_ref` is written back as `:20:` / `:28C:` (reference, statement number). */
export function writeMt940(statements: readonly Statement[], lineEnd = '\n'): string {
  return statements.map((statement) => {
    const slash = statement.statement_ref.lastIndexOf('/')
    return [
      `:20:${statement.statement_ref.slice(0, slash)}`, `:25:${statement.account}`, `:28C:${statement.statement_ref.slice(slash + 1)}/1`,
      mt940Balance('60F', statement.opening.amount, statement.opening.date, statement.currency),
      ...statement.entries.flatMap((entry) => mt940Entry(entry, statement.currency)),
      mt940Balance('62F', statement.closing.amount, statement.closing.date, statement.currency), '-',
    ].join(lineEnd)
  }).join(lineEnd) + lineEnd
}

/** One group a statement, as of its closing date; `statement_ref` is `<file id>/<group>/<account>`. */
export function writeBai2(statements: readonly Statement[], fileId: string): string {
  const records: string[] = [`01,SENDER,RECEIVER,260101,0000,${fileId},,,2/`]
  let fileTotal = 0
  for (const statement of statements) {
    const account = [`03,${statement.account},${statement.currency},010,${statement.opening.amount},,,015,${statement.closing.amount},,/`]
    let total = statement.opening.amount + statement.closing.amount
    for (const entry of statement.entries) {
      const funds = entry.value_date === null ? '0' : `V,${yymmdd(entry.value_date)},`
      account.push(`16,${entry.amount > 0 ? 195 : 495},${Math.abs(entry.amount)},${funds},,${entry.reference ?? ''},${entry.description ?? ''}/`)
      total += Math.abs(entry.amount)
    }
    account.push(`49,${total},${account.length + 1}/`)
    records.push(`02,RECEIVER,SENDER,1,${yymmdd(statement.closing.date)},,${statement.currency},/`, ...account, `98,${total},1,${account.length + 2}/`)
    fileTotal += total
  }
  records.push(`99,${fileTotal},${statements.length},${records.length + 1}/`)
  return records.join('\n') + '\n'
}
