import { expect } from 'chai'
import { checkSchema, knownVerdict, verdictKeyOf, verdictToRenew } from '../../../adapters/system/ajv-json-schema-checker'
import { checkedHereUpTo, threadedJsonSchemaChecker } from '../../../adapters/system/threaded-json-schema-checker'
import { JsonObject } from '../../../domain/shared/json'

/** A schema no other test has judged: the verdict cache is shared by the process. */
let made = 0
const fresh = (schema: JsonObject): JsonObject => ({ ...schema, description: `threaded checker test ${process.pid} ${made++}` })

/** A flat schema of `count` properties, each a small object: about 0.3 ms of compiling per property. */
const wide = (count: number): JsonObject =>
  fresh({ type: 'object', properties: Object.fromEntries(Array.from({ length: count }, (_, i) => [`p${i}`, { type: 'string', minLength: 1 }])) })

describe('threadedJsonSchemaChecker', function () {
  this.timeout(20_000)
  const checker = threadedJsonSchemaChecker()

  it('prepares the verdict problemsOf then gives, the same as checking on this thread', async () => {
    const valid = wide(checkedHereUpTo)
    const invalid = { ...wide(checkedHereUpTo), required: 'n', minProperties: 'one' }
    for (const schema of [valid, invalid]) {
      expect(knownVerdict(verdictKeyOf(schema)!), 'before').to.equal(undefined)
      await checker.prepare!(schema)
      expect(knownVerdict(verdictKeyOf(schema)!), 'kept by prepare').to.deep.equal(checkSchema(schema))
      expect(checker.problemsOf(schema)).to.deep.equal(checkSchema(schema))
    }
    expect(checker.problemsOf(invalid)).to.have.length.above(0)
  })

  it('leaves the event loop free while a schema of a thousand properties compiles', async () => {
    const schema = wide(1_000)
    let turns = 0
    let turning = true
    const turn = (): void => {
      turns += 1
      if (turning) setImmediate(turn)
    }
    setImmediate(turn)
    await checker.prepare!(schema)
    turning = false
    expect(turns, 'event-loop turns while it compiled').to.be.above(1)
    expect(checker.problemsOf(schema)).to.deep.equal([])
  })

  it('asks the thread once for a schema asked about twice at once, and not again once judged', async () => {
    const schema = wide(checkedHereUpTo)
    const first = checker.prepare!(schema)
    expect(checker.prepare!(wide(checkedHereUpTo))).to.not.equal(first)
    expect(checker.prepare!(schema)).to.equal(first)
    await first
    expect(knownVerdict(verdictKeyOf(schema)!)).to.deep.equal([])
    const again = checker.prepare!(schema)
    expect(again).to.not.equal(first)
    await again
  })

  it("takes owners in turn: one owner's waiting schemas hold another's up by one schema, not all of them", async () => {
    const turns = threadedJsonSchemaChecker()
    const settled: string[] = []
    const prepared = (owner: string, schema: JsonObject, name: string) => turns.prepare!(schema, owner).then(() => settled.push(name))
    // Sent together: four of org.a's, then one of org.b's; the thread is free, so a1 starts at once.
    const all = [
      prepared('org.a', wide(300), 'a1'),
      prepared('org.a', wide(300), 'a2'),
      prepared('org.a', wide(300), 'a3'),
      prepared('org.a', wide(300), 'a4'),
      prepared('org.b', wide(checkedHereUpTo), 'b1'),
    ]
    await Promise.all(all)
    expect(settled).to.deep.equal(['a1', 'b1', 'a2', 'a3', 'a4'])
  })

  it('judges a schema the thread takes too long over unusable, and carries on with a new thread', async () => {
    const impatient = threadedJsonSchemaChecker({ timeoutMs: 1 })
    const slow = wide(1_000)
    await impatient.prepare!(slow)
    expect(impatient.problemsOf(slow)).to.deep.equal(['cannot be checked: compiling it took longer than 0.001 s'])
    // The next schema goes to a new thread (which takes longer than 1 ms to start, so it too is judged so).
    const next = wide(checkedHereUpTo)
    await impatient.prepare!(next)
    expect(impatient.problemsOf(next)).to.deep.equal(['cannot be checked: compiling it took longer than 0.001 s'])
  })

  it('judges a schema that ran out of time again once that verdict is timedOutVerdictForMs old, not before', async () => {
    // A busy moment can make a compile run out of time as well as the schema can: that verdict
    // stayed until 500 other schemas had pushed it out.
    const impatient = threadedJsonSchemaChecker({ timeoutMs: 1, timedOutVerdictForMs: 1_000 })
    const schema = wide(200)
    await impatient.prepare!(schema)
    const timedOut = ['cannot be checked: compiling it took longer than 0.001 s']
    expect(checker.problemsOf(schema)).to.deep.equal(timedOut)
    // Within the second: not sent to the thread again (the patient checker would find it valid).
    await checker.prepare!(schema)
    expect(checker.problemsOf(schema)).to.deep.equal(timedOut)
    await new Promise((resolve) => setTimeout(resolve, 1_100))
    // problemsOf still answers with the old verdict rather than compile on this thread...
    expect(checker.problemsOf(schema)).to.deep.equal(timedOut)
    // ...and prepare judges it again, this time in time.
    await checker.prepare!(schema)
    expect(checker.problemsOf(schema)).to.deep.equal([])
    expect(verdictToRenew(verdictKeyOf(schema)!)).to.equal(false)
  })

  it(`checks a schema of ${checkedHereUpTo} values or fewer on the calling thread, in problemsOf`, async () => {
    // wide(n) holds 3n + 4 values: the schema, its type, its description, its properties, and
    // each property with its type and minLength.
    const widest = Math.floor((checkedHereUpTo - 4) / 3)
    const small = wide(widest)
    await checker.prepare!(small)
    expect(knownVerdict(verdictKeyOf(small)!), 'nothing judged by prepare').to.equal(undefined)
    expect(checker.problemsOf(small)).to.deep.equal([])
    expect(knownVerdict(verdictKeyOf(small)!), 'judged by problemsOf').to.deep.equal([])
    const past = wide(widest + 1)
    await checker.prepare!(past)
    expect(knownVerdict(verdictKeyOf(past)!), 'judged by prepare').to.deep.equal([])
  })

  it('counts the scalars of a schema too: few objects and arrays holding many names go to the thread', async () => {
    // Three objects and arrays; Ajv's compile of dependentRequired grows with the square of its names.
    const schema = fresh({ type: 'object', dependentRequired: { card: Array.from({ length: checkedHereUpTo }, (_, i) => `p${i}`) } })
    await checker.prepare!(schema)
    expect(knownVerdict(verdictKeyOf(schema)!), 'judged by prepare').to.deep.equal([])
  })

  it('settles without a verdict for a schema it cannot send, which problemsOf then checks here', async () => {
    const unsendable = wide(checkedHereUpTo) as Record<string, unknown>
    unsendable.default = () => undefined
    await checker.prepare!(unsendable as JsonObject)
    expect(knownVerdict(verdictKeyOf(unsendable as JsonObject)!)).to.equal(undefined)
    // Still checked on this thread as before.
    expect(checker.problemsOf(fresh({ type: 'string' }))).to.deep.equal([])
  })

  it('does not judge unusable a schema whose answer came in time while the event loop was busy', async () => {
    const checker = threadedJsonSchemaChecker({ timeoutMs: 500 })
    await checker.prepare!(wide(checkedHereUpTo))
    const schema = wide(checkedHereUpTo)
    let done: Promise<void> | undefined
    await new Promise<void>((ready) =>
      setImmediate(() => {
        done = checker.prepare!(schema)
        const end = Date.now() + 1_000
        while (Date.now() < end);
        ready()
      }),
    )
    await done
    expect(checker.problemsOf(schema)).to.deep.equal([])
  })
})
