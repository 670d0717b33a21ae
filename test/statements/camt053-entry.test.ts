/**
 * One camt.053 Ntry as one statement line (src/statements/camt053-entry.ts), parsed with the module's own safe XML
 * reader: the amount exact and signed by CdtDbtInd, a reversal's mark the opposite of its effect, booking date or
 * else value date, the reference (end-to-end id unless NOTPROVIDED, then the servicer's or entry reference), the
 * description (unstructured lines, else structured references, else additional information; a batch's own text),
 * the counterparty of the mark's direction; booked entries only; each problem named by its path.
 */
import t from 'tap'
import { dateIn, entryOf, isBooked, signedAmountIn } from '../../src/statements/camt053-entry.ts'
import { FileProblem } from '../../src/statements/types.ts'
import { child, parseXml, type XmlNode } from '../../src/statements/xml.ts'

function ntry(inner: string): XmlNode {
  return child(parseXml(`<Ntry>${inner}</Ntry>`), 'Ntry')!
}

function problem(run: () => unknown): FileProblem {
  try {
    run()
  } catch (error) {
    if (error instanceof FileProblem) return error
    throw error
  }
  throw new Error('no problem')
}

const tx = (inner: string) => `<NtryDtls><TxDtls>${inner}</TxDtls></NtryDtls>`

t.test('a credit transfer: amount, mark, dates, end-to-end id, remittance lines, the debtor', async (t) => {
  const entry = ntry(`<Amt Ccy="EUR">1234.50</Amt><CdtDbtInd>CRDT</CdtDbtInd><Sts>BOOK</Sts>
    <BookgDt><Dt>2026-03-10</Dt></BookgDt><ValDt><DtTm>2026-03-11T09:00:00+01:00</DtTm></ValDt><AcctSvcrRef>BANK-1</AcctSvcrRef>
    ${tx(`<Refs><EndToEndId>E2E-42</EndToEndId></Refs><RmtInf><Ustrd>Invoice 42</Ustrd><Ustrd>March</Ustrd></RmtInf>
      <RltdPties><Dbtr><Nm>ACME GmbH</Nm></Dbtr><DbtrAcct><Id><IBAN>DE89370400440532013000</IBAN></Id></DbtrAcct><Cdtr><Nm>Us</Nm></Cdtr></RltdPties>`)}`)
  t.same(entryOf(entry, 'EUR', '/Ntry[0]'), {
    amount: 123450, mark: 'credit', reversal: false, date: '2026-03-10', value_date: '2026-03-11', reference: 'E2E-42',
    description: 'Invoice 42 March', counterparty: { name: 'ACME GmbH', account: 'DE89370400440532013000' },
  })
})

t.test('a debit is negative and its counterparty is the creditor; NOTPROVIDED falls back to the servicer\'s reference', async (t) => {
  const entry = ntry(`<Amt Ccy="JPY">1500</Amt><CdtDbtInd>DBIT</CdtDbtInd><ValDt><Dt>2026-03-12</Dt></ValDt>
    ${tx(`<Refs><EndToEndId>NOTPROVIDED</EndToEndId><AcctSvcrRef>SVC-9</AcctSvcrRef></Refs><RmtInf><Strd><CdtrRefInf><Ref>RF18539007547034</Ref></CdtrRefInf></Strd></RmtInf>
      <RltdPties><Dbtr><Nm>Us</Nm></Dbtr><Cdtr><Pty><Nm>Landlord</Nm></Pty></Cdtr><CdtrAcct><Id><Othr><Id>12345678</Id></Othr></Id></CdtrAcct></RltdPties>`)}`)
  t.same(entryOf(entry, 'JPY', '/Ntry[1]'), {
    amount: -1500, mark: 'debit', reversal: false, date: '2026-03-12', value_date: '2026-03-12', reference: 'SVC-9',
    description: 'RF18539007547034', counterparty: { name: 'Landlord', account: '12345678' },
  }, 'no booking date: the value date; a structured reference as description; Pty/Nm and Othr/Id (001.08)')
})

t.test('a reversal: the effect is the amount\'s sign, the mark the original\'s direction, the parties the original\'s', async (t) => {
  const entry = ntry(`<Amt Ccy="KWD">1.005</Amt><CdtDbtInd>CRDT</CdtDbtInd><RvslInd>true</RvslInd><BookgDt><Dt>2026-03-13</Dt></BookgDt><NtryRef>NR-1</NtryRef>
    ${tx('<RltdPties><Dbtr><Nm>Payer</Nm></Dbtr><Cdtr><Nm>Payee</Nm></Cdtr></RltdPties><AddtlTxInf>returned</AddtlTxInf>')}`)
  t.match(entryOf(entry, 'KWD', '/Ntry[2]'), { amount: 1005, mark: 'debit', reversal: true, reference: 'NR-1', description: 'returned', counterparty: { name: 'Payee', account: null } })
  t.equal(entryOf(ntry('<Amt>1.00</Amt><CdtDbtInd>DBIT</CdtDbtInd><RvslInd>1</RvslInd><BookgDt><Dt>2026-03-13</Dt></BookgDt>'), 'EUR', '/Ntry').mark, 'credit', 'RvslInd 1 is true too')
})

