/** @module The part of autocannon's API the bench uses (the package ships no types; @types/autocannon would be one more dependency). */

declare module 'autocannon' {
  namespace autocannon {
    interface Request {
      method?: string
      path?: string
      headers?: Record<string, string>
      body?: string | Buffer
      setupRequest?: (request: Record<string, unknown>, context: Record<string, unknown>) => Record<string, unknown> | null
      onResponse?: (status: number, body: string, context: Record<string, unknown>) => void
    }

    interface Options {
      url: string
      connections?: number
      pipelining?: number
      /** Seconds. */
      duration?: number
      /** Seconds. */
      timeout?: number
      method?: string
      headers?: Record<string, string>
      body?: string | Buffer
      requests?: Request[]
      setupClient?: (client: unknown) => void
    }

    interface Histogram {
      average: number
      p50: number
      p99: number
      total: number
      sent: number
    }

    interface Result {
      requests: Histogram
      latency: Histogram
      non2xx: number
      errors: number
      timeouts: number
      resets: number
    }
  }

  function autocannon(options: autocannon.Options): Promise<autocannon.Result>
  export default autocannon
}
