/**
 * The last line of a clean stop (README.md, stopping) counts the log records flushed while stopping: records
 * already durable when the stop began are not among them, however many shards hold them.
 */
import t from 'tap'
import { createAccount, raiseLimits } from '../support/api.ts'
import { call, startTestService } from '../support/service.ts'

t.test('writes answered before the stop are not counted as flushed by it', async (t) => {
  const service = await startTestService()
  t.teardown(() => service.destroy())
  const { baseUrl, apiKey: key } = service
  await raiseLimits(service, 'default')
  for (const name of ['assets:bank', 'income:sales']) await createAccount(baseUrl, key, name)
  for (let index = 0; index < 5; index++) {
    const posted = await call(baseUrl, 'POST', '/v2/entries', { key, body: { lines: [{ account: 'assets:bank', amount: index + 1 }, { account: 'income:sales', amount: -(index + 1) }] } })
    t.equal(posted.status, 201)
  }
  // Every answer above came once its record was durable: the stop has nothing left to flush.
  await service.stop()
  const line = service.printed.find((each) => each.startsWith('trueup stopped:'))
  t.match(line ?? '', /; 0 log records flushed, last durable seq \d+, /, line ?? 'no stop line')
})
