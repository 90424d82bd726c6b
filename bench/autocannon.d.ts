/** The part of autocannon 9 the bench uses (the package ships no types). */
declare module 'autocannon' {
  import { EventEmitter } from 'node:events'

  namespace autocannon {
    interface Request {
      method?: string
      path?: string
      headers?: Record<string, string>
      body?: string | Buffer
      setupRequest?: (request: Record<string, unknown>, context: Record<string, unknown>) => Record<string, unknown> | null
    }

    interface Options {
      url: string
      connections?: number
      duration?: number
      timeout?: number
      requests?: Request[]
    }

    interface Result {
      duration: number
      errors: number
      timeouts: number
      non2xx: number
      '2xx': number
      statusCodeStats?: Record<string, { count: number }>
    }

    interface Instance extends EventEmitter {
      stop(): void
    }
  }

  function autocannon(options: autocannon.Options, callback: (error: Error | null, result: autocannon.Result) => void): autocannon.Instance

  export = autocannon
}
