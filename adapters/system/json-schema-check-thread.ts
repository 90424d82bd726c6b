/**
 * The thread behind threaded-json-schema-checker.ts: checks each schema it is sent (meta-schema,
 * patterns, compiling) and answers with its problems, one at a time, in the order sent.
 */
import { parentPort } from 'node:worker_threads'
import { JsonObject } from '../../domain/shared/json'
import { checkSchema } from './ajv-json-schema-checker'

export interface CheckRequest {
  readonly id: number
  readonly schema: JsonObject
}

export interface CheckAnswer {
  readonly id: number
  readonly problems: ReadonlyArray<string>
}

parentPort?.on('message', ({ id, schema }: CheckRequest) => {
  const answer: CheckAnswer = { id, problems: checkSchema(schema) }
  parentPort?.postMessage(answer)
})
