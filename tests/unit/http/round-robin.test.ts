import { expect } from 'chai'
import { roundRobinByConnection } from '../../../adapters/http/koa/round-robin'

interface FakeRequest {
  readonly socket: object
  readonly name: string
}

const nextCheckPhase = (): Promise<void> => new Promise((resolve) => setImmediate(resolve))

/** A listener over `roundRobinByConnection` that records the order in which it hands requests over. */
const recording = () => {
  const handedOver: string[] = []
  const listener = roundRobinByConnection((request: FakeRequest) => void handedOver.push(request.name))
  return { handedOver, arrive: (name: string, socket: object): void => listener({ socket, name }, {}) }
}

describe('roundRobinByConnection', () => {
  it('hands the requests of a turn over in its check phase, the connection served longest ago first and a new one before both', async () => {
    const [a, b, c] = [{}, {}, {}]
    const server = recording()
    server.arrive('b1', b)
    server.arrive('a1', a)
    await nextCheckPhase()

    server.arrive('a2', a)
    server.arrive('c1', c)
    server.arrive('b2', b)
    expect(server.handedOver, 'nothing handed over while the poll phase reads').to.deep.equal(['b1', 'a1'])
    await nextCheckPhase()
    expect(server.handedOver.slice(2)).to.deep.equal(['c1', 'b2', 'a2'])
  })

  it('keeps the requests of one connection in the order they came', async () => {
    const [a, b] = [{}, {}]
    const server = recording()
    server.arrive('b1', b)
    await nextCheckPhase()
    server.arrive('b2', b)
    server.arrive('a1', a)
    server.arrive('a2', a)
    await nextCheckPhase()
    expect(server.handedOver).to.deep.equal(['b1', 'a1', 'a2', 'b2'])
  })

  it("lets each request's promise continuations run before it hands over the next", async () => {
    const steps: string[] = []
    const listener = roundRobinByConnection(async (request: FakeRequest) => {
      steps.push(`${request.name} begins`)
      await Promise.resolve()
      await Promise.resolve()
      steps.push(`${request.name} ends`)
    })
    listener({ socket: {}, name: 'first' }, {})
    listener({ socket: {}, name: 'second' }, {})
    await nextCheckPhase()
    await nextCheckPhase()
    expect(steps).to.deep.equal(['first begins', 'first ends', 'second begins', 'second ends'])
  })

  it('hands over once each request that comes while others are handed over, in a later check phase', async () => {
    const handedOver: string[] = []
    const listener = roundRobinByConnection((request: FakeRequest) => {
      handedOver.push(request.name)
      // A request that Node emits from within another's handling (a pipelined one, or an Expect
      // request emitted again): it joins the list while the check phase runs.
      if (request.name === 'first') listener({ socket: {}, name: 'during' }, {})
    })
    listener({ socket: {}, name: 'first' }, {})
    listener({ socket: {}, name: 'second' }, {})
    await nextCheckPhase()
    expect(handedOver, 'in the check phase it came in').to.deep.equal(['first', 'second'])
    await nextCheckPhase()
    expect(handedOver, 'in the next one').to.deep.equal(['first', 'second', 'during'])
  })
})
