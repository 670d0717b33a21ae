/** @module MT940 field contents: balances (:60F:/:62F:…), statement lines (:61:) and their details (:86:). */
import { toMinorUnits } from './decimal.ts'
import { calendarDate, dateOfYymmdd, quoted } from './text.ts'
import { FileProblem, type Counterparty, type StatementBalance } from './types.ts'

export interface Mt940Field {
  readonly tag: string
  readonly value: string
  /** The field's first line in the file, 1-based. */
  readonly line: number
}

export interface Mt940Balance extends StatementBalance {
  readonly currency: string
}

/** `C110522EUR3236,28`: mark, YYMMDD, currency, amount; a debit balance is negative. */
export function balanceOf(field: Mt940Field): Mt940Balance {
  const match = /^([CD])(\d{6})([A-Z]{3})(\d+,\d*)$/.exec(field.value.trim())
  if (match === null) throw new FileProblem(`line ${field.line}`, `:${field.tag}: is not mark, date, currency and amount: ${quoted(field.value)}`)
  const date = dateOfYymmdd(match[2])
  if (date === null) throw new FileProblem(`line ${field.line}`, `:${field.tag}: date ${match[2]} is not a calendar date`)
  const amount = amountOf(match[4], match[3], field)
  return { amount: match[1] === 'D' ? -amount : amount, date, currency: match[3] }
}

export function amountOf(text: string, currency: string, field: Mt940Field): number {
  const minor = toMinorUnits(text, currency, ',')
  if (!minor.ok) throw new FileProblem(`line ${field.line}`, `:${field.tag}: ${minor.message}`)
  return minor.minor
}

export interface Mt940Line {
  readonly valueDate: string
  readonly date: string
  readonly mark: 'credit' | 'debit'
  readonly reversal: boolean
  readonly amountText: string
  readonly customerReference: string | null
  readonly bankReference: string | null
  readonly supplementary: string | null
}

/** Value date, [entry date MMDD, or four spaces as Citi writes none], C/D/RC/RD, [funds code], amount, transaction type, references, details. */
const line61 = /^(\d{6})(\d{4}| {4})?(RC|RD|C|D)([A-Z])?(\d+,\d*)([A-Z][A-Z0-9]{3})([^\n]*?)(?:\/\/([^\n]*))?(?:\n([\s\S]*))?$/

export function lineOf(field: Mt940Field): Mt940Line {
  const match = line61.exec(field.value)
  if (match === null) throw new FileProblem(`line ${field.line}`, `:61: does not read as date, mark, amount, type and reference: ${quoted(field.value)}`)
  const valueDate = dateOfYymmdd(match[1])
  if (valueDate === null) throw new FileProblem(`line ${field.line}`, `:61: value date ${match[1]} is not a calendar date`)
  const date = match[2] === undefined || match[2] === '    ' ? valueDate : entryDateNear(valueDate, match[2], field)
  const customerReference = match[7].trim()
  return {
    valueDate,
    date,
    mark: match[3].endsWith('C') ? 'credit' : 'debit',
    reversal: match[3].startsWith('R'),
    amountText: match[5],
    customerReference: customerReference === '' || customerReference === 'NONREF' ? null : customerReference,
    bankReference: match[8]?.trim() || null,
    // Supplementary details run over the field's lines: one text, as :86: is.
    supplementary: match[9]?.split('\n').map((part) => part.trim()).join(' ').trim() || null,
  }
}

/** The entry date has no year: the one of value year −1, 0, +1 nearest the value date (a booking around New Year). */
function entryDateNear(valueDate: string, monthDay: string, field: Mt940Field): string {
  const year = Number(valueDate.slice(0, 4))
  const candidates = [year - 1, year, year + 1]
    .map((candidate) => calendarDate(candidate, Number(monthDay.slice(0, 2)), Number(monthDay.slice(2))))
    .filter((candidate): candidate is string => candidate !== null)
  if (candidates.length === 0) throw new FileProblem(`line ${field.line}`, `:61: entry date ${monthDay} is not a calendar date`)
  const distance = (date: string): number => Math.abs(Date.parse(date) - Date.parse(valueDate))
  return candidates.reduce((best, candidate) => (distance(candidate) < distance(best) ? candidate : best))
}

export interface Mt940Details {
  readonly description: string | null
  readonly endToEndId: string | null
  readonly counterparty: Counterparty | null
}

