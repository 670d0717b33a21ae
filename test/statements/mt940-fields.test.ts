/**
 * MT940 field contents (src/statements/mt940-fields.ts): balances (:60F:/:62F:) with their mark, date, currency
 * and exact minor units; statement lines (:61:) with value and entry dates (the entry date's year nearest the
 * value date, across New Year), marks and reversals, references and supplementary details; :86: as free text, in
 * the German ?NN layout and in the SWIFT-style /KEYWORD/ layout; and each malformed field named by its line.
 */
import t from 'tap'
import { amountOf, balanceOf, detailsOf, lineOf, type Mt940Field } from '../../src/statements/mt940-fields.ts'
import { FileProblem } from '../../src/statements/types.ts'

const field = (tag: string, value: string, line = 7): Mt940Field => ({ tag, value, line })

function problem(run: () => unknown): FileProblem {
  try {
    run()
  } catch (error) {
    if (error instanceof FileProblem) return error
    throw error
  }
  throw new Error('no problem')
}

t.test('balances: a credit positive, a debit negative, in the currency\'s minor units', async (t) => {
  t.same(balanceOf(field('60F', 'C110522EUR3236,28')), { amount: 323628, date: '2011-05-22', currency: 'EUR' })
  t.same(balanceOf(field('62F', 'D260131JPY1500,')), { amount: -1500, date: '2026-01-31', currency: 'JPY' }, 'no decimals for JPY')
  t.same(balanceOf(field('62F', 'C991231KWD1,005 ')), { amount: 1005, date: '1999-12-31', currency: 'KWD' }, 'three decimals, 99 is 1999, trailing space ignored')
  t.same(balanceOf(field('60M', 'C260301EUR0,5')), { amount: 50, date: '2026-03-01', currency: 'EUR' }, 'one decimal written')
})

t.test('a malformed balance names its field and line', async (t) => {
  const shape = problem(() => balanceOf(field('60F', 'X110522EUR3236,28', 12)))
  t.equal(shape.path, 'line 12')
  t.match(shape.message, /^:60F: is not mark, date, currency and amount/)
  t.match(problem(() => balanceOf(field('62F', 'C260230EUR1,00'))).message, /date 260230 is not a calendar date/)
  t.match(problem(() => balanceOf(field('62F', 'C260301EUR1,001'))).message, /^:62F: /, 'more decimals than EUR has')
  t.match(problem(() => balanceOf(field('62F', 'C260301EUR1.00'))).message, /is not mark, date/, 'a point is no MT940 decimal mark')
  t.match(problem(() => amountOf('1,2', 'XXX', field('61', ''))).message, /^:61: /, 'a currency without minor units refuses decimals')
})

t.test(':61: value date, entry date, mark, amount, references and supplementary details', async (t) => {
  t.same(lineOf(field('61', '2603100310C1234,56NTRFINV-2026-03//BANKREF1\nSEPA transfer\n  second line')), {
    valueDate: '2026-03-10', date: '2026-03-10', mark: 'credit', reversal: false, amountText: '1234,56',
    customerReference: 'INV-2026-03', bankReference: 'BANKREF1', supplementary: 'SEPA transfer second line',
  })
  t.match(lineOf(field('61', '260310D12,00NMSCNONREF')), { date: '2026-03-10', mark: 'debit', customerReference: null, bankReference: null, supplementary: null }, 'no entry date, NONREF')
  t.match(lineOf(field('61', '260310    D12,00NMSCREF')), { date: '2026-03-10', customerReference: 'REF' }, 'four spaces for the entry date (Citi)')
  t.match(lineOf(field('61', '260310RC5,NCHGREF')), { mark: 'credit', reversal: true, amountText: '5,' }, 'a reversal of a credit')
  t.match(lineOf(field('61', '260310RD5,NCHGREF')), { mark: 'debit', reversal: true })
  t.match(lineOf(field('61', '260310CR5,00NTRFREF')), { mark: 'credit', amountText: '5,00' }, 'a funds code after the mark')
})