t.test('a batch booking: one line with the entry\'s amount, its own text, no single counterparty or end-to-end id', async (t) => {
  const entry = ntry(`<Amt Ccy="EUR">30.00</Amt><CdtDbtInd>CRDT</CdtDbtInd><BookgDt><Dt>2026-03-14</Dt></BookgDt><AcctSvcrRef>BATCH-1</AcctSvcrRef><AddtlNtryInf>Collective credit</AddtlNtryInf>
    <NtryDtls><TxDtls><Refs><EndToEndId>A</EndToEndId></Refs><RmtInf><Ustrd>one</Ustrd></RmtInf></TxDtls><TxDtls><Refs><EndToEndId>B</EndToEndId></Refs><RmtInf><Ustrd>two</Ustrd></RmtInf></TxDtls></NtryDtls>`)
  t.match(entryOf(entry, 'EUR', '/Ntry'), { amount: 3000, reference: 'BATCH-1', description: 'Collective credit', counterparty: null })
  const untitled = ntry(`<Amt>30.00</Amt><CdtDbtInd>CRDT</CdtDbtInd><BookgDt><Dt>2026-03-14</Dt></BookgDt>
    <NtryDtls><TxDtls><RmtInf><Ustrd>one</Ustrd></RmtInf></TxDtls><TxDtls><RmtInf><Ustrd>two</Ustrd></RmtInf></TxDtls></NtryDtls>`)
  t.equal(entryOf(untitled, 'EUR', '/Ntry').description, 'one; two', 'without its own text: the transactions\' texts')
  t.equal(entryOf(ntry('<Amt>1.00</Amt><CdtDbtInd>CRDT</CdtDbtInd><BookgDt><Dt>2026-03-14</Dt></BookgDt>'), 'EUR', '/Ntry').description, null, 'no text at all')
})

t.test('booked entries only', async (t) => {
  t.ok(isBooked(ntry('<Sts>BOOK</Sts>')))
  t.ok(isBooked(ntry('<Sts><Cd>BOOK</Cd></Sts>')), 'Sts/Cd (001.08)')
  t.ok(isBooked(ntry('<Amt>1</Amt>')), 'no status: booked')
  t.notOk(isBooked(ntry('<Sts>PDNG</Sts>')))
  t.notOk(isBooked(ntry('<Sts><Cd>INFO</Cd></Sts>')))
})

t.test('problems named by their path', async (t) => {
  const amount = (inner: string) => problem(() => signedAmountIn(ntry(inner), 'EUR', '/Stmt[0]/Ntry[3]'))
  t.match(amount('<CdtDbtInd>CRDT</CdtDbtInd>'), { path: '/Stmt[0]/Ntry[3]/Amt', message: 'missing amount' })
  t.match(amount('<Amt Ccy="USD">1.00</Amt><CdtDbtInd>CRDT</CdtDbtInd>'), { path: '/Stmt[0]/Ntry[3]/Amt', message: 'currency USD differs from the statement\'s EUR' })
  t.match(amount('<Amt>1.001</Amt><CdtDbtInd>CRDT</CdtDbtInd>'), { path: '/Stmt[0]/Ntry[3]/Amt' }, 'more decimals than EUR has')
  t.match(amount('<Amt>1,00</Amt><CdtDbtInd>CRDT</CdtDbtInd>'), { path: '/Stmt[0]/Ntry[3]/Amt' }, 'a comma is no camt decimal mark')
  t.match(amount('<Amt>1.00</Amt><CdtDbtInd>CR</CdtDbtInd>'), { path: '/Stmt[0]/Ntry[3]/CdtDbtInd', message: '"CR" is neither CRDT nor DBIT' })
  t.equal(signedAmountIn(ntry('<Amt>0.00</Amt><CdtDbtInd>DBIT</CdtDbtInd>'), 'EUR', '/'), 0, 'a zero debit is 0, not -0')
  t.ok(Object.is(signedAmountIn(ntry('<Amt>0.00</Amt><CdtDbtInd>DBIT</CdtDbtInd>'), 'EUR', '/'), 0))
  t.match(problem(() => entryOf(ntry('<Amt>1.00</Amt><CdtDbtInd>CRDT</CdtDbtInd>'), 'EUR', '/Ntry[5]')), { path: '/Ntry[5]', message: 'an entry with neither booking date nor value date' })
  t.match(problem(() => dateIn(child(ntry('<BookgDt><Dt>10.03.2026</Dt></BookgDt>'), 'BookgDt'), '/Ntry/BookgDt')), { path: '/Ntry/BookgDt', message: '"10.03.2026" is not a date' })
  t.equal(dateIn(undefined, '/x'), null, 'no date element')
})
