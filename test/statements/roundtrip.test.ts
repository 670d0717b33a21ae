/** Property: a generated statement written out in each format (test/support/statement-writers.ts) reads back the same. */
import fc from 'fast-check'
import t from 'tap'
import { readBai2 } from '../../src/statements/bai2.ts'
import { readCamt053 } from '../../src/statements/camt053.ts'
import { readMt940 } from '../../src/statements/mt940.ts'
import { addDays } from '../../src/statements/text.ts'
import type { Statement, StatementEntry } from '../../src/statements/types.ts'
import { writeBai2, writeCamt053, writeMt940 } from '../support/statement-writers.ts'

/** Text every format carries as written: starts with a letter, single spaces, no format delimiter (`/ ? : { -`). */
const text = (lengthMax: number): fc.Arbitrary<string> => fc.tuple(
  fc.constantFrom(...'ABCXYZabcxyz'),
  fc.array(fc.constantFrom(...'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefgh0123456789.,&<>()'), { maxLength: lengthMax }),
  fc.array(fc.constantFrom(...'KLMNOP0123'), { maxLength: 3 }),
).map(([first, rest, tail]) => first + rest.join('') + (tail.length > 0 ? ' ' + tail.join('') : ''))
const reference = fc.stringMatching(/^[A-Z0-9][A-Z0-9-]{0,14}[A-Z0-9]$/).filter((value) => value !== 'NONREF')
const date = fc.integer({ min: 0, max: 365 * 50 }).map((days) => addDays('2001-01-01', days))
const currency = fc.constantFrom('EUR', 'USD', 'JPY', 'KWD', 'BHD', 'CHF')
const minor = fc.integer({ min: 1, max: 10 ** 12 })

interface Shape {
  readonly reversal: boolean
  readonly counterparty: boolean
  readonly valueDate: 'required' | 'optional'
}

function entry(shape: Shape, bookingDate: fc.Arbitrary<string>): fc.Arbitrary<StatementEntry> {
  return fc.record({
    magnitude: minor, credit: fc.boolean(), reversal: shape.reversal ? fc.boolean() : fc.constant(false), date: bookingDate,
    valueOffset: shape.valueDate === 'required' ? fc.integer({ min: -20, max: 20 }) : fc.option(fc.integer({ min: -20, max: 20 }), { nil: null }),
    reference: fc.option(reference, { nil: null }), description: fc.option(text(40), { nil: null }),
    counterparty: shape.counterparty ? fc.option(fc.record({ name: fc.option(text(30), { nil: null }), account: fc.option(reference, { nil: null }) }), { nil: null }) : fc.constant(null),
  }).map((drawn) => ({
    amount: drawn.credit ? drawn.magnitude : -drawn.magnitude,
    mark: drawn.credit !== drawn.reversal ? 'credit' : 'debit',
    reversal: drawn.reversal,
    date: drawn.date,
    value_date: drawn.valueOffset === null ? null : addDays(drawn.date, drawn.valueOffset),
    reference: drawn.reference,
    description: drawn.description,
    counterparty: drawn.counterparty === null || (drawn.counterparty.name === null && drawn.counterparty.account === null) ? null : drawn.counterparty,
  }))
}

/** A balanced statement; `period` and the dates follow the rules of the format at hand. */
function statement(shape: Shape, format: Statement['format'], statementRef: fc.Arbitrary<string>): fc.Arbitrary<Statement> {
  return fc.record({ openingDate: date, days: fc.integer({ min: 0, max: 40 }), account: reference, currency, opening: fc.integer({ min: -(10 ** 12), max: 10 ** 12 }), statementRef })
    .chain((head) => {
      const closingDate = format === 'bai2' ? head.openingDate : addDays(head.openingDate, head.days)
      const bookingDate = format === 'bai2' ? fc.constant(closingDate) : fc.integer({ min: 0, max: head.days }).map((offset) => addDays(head.openingDate, offset))
      return fc.array(entry(shape, bookingDate), { maxLength: 6 }).map((entries): Statement => {
        const closing = head.opening + entries.reduce((total, each) => total + each.amount, 0)
        const dayAfter = addDays(head.openingDate, 1)
        const from = format === 'bai2' ? closingDate : (dayAfter <= closingDate ? dayAfter : closingDate)
        return {
          format, statement_ref: head.statementRef, account: head.account, currency: head.currency,
          opening: { amount: head.opening, date: head.openingDate }, closing: { amount: closing, date: closingDate },
          period: { from, to: closingDate }, entries,
        }
      })
    })
}

/** Distinct accounts, so no statement's period follows another's (that rule has its own fixture tests). */
const distinctAccounts = (statements: Statement[]): boolean => new Set(statements.map((each) => each.account)).size === statements.length

t.test('camt.053 (001.02 and 001.08) round trip', async () => {
  const arbitrary = fc.array(statement({ reversal: true, counterparty: true, valueDate: 'optional' }, 'camt053', reference), { minLength: 1, maxLength: 3 }).filter(distinctAccounts)
  fc.assert(fc.property(arbitrary, fc.constantFrom('02', '08', '13'), (statements, version) => {
    const read = readCamt053(Buffer.from(writeCamt053(statements, version)))
    return read.ok && JSON.stringify(read.statements) === JSON.stringify(statements)
  }), { numRuns: 150 })
})

t.test('MT940 round trip, LF and CRLF', async () => {
  const ref = fc.tuple(reference, fc.integer({ min: 1, max: 99999 })).map(([id, number]) => `${id}/${number}`)
  const arbitrary = fc.array(statement({ reversal: true, counterparty: true, valueDate: 'required' }, 'mt940', ref), { minLength: 1, maxLength: 3 }).filter(distinctAccounts)
  fc.assert(fc.property(arbitrary, fc.constantFrom('\n', '\r\n'), (statements, lineEnd) => {
    const read = readMt940(Buffer.from(writeMt940(statements, lineEnd)))
    return read.ok && JSON.stringify(read.statements) === JSON.stringify(statements)
  }), { numRuns: 150 })
})

t.test('BAI2 round trip', async () => {
  const arbitrary = fc.array(statement({ reversal: false, counterparty: false, valueDate: 'optional' }, 'bai2', fc.constant('')), { minLength: 1, maxLength: 3 })
    .filter(distinctAccounts)
    .map((statements) => statements.map((each, index) => ({ ...each, statement_ref: `F7/${index + 1}/${each.account}` })))
  fc.assert(fc.property(arbitrary, (statements) => {
    const read = readBai2(Buffer.from(writeBai2(statements, 'F7')))
    return read.ok && JSON.stringify(read.statements) === JSON.stringify(statements)
  }), { numRuns: 150 })
})
