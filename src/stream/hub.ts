/**
 * @module Live updates on the edge's side (docs/API.md, WebSocket API and live updates): which sessions watch
 * which topic (`r:<window id>`, `a:<account id>`), and each update a shard hands out, delivered to them. The
 * shard computes an update when its command is applied and hands it out once durable, in log order; a session
 * becomes a watcher only when its subscription's answer (the values it starts from) has been written, so it
 * gets exactly the updates after those values.
 */

import type { Shard } from '../shard/operation.js'

/** Where updates go: a session. It takes an update itself when its reader is behind (coalescing it), else leaves it to the topic's publish. */
export interface UpdateSink {
  takes(topic: string, text: string): boolean
}

/** Sends a message to every socket on a topic at once (uWebSockets.js app.publish: the loop over sockets in C++). */
export type Publish = (topic: string, text: string) => void

export class LiveHub {
  readonly #shard: Shard
  readonly #sinks = new Map<string, Set<UpdateSink>>()

  constructor(shard: Shard, publish: Publish) {
    this.#shard = shard
    shard.onUpdate((topic, text) => {
      const sinks = this.#sinks.get(topic)
      if (sinks === undefined) return
      let published = false
      for (const sink of sinks) {
        if (sink.takes(topic, text) || published) continue
        publish(topic, text)
        published = true
      }
    })
  }

  /** A subscription's topic, watched by the shard since it read the topic's value: from now on its updates reach the sink. */
  watch(workspaceId: string, topic: string, sink: UpdateSink): void {
    let sinks = this.#sinks.get(topic)
    if (sinks === undefined) this.#sinks.set(topic, (sinks = new Set()))
    // Subscribed again: the shard counted that subscription too; this sink holds the topic once.
    if (sinks.has(sink)) return this.#let(workspaceId, [topic])
    sinks.add(sink)
  }

  unwatch(workspaceId: string, topic: string, sink: UpdateSink): void {
    const sinks = this.#sinks.get(topic)
    if (sinks === undefined || !sinks.delete(sink)) return
    if (sinks.size === 0) this.#sinks.delete(topic)
    this.#let(workspaceId, [topic])
  }

  /** Tells the shard a subscription let go of topics (it stops computing updates nobody watches). */
  #let(workspaceId: string, topics: readonly string[]): void {
    void this.#shard.send({ op: 'unwatch', workspace: workspaceId, topics })
  }

  /** Topics the shard watches for a subscription that ended before its answer was written (its socket closed). */
  dropped(workspaceId: string, topics: readonly string[]): void {
    this.#let(workspaceId, topics)
  }
}
