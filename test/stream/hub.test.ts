/**
 * src/stream/hub.ts on its own, over a stand-in shard: an update reaches a topic's watchers (published once for all
 * that do not take it themselves, not at all when each takes it or nobody watches); a sink watching a topic again is
 * held once and the shard told to let the extra subscription go; unwatching, and subscriptions dropped before their
 * answer, tell the shard; an unknown unwatch tells it nothing.
 */
import t from 'tap'
import type { Operation, Shard } from '../../src/shard/operation.ts'
import { LiveHub, type UpdateSink } from '../../src/stream/hub.ts'

function setUp() {
  const sent: Operation[] = []
  const published: [string, string][] = []
  let update: (topic: string, text: string) => void = () => { throw new Error('no listener') }
  const shard = {
    onUpdate: (listener: typeof update) => { update = listener },
    send: async (operation: Operation) => { sent.push(operation); return { status: 200 } },
  } as unknown as Shard
  const hub = new LiveHub(shard, (topic, text) => published.push([topic, text]))
  return { hub, sent, published, update: (topic: string, text: string) => update(topic, text) }
}

/** A session: takes updates itself while `behind`, recording them. */
function sink(behind = false): UpdateSink & { taken: string[]; behind: boolean } {
  return { taken: [], behind, takes(topic, text) { if (this.behind) this.taken.push(`${topic} ${text}`); return this.behind } }
}

t.test('an update is published once for the topic\'s watchers, and not for topics nobody watches', async (t) => {
  const { hub, published, update, sent } = setUp()
  hub.watch('w', 'r:1', sink())
  hub.watch('w', 'r:1', sink())
  update('r:1', 'one')
  update('a:9', 'nobody')
  t.same(published, [['r:1', 'one']])
  t.same(sent, [], 'watching tells the shard nothing (it counted the subscription when it answered)')
})

t.test('a session behind takes the update itself; publish covers the others, or none when all take it', async (t) => {
  const { hub, published, update } = setUp()
  const slow = sink(true)
  const fast = sink()
  hub.watch('w', 'r:1', slow)
  hub.watch('w', 'r:1', fast)
  update('r:1', 'one')
  t.same(slow.taken, ['r:1 one'])
  t.same(published, [['r:1', 'one']])
  fast.behind = true
  update('r:1', 'two')
  t.same(published, [['r:1', 'one']], 'every watcher took it: nothing published')
  t.same(fast.taken, ['r:1 two'])
})

t.test('watching again: held once, the shard told to let the extra subscription go', async (t) => {
  const { hub, sent, published, update } = setUp()
  const session = sink(true)
  hub.watch('w', 'a:1', session)
  hub.watch('w', 'a:1', session)
  t.same(sent, [{ op: 'unwatch', workspace: 'w', topics: ['a:1'] }])
  update('a:1', 'x')
  t.same(session.taken, ['a:1 x'], 'delivered once')
  t.same(published, [])
})

t.test('unwatching tells the shard; the last watcher gone, updates go nowhere; an unknown unwatch tells nothing', async (t) => {
  const { hub, sent, published, update } = setUp()
  const first = sink()
  const second = sink()
  hub.watch('w', 'r:1', first)
  hub.watch('w', 'r:1', second)
  hub.unwatch('w', 'r:1', first)
  update('r:1', 'still')
  hub.unwatch('w', 'r:1', second)
  update('r:1', 'gone')
  hub.unwatch('w', 'r:1', second)
  hub.unwatch('w', 'r:2', first)
  t.same(published, [['r:1', 'still']])
  t.same(sent, [{ op: 'unwatch', workspace: 'w', topics: ['r:1'] }, { op: 'unwatch', workspace: 'w', topics: ['r:1'] }])
})

t.test('a subscription dropped before its answer: its topics let go', async (t) => {
  const { hub, sent } = setUp()
  hub.dropped('w', ['r:1', 'a:2'])
  t.same(sent, [{ op: 'unwatch', workspace: 'w', topics: ['r:1', 'a:2'] }])
})
