/** @module One camt.053 `Ntry` as one statement line: its amount, mark, dates, reference, remittance text, counterparty. */
import { toMinorUnits } from './decimal.ts'
import { dateOfIso, quoted } from './text.ts'
import { FileProblem, type Counterparty, type StatementEntry } from './types.ts'
import { attributeOf, child, children, textAt, type XmlNode } from './xml.ts'

/** A date element (`BookgDt`, `ValDt`, `Bal/Dt`) holds `Dt` or `DtTm`; the date as written. */
export function dateIn(node: XmlNode | undefined, path: string): string | null {
  const text = textAt(node, 'Dt') ?? textAt(node, 'DtTm')
  if (text === null) return null
  const date = dateOfIso(text)
  if (date === null) throw new FileProblem(path, `${quoted(text)} is not a date`)
  return date
}

/** `Amt` with its `Ccy`, exact in minor units, signed by `CdtDbtInd` (DBIT negative). */
export function signedAmountIn(node: XmlNode, currency: string, path: string): number {
  const amountNode = child(node, 'Amt')
  const text = textAt(amountNode)
  if (text === null) throw new FileProblem(`${path}/Amt`, 'missing amount')
  const amountCurrency = attributeOf(amountNode, 'Ccy')
  if (amountCurrency !== null && amountCurrency !== currency) throw new FileProblem(`${path}/Amt`, `currency ${amountCurrency} differs from the statement's ${currency}`)
  const minor = toMinorUnits(text, currency, '.')
  if (!minor.ok) throw new FileProblem(`${path}/Amt`, minor.message)
  const mark = textAt(node, 'CdtDbtInd')
  if (mark !== 'CRDT' && mark !== 'DBIT') throw new FileProblem(`${path}/CdtDbtInd`, `${quoted(mark)} is neither CRDT nor DBIT`)
  return mark === 'DBIT' && minor.minor !== 0 ? -minor.minor : minor.minor
}

/** Booked entries only: a pending or information-only entry is not in the booked balances (`Sts`, or `Sts/Cd` from 001.08). */
export function isBooked(entry: XmlNode): boolean {
  const status = textAt(entry, 'Sts', 'Cd') ?? textAt(entry, 'Sts')
  return status === null || status === 'BOOK'
}

/**
 * `CdtDbtInd` is the entry's effect on the balance; with `RvslInd` true the entry reverses a transaction of
 * the other direction (ISO 20022), so its mark is the opposite of its effect. An entry with several `TxDtls`
 * (a batch booking) is one line carrying the entry's amount.
 */
export function entryOf(entry: XmlNode, currency: string, path: string): StatementEntry {
  const amount = signedAmountIn(entry, currency, path)
  const reversal = ['true', '1'].includes(textAt(entry, 'RvslInd') ?? '')
  const effectCredit = textAt(entry, 'CdtDbtInd') === 'CRDT'
  const valueDate = dateIn(child(entry, 'ValDt'), `${path}/ValDt`)
  const date = dateIn(child(entry, 'BookgDt'), `${path}/BookgDt`) ?? valueDate
  if (date === null) throw new FileProblem(path, 'an entry with neither booking date nor value date')
  const transactions = children(entry, 'NtryDtls').flatMap((details) => children(details, 'TxDtls'))
  const single = transactions.length === 1 ? transactions[0] : undefined
  const mark = effectCredit !== reversal ? 'credit' : 'debit'
  return {
    amount,
    mark,
    reversal,
    date,
    value_date: valueDate,
    reference: referenceOf(entry, single),
    description: descriptionOf(entry, transactions),
    counterparty: single === undefined ? null : counterpartyOf(single, mark === 'credit'),
  }
}

function referenceOf(entry: XmlNode, single: XmlNode | undefined): string | null {
  const endToEndId = textAt(single, 'Refs', 'EndToEndId')
  if (endToEndId !== null && endToEndId !== '' && endToEndId !== 'NOTPROVIDED') return endToEndId
  return textAt(single, 'Refs', 'AcctSvcrRef') || textAt(entry, 'AcctSvcrRef') || textAt(entry, 'NtryRef') || null
}

/** Unstructured remittance lines, else the structured creditor reference, else the additional information. */
function descriptionOf(entry: XmlNode, transactions: XmlNode[]): string | null {
  const texts = transactions.map((transaction) => {
    const remittance = child(transaction, 'RmtInf')
    const unstructured = children(remittance, 'Ustrd').map((line) => textAt(line)).filter((line) => line !== null && line !== '')
    if (unstructured.length > 0) return unstructured.join(' ')
    const structured = children(remittance, 'Strd').map((part) => textAt(part, 'CdtrRefInf', 'Ref')).filter((ref) => ref !== null && ref !== '')
    return structured.length > 0 ? structured.join(' ') : textAt(transaction, 'AddtlTxInf')
  }).filter((text) => text !== null && text !== '')
  const additional = textAt(entry, 'AddtlNtryInf')
  if (transactions.length > 1 && additional !== null && additional !== '') return additional
  return texts.length > 0 ? texts.join('; ') : additional || null
}

/**
 * The other party of the transaction the mark names (a reversal reports the original's parties): the debtor
 * of a credit, the creditor of a debit (`Nm`, or `Pty/Nm` from 001.08).
 */
function counterpartyOf(transaction: XmlNode, credit: boolean): Counterparty | null {
  const parties = child(transaction, 'RltdPties')
  const role = credit ? 'Dbtr' : 'Cdtr'
  const party = child(parties, role)
  const name = textAt(party, 'Nm') ?? textAt(party, 'Pty', 'Nm')
  const accountId = child(child(parties, `${role}Acct`), 'Id')
  const account = textAt(accountId, 'IBAN') ?? textAt(accountId, 'Othr', 'Id')
  return name === null && account === null ? null : { name, account }
}
