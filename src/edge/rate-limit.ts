/** @module A token bucket: capacity per_minute/2, continuous refill of per_minute/60 per second, clock injected. */

export class TokenBucket {
  #perMinute: number
  #tokens: number
  #lastMs: number

  constructor(perMinute: number, nowMs: number) {
    this.#perMinute = perMinute
    this.#tokens = this.capacity
    this.#lastMs = nowMs
  }

  get limitPerMinute(): number { return this.#perMinute }
  /** Double the rate for 30 s (SPEC.md 8). */
  get capacity(): number { return this.#perMinute / 2 }

  #refill(nowMs: number): void {
    // A clock that goes backwards adds nothing.
    const elapsedMs = Math.max(0, nowMs - this.#lastMs)
    this.#tokens = Math.min(this.capacity, this.#tokens + (elapsedMs * this.#perMinute) / 60_000)
    this.#lastMs = Math.max(this.#lastMs, nowMs)
  }

  tryTake(nowMs: number): boolean {
    this.#refill(nowMs)
    if (this.#tokens < 1) return false
    this.#tokens -= 1
    return true
  }

  remaining(nowMs: number): number {
    this.#refill(nowMs)
    return Math.floor(this.#tokens)
  }

  retryAfterSeconds(nowMs: number): number {
    this.#refill(nowMs)
    if (this.#tokens >= 1) return 1
    return Math.max(1, Math.ceil(((1 - this.#tokens) * 60) / this.#perMinute))
  }

  /** Applies a new limit at once: the tokens held stay, clamped to the new capacity. */
  setRate(perMinute: number, nowMs: number): void {
    this.#refill(nowMs)
    this.#perMinute = perMinute
    this.#tokens = Math.min(this.#tokens, this.capacity)
  }
}
