/**
 * GET /metrics (docs/API.md, Metrics) shows the gauges as they are when scraped, for any number of shards: an
 * event waiting for its webhook is in trueup_webhook_outbox_items at once, and gone once delivered.
 */
import t from 'tap'
import { createAccount, raiseLimits } from '../support/api.ts'
import { call, startTestService } from '../support/service.ts'
import { startReceiver } from '../support/webhook-receiver.ts'

function sample(text: string, series: string): number | undefined {
  const line = text.split('\n').find((candidate) => candidate.startsWith(`${series} `))
  return line === undefined ? undefined : Number(line.slice(series.length + 1))
}

t.test('the outbox gauge counts an event as soon as its entry is answered', async (t) => {
  const receiver = await startReceiver()
  t.teardown(() => receiver.close())
  // The receiver fails every attempt, and the next one is a minute away: the event stays in the outbox.
  receiver.respond = () => 500
  const service = await startTestService({ env: { WEBHOOK_BACKOFF_BASE_MS: '60000', WEBHOOK_BACKOFF_CAP_MS: '60000' } })
  t.teardown(() => service.destroy())
  const { baseUrl, apiKey: key } = service
  await raiseLimits(service, 'default')
  for (const name of ['assets:bank', 'income:sales']) await createAccount(baseUrl, key, name)
  const hook = await call(baseUrl, 'POST', '/v2/webhooks', { key, body: { url: receiver.url, events: ['entry.posted'] } })
  t.equal(hook.status, 201, hook.text)
  const before = sample((await call(baseUrl, 'GET', '/metrics')).text, 'trueup_webhook_outbox_items')
  t.equal(before, 0, 'nothing waiting yet')
  const posted = await call(baseUrl, 'POST', '/v2/entries', { key, body: { lines: [{ account: 'assets:bank', amount: 5 }, { account: 'income:sales', amount: -5 }] } })
  t.equal(posted.status, 201)
  const after = sample((await call(baseUrl, 'GET', '/metrics')).text, 'trueup_webhook_outbox_items')
  t.equal(after, 1, 'the event is waiting, right after the answer')
})
