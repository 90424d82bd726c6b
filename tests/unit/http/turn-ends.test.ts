import { expect } from 'chai'
import { turnEnds } from '../../../adapters/http/koa/turn-ends'

describe('turnEnds', () => {
  it('gives everything that asks in one turn the same end, and a new one in the next turn', async () => {
    const endOfTurn = turnEnds(60_000)
    const first = endOfTurn()
    expect(endOfTurn()).to.equal(first)
    await first
    const next = endOfTurn()
    expect(next).to.not.equal(first)
    await next
  })

  it('settles after the ticks and check-phase callbacks queued before it was asked for', async () => {
    const endOfTurn = turnEnds(60_000)
    const order: string[] = []
    const before = new Promise<void>((resolve) => setImmediate(() => resolve(void order.push('queued before'))))
    const tick = new Promise<void>((resolve) => process.nextTick(() => resolve(void order.push('tick'))))
    const ended = endOfTurn().then(() => void order.push('turn ended'))
    const after = new Promise<void>((resolve) => setImmediate(() => resolve(void order.push('queued after'))))
    await Promise.all([before, tick, ended, after])
    expect(order).to.deep.equal(['tick', 'queued before', 'turn ended', 'queued after'])
  })

  it('lets the answers of requests finished in one turn go out together, each in the order it finished', async () => {
    const endOfTurn = turnEnds(60_000)
    const sent: number[] = []
    const answer = async (n: number): Promise<void> => {
      await endOfTurn()
      sent.push(n)
    }
    const answers = [answer(1), answer(2), answer(3)]
    expect(sent, 'nothing sent before the turn ends').to.deep.equal([])
    await Promise.all(answers)
    expect(sent).to.deep.equal([1, 2, 3])
  })

  it('lets a batch open longer than maxWaitMs go when the next answer asks, without waiting for the turn', async () => {
    const endOfTurn = turnEnds(5)
    const first = endOfTurn()
    let firstWent = false
    void first.then(() => (firstWent = true))
    const openedAt = performance.now()
    while (performance.now() - openedAt < 6) {
      // A long synchronous piece of work, as a heavy request's handling is.
    }
    const second = endOfTurn()
    expect(second, 'a new batch').to.not.equal(first)
    await Promise.resolve()
    expect(firstWent, 'the first batch went before the turn ended').to.equal(true)
    await second
  })
})
