/** @module camt.053 reader: ISO 20022 BankToCustomerStatement, every version from 001.02, any namespace prefix. */
import { dateIn, entryOf, isBooked, signedAmountIn } from './camt053-entry.ts'
import type { StatementFormatDescriptor } from './formats.ts'
import { readGuarded } from './outcome.ts'
import { ClosingDates, periodOfBalances } from './period.ts'
import { dateOfIso, decodeText, quoted } from './text.ts'
import { FileProblem, type ReadResult, type Statement, type StatementBalance } from './types.ts'
import { child, children, textAt, attributeOf, parseXml, type XmlNode } from './xml.ts'
import { currencyExponent } from '../ledger/currency.ts'

const otherMessages: Readonly<Record<string, string>> = {
  BkToCstmrDbtCdtNtfctn: 'camt.054 (debit/credit notification)',
  BkToCstmrAcctRpt: 'camt.052 (account report)',
}

export function readCamt053(bytes: Uint8Array): ReadResult {
  return readGuarded('camt.053', () => {
    const text = decodeText(bytes)
    const statementRoot = rootOf(parseXml(text), text)
    const closingDates = new ClosingDates()
    return children(statementRoot, 'Stmt').map((statement, index) => statementOf(statement, `/Document/BkToCstmrStmt/Stmt[${index + 1}]`, closingDates))
  })
}

/** camt.053 as the rest of the service knows it (formats.ts). */
export const camt053Format: StatementFormatDescriptor<'camt053'> = {
  name: 'camt053',
  title: 'camt.053',
  mediaTypes: [
    { mediaType: 'application/xml', description: 'camt.053 (ISO 20022 BankToCustomerStatement, 001.02 and later)' },
    { mediaType: 'text/xml', description: 'camt.053, as application/xml' },
  ],
  signature: 'XML',
  sniff: (head) => head.startsWith('<'),
  read: readCamt053,
}

/** `Document/BkToCstmrStmt`, also inside a business message envelope (`BizMsgEnvlp`); anything else is refused by name. */
function rootOf(parsed: Record<string, unknown>, text: string): XmlNode {
  const tops = Object.entries(parsed).filter(([name]) => !name.startsWith('?')).map(([, node]) => node as XmlNode)
  const document = child(parsed as XmlNode, 'Document') ?? tops.map((top) => child(top, 'Document')).find((node) => node !== undefined)
  const version = /urn:iso:std:iso:20022:tech:xsd:camt\.(\d{3})\.001\.(\d\d)/.exec(text)
  if (document === undefined) throw new FileProblem('/', `not a camt.053 document: the root element is ${Object.keys(parsed).filter((name) => !name.startsWith('?')).join(', ') || 'missing'}`)
  for (const [element, name] of Object.entries(otherMessages)) {
    if (child(document, element) !== undefined) throw new FileProblem(`/Document/${element}`, `this is ${name}, not a camt.053 statement`)
  }
  const root = child(document, 'BkToCstmrStmt')
  if (root === undefined) throw new FileProblem('/Document', 'not a camt.053 document: no BkToCstmrStmt')
  if (version !== null && (version[1] !== '053' || Number(version[2]) < 2)) throw new FileProblem('/Document', `namespace camt.${version[1]}.001.${version[2]} is not camt.053 version 001.02 or later`)
  return root
}

function statementOf(statement: XmlNode, path: string, closingDates: ClosingDates): Statement {
  const id = textAt(statement, 'Id')
  if (id === null || id === '') throw new FileProblem(`${path}/Id`, 'missing statement id')
  const accountId = child(child(statement, 'Acct'), 'Id')
  const account = textAt(accountId, 'IBAN') ?? textAt(accountId, 'Othr', 'Id')
  if (account === null || account === '') throw new FileProblem(`${path}/Acct/Id`, 'missing account identifier (IBAN or Othr/Id)')
  const balances = children(statement, 'Bal')
  const currency = textAt(statement, 'Acct', 'Ccy') ?? attributeOf(child(balances[0], 'Amt'), 'Ccy')
  if (currency === null || currencyExponent(currency) === undefined) throw new FileProblem(`${path}/Acct/Ccy`, `missing or unknown currency ${quoted(currency)}`)
  const opening = balanceOf(balances, ['OPBD', 'PRCD'], currency, path)
  const closing = balanceOf(balances, ['CLBD'], currency, path)
  const entries = children(statement, 'Ntry').flatMap((entry, index) => isBooked(entry) ? [entryOf(entry, currency, `${path}/Ntry[${index + 1}]`)] : [])
  const period = periodOf(statement, path) ?? periodOfBalances(opening.date, closing.date, closingDates.previous(account))
  closingDates.record(account, closing.date)
  return { format: 'camt053', statement_ref: id, account, currency, opening, closing, period, entries }
}

/** The first `Bal` whose type code is the first of `codes` present (opening booked, else previously closed booked). */
function balanceOf(balances: XmlNode[], codes: string[], currency: string, path: string): StatementBalance {
  for (const code of codes) {
    const index = balances.findIndex((balance) => (textAt(balance, 'Tp', 'CdOrPrtry', 'Cd') ?? textAt(balance, 'Tp', 'CdOrPrtry', 'Prtry')) === code)
    if (index === -1) continue
    const where = `${path}/Bal[${index + 1}]`
    const date = dateIn(child(balances[index], 'Dt'), `${where}/Dt`)
    if (date === null) throw new FileProblem(`${where}/Dt`, `balance ${code} has no date`)
    return { amount: signedAmountIn(balances[index], currency, where), date }
  }
  throw new FileProblem(`${path}/Bal`, `no ${codes.join(' or ')} balance`)
}

function periodOf(statement: XmlNode, path: string): { from: string, to: string } | null {
  const range = child(statement, 'FrToDt')
  if (range === undefined) return null
  const from = dateOfIso(textAt(range, 'FrDtTm') ?? '')
  const to = dateOfIso(textAt(range, 'ToDtTm') ?? '')
  if (from === null || to === null) throw new FileProblem(`${path}/FrToDt`, 'FrDtTm and ToDtTm must both be date-times')
  return { from, to }
}