t.test('the entry date takes the year nearest the value date, across New Year and leap days', async (t) => {
  t.equal(lineOf(field('61', '2512311231C1,00NTRFX')).date, '2025-12-31')
  t.equal(lineOf(field('61', '2601020102C1,00NTRFX')).date, '2026-01-02')
  t.equal(lineOf(field('61', '2601021231C1,00NTRFX')).date, '2025-12-31', 'booked the year before')
  t.equal(lineOf(field('61', '2512300102C1,00NTRFX')).date, '2026-01-02', 'booked the year after')
  t.equal(lineOf(field('61', '2503010229C1,00NTRFX')).date, '2024-02-29', 'only 2024 has a 29 February nearby')
  t.match(problem(() => lineOf(field('61', '2503011332C1,00NTRFX'))).message, /entry date 1332 is not a calendar date/)
})

t.test('a malformed :61: names its line', async (t) => {
  const bad = problem(() => lineOf(field('61', 'not a line', 30)))
  t.equal(bad.path, 'line 30')
  t.match(bad.message, /:61: does not read as date, mark, amount, type and reference: "not a line"/)
  t.match(problem(() => lineOf(field('61', '261310C1,00NTRFX'))).message, /value date 261310 is not a calendar date/)
})

t.test(':86: free text joins its lines', async (t) => {
  t.same(detailsOf('Payment for\n invoice 42 '), { description: 'Payment for invoice 42', endToEndId: null, counterparty: null })
  t.same(detailsOf('/PT/FT/PY/Citi text'), { description: '/PT/FT/PY/Citi text', endToEndId: null, counterparty: null }, 'a slash but no keyword: free text')
  t.same(detailsOf(''), { description: null, endToEndId: null, counterparty: null })
})

t.test(':86: German ?NN subfields: purpose, end-to-end id, counterparty account and name', async (t) => {
  const details = detailsOf('166?00GUTSCHRIFT?20EREF+E2E-123 SVWZ+Rechnung?21 42?30COBADEFFXXX?31DE89370400440532013000?32Max Muster?33mann GmbH')
  t.same(details, {
    description: 'EREF+E2E-123 SVWZ+Rechnung 42', endToEndId: 'E2E-123',
    counterparty: { name: 'Max Mustermann GmbH', account: 'DE89370400440532013000' },
  })
  t.same(detailsOf('166?20EREF+NOTPROVIDED SVWZ+x'), { description: 'EREF+NOTPROVIDED SVWZ+x', endToEndId: null, counterparty: null }, 'NOTPROVIDED is no id')
  t.same(detailsOf('105?20Miete\n?21 Maerz'), { description: 'Miete Maerz', endToEndId: null, counterparty: null }, 'a subfield continued on the next line')
})

t.test(':86: SWIFT-style keywords: EREF (else PREF), CNTP or NAME/IBAN, REMI in its three forms', async (t) => {
  t.same(detailsOf('/EREF/E2E-9//CNTP/NL91ABNA0417164300/ABNANL2A/J. Jansen/Amsterdam/REMI/USTD//Invoice 2026/03 paid/'), {
    description: 'Invoice 2026/03 paid', endToEndId: 'E2E-9', counterparty: { name: 'J. Jansen', account: 'NL91ABNA0417164300' },
  })
  t.match(detailsOf('/PREF/BATCH-7/REMI/STRD/CUR/RF18539007547034/'), { description: 'RF18539007547034', endToEndId: 'BATCH-7' }, 'a structured creditor reference')
  t.match(detailsOf('/EREF/NOTPROVIDED/NAME/Old Bank Style/IBAN/NL02RABO0123456789/REMI/plain text'), {
    description: 'plain text', endToEndId: null, counterparty: { name: 'Old Bank Style', account: 'NL02RABO0123456789' },
  })
  t.same(detailsOf('/TRCD/00100/'), { description: '/TRCD/00100/', endToEndId: null, counterparty: null }, 'no REMI: the whole text')
})
