/**
 * Account visibility (src/ledger/visibility.ts): null sees everything; an exact name sees that account only; a
 * `prefix:*` pattern sees the accounts under the prefix (the colon included), never a sibling sharing its letters.
 */
import t from 'tap'
import { isVisible } from '../../src/ledger/visibility.ts'

t.test('null sees every account', async (t) => {
  for (const name of ['assets:bank', 'x', '']) t.ok(isVisible(null, name))
})

t.test('an exact name sees that account and no other', async (t) => {
  const visibility = ['assets:bank']
  t.ok(isVisible(visibility, 'assets:bank'))
  t.notOk(isVisible(visibility, 'assets:bank:eur'), 'not its children')
  t.notOk(isVisible(visibility, 'assets:ban'))
  t.notOk(isVisible(visibility, 'Assets:bank'), 'case counts')
  t.notOk(isVisible(visibility, 'assets:bank '))
})

t.test('prefix:* sees what lies under prefix:, not the prefix account itself nor a sibling', async (t) => {
  const visibility = ['assets:*']
  t.ok(isVisible(visibility, 'assets:bank'))
  t.ok(isVisible(visibility, 'assets:bank:eur'), 'at any depth')
  t.notOk(isVisible(visibility, 'assets'), 'the prefix account itself is not under it')
  t.notOk(isVisible(visibility, 'assetsx:bank'), 'a sibling sharing the letters')
  t.notOk(isVisible(visibility, 'income:assets:x'))
  t.ok(isVisible(['assets:bank:*'], 'assets:bank:eur'))
  t.notOk(isVisible(['assets:bank:*'], 'assets:bank'))
})

t.test('a list sees the union; an empty list sees nothing; * alone is no pattern', async (t) => {
  const visibility = ['income:sales', 'assets:*']
  t.ok(isVisible(visibility, 'income:sales'))
  t.ok(isVisible(visibility, 'assets:cash'))
  t.notOk(isVisible(visibility, 'income:other'))
  t.notOk(isVisible([], 'assets:bank'))
  t.notOk(isVisible(['*'], 'assets:bank'), 'only a name or prefix:*')
  t.ok(isVisible(['*'], '*'), 'as an exact name it names an account called *')
})