/**
 * :86: free text; SWIFT-style structured (`/EREF/…/CNTP/…/REMI/…`: swiftDetailsOf); or structured in the
 * German DFÜ layout: a 3-digit transaction code, then `?NN` subfields:
 * ?20–?29 and ?60–?63 the remittance text, ?30 the counterparty's bank code or BIC, ?31 its account or
 * IBAN, ?32–?33 its name. SEPA purposes carry `EREF+` (the end-to-end id) inside the remittance text.
 */
export function detailsOf(value: string): Mt940Details {
  const joined = value.replace(/\n/g, '')
  if (swiftStart.test(joined)) return swiftDetailsOf(joined)
  if (!/^\d{3}\?\d\d/.test(joined)) return { description: value.split('\n').map((part) => part.trim()).join(' ').trim() || null, endToEndId: null, counterparty: null }
  const subfields = new Map<number, string>()
  for (const match of joined.slice(3).matchAll(/\?(\d\d)([^?]*)/g)) {
    const key = Number(match[1])
    subfields.set(key, (subfields.get(key) ?? '') + match[2])
  }
  const purpose = [...subfields.entries()].filter(([key]) => (key >= 20 && key <= 29) || (key >= 60 && key <= 63)).map(([, text]) => text).join('')
  const name = ((subfields.get(32) ?? '') + (subfields.get(33) ?? '')).trim() || null
  const account = subfields.get(31)?.trim() || null
  return {
    description: purpose.trim() || null,
    endToEndId: endToEndIdOf(purpose),
    counterparty: name === null && account === null ? null : { name, account },
  }
}

/**
 * The keywords of the SWIFT-style structured :86: Dutch banks write (ING's "MT940 Structured", ABN AMRO,
 * Triodos, Rabobank): `/KEYWORD/value` one after another, a value ending in `/`, subfields inside a value
 * separated by `/`. A value is what lies between its keyword and the next one, so a `/` in a text stays.
 */
const swiftKeywords = ['EREF', 'PREF', 'CNTP', 'REMI', 'MARF', 'CSID', 'RTRN', 'IREF', 'TRCD', 'BENM', 'ORDP', 'NAME', 'IBAN', 'BIC', 'ISDT', 'ULTC', 'ULTD', 'PURP', 'TRTP', 'CREF', 'SVCL', 'ADDR', 'BUSP', 'FX', 'SUM']
const swiftKeyword = new RegExp(`/(${swiftKeywords.join('|')})/`, 'g')
/** Structured when it opens with a keyword; other texts that start with a slash (Citi's `/PT/FT/`) stay free text. */
const swiftStart = new RegExp(`^/(${swiftKeywords.join('|')})/`)

/**
 * `/EREF/` the end-to-end id (else `/PREF/`, a batch's payment information id); `/CNTP/account/BIC/name/city/`
 * the counterparty (older Rabobank files: `/NAME/`, `/IBAN/`); `/REMI/USTD//text/` the description, or
 * `/REMI/STRD/CUR/reference/` the structured creditor reference, or `/REMI/text`. The BIC is not kept: a
 * counterparty is a name and an account.
 */
function swiftDetailsOf(joined: string): Mt940Details {
  const values = new Map<string, string>()
  const matches = [...joined.matchAll(swiftKeyword)]
  matches.forEach((match, index) => {
    const end = matches[index + 1]?.index ?? joined.length
    if (!values.has(match[1])) values.set(match[1], joined.slice(match.index + match[0].length, end).replace(/\/$/, ''))
  })
  const party = (values.get('CNTP') ?? '').split('/')
  const name = party[2]?.trim() || values.get('NAME')?.trim() || null
  const account = party[0]?.trim() || values.get('IBAN')?.trim() || null
  const id = (key: string): string | null => {
    const text = values.get(key)?.trim()
    return text === undefined || text === '' || text === 'NOTPROVIDED' ? null : text
  }
  return {
    description: remittanceOf(values.get('REMI') ?? '') ?? (joined.trim() || null),
    endToEndId: id('EREF') ?? id('PREF'),
    counterparty: name === null && account === null ? null : { name, account },
  }
}

function remittanceOf(remittance: string): string | null {
  const text = remittance.startsWith('USTD//') ? remittance.slice(6) : remittance.startsWith('STRD/') ? remittance.split('/').slice(2).join('/') : remittance
  return text.replace(/\/$/, '').trim() || null
}

function endToEndIdOf(purpose: string): string | null {
  // The id runs to the next SEPA keyword (`SVWZ+`, `KREF+`, or a bank's `MTLG:`).
  const match = /EREF\+(.*?)(?=[A-Z]{4}[+:]|$)/.exec(purpose)
  const id = match?.[1].trim()
  return id === undefined || id === '' || id === 'NOTPROVIDED' ? null : id
}
